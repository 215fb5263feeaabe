"""A process killed between writing files and committing them loses nothing: the next open of the
repository finishes the write (or leaves alone what someone edited since); a commit git refuses
changes nothing."""

from __future__ import annotations

import shutil
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
    assert reopened.store.read("b.md").body == "second\n" and reopened.store.read("a.md").body == "first\n"
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
    hook = repo.store.git.git_dir / "hooks/pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'policy: no commits today' >&2\nexit 1\n")
    hook.chmod(0o755)
    persona = (repo.root / "system/persona.md").read_bytes()
    refused = pytest.raises(MemfsError, match=r"nothing was changed.*no commits today")
    with refused, repo.store.transaction("import", force=True) as tx:
        tx.write("a.md", fields=FACT, body="new")
        tx.write("system/persona.md", fields={"description": "changed"})
    assert not (repo.root / "a.md").exists()
    assert (repo.root / "system/persona.md").read_bytes() == persona
    assert git(repo.root, "status", "--porcelain") == ""
    assert not (repo.store.git.git_dir / "memfs-journal.json").exists()


@pytest.mark.slow
def test_temporaries_of_a_killed_write_are_removed(repo: MemoryRepo) -> None:
    crash(repo, "mid-write")
    assert list(repo.root.glob(".b.md.*.memfs-tmp"))
    reopened = MemoryRepo.open(repo.root)
    assert list(repo.root.rglob("*.memfs-tmp")) == []
    assert any("removed 1 temporary file" in n for n in reopened.notices)
    assert git(repo.root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_a_stale_index_lock_of_a_killed_commit_is_removed(repo: MemoryRepo) -> None:
    crash(repo, "before-commit")
    lock = repo.store.git.git_dir / "index.lock"
    lock.write_bytes(b"")  # git killed with its memfs, mid-commit
    reopened = MemoryRepo.open(repo.root)
    assert not lock.exists()
    assert any("index.lock, left by a memfs commit that was killed" in n for n in reopened.notices)
    assert reopened.store.read("b.md").body == "second\n"
    assert git(repo.root, "status", "--porcelain") == ""


@pytest.mark.slow
def test_an_index_lock_a_live_process_holds_is_left_alone(repo: MemoryRepo) -> None:
    crash(repo, "before-commit")
    lock = repo.store.git.git_dir / "index.lock"
    with lock.open("wb"):  # a git run by hand, still running
        reopened = MemoryRepo.open(repo.root)
        assert lock.exists()
        assert any("could not finish a write interrupted by a crash" in n for n in reopened.notices)
    lock.unlink()
    assert "finished a write interrupted by a crash" in MemoryRepo.open(repo.root).notices[0]


def test_the_journals_own_temporary_is_removed(repo: MemoryRepo) -> None:
    debris = repo.store.git.git_dir / ".memfs-journal.json.0123abcd.memfs-tmp"
    debris.write_text("{")
    MemoryRepo.open(repo.root)
    assert not debris.exists()


def test_a_file_in_place_of_the_cache_folder_is_replaced(repo: MemoryRepo) -> None:
    repo.write("a.md", fields=FACT, body="findable words")
    cache = repo.root / ".memfs"
    if cache.is_dir():
        shutil.rmtree(cache)
    cache.write_text("not a folder")
    reopened = MemoryRepo.open(repo.root)
    assert any(".memfs was a file" in n for n in reopened.notices)
    assert [h.path for h in reopened.search("findable", scope="user:U5").hits] == ["a.md"]
    assert cache.is_dir()
