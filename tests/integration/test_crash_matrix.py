"""Crash injection, step by step: every multi-file operation is killed at every step of its
commit path (:mod:`memfs.store.crashpoint`), once (single) or twice in a row, the recovering
command killed at the same step too (double). After the next command the tree is the old or the
new state, committed; no temporary, journal or ``index.lock`` remains; and a write succeeds.

Matrix: 3 operations (a 10-file transaction, a retraction flagging 9 derived memories, a
3-candidate ``remember_batch``) × every step each reaches × single/double. Each commits from a
private copy of the index (nothing else is staged), so its steps (``index-copied``, the commit,
``index-ready``) are in the matrix. A step's single and double cases share its killed run (the
double case recovers a copy of the state the kill left), and each operation's starting
repository is built once per session and copied.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.forks import ForkServer, crash_points
from tests.helpers import ACTOR, FACT, PREFERENCE, Prepared, add, copy_repo, git

_OPS = {
    "transaction10": """
        with repo.store.transaction("import", reason="ten files") as tx:
            for i in range(10):
                tx.write(f"batch/f{i}.md", fields=FACT, body=f"file {i}")
    """,
    "retract": """
        repo.retract(["base.md"], reason="it was wrong")
    """,
    "remember_batch": """
        repo.remember_batch([{**PREFERENCE, "key": f"k{i}", "body": f"Preference number {i}."} for i in range(3)])
    """,
}

_SCRIPT = """
import sys
from memfs import MemoryRepo
FACT = {"type": "fact", "scope": "user:U5", "source": "conversation:C1"}
PREFERENCE = %r
repo = MemoryRepo.open(sys.argv[1], "user:U5")
%s
"""


#: Steps only a commit from a private copy of the index reaches (:meth:`memfs.store.gitcli.Git._commit_private`).
_PRIVATE_STEPS = ("index-copied:", "index-ready:")


def _prepare(repo: MemoryRepo, op: str) -> None:
    """The operation's starting repository, its objects in one pack (as the template's are): each
    step's run copies it twice, and ten commits' loose objects are some thirty files and folders."""
    if op == "retract":
        add(repo, "base.md")
        for i in range(9):
            add(repo, f"derived/d{i}.md", "base.md")
        git(repo.root, "repack", "-a", "-d", "-q")
        git(repo.root, "prune-packed")


@pytest.fixture
def forks(tmp_path: Path) -> Iterator[ForkServer]:
    """Each run below is a process of its own, forked from one that has imported memfs."""
    with ForkServer(tmp_path) as server:
        yield server


def _run(forks: ForkServer, root: Path, op: str, env: dict[str, str]) -> int:
    script = _SCRIPT % (PREFERENCE, textwrap.dedent(_OPS[op]))
    done = forks.run(script, [str(root)], {**os.environ, **env})
    assert done.returncode in (0, 9), done.output
    return done.returncode


def _recover(forks: ForkServer, root: Path, env: dict[str, str]) -> int:
    script = f"from memfs import MemoryRepo\nMemoryRepo.open({str(root)!r}, {ACTOR!r})\n"
    done = forks.run(script, [], {**os.environ, **env})
    assert done.returncode in (0, 9), done.output
    return done.returncode



def _head(root: Path) -> tuple[str, list[str], set[str]]:
    """HEAD, its parents and the files it changed: one git process."""
    line, _, files = git(root, "log", "-1", "--format=%H %P", "--name-only", "HEAD").partition("\n")
    head, *parents = line.split()
    return head, parents, set(files.split())


def _check(root: Path, old_head: str, new_files: set[str], point: str) -> None:
    """The next command (opening the repository) leaves the old or the new state, committed and
    clean, and a write after it succeeds."""
    reopened = MemoryRepo.open(root, ACTOR)
    leftovers = list(root.rglob("*.memfs-tmp"))
    assert leftovers == [], (point, leftovers)
    assert not (reopened.store.git.git_dir / "memfs-journal.json").exists(), point
    assert not (reopened.store.git.git_dir / "index.lock").exists(), point
    assert git(root, "status", "--porcelain") == "", point
    head, parents, changed = _head(root)
    if head != old_head:
        assert parents == [old_head], point
        assert changed == new_files, point
    assert reopened.validate() == [], point
    assert reopened.write("after.md", fields=FACT, body="the next command works").commit, point


@pytest.mark.slow
@pytest.mark.parametrize("op", sorted(_OPS))
def test_killed_at_every_step_the_next_command_finishes(
    prepared: Prepared, tmp_path: Path, forks: ForkServer, op: str
) -> None:
    """Each kill runs once; the single case checks its state, the double case a copy of it, where
    the recovering command is killed at the same step too."""
    repo = prepared(f"crash-matrix-{op}", lambda built: _prepare(built, op))
    old_head = git(repo.root, "rev-parse", "HEAD").strip()
    reference = copy_repo(repo.root, tmp_path / "reference")
    trace = tmp_path / "trace"
    assert _run(forks, reference, op, {"MEMFS_CRASH_TRACE": str(trace)}) == 0
    new_files = _head(reference)[2]
    points = crash_points(trace)
    assert len(points) >= 8 and {"journal-saved:1", "temp-written:3", "git-committed:1"} <= set(points)
    assert {"index-copied:1", "index-ready:1"} <= set(points)  # committed from a private index copy
    crashed_twice = 0
    for n, point in enumerate(points):
        single = copy_repo(repo.root, tmp_path / f"run{n}")
        assert _run(forks, single, op, {"MEMFS_CRASH_AT": point}) == 9, point
        double = copy_repo(single, tmp_path / f"run{n}-double")
        _check(single, old_head, new_files, point)
        if _recover(forks, double, {"MEMFS_CRASH_AT": point}) == 9:
            crashed_twice += 1
        _check(double, old_head, new_files, point)
    # the recovering command commits the usual way, never through a private index copy
    usual = [p for p in points if not p.startswith(_PRIVATE_STEPS)]
    assert crashed_twice >= len(usual) - 2, (crashed_twice, len(points))
