"""A write interrupted by a crash is finished by the next ``memfs`` command, which says so."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo
from tests.helpers import cli, crash, git


@pytest.mark.slow
def test_crash_before_commit_is_finished_by_the_next_command(repo: MemoryRepo) -> None:
    crash(repo, "before-commit")
    assert git(repo.root, "log", "--format=%s").count("\n") == 1  # only init so far
    done = cli(repo, "ls")
    assert done.returncode == 0 and "finished a write interrupted by a crash (2 file(s)" in done.stderr
    assert git(repo.root, "show", "--name-only", "--format=", "HEAD").split() == ["a.md", "b.md"]
    assert "Memfs-Recovered: yes" in git(repo.root, "log", "-1", "--format=%B")
    assert git(repo.root, "status", "--porcelain") == ""
    assert not (repo.store.git.git_dir / "memfs-journal.json").exists()
