"""``memfs sync`` and ``propose`` against a real bare remote."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memfs.errors import ConflictError
from memfs.ops.sync import backups, sync
from tests.helpers import FACT, Clone, commit_all, git, race_pushes, remote_head, run_cli


@pytest.mark.slow
def test_conflict_stops_with_the_branch_unchanged_and_says_what_to_do(clone: Clone, remote: Path) -> None:
    """A conflict in a file memfs cannot settle (not a memory: .memfs.toml) still stops cleanly;
    memory files both sides changed are reconciled instead (tests/integration/test_sync_reconcile.py)."""
    a, b = clone("a"), clone("b")
    for repo, attempts in ((a, 3), (b, 4)):
        (repo.root / ".memfs.toml").write_text(f"format = 1\n[sync]\nattempts = {attempts}\n")
        commit_all(repo.root, "settings")
    sync(a.store)
    before, remote_before = b.store.git.head(), remote_head(remote)
    with pytest.raises(ConflictError) as caught:
        sync(b.store)
    message = str(caught.value)
    assert ".memfs.toml" in message and "Nothing was lost and nothing was pushed" in message
    assert "git pull --rebase origin main" in message and "git rebase --continue" in message
    assert b.store.git.head() == before and remote_head(remote) == remote_before
    assert git(b.root, "status", "--porcelain") == ""
    assert not (b.store.git.git_dir / "rebase-merge").exists()
    assert (b.root / ".memfs.toml").read_text().endswith("attempts = 4\n")
    assert [sha for _, sha in backups(b.store)] == [before]
    proc = run_cli("sync", cwd=b.root)
    assert proc.returncode == 3 and "memfs: error: sync stopped" in proc.stderr


def test_propose_cli(clone: Clone) -> None:
    a = clone("a")
    a.write("facts/one.md", fields=FACT, body="one\n")
    proc = run_cli("propose", "--branch", "memfs/agent-a/x", cwd=a.root)
    assert proc.returncode == 0, proc.stderr
    assert "pushed 1 commit(s) to origin/memfs/agent-a/x" in proc.stdout
    assert "memfs review origin/main..memfs/agent-a/x" in proc.stdout


def test_sync_cli_json(clone: Clone) -> None:
    a = clone("a")
    a.write("facts/one.md", fields=FACT, body="one\n")
    proc = run_cli("sync", "--merge", "--json", cwd=a.root, env={"MEMFS_ACTOR": "agent:a"})
    assert proc.returncode == 0, proc.stderr
    assert '"pushed": 1' in proc.stdout and '"mode": "merge"' in proc.stdout
    assert os.path.exists(a.root / "facts/one.md")


def test_sync_takes_its_tries_from_the_command_line(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    race_pushes(a, b, times=10)
    a.write("facts/a.md", fields=FACT, body="a\n")
    done = run_cli("sync", "--attempts", "2", cwd=a.root)
    assert done.returncode == 3 and "(2 attempts" in done.stderr, done.stderr
