"""Reading memory files: only plain files, no symlink at any level, at most MAX_READ_BYTES; paths
judged by what they resolve to. The door-by-door matrices are in ``tests/cli/test_confinement.py``;
these are the store's own rules and the readers that are not doors (the index, lineage, the
watcher, the configuration, purge's verification)."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from memfs import MemoryRepo
from memfs.errors import InvalidConfig, PathError
from memfs.store import paths
from tests.helpers import FACT, TIMEOUT, add, git, hit_paths, memory_text, put, write_file

T = TypeVar("T")


def finishes(call: Callable[[], T]) -> T:
    """``call()`` in a worker thread; fails the test (a safety net, not a timing check) if it
    has not returned after :data:`TIMEOUT` seconds, as a reader blocked on a FIFO would."""
    answer: list[T] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            answer.append(call())
        except BaseException as exc:
            failure.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(TIMEOUT)
    if worker.is_alive():
        pytest.fail(f"did not return within {TIMEOUT} s")
    if failure:
        raise failure[0]
    return answer[0]


def test_the_size_limit_is_exact(repo: MemoryRepo) -> None:
    head = memory_text("padding\n", id="big")
    write_file(repo.root / "facts/limit.md", head + "x" * (paths.MAX_READ_BYTES - len(head)))
    write_file(repo.root / "facts/over.md", head + "x" * (paths.MAX_READ_BYTES + 1 - len(head)))
    assert len(repo.store.read_bytes("facts/limit.md") or b"") == paths.MAX_READ_BYTES
    with pytest.raises(PathError, match=r"1,000,001 bytes, over the 1,000,000-byte limit"):
        repo.store.read_bytes("facts/over.md")
    broken = {p.path: p for p in repo.store.scan().broken}
    assert "facts/limit.md" not in broken and "split it" in broken["facts/over.md"].fix


def test_a_symlink_is_refused_even_to_a_memory_inside_the_root(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md")
    os.symlink("a.md", repo.root / "facts/alias.md")
    with pytest.raises(PathError, match="is a symlink"):
        repo.store.read("facts/alias.md")
    with pytest.raises(PathError, match="is a symlink"):
        repo.write("facts/alias.md", fields={"description": "through the link"})
    assert os.path.islink(repo.root / "facts/alias.md")
    assert [p.path for p in repo.store.scan().broken] == ["facts/alias.md"]
    assert not repo.store.exists("facts/alias.md") and repo.store.exists("facts/a.md")


def test_a_fifo_is_reported_without_waiting_for_a_writer(repo: MemoryRepo) -> None:
    os.mkfifo(repo.root / "facts.md")
    found = finishes(repo.validate)
    assert [(p.path, p.severity) for p in found] == [("facts.md", "error")] and "FIFO" in found[0].message
    assert finishes(lambda: repo.store.load("facts.md"))[2] is not None


def test_a_git_dir_inside_the_root_under_another_name_is_refused(repo: MemoryRepo) -> None:
    shutil.move(repo.root / ".git", repo.root / "store")
    (repo.root / ".git").write_text("gitdir: store\n")
    moved = MemoryRepo.open(repo.root)
    assert moved.store.git.git_dir == repo.root / "store"
    for path in ("store/hooks/x.md", "store/../store/x.md", str(repo.root / "store/x.md")):
        with pytest.raises(PathError, match="git directory"):
            moved.write(path, fields=FACT, body="x")
    assert not list((repo.root / "store").rglob("*.md"))


def test_a_folder_that_is_the_cache_is_refused_under_any_name(repo: MemoryRepo) -> None:
    """A folder that *is* ``.memfs/`` (here ``x/``, with ``.memfs`` a link to it; a bind mount or a
    case-insensitive file system's ``.MEMFS`` are the same folder too) holds no memories."""
    (repo.root / "x").mkdir()
    shutil.rmtree(repo.root / ".memfs", ignore_errors=True)  # the caches a first commit made
    os.symlink("x", repo.root / ".memfs")
    with pytest.raises(PathError, match=r"inside \.memfs/"):
        repo.write("x/cache.md", fields=FACT, body="x")
    assert list((repo.root / "x").iterdir()) == []


def test_the_index_reports_entries_it_does_not_read(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md", body="okapi facts\n")
    os.symlink("/dev/zero", repo.root / "facts/zero.md")
    os.mkfifo(repo.root / "facts/fifo.md")
    found = finishes(lambda: repo.search("okapi"))
    assert hit_paths(found) == ["facts/a.md"]
    assert sorted(p.path for p in found.broken) == ["facts/fifo.md", "facts/zero.md"]
    os.unlink(repo.root / "facts/zero.md")
    put(repo, "facts/zero.md", "okapi again\n")
    assert sorted(hit_paths(finishes(lambda: repo.search("okapi")))) == ["facts/a.md", "facts/zero.md"]


def test_lineage_and_diff_skip_what_they_do_not_read(repo: MemoryRepo, tmp_path: Path) -> None:
    add(repo, "facts/a.md")
    add(repo, "notes/b.md", "facts/a.md")
    (tmp_path / "outside.md").write_text(memory_text(depends_on=["facts/a.md"]))
    os.symlink(tmp_path / "outside.md", repo.root / "notes/linked.md")
    os.mkfifo(repo.root / "notes/fifo.md")
    assert finishes(lambda: repo.impact(["facts/a.md"])).downstream == ("notes/b.md",)
    assert [d.path for d in finishes(repo.diff)] == []


def test_the_watcher_reports_a_symlinked_memory_and_commits_nothing(repo: MemoryRepo, tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text(memory_text(id="outside"))
    os.symlink(tmp_path / "outside.md", repo.root / "facts.md")
    head = repo.store.git.head()
    events = repo.watcher(index=False).process(["facts.md"])
    assert [(e.path, e.outcome) for e in events] == [("facts.md", "invalid")] and "symlink" in str(events[0])
    assert repo.store.git.head() == head and "facts.md" not in git(repo.root, "ls-files")


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/zero"])
def test_a_config_file_that_is_not_a_plain_file_is_an_error_not_a_hang(repo: MemoryRepo, kind: str) -> None:
    config = repo.root / ".memfs.toml"
    config.unlink()
    if kind == "fifo":
        os.mkfifo(config)
    else:
        os.symlink("/dev/zero", config)
    with pytest.raises(InvalidConfig, match=r"\.memfs\.toml: is "):
        finishes(repo.store.config)


def test_purge_verification_reads_no_device(repo: MemoryRepo) -> None:
    from memfs.ops.purge_verify import verify

    add(repo, "facts/a.md", body="okapi secret\n")
    os.symlink("/dev/zero", repo.root / "zero.md")
    assert "work tree file facts/a.md" in finishes(lambda: verify(repo.store, [b"okapi secret"]))


def test_a_bound_session_judges_a_file_by_its_bytes_now(repo: MemoryRepo) -> None:
    """The scope a session checks is remembered by the file's bytes: a file rewritten into
    another scope, or broken, is judged again at once (never by what it said before)."""
    session = repo.session("user:U5").store
    write_file(repo.root / "notes/a.md", memory_text("mine\n", **FACT))
    assert session.visible("notes/a.md")
    write_file(repo.root / "notes/a.md", memory_text("mine\n", **{**FACT, "scope": "user:U6"}))
    assert not session.visible("notes/a.md")
    write_file(repo.root / "notes/a.md", "---\nscope: [user:U5\n---\nbroken\n")
    assert not session.visible("notes/a.md")
    write_file(repo.root / "notes/a.md", memory_text("mine\n", **FACT))
    assert session.visible("notes/a.md") and repo.session("user:U6").store.visible("notes/a.md") is False
