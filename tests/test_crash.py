"""A process killed between writing files and committing them loses nothing: the next memfs
command finishes the write (or leaves alone what someone edited since)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from tests.helpers import git, run_cli

CRASH_SCRIPT = """
import os, sys
from memfs.store import atomic, gitcli
import pytest

from memfs.errors import MemfsError
from memfs import MemoryRepo

mode = sys.argv[2]
if mode == "before-commit":
    gitcli.Git.commit_paths = lambda *a, **k: os._exit(9)
else:
    real, calls = atomic.write_bytes, []
    def crashing(path, data):
        if not str(path).endswith("memfs-journal.json"):
            calls.append(path)
            if len(calls) == 2:
                os._exit(9)
        real(path, data)
    atomic.write_bytes = crashing
repo = MemoryRepo.open(sys.argv[1])
fields = {"type": "fact", "scope": "user:U5", "source": "tool:ci"}
with repo.transaction("import", reason="two files") as tx:
    tx.write("a.md", fields=fields, body="first")
    tx.write("b.md", fields=fields, body="second")
"""


def crash(repo: MemoryRepo, mode: str) -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CRASH_SCRIPT), str(repo.root), mode],
                          capture_output=True, text=True)
    assert done.returncode == 9, done.stderr
    assert (repo.git.git_dir / "memfs-journal.json").exists()


def test_crash_before_commit_is_finished_by_the_next_command(repo: MemoryRepo) -> None:
    crash(repo, "before-commit")
    assert git(repo.root, "log", "--format=%s").count("\n") == 1  # only init so far
    done = run_cli("-C", str(repo.root), "ls")
    assert done.returncode == 0 and "finished a write interrupted by a crash (2 file(s)" in done.stderr
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["a.md", "b.md"]
    assert "Memfs-Recovered: yes" in git(repo.root, "log", "-1", "--format=%B")
    assert git(repo.root, "status", "--porcelain") == ""
    assert not (repo.git.git_dir / "memfs-journal.json").exists()


def test_crash_half_way_through_the_files_is_completed(repo: MemoryRepo) -> None:
    crash(repo, "mid-write")
    assert (repo.root / "a.md").exists() and not (repo.root / "b.md").exists()
    reopened = MemoryRepo.open(repo.root)
    assert reopened.read("b.md").body == "second\n" and reopened.read("a.md").body == "first\n"
    assert git(repo.root, "status", "--porcelain") == ""
    assert reopened.notices


def test_files_edited_after_the_crash_are_left_alone(repo: MemoryRepo) -> None:
    crash(repo, "before-commit")
    edited = (repo.root / "a.md").read_text().replace("first", "edited by a human")
    Path(repo.root / "a.md").write_text(edited)
    reopened = MemoryRepo.open(repo.root)
    assert "left alone because they were edited since: a.md" in reopened.notices[0]
    assert (repo.root / "a.md").read_text() == edited
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["b.md"]


def test_a_commit_git_refuses_leaves_everything_as_it_was(repo: MemoryRepo) -> None:
    hook = repo.git.git_dir / "hooks/pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'policy: no commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    persona = (repo.root / "system/persona.md").read_bytes()
    fields = {"type": "fact", "scope": "user:U5", "source": "tool:ci"}
    refused = pytest.raises(MemfsError, match=r"nothing was changed.*no commits today")
    with refused, repo.transaction("import", force=True) as tx:
        tx.write("a.md", fields=fields, body="new")
        tx.write("system/persona.md", fields={"description": "changed"})
    assert not (repo.root / "a.md").exists()
    assert (repo.root / "system/persona.md").read_bytes() == persona
    assert git(repo.root, "status", "--porcelain") == ""
    assert not (repo.git.git_dir / "memfs-journal.json").exists()
