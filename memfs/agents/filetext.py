"""The text a model works on through a file tool, the same at every door.

There is one file-tool implementation behind ``memfs tool``, the MCP file tools and the
Anthropic memory tool (:mod:`memfs.agents.filetools`); this module is the part that decides what a
model sees and what its line numbers count, so the doors cannot disagree about it.

**The rule.** The text of a memory file, as a model sees and edits it, is the frontmatter block
the model wrote itself (if it wrote one) followed by the body. memfs's own fields and the host's
(``scope``, ``source``, ``revision``, ``updated``, ``file_name``...) live in the same frontmatter
but are never shown and never counted. ``view`` numbers the lines of that text; ``view_range``,
``insert_line`` and the ``str_replace`` snippets count the same lines; a file created from a bare
body shows exactly that body, so "insert after line 1" lands after the body's first line, and a
file created whole shows back exactly what was sent. A memory written by another door (a person,
``memfs write``) has no block of the model's: its text is its body.

A model's block is a leading ``---`` block whose YAML is a mapping with a line of its own for
each key (comment or blank lines may follow a key's line). Its keys override the host's fields;
memfs records them in ``agent_fields`` and keeps their lines as written. Lines are separated by
``\\n`` (a ``\\r`` before it belongs to the line ending): a line number means the same to the
model, to :func:`insert` and to ``view``.

What a door may choose (declared, never a second code path): ``strict`` (a text that starts with
``---`` but is no such block is refused, for ``memfs tool`` and MCP, whose models write whole
files; the Anthropic tool keeps it as text, as its reference implementation does), and the host
fields a new file gets.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memfs.errors import InvalidMemory, Refused, UsageError
from memfs.format import yamlio
from memfs.format.document import BOM, Document, split
from memfs.format.model import FIELDS
from memfs.format.parse import load_document, parse

#: Largest memory text the tools will write or show whole (Anthropic's managed stores cap ~100 KB).
MAX_FILE_BYTES = 100_000
#: Frontmatter keys recording the model's file name and the keys of its own block.
NAME_KEY = "file_name"
AGENT_KEYS = "agent_fields"
#: Keys memfs keeps itself, which a model's own block may not set.
RESERVED = frozenset({"revision", "updated", NAME_KEY, AGENT_KEYS})
_MANAGED = ("revision", "created", "updated")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FENCES = ("---\n", "---\r\n")


@dataclass(frozen=True)
class ModelText:
    """A model's text cut into its own frontmatter keys (``{}`` without a block), their lines as
    written, and the body."""

    meta: dict[str, Any]
    block: str
    body: str
    opening: str = "---\n"
    closing: str = "---\n"
    bom: bool = False

    def render(self) -> str:
        if not self.block:
            return self.body
        return (BOM if self.bom else "") + self.opening + self.block + self.closing + self.body

    def with_body(self, body: str) -> ModelText:
        return ModelText(self.meta, self.block, body, self.opening, self.closing, self.bom)

    @property
    def newline(self) -> str:
        return "\r\n" if self.opening.endswith("\r\n") or (not self.block and "\r\n" in self.body) else "\n"


# --- reading what a model sent ------------------------------------------------------------------
def read_text(text: str, *, strict: bool, where: str) -> ModelText:
    """``text`` as the model wrote it, cut by the rule above. With ``strict``, a text that starts
    with ``---`` but is not a block memfs can keep is refused (:class:`InvalidMemory`)."""
    model, why = _block(text)
    if model is not None:
        return model
    if strict and text.removeprefix(BOM).startswith("---"):
        raise InvalidMemory(
            f"{where}: the text starts with '---' but is not a frontmatter block memfs can keep ({why}); "
            "write '---', one 'field: value' line per field, '---', then the body; nothing was written"
        )
    return ModelText({}, "", text)


def _block(text: str) -> tuple[ModelText | None, str]:
    try:
        doc = split(text)
    except ValueError as exc:
        return None, str(exc)
    if doc.opening not in _FENCES or doc.closing != doc.opening:
        return None, "the fences must be lines of exactly '---'"
    try:
        meta = yamlio.load(doc.frontmatter)
    except yamlio.YamlError as exc:
        return None, f"not valid YAML: {exc}"
    if not isinstance(meta, dict) or not meta or not all(isinstance(k, str) for k in meta):
        return None, "it must be a mapping of 'field: value' lines"
    spans = block_spans(doc.frontmatter)
    if set(spans) != set(meta) or min(a for a, _ in spans.values()) != 0:
        return None, "every line must belong to a field"
    return ModelText(meta, doc.frontmatter, doc.body, doc.opening, doc.closing, doc.bom), ""


def block_spans(frontmatter: str) -> dict[str, tuple[int, int]]:
    """0-based [start, end) lines of each top-level key, with the comment and blank lines that
    follow a key counted as its own."""
    spans = sorted(yamlio.key_lines(frontmatter).items(), key=lambda item: item[1][0])
    count = len(frontmatter.splitlines())
    ends = [start for _, (start, _) in spans[1:]] + [count]
    return {key: (start, end) for (key, (start, _)), end in zip(spans, ends, strict=True)}


def agent_keys(meta: Mapping[str, Any]) -> list[str]:
    keys = meta.get(AGENT_KEYS)
    return [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []


def view_text(stored: str, data: bytes) -> str:
    """The text the model sees for the memory file ``stored``: its own block (if any) and the body.
    A file memfs cannot read as a memory is shown as it is."""
    try:
        doc, meta = load_document(stored, data)
    except InvalidMemory:
        return data.decode("utf-8", errors="replace")
    return stored_text(doc, meta).render()


def stored_text(doc: Document, meta: Mapping[str, Any]) -> ModelText:
    """The model's text of a stored document (see :func:`view_text`)."""
    keys = set(agent_keys(meta))
    lines = doc.frontmatter.splitlines(keepends=True)
    spans = sorted(span for key, span in block_spans(doc.frontmatter).items() if key in keys)
    block = "".join("".join(lines[a:b]) for a, b in spans)
    own = {k: v for k, v in meta.items() if k in keys}
    return ModelText(own, block, doc.body, doc.opening, doc.closing, doc.bom)


def model_lines(stored: str, data: bytes) -> dict[int, int | None]:
    """Each 1-based line of the stored file ``data`` mapped to the line of the text the model
    sees (:func:`view_text`), ``None`` for the lines of memfs's own fields, which the model never
    sees: so an error names the line the model wrote. Empty when ``data`` is not a memory."""
    try:
        doc, meta = load_document(stored, data)
    except InvalidMemory:
        return {}
    model = stored_text(doc, meta)
    fm_lines = len(doc.frontmatter.splitlines())
    mapped: dict[int, int | None] = {1: 1 if model.block else None, fm_lines + 2: None}
    shown = 2
    spans = sorted(span for key, span in block_spans(doc.frontmatter).items() if key in model.meta)
    kept = {i for a, b in spans for i in range(a, b)}
    for index in range(fm_lines):
        mapped[index + 2] = shown if index in kept else None
        shown += index in kept
    if model.block:
        mapped[fm_lines + 2] = shown
    body_start = shown + 1 if model.block else 1
    for index in range(len(doc.body.splitlines())):
        mapped[fm_lines + 3 + index] = body_start + index
    return mapped


def refuse_reserved(own: Mapping[str, Any], where: str) -> None:
    """A model's block may not set ``read_only`` nor the keys memfs keeps itself."""
    if "read_only" in own:
        raise Refused(f"{where}: agents may not set read_only; leave it out of the file's frontmatter")
    taken = sorted(k for k in own if k in RESERVED)
    if taken:
        raise Refused(
            f"{where}: memfs keeps {', '.join(taken)} itself; leave {'it' if len(taken) == 1 else 'them'} out "
            "of the file's frontmatter"
        )


def check_text(text: str, what: str) -> str:
    """Refuse text memfs would not store: not encodable as UTF-8, binary, or over the size limit."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise Refused(f"{what}: is not valid Unicode text (it has a lone surrogate); send UTF-8 text") from None
    bad = _CONTROL.search(text)
    if bad:
        raise Refused(
            f"{what}: looks like binary content (control byte {ord(bad.group()):#04x}); memories are UTF-8 Markdown"
        )
    if size > MAX_FILE_BYTES:
        raise Refused(f"{what}: {size} bytes is over the {MAX_FILE_BYTES}-byte limit for one memory; split it up")
    return text


# --- the bytes memfs keeps ----------------------------------------------------------------------
def new_file(
    text: str,
    *,
    host: Mapping[str, Any],
    now: dt.datetime,
    strict: bool,
    where: str,
    name: str | None = None,
) -> bytes:
    """The bytes of a new memory whose text is ``text``: memfs's and the host's fields (those the
    model's own block does not set), then the model's block as written, then the body as sent.
    ``name`` is the model's file name when it is not the stored one (kept as ``file_name``)."""
    model = read_text(text, strict=strict, where=where)
    refuse_reserved(model.meta, where)
    fields: dict[str, Any] = {"status": "active"}
    fields.update((k, v) for k, v in host.items() if k not in _MANAGED and v is not None)
    fields.update(revision=1, created=host.get("created") or now, updated=now)
    if name is not None:
        fields[NAME_KEY] = name
    if model.meta:
        fields[AGENT_KEYS] = list(model.meta)
    fields = {k: v for k, v in fields.items() if k not in model.meta}
    newline = model.newline if model.block else "\n"
    frontmatter = yamlio.render(fields, FIELDS).replace("\n", newline) + model.block
    fence = model.opening if model.block else "---\n"
    return Document(model.bom, fence, frontmatter, fence, model.body).render().encode("utf-8")


def rewrite(stored: str, data: bytes, text: str, *, now: dt.datetime, strict: bool, where: str) -> bytes | None:
    """The bytes of the memory file ``stored`` (now ``data``) once the model's text is ``text``;
    ``None`` if the text is what the model was shown. memfs's lines change only in ``revision``,
    ``updated`` and ``agent_fields``, and lose the keys the model's block now sets."""
    doc, meta = load_document(stored, data)
    if text == stored_text(doc, meta).render():
        return None
    model = read_text(text, strict=strict, where=where)
    refuse_reserved(model.meta, where)
    kept = _without_keys(doc.frontmatter, agent_keys(meta))
    kept_meta = yamlio.load(kept) if kept.strip() else {}
    changes: dict[str, Any] = {k: None for k in model.meta if k in (kept_meta or {})}
    revision = parse(stored, data).revision
    changes.update(revision=revision + 1, updated=now, **{AGENT_KEYS: list(model.meta) or None})
    try:
        frontmatter = yamlio.edit(kept, changes, doc.newline)
    except ValueError as exc:
        raise InvalidMemory(f"{stored}: {exc}; nothing was written") from None
    return doc.with_frontmatter(frontmatter + model.block).with_body(model.body).render().encode("utf-8")


def _without_keys(frontmatter: str, keys: list[str]) -> str:
    lines = frontmatter.splitlines(keepends=True)
    drop = {i for key, (a, b) in block_spans(frontmatter).items() if key in keys for i in range(a, b)}
    return "".join(line for i, line in enumerate(lines) if i not in drop)


# --- lines --------------------------------------------------------------------------------------
def lines_of(text: str) -> list[str]:
    """The lines a line number counts: ``text`` split at ``\\n``, a final empty piece left out."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def insert(text: str, line: int, new: str, where: str) -> str:
    """``text`` with ``new`` inserted after line ``line`` (0 = at the top), trailing newlines of
    ``new`` dropped and the result ending with a newline, as the reference memory tool does; a
    CRLF text stays CRLF."""
    parts = lines_of(text)
    if not 0 <= line <= len(parts):
        raise UsageError(f"{where}: insert_line {line} is outside the file's {len(parts)} lines")
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline == "\r\n":
        parts = [p.removesuffix("\r") for p in parts]
        new = new.replace("\r\n", "\n")
    parts.insert(line, new.rstrip("\n").replace("\n", newline))
    out = newline.join(parts)
    return out if out.endswith("\n") else out + newline


def match_lines(text: str, old: str) -> list[int]:
    """The 1-based line of each occurrence of ``old`` in ``text``."""
    found: list[int] = []
    start = 0
    while (pos := text.find(old, start)) != -1:
        found.append(text.count("\n", 0, pos) + 1)
        start = pos + 1
    return found
