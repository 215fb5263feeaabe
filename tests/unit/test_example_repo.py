"""example_repo/: every file is a valid memory, round-trips byte for byte, and a one-field edit
diffs one line (plus the revision and updated lines memfs maintains)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from memfs.format import document, yamlio
from memfs.format.edit import MANAGED, update_file
from memfs.format.model import SOURCE_KINDS, STATUSES, TYPES
from memfs.format.parse import load_document, parse
from memfs.format.templates import data_dir
from memfs.ops.demo import example_files
from memfs.store.init import CONFIG_TEXT, GITATTRIBUTES_TEXT
from memfs.store.paths import is_memory_name, iter_memory_paths

EXAMPLE = data_dir("example_repo")
FILES = example_files(EXAMPLE)
MEMORIES = sorted(rel for rel in FILES if is_memory_name(rel))
NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
ENUMS = {"type": TYPES, "status": STATUSES, "source_kind": SOURCE_KINDS}


def _meta(rel: str) -> dict[str, Any]:
    return load_document(rel, FILES[rel])[1]


def _other_value(name: str, value: Any) -> Any:
    """A different, well-typed value for field ``name``."""
    if name in ENUMS:
        return next(v for v in ENUMS[name] if v != value)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return 0.5 if value != 0.5 else 0.25
    if isinstance(value, dt.datetime):
        return value + dt.timedelta(days=1)
    if isinstance(value, list):
        return [*value, "facts/other.md" if name == "depends_on" else "extra"]
    if name == "scope":
        return value + "/team:T1"
    return value + "-edited"


def _field_line(lines: list[str], name: str) -> int:
    return next(i for i, text in enumerate(lines) if text.startswith(f"{name}:"))


def _differing(old: bytes, new: bytes) -> tuple[list[str], list[str], set[int]]:
    before = old.decode("utf-8").splitlines(keepends=True)
    after = new.decode("utf-8").splitlines(keepends=True)
    return before, after, {i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b}


EDITS = [(rel, name) for rel in MEMORIES for name in _meta(rel) if name not in MANAGED]


def test_example_has_memories_and_its_readme_is_not_one() -> None:
    assert len(MEMORIES) >= 9
    assert "README.md" in FILES
    assert list(iter_memory_paths(EXAMPLE)) == sorted(MEMORIES, key=lambda p: (not p.startswith("system/"), p))


@pytest.mark.parametrize("rel", MEMORIES)
def test_round_trip_is_byte_identical(rel: str) -> None:
    data = FILES[rel]
    doc, meta = load_document(rel, data)
    assert doc.render().encode("utf-8") == data
    assert yamlio.edit(doc.frontmatter, {}, doc.newline) == doc.frontmatter
    assert update_file(rel, data, {}, None, NOW).content is None
    assert update_file(rel, data, dict(meta), doc.body, NOW).content is None


@pytest.mark.parametrize("rel", MEMORIES)
def test_every_memory_is_valid_on_its_own(rel: str) -> None:
    memory = parse(rel, FILES[rel])
    assert memory.problems == ()
    assert memory.revision >= 1 and memory.created and memory.updated


@pytest.mark.parametrize(("rel", "name"), EDITS, ids=[f"{r}:{n}" for r, n in EDITS])
def test_one_field_edit_changes_one_line(rel: str, name: str) -> None:
    data = FILES[rel]
    value = _other_value(name, _meta(rel)[name])
    new = update_file(rel, data, {name: value}, None, NOW).content
    assert new is not None
    before, after, changed = _differing(data, new)
    assert len(before) == len(after)
    assert changed == {_field_line(before, n) for n in (name, "revision", "updated")}
    edited = parse(rel, new)
    assert edited.meta[name] == yamlio.load(f"v: {yamlio.scalar(value)}\n")["v"]
    assert edited.revision == parse(rel, data).revision + 1
    assert document.split(new.decode()).body == document.split(data.decode()).body


@pytest.mark.parametrize("rel", MEMORIES)
def test_body_edit_keeps_frontmatter_but_revision_and_updated(rel: str) -> None:
    data = FILES[rel]
    doc = document.split(data.decode())
    new = update_file(rel, data, {}, doc.body + "One more line.\n", NOW).content
    assert new is not None
    new_doc = document.split(new.decode())
    assert new_doc.body == doc.body + "One more line.\n"
    _, _, changed = _differing(doc.frontmatter.encode(), new_doc.frontmatter.encode())
    lines = doc.frontmatter.splitlines(keepends=True)
    assert changed == {_field_line(lines, "revision"), _field_line(lines, "updated")}


@pytest.mark.parametrize("rel", MEMORIES)
def test_adding_a_field_appends_one_line(rel: str) -> None:
    data = FILES[rel]
    name = "expires" if "expires" not in _meta(rel) else "ticket"
    value = NOW if name == "expires" else "B17"
    new = update_file(rel, data, {name: value}, None, NOW).content
    assert new is not None
    before, after, _ = _differing(data, new)
    closing = after.index("---\n", 1)
    assert after[closing - 1] == f"{name}: {yamlio.scalar(value)}\n"
    without = "".join(after[: closing - 1] + after[closing:]).encode("utf-8")
    assert _differing(data, without)[2] == {_field_line(before, "revision"), _field_line(before, "updated")}


def test_inline_comment_survives_an_edit() -> None:
    rel = "config/payments-v2-timeout.md"
    new = update_file(rel, FILES[rel], {"version": "v2.1"}, None, NOW).content
    assert new is not None
    assert "version: v2.1        # payments-api 2.x, released 2026-08\n" in new.decode()


def test_marker_files_are_what_memfs_init_writes() -> None:
    assert FILES[".memfs.toml"].decode() == CONFIG_TEXT
    assert GITATTRIBUTES_TEXT.splitlines()[1] in FILES[".gitattributes"].decode().splitlines()
    assert ".memfs/" in FILES[".gitignore"].decode().splitlines()


def test_the_cases_the_example_promises() -> None:
    memories = {rel: parse(rel, FILES[rel]) for rel in MEMORIES}
    pref = memories["prefs/p8-release-note-language.md"]
    assert (pref.type, pref.scope, pref.key, pref.revision) == (
        "preference",
        "user:U5/project:P8",
        "release_note_language",
        2,
    )
    assert "English" in (pref.description or "")
    assert memories["prefs/reading-style.md"].scope == "user:U5"
    assert memories["drafts/p8-2.4.0-release-notes.md"].depends_on == ("facts/b17-status.md",)
    status = memories["facts/b17-status.md"]  # a live status, not a permanent fact ("merged is not released")
    assert status.expires is not None and "source of truth" in status.body and "Merged is not released" in status.body
    assert all(m.expires is not None for m in memories.values() if m.type in ("summary", "episode"))
    v1, v2 = memories["config/payments-v1-timeout.md"], memories["config/payments-v2-timeout.md"]
    assert (v1.scope, v1.key) == (v2.scope, v2.key) and (v1.version, v2.version) == ("v1", "v2")
    episode = memories["episodes/pdf-export-timeout.md"]
    assert episode.type == "episode" and episode.expires is not None and "## Trigger" in episode.body
    system = [m for m in memories.values() if m.is_system]
    assert {m.path for m in system} >= {"system/persona.md", "system/memory-policy.md"}
    assert all(m.read_only and m.limit and len(m.body) <= m.limit for m in system)
    chinese = [m.path for m in memories.values() if any("\u4e00" <= c <= "\u9fff" for c in m.body)]
    assert len(chinese) >= 5
