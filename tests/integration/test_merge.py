"""The merge driver as git runs it: registered by init, installed in clones, used by ``git merge``."""

from __future__ import annotations

import pytest

from memfs import MemoryRepo
from memfs.ops import mergedriver
from memfs.store.init import attributes_text, merge_driver_configured
from tests.helpers import Clock, branch_and_merge, git


def test_git_merge_uses_the_driver(repo: MemoryRepo) -> None:
    out = branch_and_merge(
        repo,
        {"fields": {"status": "retracted", "tags": ["x", "ours"]}, "body": "para one\n\npara TWO\n"},
        {"fields": {"description": "edited", "tags": ["x", "theirs"]}, "body": "para ONE\n\npara two\n"},
    )
    assert "CONFLICT" not in out
    memory = repo.store.read("facts/a.md")
    assert memory.status == "retracted" and memory.description == "edited"
    assert memory.tags == ("x", "ours", "theirs")
    assert memory.body == "para ONE\n\npara TWO\n"
    assert memory.revision == 3
    assert repo.validate() == []


def _without_the_driver(repo: MemoryRepo) -> None:
    git(repo.root, "config", "--unset", "merge.memfs.driver")
    git(repo.root, "config", "--unset", "merge.memfs.name")
    assert not merge_driver_configured(repo.store.git)


@pytest.mark.parametrize("seconds", [(0, 0, 0), (0, 1, 1)], ids=["sides-in-the-base-second", "sides-a-second-later"])
def test_a_clone_without_the_driver_configured_uses_gits_text_merge(
    repo: MemoryRepo, clock: Clock, seconds: tuple[int, int, int]
) -> None:
    """Both sides written in the same second (the clock pinned: ``updated`` has whole seconds),
    whether or not a second passed since the base: their frontmatter is the same, so git's text
    merge combines the two body edits."""
    _without_the_driver(repo)
    out = branch_and_merge(
        repo, {"body": "para ONE\n\npara two\n"}, {"body": "para one\n\npara TWO\n"}, clock=clock, seconds=seconds
    )
    assert "Auto-merging facts/a.md" in out and "CONFLICT" not in out
    assert repo.store.read("facts/a.md").body == "para ONE\n\npara TWO\n"


def test_without_the_driver_sides_written_in_different_seconds_conflict_on_updated(
    repo: MemoryRepo, clock: Clock
) -> None:
    """Why the test above holds the clock: a second between the two sides' writes is a text
    conflict on ``updated`` (and only there; the driver takes the later one)."""
    _without_the_driver(repo)
    out = branch_and_merge(
        repo, {"body": "para ONE\n\npara two\n"}, {"body": "para one\n\npara TWO\n"}, clock=clock, seconds=(0, 1, 2)
    )
    assert "CONFLICT (content): Merge conflict in facts/a.md" in out
    text = (repo.root / "facts/a.md").read_text()
    conflict = text[text.index("<<<<<<<") : text.index(">>>>>>>")]
    assert conflict.count("updated:") == 2
    assert [line for line in conflict.splitlines() if not line.startswith(("<<<<<<<", "=======", "updated:"))] == []
    assert text.endswith("para ONE\n\npara TWO\n")


def test_install_adds_the_attribute_line_once(repo: MemoryRepo) -> None:
    (repo.root / ".gitattributes").write_text("*.md text\n")
    git(repo.root, "commit", "-qam", "plain attributes")
    first = mergedriver.install(repo.store)
    assert first.commit is not None
    assert (repo.root / ".gitattributes").read_text() == "*.md text\n*.md merge=memfs\n"
    assert mergedriver.install(repo.store).commit is None
    assert attributes_text("*.md text diff=markdown merge=memfs\n") is None


def test_a_named_driver_without_a_command_stops_git(repo: MemoryRepo) -> None:
    """Why configure() always sets the command: git refuses to merge with a half-defined driver."""
    git(repo.root, "config", "--unset", "merge.memfs.driver")
    out = branch_and_merge(repo, {"fields": {"description": "a"}}, {"fields": {"confidence": 0.5}})
    assert "custom merge driver memfs lacks command line" in out
