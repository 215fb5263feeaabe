"""The frontmatter-aware merge (pure): field rules and whole files."""

from __future__ import annotations

import datetime as dt
from functools import partial

import pytest

from memfs.errors import InvalidMemory
from memfs.format.parse import parse
from memfs.policy import merge
from memfs.store import gitcli
from tests.helpers import base_doc

T = [dt.datetime(2026, 9, d, 10, tzinfo=dt.UTC) for d in range(20, 25)]
MERGE_TEXT = partial(gitcli.merge_text, labels=merge.LABELS)


# --- pure field rules ---------------------------------------------------------------------------
def test_one_sided_changes_win_and_equal_changes_agree() -> None:
    base = {"a": 1, "b": 1, "c": 1}
    result = merge.merge_fields(base, {"a": 2, "b": 1, "c": 5}, {"a": 1, "b": 3, "c": 5})
    assert result.meta == {"a": 2, "b": 3, "c": 5}
    assert result.conflicts == ()


def test_both_sides_changing_a_plain_field_differently_is_a_conflict() -> None:
    result = merge.merge_fields({"description": "x"}, {"description": "y"}, {"description": "z"})
    assert result.conflicts == ("description",)
    assert result.meta["description"] == "y"


@pytest.mark.parametrize(
    ("ours", "theirs", "expected"),
    [
        ("retracted", "needs_review", "retracted"),
        ("active", "retracted", "retracted"),
        ("superseded", "expired", "superseded"),
        ("needs_review", "superseded", "superseded"),
    ],
)
def test_status_precedence_when_both_sides_changed_it(ours: str, theirs: str, expected: str) -> None:
    base = {"status": "active" if "active" not in (ours, theirs) else "needs_review"}
    assert merge.merge_fields(base, {"status": ours}, {"status": theirs}).meta["status"] == expected


def test_unknown_status_values_on_both_sides_conflict() -> None:
    assert merge.merge_fields({"status": "active"}, {"status": "x"}, {"status": "y"}).conflicts == ("status",)


def test_removed_key_on_one_side_is_removed() -> None:
    result = merge.merge_fields({"expires": T[0], "a": 1}, {"a": 1}, {"expires": T[0], "a": 2})
    assert result.meta == {"a": 2}


def test_revision_is_max_plus_one_and_updated_is_latest() -> None:
    result = merge.merge_fields(
        {"revision": 3, "updated": T[0]}, {"revision": 4, "updated": T[2]}, {"revision": 6, "updated": T[1]}
    )
    assert result.meta == {"revision": 7, "updated": T[2]}


def test_sets_keep_both_sides_additions_and_removals() -> None:
    result = merge.merge_fields(
        {"tags": ["a", "b", "c"], "depends_on": ["x.md"], "distinct_from": ["p.md"]},
        {"tags": ["a", "c", "d"], "depends_on": ["x.md", "y.md"], "distinct_from": ["p.md", "q.md"]},
        {"tags": ["b", "c", "e"], "depends_on": ["z.md"], "distinct_from": ["p.md", "r.md"]},
    )
    assert result.meta["tags"] == ["c", "d", "e"]
    assert result.meta["depends_on"] == ["y.md", "z.md"]
    assert result.meta["distinct_from"] == ["p.md", "q.md", "r.md"]  # two clones' decisions, both kept
    assert result.conflicts == ()


def test_sets_of_mappings_merge_by_equality() -> None:
    one, two = {"root": "a.md", "reason": "r1"}, {"root": "b.md", "reason": "r2"}
    result = merge.merge_fields({}, {"invalidated_by": [one]}, {"invalidated_by": [two]})
    assert result.meta["invalidated_by"] == [one, two]


def test_a_list_field_that_is_not_a_list_on_one_side_conflicts() -> None:
    assert merge.merge_fields({"tags": ["a"]}, {"tags": ["a", "b"]}, {"tags": "c"}).conflicts == ("tags",)


# --- whole files ---------------------------------------------------------------------------------
def merged(base: bytes | None, ours: bytes, theirs: bytes) -> merge.MergeResult:
    return merge.merge_memory("facts/a.md", base, ours, theirs, MERGE_TEXT)


def test_different_fields_merge_cleanly_and_keep_our_formatting() -> None:
    base = base_doc()
    ours = base_doc(description="ours says", revision=4, updated="2026-09-21T10:00:00Z")
    theirs = base_doc(confidence=0.5, revision=4, updated="2026-09-22T10:00:00Z")
    result = merged(base, ours, theirs)
    assert result.clean
    memory = parse("facts/a.md", result.content)
    assert memory.description == "ours says"
    assert memory.confidence == 0.5
    assert memory.revision == 5
    assert memory.updated == T[2]
    assert result.content.decode().startswith(ours.decode().split("revision")[0])


def test_retract_versus_edit_gives_retracted_with_the_edit() -> None:
    result = merged(base_doc(), base_doc(status="retracted", revision=4), base_doc(description="edited", revision=4))
    assert result.clean
    memory = parse("facts/a.md", result.content)
    assert (memory.status, memory.description) == ("retracted", "edited")


def test_body_edits_in_different_paragraphs_merge() -> None:
    base = base_doc(body="para one\n\npara two\n\npara three\n")
    ours = base_doc(body="para ONE\n\npara two\n\npara three\n")
    result = merged(base, ours, base_doc(body="para one\n\npara two\n\npara THREE\n"))
    assert result.clean
    assert parse("facts/a.md", result.content).body == "para ONE\n\npara two\n\npara THREE\n"


def test_same_line_edits_leave_markers_and_fail_validation() -> None:
    result = merged(base_doc(), base_doc(body="para uno\n\npara two\n"), base_doc(body="para eins\n\npara two\n"))
    assert result.conflicts == ("body",)
    text = result.content.decode()
    assert "<<<<<<< ours\npara uno\n=======\npara eins\n>>>>>>> theirs\n" in text
    with pytest.raises(InvalidMemory, match="unresolved merge conflict markers"):
        parse("facts/a.md", result.content)


def test_field_conflict_is_a_marker_block_in_the_frontmatter() -> None:
    result = merged(base_doc(), base_doc(description="ours"), base_doc(description="theirs"))
    assert result.conflicts == ("description",)
    text = result.content.decode()
    assert "<<<<<<< ours\ndescription: ours\n=======\ndescription: theirs\n>>>>>>> theirs\n---\n" in text
    assert text.count("description:") == 2
    with pytest.raises(InvalidMemory) as caught:
        parse("facts/a.md", result.content)
    problem = caught.value.problems[0]
    assert problem.line == text.splitlines().index("<<<<<<< ours") + 1
    assert "delete the marker lines" in str(problem)


def test_both_added_the_same_path() -> None:
    result = merged(None, base_doc(description="one"), base_doc(description="two", tags=["y"]))
    assert result.conflicts == ("description",)
    assert 'tags: [x, "y"]' in result.content.decode()


def test_unparseable_sides_fall_back_to_a_text_merge() -> None:
    result = merged(b"1\n2\n3\n4\n", b"1 ours\n2\n3\n4\n", b"1\n2\n3\n4 theirs\n")
    assert result.clean and result.content == b"1 ours\n2\n3\n4 theirs\n"


def test_crlf_files_stay_crlf() -> None:
    def crlf(data: bytes) -> bytes:
        return data.replace(b"\n", b"\r\n")

    result = merged(crlf(base_doc()), crlf(base_doc(status="retracted")), crlf(base_doc(description="edited")))
    assert result.clean
    assert b"\n" not in result.content.replace(b"\r\n", b"")
    assert parse("facts/a.md", result.content).status == "retracted"
