"""The reviewer's summary of a branch (``memfs review BASE..HEAD``): every kind of change, as Markdown."""

from __future__ import annotations

import datetime as dt

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from memfs.ops.branch_review import summarize
from tests.helpers import PREFERENCE_PATH, add, candidate, commit_all, git


def test_summary_sorts_every_change(branch: MemoryRepo) -> None:
    s = summarize(branch.store, "main", "review")
    assert [e.path for e in s.added] == ["facts/new.md", "prefs/lang-2.md"]
    (sup,) = s.superseded
    assert (sup.path, sup.old, sup.new, sup.by) == (
        "prefs/lang.md",
        "notes in English",
        "notes in Chinese",
        "prefs/lang-2.md",
    )
    assert sup.reason == "U5 changed their mind"
    (ret,) = s.retracted
    assert (ret.path, ret.downstream, ret.flagged, ret.reason) == ("facts/b17.md", 2, 2, "release was rolled back")
    assert [(e.path, e.by) for e in s.flagged] == [
        ("notes/derived.md", "facts/b17.md"),
        ("notes/derived2.md", "facts/b17.md"),
    ]
    assert [e.path for e in s.expired] == ["facts/old.md"]
    assert [(e.path, e.op, e.reason) for e in s.purged] == [("facts/gone.md", "delete", "user asked")]
    tweak = next(e for e in s.changed if e.path == "facts/tweak.md")
    assert {f.field for f in tweak.fields} >= {"confidence", "tags", "revision"} and tweak.body_changed
    assert all(e.path != "facts/on-main.md" for cat in s.CATEGORIES for e in getattr(s, cat))
    assert [e.path for e in s.changed] == ["facts/tweak.md"]
    assert len(s.commits) == 6 and s.invalid == []


def test_text_is_a_markdown_comment(branch: MemoryRepo) -> None:
    text = summarize(branch.store, "main", "review").render()
    assert text.startswith("### memfs review: `main..review` (6 commit(s))")
    assert "2 added · 1 superseded · 1 retracted · 2 flagged · 1 expired · 1 purged" in text
    assert '- `prefs/lang.md`: "notes in English" → "notes in Chinese" (by `prefs/lang-2.md`)' in text
    assert "- `facts/b17.md` — B17 is fixed; reason: release was rolled back; 2 downstream memories" in text
    assert "confidence: 1.0 → 0.4" in text or "confidence: + 0.4" in text
    assert "revision:" not in text


def test_invalid_files_on_the_branch_are_listed(repo: MemoryRepo) -> None:
    git(repo.root, "checkout", "-q", "-b", "bad")
    (repo.root / "facts").mkdir()
    (repo.root / "facts/x.md").write_text("---\nid: x\n<<<<<<< ours\na: 1\n=======\na: 2\n>>>>>>> theirs\n---\n")
    commit_all(repo.root, "bad file")
    s = summarize(repo.store, "main", "bad")
    assert len(s.invalid) == 1 and "unresolved merge conflict markers" in s.invalid[0]
    assert "**1 invalid**" in s.render()


def test_unrelated_or_unknown_revisions(repo: MemoryRepo) -> None:
    with pytest.raises(MemfsError, match="not a commit"):
        summarize(repo.store, "nope", "HEAD")
    assert "No memory changes." in summarize(repo.store, "HEAD", "HEAD").render()


def test_a_remember_that_superseded_is_one_superseded(repo: MemoryRepo) -> None:
    repo.remember(candidate("Release notes in Chinese."))
    repo.remember(candidate("Release notes in English from now on.", "conversation:C3#msg-2"))
    s = summarize(repo.store, "HEAD~1", "HEAD")
    assert (len(s.superseded), len(s.changed), len(s.added)) == (1, 0, 0)
    (sup,) = s.superseded
    assert (sup.path, sup.old, sup.new) == (PREFERENCE_PATH, "Release notes in Chinese.",
                                            "Release notes in English from now on.")
    assert "1 superseded · 0 retracted" in s.render() and "0 changed" in s.render()
    assert "(same file, next revision)" in s.render()


def test_an_archived_expiry_is_one_expired(repo: MemoryRepo) -> None:
    add(repo, "facts/promo.md", expires="2026-06-01T00:00:00Z")
    result = repo.expire(now=dt.datetime(2026, 7, 1, tzinfo=dt.UTC), archive=True)
    assert result.archived == {"facts/promo.md": "archive/facts/promo.md"}
    subject = git(repo.root, "log", "-1", "--format=%s").strip()
    assert subject == "memfs: expire facts/promo.md (archived to archive/facts/promo.md)"
    s = summarize(repo.store, "HEAD~1", "HEAD")
    assert (len(s.expired), len(s.added), len(s.purged), len(s.changed)) == (1, 0, 0, 0)
    assert (s.expired[0].path, s.expired[0].by) == ("facts/promo.md", "archive/facts/promo.md")
    assert "0 added · 0 superseded · 0 retracted · 0 flagged · 1 expired · 0 purged" in s.render()


def test_a_rename_is_one_change_of_path(repo: MemoryRepo) -> None:
    add(repo, "notes/a.md")
    assert repo.tool({"command": "rename", "old_path": "notes/a.md", "new_path": "notes/b.md"}).ok
    s = summarize(repo.store, "HEAD~1", "HEAD")
    assert (len(s.added), len(s.purged)) == (0, 0)
    assert [str(f) for f in s.changed[0].fields][:1] == ["path: notes/a.md → notes/b.md"]
