"""A process killed between writing files and committing them loses nothing: the next open of the
repository finishes the write (or leaves alone what someone edited since); a commit git refuses
changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from tests.helpers import FACT, crash, git


@pytest.mark.slow
def test_crash_half_way_through_the_files_is_completed(repo: MemoryRepo) -> None:
    crash(repo, "mid-write")
    assert (repo.root / "a.md").exists() and not (repo.root / "b.md").exists()
    reopened = MemoryRepo.open(repo.root)
    assert reopened.read("b.md").body == "second\n" and reopened.read("a.md").body == "first\n"
    assert git(repo.root, "status", "--porcelain") == ""
    assert reopened.notices


@pytest.mark.slow
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
    refused = pytest.raises(MemfsError, match=r"nothing was changed.*no commits today")
    with refused, repo.transaction("import", force=True) as tx:
        tx.write("a.md", fields=FACT, body="new")
        tx.write("system/persona.md", fields={"description": "changed"})
    assert not (repo.root / "a.md").exists()
    assert (repo.root / "system/persona.md").read_bytes() == persona
    assert git(repo.root, "status", "--porcelain") == ""
    assert not (repo.git.git_dir / "memfs-journal.json").exists()
