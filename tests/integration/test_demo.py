"""The demo: example_repo/ becomes a git repository with one commit per event."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.demo import PREFERENCE, DemoResult, build_demo, example_files
from memfs.store.history import diff, log, show_at
from tests.helpers import git

_BUILT: dict[str, DemoResult] = {}


@pytest.fixture
def built(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    """One demo built per session (per xdist worker), shared by the tests that only read it."""
    if "demo" not in _BUILT:
        _BUILT["demo"] = build_demo(tmp_path_factory.mktemp("demo") / "demo")
    return _BUILT["demo"]


def test_history_has_one_commit_per_event_with_trailers(built: DemoResult) -> None:
    result = built
    repo = MemoryRepo.open(result.root)
    entries = log(repo.store)
    assert len(entries) == len(result.commits) >= 6
    assert [e.commit for e in reversed(entries)] == [c.commit for c in result.commits]
    for entry, done in zip(reversed(entries), result.commits, strict=True):
        assert entry.op == done.event.op
        assert entry.trailers["Memfs-Actor"] == [done.event.actor] == [entry.actor]
        assert entry.reason == done.event.reason
        assert entry.time.startswith(done.event.when[:19])
    assert {"user:U5", "agent:release-bot", "tool:ci"} <= {e.actor for e in entries}
    assert git(result.root, "status", "--porcelain") == ""


def test_final_state_is_the_example_byte_for_byte(built: DemoResult) -> None:
    result = built
    files = example_files()
    tracked = set(git(result.root, "ls-files", "-z").split("\0")) - {""}
    assert tracked == set(files)
    for rel, data in files.items():
        assert (result.root / rel).read_bytes() == data, rel
    assert MemoryRepo.open(result.root).validate() == []


def test_preference_has_two_revisions_in_history(built: DemoResult) -> None:
    result = built
    repo = MemoryRepo.open(result.root)
    entries = log(repo.store, PREFERENCE)
    assert [e.op for e in entries] == ["update", "create"]
    assert repo.store.read(PREFERENCE).revision == 2
    before = show_at(repo.store, PREFERENCE, entries[1].commit)
    assert before.revision == 1 and "Chinese" in (before.description or "")
    assert "以后P8的发布说明请用中文" in before.body
    assert show_at(repo.store, PREFERENCE, "2026-09-21T00:00:00Z").revision == 1
    (changed,) = diff(repo.store, entries[1].commit, entries[0].commit, PREFERENCE)
    summary = [str(f) for f in changed.fields]
    assert "revision: 1 → 2" in summary
    assert any(s.startswith("description:") and s.endswith("English") for s in summary)


def test_rerun_replaces_an_earlier_demo(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    first = build_demo(target)
    (target / "scratch.md").write_text("left over\n")
    second = build_demo(target)
    assert second.replaced and not first.replaced
    assert not (target / "scratch.md").exists()
    assert len(log(MemoryRepo.open(target).store)) == len(second.commits)
    assert not [p for p in tmp_path.iterdir() if p.name != "demo"]


def test_empty_folder_is_used_and_foreign_folder_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert build_demo(empty).root == empty
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine\n")
    with pytest.raises(MemfsError, match="not empty"):
        build_demo(foreign)
    assert [p.name for p in foreign.iterdir()] == ["keep.txt"]
    with pytest.raises(MemfsError, match="not a folder"):
        build_demo(foreign / "keep.txt")
