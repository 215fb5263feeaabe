"""The demo's plan (pure): every example file once, the first revision of the preference."""

from __future__ import annotations

from memfs.ops.demo import EVENTS, PREFERENCE, example_files, first_revision, plan


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
