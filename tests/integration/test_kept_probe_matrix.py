"""A repository object kept between searches (the library, MCP, the adapters) keeps its last
``git status`` and watches the work tree instead of running a whole-tree ``git status`` per
query (:mod:`memfs.store.gitcli.watch`). Whatever changed on disk since the last query, it finds
and marks exactly what a repository opened afresh (which runs the whole-tree scan) does: the
same hits, the same ``uncommitted`` marks and list. Matrix: edits x (a search after each)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.store.gitcli import status as git_status
from memfs.store.gitcli import watch
from tests.helpers import ACTOR, add, commit_all, count_git_commands, git, put, write_file

Edit = Callable[[Path], None]
QUERY = "alpha"


def _build(repo: MemoryRepo) -> None:
    for name in ("a", "b", "c"):
        add(repo, f"facts/{name}.md", body=f"alpha {name} body\n")
    write_file(repo.root / ".gitignore", (repo.root / ".gitignore").read_text() + "drafts/\n"
               if (repo.root / ".gitignore").exists() else "drafts/\n")
    commit_all(repo.root, "ignore drafts")
    put(repo, "drafts/d.md", "alpha draft\n")


def _same_size_same_second(root: Path) -> None:
    path = root / "facts/a.md"
    st = path.stat()
    path.write_bytes(path.read_bytes().replace(b"alpha a body", b"alpha A BODY"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _rename(root: Path) -> None:
    os.rename(root / "facts/b.md", root / "facts/b2.md")


def _edit_then_undo(root: Path) -> None:
    path = root / "facts/c.md"
    data = path.read_bytes()
    path.write_bytes(data + b"more alpha\n")
    path.write_bytes(data)


def _git_commit_edit(root: Path) -> None:
    path = root / "facts/a.md"
    path.write_bytes(path.read_bytes() + b"alpha again\n")
    commit_all(root, "edit a")


def _ignore_one(root: Path) -> None:
    with (root / ".gitignore").open("a") as f:
        f.write("facts/c.md\n")


def _empty_ignored_folder(root: Path) -> None:
    (root / "drafts/d.md").unlink()


EDITS: dict[str, Edit] = {
    "nothing": lambda root: None,
    "create": lambda root: put(root, "facts/new.md", "alpha new\n"),
    "modify": lambda root: put(root, "facts/b.md", "alpha b changed\n"),
    "modify same size same second": _same_size_same_second,
    "touch only": lambda root: os.utime(root / "facts/a.md"),
    "edit then undo": _edit_then_undo,
    "delete": lambda root: (root / "facts/b.md").unlink(),
    "rename": _rename,
    "chmod +x": lambda root: os.chmod(root / "facts/a.md", 0o755),
    "untracked folder": lambda root: put(root, "new/x.md", "alpha x\n"),
    "folder removed": lambda root: shutil.rmtree(root / "facts"),
    "into the ignored folder": lambda root: put(root, "drafts/e.md", "alpha e\n"),
    "ignored folder emptied": _empty_ignored_folder,
    "gitignore changed": _ignore_one,
    "git add": lambda root: (put(root, "facts/staged.md", "alpha staged\n"), git(root, "add", "-A")),
    "git commit": _git_commit_edit,
    "git reset": lambda root: git(root, "reset", "-q", "--hard", "HEAD~1"),
}


def _answer(repo: MemoryRepo) -> tuple[Any, ...]:
    result = repo.search(QUERY, limit=50)
    listed = sorted(result.uncommitted.listed) if result.uncommitted is not None else None
    return [(h.path, h.uncommitted) for h in result.hits], listed


@pytest.fixture
def kept(prepared: Any) -> MemoryRepo:
    """A repository searched often enough that it keeps a watch."""
    repo: MemoryRepo = prepared("kept-probe", _build)
    _answer(repo)
    _answer(repo)
    assert repo.store.git._kept is not None
    return repo


@pytest.mark.parametrize("name", list(EDITS))
def test_a_kept_repository_answers_as_a_fresh_one_after_each_edit(kept: MemoryRepo, name: str) -> None:
    EDITS[name](kept.root)
    assert _answer(kept) == _answer(MemoryRepo.open(kept.root, ACTOR))
    assert _answer(kept) == _answer(MemoryRepo.open(kept.root, ACTOR))


def test_a_kept_repository_answers_as_a_fresh_one_after_every_edit_in_turn(kept: MemoryRepo) -> None:
    for name, edit in EDITS.items():
        if name not in ("delete", "folder removed", "git reset"):
            edit(kept.root)
            assert _answer(kept) == _answer(MemoryRepo.open(kept.root, ACTOR)), name


def test_a_search_with_nothing_changed_starts_no_git_process(
    kept: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = count_git_commands(monkeypatch)
    _answer(kept)
    assert sum(started.values()) == 0


def test_after_an_edit_git_is_asked_about_the_changed_file_alone(
    kept: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, ...]] = []
    real = git_status.WorkTree._status

    def spy(self: git_status.WorkTree, *pathspecs: str) -> Any:
        asked.append(pathspecs)
        return real(self, *pathspecs)

    monkeypatch.setattr(git_status.WorkTree, "_status", spy)
    put(kept, "facts/b.md", "alpha b changed\n")
    _answer(kept)
    assert asked == [("facts/b.md",)]


def test_a_repository_that_cannot_watch_scans_the_whole_tree_each_time(
    prepared: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(git_status.TreeWatch, "open", classmethod(lambda cls, workdir: None))
    repo: MemoryRepo = prepared("kept-probe", _build)
    for _ in range(3):
        _answer(repo)
    put(repo, "facts/new.md", "alpha new\n")
    assert _answer(repo) == _answer(MemoryRepo.open(repo.root, ACTOR))
    assert repo.store.git._kept is None


def test_a_watch_closed_behind_its_back_costs_one_whole_scan(kept: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the tests' fixture does after each test (``closed_indexes`` in conftest): every watch
    of the process closed (:func:`~memfs.store.gitcli.watch.close_all`), none left counting
    against :data:`~memfs.store.gitcli.watch.MAX_OPEN`; a repository still in use scans the
    whole tree once, answers as a fresh one, and keeps a new watch."""
    watch.close_all()
    assert watch._open_count == 0
    put(kept, "facts/b.md", "alpha b changed\n")
    fresh = _answer(MemoryRepo.open(kept.root, ACTOR))
    asked: list[tuple[str, ...]] = []
    real = git_status.WorkTree._status

    def spy(self: git_status.WorkTree, *pathspecs: str) -> Any:
        asked.append(pathspecs)
        return real(self, *pathspecs)

    monkeypatch.setattr(git_status.WorkTree, "_status", spy)
    assert _answer(kept) == fresh and asked == [(".",)] and watch._open_count == 1
    asked.clear()
    assert _answer(kept) == fresh and asked == []


@pytest.mark.parametrize("refs", ["loose", "packed"])
def test_a_second_context_at_the_same_commit_starts_no_git_process(
    kept: MemoryRepo, monkeypatch: pytest.MonkeyPatch, refs: str
) -> None:
    if refs == "packed":
        git(kept.root, "pack-refs", "--all")
    first = kept.context("alpha body", scope="user:U5")
    started = count_git_commands(monkeypatch)
    again = kept.context("alpha body", scope="user:U5")
    assert sum(started.values()) == 0
    assert [b.text for b in again.blocks] == [b.text for b in first.blocks] and first.blocks
    assert kept.store.git.head() == git(kept.root, "rev-parse", "HEAD").strip()


def _statuses_of(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    asked: list[tuple[str, ...]] = []
    real = git_status.WorkTree._status

    def spy(self: git_status.WorkTree, *pathspecs: str) -> Any:
        if self is repo.store.git:
            asked.append(pathspecs)
        return real(self, *pathspecs)

    monkeypatch.setattr(git_status.WorkTree, "_status", spy)
    return asked


def test_its_own_writes_keep_the_watch_and_answers_stay_those_of_a_fresh_repository(
    kept: MemoryRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memfs's own commit moves the kept probe along (the committed paths asked about again)
    instead of a whole-tree ``git status`` after every write; mixed with hand edits, a user's
    ``git add`` and commit, the answers stay a fresh repository's."""
    asked = _statuses_of(kept, monkeypatch)
    steps: list[Callable[[], object]] = [
        lambda: add(kept, "facts/b.md", body="alpha b rewritten\n"),
        lambda: add(kept, "facts/n1.md", body="alpha n1\n"),
        lambda: put(kept.root, "facts/hand.md", "alpha by hand\n"),
        lambda: add(kept, "facts/n2.md", body="alpha n2\n"),
    ]
    for step in steps:
        step()
        assert _answer(kept) == _answer(MemoryRepo.open(kept.root, ACTOR))
    assert asked and (".",) not in asked
    assert kept.store.git._kept is not None
    for step in (lambda: (put(kept.root, "facts/s.md", "alpha s\n"), git(kept.root, "add", "-A")),
                 lambda: add(kept, "facts/n3.md", body="alpha n3\n"), lambda: _git_commit_edit(kept.root),
                 lambda: add(kept, "facts/n4.md", body="alpha n4\n")):
        step()
        assert _answer(kept) == _answer(MemoryRepo.open(kept.root, ACTOR))


def test_only_a_commit_moves_the_kept_identity() -> None:
    from memfs.store.gitcli.watch import committed_over

    ref = b"ref: refs/heads/main\n"
    files = [(1, i, 10, 100, 100) for i in range(10)]
    before = (ref, None, *files, (1, 50, 41, 7, 7))
    index = (1, 99, 20, 200)
    after = (ref, None, (*index, 201), *files[1:], (1, 51, 41, 8, 8))
    assert committed_over(before, after, index)
    assert not committed_over(before, after, (1, 98, 20, 200))  # another index than the one installed
    assert not committed_over(before, (*after[:3], (1, 77, 1, 1, 1), *after[4:]), index)  # packed-refs moved
    assert not committed_over(before, (b"ref: refs/heads/other\n", *after[1:]), index)
    assert not committed_over((b"0" * 40, *before[1:]), (b"0" * 40, *after[1:]), index)  # detached HEAD
