"""``memfs sync`` judges what it fetches before any of it enters the repository: a secret in an
incoming commit's message, a trailer, or any file under the memory root (memories, a README, a
``.txt``) refuses the sync, and the refused fetch leaves neither the commit nor its objects here,
nor the remote-tracking ref moved. A clean fetch is taken in whole (loose objects or a pack)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memfs.errors import SyncRefused
from memfs.ops.sync import sync
from tests.helpers import FACT, PERSON, Clone, git, memory_text

TOKEN = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"

#: (case, file written in the other clone, its text, commit message).
CASES = [
    ("message", "notes/a.txt", "fine\n", f"deploy with {TOKEN}"),
    ("trailer", "notes/b.txt", "fine\n", f"notes\n\nMemfs-Idempotency-Key: {TOKEN}"),
    ("readme", "README.md", f"GITHUB_TOKEN={TOKEN}\n", "readme"),
    ("text-file", "notes/c.txt", f"the bot uses {TOKEN}\n", "notes"),
    ("memory", "facts/t.md", memory_text(f"token {TOKEN}\n", **FACT), "a fact"),
    ("file-name", f"notes/{TOKEN}.txt", "x\n", "a file"),
]


def _has(root: Path, sha: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", sha], cwd=root, capture_output=True).returncode == 0


def _push_commit(root: Path, rel: str, text: str, message: str, branch: str) -> str:
    """A commit made by hand in the clone ``root`` (as a clone without memfs's hooks would) on top
    of its HEAD, pushed to ``branch`` on the remote; its id."""
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "--", rel)
    git(root, *PERSON, "commit", "-q", "--no-verify", "-m", message)
    sha = git(root, "rev-parse", "HEAD").strip()
    git(root, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    git(root, "reset", "-q", "--hard", "HEAD~1")
    return sha


def test_sync_refuses_a_secret_in_any_incoming_commit_and_keeps_none_of_it(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    for case, rel, text, message in CASES:
        sha = _push_commit(b.root, rel, text, message, case)
        with pytest.raises(SyncRefused, match="carry a secret") as refused:
            sync(a.store, branch=case, push=False)
        assert TOKEN not in str(refused.value), case
        assert a.store.git.rev(f"refs/remotes/origin/{case}") is None, case
        assert not _has(a.root, sha), case
    assert not list(a.store.git.git_dir.glob("memfs-quarantine-*"))
    assert not (a.store.git.git_dir / "FETCH_HEAD").exists()


def test_a_clean_fetch_is_taken_whole_even_as_a_pack(clone: Clone) -> None:
    a, b = clone("a"), clone("b")
    git(a.root, "config", "fetch.unpackLimit", "1")  # keep what is fetched as a pack
    sha = _push_commit(b.root, "notes/plain.txt", "nothing secret\n", "plain notes", "main")
    result = sync(a.store, push=False)
    assert result.pulled == 1 and a.store.git.head() == sha
    assert a.store.git.rev("refs/remotes/origin/main") == sha
    assert subprocess.run(["git", "fsck", "--connectivity-only", "--no-dangling"], cwd=a.root,
                          capture_output=True).returncode == 0
    assert not list(a.store.git.git_dir.glob("memfs-quarantine-*"))
