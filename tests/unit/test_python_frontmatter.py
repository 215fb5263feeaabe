"""Users' scripts read memfs files with python-frontmatter: every file memfs writes (the canonical
writer, then minimal-diff edits, with CJK text, CRLF line endings and a UTF-8 BOM) loads with
``frontmatter.load(path, encoding="utf-8-sig")`` to the metadata memfs reads and the same body
text. python-frontmatter strips the text around the body and reads CRLF as LF (it is not a
byte-exact reader, which is why memfs does not write with it), so the body is compared as text:
line endings normalised, surrounding whitespace stripped. The ``utf-8-sig`` encoding is what the
README's snippet says: python-frontmatter's default ``utf-8`` hides the frontmatter of a file
that starts with a BOM."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

import frontmatter
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.format import edit
from memfs.format.document import BOM
from memfs.format.parse import parse

NOW = dt.datetime(2026, 9, 20, 10, 0, tzinfo=dt.UTC)
LATER = dt.datetime(2026, 9, 23, 8, 30, 15, tzinfo=dt.UTC)
#: Letters from several scripts, YAML's special characters, and Markdown's.
_CHARS = st.sampled_from(list("abcXYZ019 _-.:#'\"[]{},&*!|>%@`?" + "以后发布说明请用中文" + "éüß" + "🙂"))
text = st.text(_CHARS, min_size=1, max_size=30).filter(lambda s: s.strip() != "")
line = st.one_of(text, st.just("---"), st.just(""), st.just("- [fact] 观察 #tag"), st.just("  indented"))
body = st.lists(line, max_size=8).map(lambda lines: "\n".join(lines) + "\n")
scalar = st.one_of(text, st.integers(-1000, 1000), st.booleans(), st.floats(0, 1), st.just("yes"), st.just("0123"),
                   st.just("1.10"), st.just("12:30"), st.just("2026-09-20"))
fields = st.fixed_dictionaries(
    {"type": st.just("fact"), "scope": st.just("user:U5/project:P8"), "source": text},
    optional={
        "key": text,
        "description": text,
        "tags": st.lists(text, max_size=4),
        "confidence": st.floats(0, 1),
        "version": st.sampled_from(["v1", "1.10", "2"]),
        "expires": st.just(LATER),
        "depends_on": st.lists(st.sampled_from(["facts/b17.md", "笔记/会议.md"]), max_size=2, unique=True),
        "ticket": scalar,
        "extra": st.dictionaries(st.sampled_from(["a", "b", "名"]), scalar, max_size=2),
    },
)
changes = st.fixed_dictionaries({}, optional={"description": text, "tags": st.lists(text, max_size=3),
                                              "confidence": st.floats(0, 1), "note": scalar})


def loaded(data: bytes, encoding: str = "utf-8-sig") -> frontmatter.Post:
    """``frontmatter.load(path, encoding=...)`` of a file holding ``data`` (it opens the file in
    text mode, as this does)."""
    return frontmatter.load(io.TextIOWrapper(io.BytesIO(data), encoding=encoding))


def same_reading(path: str, data: bytes) -> None:
    memory = parse(path, data)
    post = loaded(data)
    assert post.metadata == memory.meta
    assert post.content == memory.body.replace("\r\n", "\n").strip()


def as_written_elsewhere(data: bytes, crlf: bool, bom: bool) -> bytes:
    """The file as an editor on another system might save it: CRLF line endings, a BOM."""
    text = data.decode("utf-8")
    if crlf:
        text = text.replace("\n", "\r\n")
    return ((BOM if bom else "") + text).encode("utf-8")


@settings(max_examples=150)
@given(fields=fields, body=body, changes=changes, new_body=st.one_of(st.none(), body), crlf=st.booleans(),
       bom=st.booleans())
def test_python_frontmatter_reads_what_memfs_writes(
    fields: dict[str, Any], body: str, changes: dict[str, Any], new_body: str | None, crlf: bool, bom: bool
) -> None:
    path = "笔记/会议.md"
    created = edit.new_file(path, fields, body, NOW)
    assert created.content is not None
    same_reading(path, created.content)
    edited_here = edit.update_file(path, created.content, changes, new_body, LATER)
    same_reading(path, edited_here.content or created.content)
    elsewhere = as_written_elsewhere(created.content, crlf, bom)
    same_reading(path, elsewhere)
    edited = edit.update_file(path, elsewhere, changes, new_body, LATER)
    result = edited.content or elsewhere
    assert result.startswith(BOM.encode()) == bom and (b"\r\n" in result) == crlf
    same_reading(path, result)


def test_the_readme_snippet() -> None:
    data = edit.new_file("prefs/lang.md", {"type": "preference", "scope": "user:U5", "source": "c:1",
                                           "description": "发布说明用中文"}, "以后P8的发布说明请用中文\n", NOW).content
    assert data is not None
    post = loaded(as_written_elsewhere(data, crlf=True, bom=True))
    assert post["scope"] == "user:U5" and post["created"] == NOW and post.content == "以后P8的发布说明请用中文"
    assert loaded(BOM.encode() + data, encoding="utf-8").metadata == {}


def test_a_float_in_exponent_form_stays_a_number() -> None:
    """Found by the property test: YAML 1.1 (PyYAML) reads ``1e-05`` as a string, so memfs writes
    ``1.0e-05``; before, an edit setting ``confidence: 0.00001`` failed its own re-parse check."""
    data = edit.new_file("a.md", {"type": "fact", "scope": "user:U5", "source": "s", "confidence": 1e-05}, "x\n",
                         NOW).content
    assert data is not None and b"confidence: 1.0e-05\n" in data
    assert parse("a.md", data).confidence == 1e-05 and loaded(data)["confidence"] == 1e-05
    edited = edit.update_file("a.md", data, {"confidence": 2.5e-07}, None, LATER).content
    assert edited is not None and parse("a.md", edited).confidence == 2.5e-07
