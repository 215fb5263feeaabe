"""From the bytes of a memory file to a typed :class:`~memfs.format.model.Memory`.

Fatal problems (not UTF-8, no frontmatter, broken YAML, a frontmatter that is not a mapping)
raise :class:`~memfs.errors.InvalidMemory` carrying one :class:`~memfs.format.model.Problem`; field
problems are attached to the returned memory so that callers decide how strict to be.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Any

from memfs.errors import InvalidMemory
from memfs.format import yamlio
from memfs.format.document import Document, SplitError, conflict_marker_line, split
from memfs.format.limits import DEFAULT, Limits
from memfs.format.model import Memory, Problem
from memfs.format.validate import coerce_fields, dependency_problem
from memfs.format.wikilinks import dependency_path


def _fatal(path: str, message: str, fix: str, line: int | None = None) -> InvalidMemory:
    problem = Problem(path, None, message, fix, "error", line)
    return InvalidMemory(str(problem), [problem])


def decode(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _fatal(path, f"is not UTF-8 (byte {exc.start})", "save the file as UTF-8", line) from None


#: bytes a text file never holds: C0 controls other than tab, LF and CR, and DEL (git calls a
#: file with NUL binary; the file tools refuse all of them, and so does every other door)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check_bytes(path: str, data: bytes, limits: Limits = DEFAULT) -> str:
    """The text of ``data`` if it can be a memory file at all (within the size limit, UTF-8, no
    NUL or control bytes, no merge-conflict markers), else :class:`InvalidMemory` saying which.
    What the one commit path checks on the exact bytes it commits, and the first step of
    :func:`parse`."""
    if len(data) > limits.file_bytes:
        raise _fatal(path, f"is {len(data)} bytes, over the {limits.file_bytes}-byte limit for one memory "
                     "(limits.file_bytes)", "split it into several memories")
    text = decode(path, data)
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        kind = "NUL" if bad.group() == "\x00" else f"control byte {ord(bad.group()):#04x}"
        raise _fatal(path, f"holds binary content ({kind}); a memory is UTF-8 text",
                     "remove the byte, or keep binary files outside the memory root", line)
    marker = conflict_marker_line(text)
    if marker is not None:
        raise _fatal(
            path,
            "has unresolved merge conflict markers (<<<<<<< ... ======= ... >>>>>>>)",
            "keep the right lines of each side, delete the marker lines, run 'memfs validate', then commit",
            marker,
        )
    return text


def load_document(path: str, data: bytes, limits: Limits = DEFAULT) -> tuple[Document, dict[str, Any]]:
    """The exact parts of the file and its frontmatter mapping."""
    text = check_bytes(path, data, limits)
    try:
        doc = split(text)
    except SplitError as exc:
        raise _fatal(path, str(exc), "start the file with '---', the YAML fields, then '---'", exc.line) from None
    try:
        meta = yamlio.load(doc.frontmatter, limits) if doc.frontmatter.strip() else {}
    except yamlio.YamlError as exc:
        line = exc.line + 1 if exc.line else None
        raise _fatal(path, f"frontmatter is not valid YAML: {exc}", "fix the YAML syntax", line) from None
    if not isinstance(meta, dict):
        raise _fatal(
            path,
            f"frontmatter must be a mapping of fields, got {type(meta).__name__}",
            "write one 'field: value' per line",
            2,
        )
    if not all(isinstance(k, str) for k in meta):
        raise _fatal(path, "every frontmatter key must be a string", "write one 'field: value' per line", 2)
    return doc, meta


def build(path: str, meta: dict[str, Any], body: str, frontmatter: str | None = None) -> Memory:
    """A typed record from an already parsed mapping (also used for files about to be written).

    With the ``frontmatter`` text, each field problem gets the line number of its key.
    """
    typed, problems = coerce_fields(path, meta, frontmatter)
    if frontmatter is not None and problems:
        lines = {key: start + 2 for key, (start, _) in yamlio.key_lines(frontmatter).items()}
        problems = [replace(p, line=lines.get(p.field or "")) if p.line is None else p for p in problems]
    return Memory(path=path, meta=meta, body=body, problems=tuple(problems), **typed)


def parse(path: str, data: bytes, limits: Limits = DEFAULT) -> Memory:
    doc, meta = load_document(path, data, limits)
    return build(path, meta, doc.body, doc.frontmatter)


_SAFE_PATH = r"[A-Za-z0-9_][A-Za-z0-9_./+-]*\.md"
_FLOW = re.compile(rf"depends_on:[ \t]*\[[ \t]*((?:{_SAFE_PATH}[ \t]*,[ \t]*)*(?:{_SAFE_PATH})?)[ \t]*\][ \t]*\r?\n?")
_BLOCK_ITEM = re.compile(rf"[ \t]*-[ \t]+({_SAFE_PATH})[ \t]*\r?\n?")


def read_depends_on(path: str, data: bytes) -> tuple[str, ...]:
    """The ``depends_on`` of one file, exactly as :func:`parse` would type it
    (normalised, invalid entries and self-references dropped), reading only that key.

    Plain ``*.md`` paths in a flow or block list are taken directly; anything else (quotes,
    comments, other scalars) goes through the YAML loader. Raises :class:`InvalidMemory` when
    the file or that key cannot be read.
    """
    try:
        frontmatter = split(decode(path, data)).frontmatter
    except SplitError as exc:
        raise InvalidMemory(f"{path}: {exc}", [Problem(path, None, str(exc), "", "error", exc.line)]) from None
    span = yamlio.key_lines(frontmatter).get("depends_on")
    if span is None:
        return ()
    lines = frontmatter.splitlines(keepends=True)[span[0] : span[1]]
    entries = _fast_entries(lines)
    if entries is None:
        try:
            value = (yamlio.load("".join(lines)) or {}).get("depends_on")
        except yamlio.YamlError as exc:
            problem = Problem(path, "depends_on", f"is not valid YAML: {exc}", "fix the YAML syntax")
            raise InvalidMemory(str(problem), [problem]) from None
        if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
            return ()
        entries = value
    paths = [dependency_path(d) for d in entries]
    clean = (posixpath.normpath(d) for d in paths if dependency_problem(path, d) is None)
    return tuple(dict.fromkeys(d for d in clean if d != path))


def _fast_entries(lines: list[str]) -> list[str] | None:
    if len(lines) == 1:
        match = _FLOW.fullmatch(lines[0])
        if match is None:
            return None
        return [item.strip() for item in match.group(1).split(",") if item.strip()]
    if lines[0].rstrip() != "depends_on:":
        return None
    items = [_BLOCK_ITEM.fullmatch(line) for line in lines[1:]]
    if not all(items):
        return None
    return [m.group(1) for m in items if m is not None]
