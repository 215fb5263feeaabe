"""The file format: exact split/join, canonical values, and edits that touch only their lines."""

from __future__ import annotations

import datetime as dt
import unicodedata

import pytest
import ruamel.yaml as ruamel_yaml
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memfs.format import yamlio
from memfs.format.document import SplitError, split
from memfs.format.edit import new_file, update_file
from memfs.format.model import Memory
from memfs.format.parse import parse

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)

HAND_EDITED = """\
---
# a comment line
id: release-note-language        # stable identity
type: preference
scope: user:U5/project:P8
key: release_note_language
source: "conversation:C1#msg-12"
source_kind: 'user'
version: v2
revision: 2
created: 2026-09-20T10:00:00Z
updated: 2026-09-23T08:30:00Z
depends_on:
  - facts/b17-status.md
status: active   # lifecycle
confidence: 0.9
description: P8 release notes are written in Chinese
tags: [writing, zh]
ver_str: 1.10
enabled: yes
at: 12:30
custom:
  nested: true
---
以后P8的发布说明请用中文{trailing}
---
trailing rule above, blank line below

""".format(trailing="   ")


@pytest.mark.parametrize(
    "text",
    [
        HAND_EDITED,
        "---\nid: a\n---\nno final newline",
        "\ufeff---\nid: a\n---\nbom\n",
        "---\r\nid: a\r\ntype: fact\r\n---\r\ncrlf body\r\n",
        "---\n---\nempty frontmatter\n",
        "---\nid: a\n...\nyaml end marker\n",
        "---\nid: a\n---\n    indented code first\n\n\n",
    ],
)
def test_split_render_is_byte_identical(text: str) -> None:
    assert split(text).render() == text


@pytest.mark.parametrize(
    "text", ["no frontmatter\n", "---\nid: a\nnever closed\n", "--- \n", "----\nid: a\n----\n", ""]
)
def test_split_refuses_files_without_frontmatter(text: str) -> None:
    with pytest.raises(SplitError):
        split(text)


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("yes", '"yes"'),
        ("no", '"no"'),
        ("on", '"on"'),
        ("0123", '"0123"'),
        ("1.10", '"1.10"'),
        ("12:30", '"12:30"'),
        ("2026-12-31", '"2026-12-31"'),
        ("null", '"null"'),
        ("a: b", '"a: b"'),
        ("x #y", '"x #y"'),
        ("- item", '"- item"'),
        (" padded", '" padded"'),
        ("", '""'),
        ("user:U5/project:P8", "user:U5/project:P8"),
        ("conversation:C1#msg-12", "conversation:C1#msg-12"),
        ("P8 release notes are written in Chinese", "P8 release notes are written in Chinese"),
        ("以后P8的发布说明请用中文", "以后P8的发布说明请用中文"),
        ("v2", "v2"),
    ],
)
def test_scalar_quotes_what_yaml_would_retype(value: str, written: str) -> None:
    assert yamlio.scalar(value) == written
    assert yaml.safe_load(f"k: {written}")["k"] == value


@settings(max_examples=300)
@given(st.text(max_size=30))
@example("._")
@example("1_000")
@example("._5")
def test_any_string_survives_both_yaml_versions(value: str) -> None:
    written = yamlio.scalar(value)
    assert yaml.load(f"k: {written}\n", Loader=yaml.CSafeLoader)["k"] == value
    assert ruamel_yaml.YAML(typ="safe", pure=True).load(f"k: {written}\n")["k"] == value


def test_scalar_refuses_non_finite_numbers() -> None:
    with pytest.raises(ValueError):
        yamlio.scalar(float("nan"))


def test_scalar_renders_times_in_utc_with_z() -> None:
    tokyo = dt.timezone(dt.timedelta(hours=9))
    assert yamlio.scalar(dt.datetime(2026, 9, 20, 19, 0, tzinfo=tokyo)) == "2026-09-20T10:00:00Z"


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_update_changes_only_the_edited_lines() -> None:
    result = update_file("prefs/x.md", HAND_EDITED.encode(), {"status": "superseded"}, None, NOW)
    assert result.content is not None
    changed = _changed_lines(HAND_EDITED, result.content.decode())
    assert changed == [
        ("revision: 2", "revision: 3"),
        ("updated: 2026-09-23T08:30:00Z", "updated: 2026-11-29T12:00:00Z"),
        ("status: active   # lifecycle", "status: superseded   # lifecycle"),
    ]
    assert result.memory.meta["ver_str"] == 1.1 and result.memory.meta["custom"] == {"nested": True}


def test_update_of_block_list_and_new_key() -> None:
    result = update_file(
        "prefs/x.md", HAND_EDITED.encode(), {"depends_on": ["a.md", "b.md"], "expires": NOW}, None, NOW
    )
    text = result.content.decode()
    assert "depends_on: [a.md, b.md]\nstatus: active" in text
    assert text.split("---\n")[1].endswith("expires: 2026-11-29T12:00:00Z\n")
    assert result.memory.depends_on == ("a.md", "b.md")


def test_update_keeps_crlf_and_bom() -> None:
    text = "\ufeff---\r\nid: a\r\ntype: fact\r\nstatus: active\r\n---\r\nbody\r\n"
    result = update_file("a.md", text.encode(), {"type": "note"}, None, NOW)
    out = result.content.decode()
    assert out.startswith("\ufeff---\r\n") and "type: note\r\n" in out and out.endswith("---\r\nbody\r\n")
    assert "\n" not in out.replace("\r\n", "")


def test_update_with_same_values_is_a_no_op() -> None:
    result = update_file("x.md", HAND_EDITED.encode(), {"status": "active", "tags": ["writing", "zh"]}, None, NOW)
    assert result.content is None


def test_update_body_only_keeps_frontmatter_bytes() -> None:
    result = update_file("x.md", HAND_EDITED.encode(), {}, "new body", NOW)
    doc_before, doc_after = split(HAND_EDITED), split(result.content.decode())
    assert doc_after.body == "new body\n"
    assert len(_changed_lines(doc_before.frontmatter, doc_after.frontmatter)) == 2


def test_removing_a_field_deletes_its_whole_span() -> None:
    result = update_file("x.md", HAND_EDITED.encode(), {"depends_on": None, "custom": None}, None, NOW)
    text = result.content.decode()
    assert "depends_on" not in text and "facts/b17" not in text and "nested" not in text


def test_new_file_is_canonical() -> None:
    fields = {"type": "fact", "scope": "user:U5", "source": "tool:ci", "version": "1.10", "tags": ["a b", "x,y"]}
    result = new_file("facts/b17.md", fields, "B17 is fixed", NOW)
    text = result.content.decode()
    assert text == (
        "---\nid: facts/b17\ntype: fact\nscope: user:U5\nsource: tool:ci\nversion: \"1.10\"\nrevision: 1\n"
        "created: 2026-11-29T12:00:00Z\nupdated: 2026-11-29T12:00:00Z\nstatus: active\n"
        'tags: [a b, "x,y"]\n---\nB17 is fixed\n'
    )
    assert result.memory.version == "1.10" and result.memory.tags == ("a b", "x,y")


# --- natural forms, retyped values, unreadable eligibility fields -----------------------------
def _parsed(*lines: str, path: str = "facts/a.md") -> Memory:
    head = "type: fact\nscope: user:U5\nsource: tool:ci\nstatus: active\n"
    return parse(path, f"---\n{head}{''.join(line + chr(10) for line in lines)}---\nbody\n".encode())


@pytest.mark.parametrize(
    ("line", "expires", "warned"),
    [
        ("expires: 2025-10-17", dt.datetime(2025, 10, 17, tzinfo=dt.UTC), False),
        ('expires: "2025-10-17"', dt.datetime(2025, 10, 17, tzinfo=dt.UTC), False),
        ("expires: 2025-10-17T10:30:00", dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC), True),
        ("expires: 2025-10-17 10:30:00", dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC), True),
        ('expires: "2025-10-17T10:30"', dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC), True),
        ("expires: 2025-10-17T10:30:00+02:00", dt.datetime(2025, 10, 17, 8, 30, tzinfo=dt.UTC), False),
    ],
)
def test_dates_and_zoneless_times_are_read_as_utc(line: str, expires: dt.datetime, warned: bool) -> None:
    memory = _parsed(line)
    assert memory.expires == expires and memory.unreadable == ()
    assert memory.errors == []
    warnings = [p for p in memory.problems if p.severity == "warning"]
    assert [p.field for p in warnings] == (["expires"] if warned else [])
    if warned:
        assert "has no time zone" in warnings[0].message and "read as UTC" in warnings[0].message
        assert warnings[0].fix == "write it like expires: 2025-10-17T10:30:00Z"


def test_an_integer_version_is_its_decimal_string() -> None:
    memory = _parsed("version: 1")
    assert memory.version == "1" and memory.problems == () and memory.unreadable == ()


@pytest.mark.parametrize(
    ("line", "read_as", "fix"),
    [
        ("version: 1.10", "float 1.1", 'version: "1.10"'),
        ("version: 1.10   # the API version", "float 1.1", 'version: "1.10"'),
        ("version: 010", "int 8", 'version: "010"'),
        ("version: 0x1F", "int 31", 'version: "0x1F"'),
        ("version: 1_000", "int 1000", 'version: "1_000"'),
        ("version: 2025-10-17", "date 2025-10-17", 'version: "2025-10-17"'),
        ("version: yes", "bool True", 'version: "yes"'),
    ],
)
def test_a_retyped_version_is_an_error_whose_fix_keeps_the_written_text(line: str, read_as: str, fix: str) -> None:
    memory = _parsed(line)
    [problem] = memory.errors
    assert problem.field == "version" and problem.line == 6
    assert f"YAML read it as the {read_as}" in problem.fix and problem.fix.endswith(fix)
    assert memory.version is None and memory.unreadable == ("version",)


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("scope", "scope: user U5"),
        ("scope", "scope: 5"),
        ("version", "version: 1.10"),
        ("version", "version: [v1, v2]"),
        ("status", "status: activ"),
        ("source", "source: {kind: user}"),
        ("expires", "expires: next week"),
        ("expires", "expires: 2025-13-45"),
    ],
)
def test_an_unreadable_eligibility_field_is_recorded(field: str, line: str) -> None:
    head = {"scope": "scope: user:U5", "status": "status: active", "source": "source: tool:ci"}
    lines = ["id: a", "type: fact", *(v for k, v in head.items() if k != field), line]
    memory = parse("facts/a.md", ("---\n" + "".join(f"{x}\n" for x in lines) + "---\nbody\n").encode())
    assert memory.unreadable == (field,)
    [problem] = [p for p in memory.errors if p.field == field]
    assert problem.message.endswith("until it is fixed the memory is never recalled")


def test_absent_and_null_eligibility_fields_are_not_unreadable() -> None:
    assert _parsed("version: null", "expires:").unreadable == ()
    assert _parsed("version: null", "expires:").errors == []


def test_a_file_without_id_has_its_path_as_id() -> None:
    memory = parse("笔记/会议.md", b"---\ntype: note\nscope: user:U5\nsource: tool:ci\nstatus: active\n---\nbody\n")
    assert memory.id == "笔记/会议" and memory.problems == ()
    assert "id" not in memory.meta


@pytest.mark.parametrize("text", ["发布说明语言", "notes/a b", "über", "Ünïcödé ids/ok"])
def test_ids_in_any_script_are_valid(text: str) -> None:
    memory = _parsed(f"id: {text}")
    assert memory.id == text and memory.errors == []


def test_a_decomposed_id_or_file_name_is_a_warning() -> None:
    decomposed = unicodedata.normalize("NFD", "über")
    memory = _parsed(f"id: {decomposed}", path=f"{decomposed}.md")
    assert memory.errors == []
    assert {(p.field, p.severity) for p in memory.problems} == {("id", "warning"), (None, "warning")}


def test_written_values_leave_out_comments_and_multi_line_values() -> None:
    text = 'a: 1.10   # comment\nb: "x # y"\nc:\n  - d\ne: plain text\n'
    assert yamlio.written_values(text) == {"a": "1.10", "b": '"x # y"', "e": "plain text"}


@pytest.mark.parametrize("item", ["0:?", "a:b", "?x", "x:", "k: v", "- x", "#x", "&a", "*a", "!t", "%x", "@x"])
def test_list_items_plain_in_a_block_are_quoted_when_a_flow_list_would_misread_them(item: str) -> None:
    """``tags: [0:?]`` is not YAML although ``tag: 0:?`` is (found by the python-frontmatter
    property test): a list item is written plain only if it reads back the same inside ``[...]``."""
    text = yamlio.render({"tags": [item, "plain"], "extra": {"k": item}})
    assert yamlio.load(text) == {"tags": [item, "plain"], "extra": {"k": item}}


@pytest.mark.parametrize(("written", "read", "problem"), [
    ("[facts/a.md, '[[facts/b]]']", ("facts/a.md", "facts/b.md"), None),
    ("[facts/gone.md]", ("facts/gone.md",), None),  # a memory kept apart may be deleted later: no problem
    ("facts/a.md", (), "must be a list of paths"),
    ("[/etc/a.md]", (), "is absolute"),
    ("[../a.md]", (), "points outside the memory repository"),
    ("[facts/x.md]", (), "is this memory itself"),
])
def test_distinct_from_is_read_as_depends_on_is(written: str, read: tuple[str, ...], problem: str | None) -> None:
    memory = parse("facts/x.md", f"---\nscope: user:a\nsource: s\ndistinct_from: {written}\n---\nbody\n".encode())
    assert memory.distinct_from == read
    found = [p for p in memory.problems if p.field == "distinct_from"]
    assert [problem in p.message for p in found] == ([] if problem is None else [True])
    assert all(p.line == 4 for p in found)
