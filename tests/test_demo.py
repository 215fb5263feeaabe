"""``memfs demo``: example_repo/ becomes a git repository with one commit per event."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.demo import EVENTS, PREFERENCE, DemoResult, build_demo, example_files, first_revision, plan
from memfs.store import commits
from memfs.store.history import diff, log, show_at
from tests.helpers import git, run_cli

_BUILT: dict[str, DemoResult] = {}


@pytest.fixture
def built(tmp_path_factory: pytest.TempPathFactory) -> DemoResult:
    """One demo built per session (per xdist worker), shared by the tests that only read it."""
    if "demo" not in _BUILT:
        _BUILT["demo"] = build_demo(tmp_path_factory.mktemp("demo") / "demo")
    return _BUILT["demo"]


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_history_has_one_commit_per_event_with_trailers(built: DemoResult) -> None:
    result = built
    repo = MemoryRepo.open(result.root)
    entries = log(repo)
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
    entries = log(repo, PREFERENCE)
    assert [e.op for e in entries] == ["update", "create"]
    assert repo.read(PREFERENCE).revision == 2
    before = show_at(repo, PREFERENCE, entries[1].commit)
    assert before.revision == 1 and "Chinese" in (before.description or "")
    assert "以后P8的发布说明请用中文" in before.body
    assert show_at(repo, PREFERENCE, "2026-09-21T00:00:00Z").revision == 1
    (changed,) = diff(repo, entries[1].commit, entries[0].commit, PREFERENCE)
    summary = [str(f) for f in changed.fields]
    assert "revision: 1 → 2" in summary
    assert any(s.startswith("description:") and s.endswith("English") for s in summary)


def test_revision_one_edits_only_the_lines_that_changed() -> None:
    final = example_files()[PREFERENCE]
    old, new = first_revision(final).decode().split("---\n")[1], final.decode().split("---\n")[1]
    changed = [a for a, b in zip(old.splitlines(), new.splitlines(), strict=True) if a != b]
    assert [line.split(":")[0] for line in changed] == ["source", "revision", "updated", "description"]


def test_plan_covers_every_example_file_once() -> None:
    files = example_files()
    events = plan(files)
    assert events[0].op == "init" and "README.md" in events[0].paths
    created = [rel for e in events if e.op != "update" for rel in e.paths]
    assert sorted(created) == sorted(files)
    extra = dict(files, **{"notes/new.md": files["facts/b17-status.md"]})
    assert plan(extra)[-1].paths == ("notes/new.md",)
    assert len(plan(files)) == len(EVENTS)


def test_rerun_replaces_an_earlier_demo(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    first = build_demo(target)
    (target / "scratch.md").write_text("left over\n")
    second = build_demo(target)
    assert second.replaced and not first.replaced
    assert not (target / "scratch.md").exists()
    assert len(log(MemoryRepo.open(target))) == len(second.commits)
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


def test_cli_tour_fits_80_columns_and_reruns(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    done = run_cli("demo", str(target))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for heading in ("memfs tree", "memfs log", "memfs diff", "Try next"):
        assert heading in out
    assert "revision: 1 → 2" in out and "system/" in out and "memfs revert HEAD" in out
    assert max(_width(line) for line in out.splitlines() if str(target) not in line) <= 80
    again = run_cli("demo", str(target))
    assert again.returncode == 0, again.stderr
    assert "replaced the earlier demo" in again.stdout


def test_cli_refuses_foreign_folder_with_exit_3(tmp_path: Path) -> None:
    foreign = tmp_path / "project"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine\n")
    done = run_cli("demo", str(foreign))
    assert done.returncode == 3
    assert done.stderr.startswith("memfs: error:") and len(done.stderr.strip().splitlines()) == 1
    assert (foreign / "notes.txt").read_text() == "mine\n"
    assert not (foreign / ".git").exists()


def test_demo_inside_another_repo_never_commits_into_it(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    (outer / "code.py").write_text("print('hi')\n")
    git(outer, "add", "code.py")
    git(outer, "-c", "user.name=Dev", "-c", "user.email=dev@example.invalid", "commit", "-qm", "code")
    head = git(outer, "rev-parse", "HEAD")
    done = run_cli("demo", "memdemo", cwd=outer)
    assert done.returncode == 0, done.stderr
    assert git(outer, "rev-parse", "HEAD") == head
    assert git(outer, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(outer, "diff", "--cached", "--name-only") == ""
    inner = outer / "memdemo"
    assert git(inner, "rev-parse", "--show-toplevel").strip() == str(inner.resolve())
    assert int(git(inner, "rev-list", "--count", "HEAD")) >= 6
    trailers = commits.trailers(git(inner, "log", "-1", "--format=%B"))
    assert trailers["Memfs-Op"] == ["update"] and trailers["Memfs-Actor"] == ["user:U5"]
