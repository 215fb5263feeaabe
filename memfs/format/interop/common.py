"""What every import shares: the source file as read, the defaults given on the command line,
and the field mappings (types, statuses, tags) that turn another system's note into a memory.

A conversion is a set of field changes applied to the file's own frontmatter by
:func:`memfs.format.yamlio.edit_checked` (only the changed lines move, the result is re-parsed
to prove it) or, for a file without frontmatter, a new block in front of the body written with
the file's own line endings. The body is never touched.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from memfs.format import yamlio
from memfs.format.document import BOM, Document, SplitError, split
from memfs.format.model import FIELDS, SOURCE_KINDS, STATUSES, SYSTEM_DIR, TYPES

#: Why a note outside ``system/`` that names no scope cannot be imported without ``--scope``.
NO_SCOPE = "has no scope, and none was given (--scope)"

#: Other systems' note types that have a memfs counterpart. Anything else becomes the default
#: type, and the original name is kept as a tag so no information is lost.
TYPE_ALIASES = {
    "meeting": "episode",
    "event": "episode",
    "journal": "episode",
    "daily": "episode",
    "log": "episode",
    "conversation": "episode",
    "howto": "procedure",
    "how-to": "procedure",
    "guide": "procedure",
    "process": "procedure",
    "recipe": "procedure",
    "skill": "procedure",
    "checklist": "procedure",
    "runbook": "procedure",
    "decision": "fact",
    "definition": "fact",
    "digest": "summary",
    "overview": "summary",
    "preferences": "preference",
}


@dataclass(frozen=True)
class Defaults:
    """What the command line gives for files that do not say it themselves: ``scope`` (whose
    memory; required for files outside ``system/``), ``source`` (else ``<format>:<path in the
    source folder>``), ``source_kind`` (else the format's own: ``agent`` for Letta, ``document``
    for the others), ``type`` (else ``note``), and ``prefix``, the folder of the memory root the
    files go to."""

    scope: str | None = None
    source: str | None = None
    source_kind: str | None = None
    type: str | None = None
    prefix: str = ""

    def dest(self, rel: str) -> str:
        return f"{self.prefix.strip('/')}/{rel}" if self.prefix.strip("/") else rel


@dataclass(frozen=True)
class SourceFile:
    """One ``.md`` file of the source folder: its path there (POSIX) and its bytes."""

    rel: str
    data: bytes


@dataclass(frozen=True)
class Step:
    """One thing an import did to a file: the rule (``permalink → id``) and the detail."""

    rule: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.rule}: {self.detail}" if self.detail else self.rule


@dataclass(frozen=True)
class Converted:
    """A source file as memfs will hold it: ``content`` (``None`` when it cannot be imported,
    ``problem`` says why), what was ``mapped`` (fields added or converted) and what was ``kept``
    as the other system wrote it."""

    origin: str
    path: str
    content: bytes | None
    mapped: tuple[Step, ...] = ()
    kept: tuple[Step, ...] = ()
    problem: str | None = None


@dataclass
class Note:
    """A source file read: its frontmatter (``doc`` is ``None`` when it has none) and body."""

    rel: str
    text: str
    doc: Document | None
    meta: dict[str, Any]
    body: str
    bom: bool

    @property
    def newline(self) -> str:
        if self.doc is not None:
            return self.doc.newline
        return "\r\n" if "\r\n" in self.body else "\n"


class NotReadable(ValueError):
    """The file cannot be read as a note (not UTF-8, broken YAML, frontmatter not a mapping)."""


def read_note(rel: str, data: bytes) -> Note:
    """``data`` as a :class:`Note`; a file without a frontmatter block is all body."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotReadable(f"is not UTF-8 (byte {exc.start})") from None
    try:
        doc: Document | None = split(text)
    except SplitError:
        doc = None
    if doc is None:
        bom = text.startswith(BOM)
        return Note(rel, text, None, {}, text[1:] if bom else text, bom)
    try:
        meta = yamlio.load(doc.frontmatter) if doc.frontmatter.strip() else {}
    except yamlio.YamlError as exc:
        raise NotReadable(f"frontmatter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict) or not all(isinstance(k, str) for k in meta):
        raise NotReadable("frontmatter is not a mapping of fields")
    return Note(rel, text, doc, meta, doc.body, doc.bom)


@dataclass
class Draft:
    """The changes a conversion makes to one note, and its report."""

    note: Note
    changes: dict[str, Any] = field(default_factory=dict)
    mapped: list[Step] = field(default_factory=list)
    kept: list[Step] = field(default_factory=list)

    def get(self, key: str) -> Any:
        return self.changes[key] if key in self.changes else self.note.meta.get(key)

    def set(self, key: str, value: Any, rule: str, detail: str = "") -> None:
        self.changes[key] = value
        self.mapped.append(Step(rule, detail))

    def keep(self, rule: str, detail: str = "") -> None:
        self.kept.append(Step(rule, detail))

    def render(self) -> bytes:
        """The note with the changes: an edit of its frontmatter, or a new block in front."""
        note = self.note
        ordered = dict(sorted(self.changes.items(), key=lambda kv: _order(kv[0])))
        if note.doc is not None:
            if not ordered:
                return note.text.encode("utf-8")
            frontmatter, _ = yamlio.edit_checked(note.doc.frontmatter, ordered, note.newline, before=note.meta)
            return note.doc.with_frontmatter(frontmatter).render().encode("utf-8")
        nl = note.newline
        lines = yamlio.render({k: v for k, v in ordered.items() if v is not None}, FIELDS).splitlines()
        block = "".join(line + nl for line in lines)
        doc = Document(note.bom, "---" + nl, block, "---" + nl, note.body)
        return doc.render().encode("utf-8")


def _order(key: str) -> tuple[int, str]:
    return (FIELDS.index(key), key) if key in FIELDS else (len(FIELDS), key)


def map_type(value: Any, default: str) -> tuple[str, str | None]:
    """(memfs type, the original to keep as a tag or ``None``) for another system's note type."""
    if not isinstance(value, str) or not value.strip():
        return default, None
    name = value.strip()
    if name in TYPES:
        return name, None
    if name.lower() in TYPES:
        return name.lower(), None
    return TYPE_ALIASES.get(name.lower(), default), name


def tags_of(value: Any) -> list[str] | None:
    """Tags as a list of strings: a list as it is (non-strings as text), a string split at commas
    (or spaces when it has none), a leading ``#`` dropped; ``None`` when there are none."""
    if value is None:
        return None
    items: list[Any]
    if isinstance(value, str):
        items = [t for t in re.split(r"," if "," in value else r"\s+", value) if t.strip()]
    elif isinstance(value, list):
        items = value
    else:
        items = [value]
    tags = [str(t).strip().lstrip("#") for t in items if t is not None and str(t).strip().lstrip("#")]
    return list(dict.fromkeys(tags)) or None


def add_tag(draft: Draft, tag: str, why: str) -> None:
    tags = tags_of(draft.get("tags")) or []
    if tag not in tags:
        draft.set("tags", [*tags, tag], "kept as a tag", f"{why} {tag}")


def fill_identity(draft: Draft, dest: str, defaults: Defaults, fmt: str, *, default_type: str = "note",
                  default_kind: str = "document", origin: str | None = None) -> str | None:
    """Give the draft what memfs needs to recall it (type, scope, source, source_kind, status),
    mapping values memfs would not read; the reason it cannot be imported, or ``None``. The
    source it adds is ``defaults.source``, else ``<fmt>:<origin>`` (default: the file's path in
    the source folder)."""
    meta = draft.note.meta
    if "type" in meta or "type" in draft.changes:
        memfs_type, original = map_type(draft.get("type"), defaults.type or default_type)
        if memfs_type != draft.get("type"):
            draft.set("type", memfs_type, "type", f"{draft.get('type')!s} → {memfs_type}")
        if original is not None:
            add_tag(draft, original, "type")
    else:
        draft.set("type", defaults.type or default_type, "added type", defaults.type or default_type)
    tags = draft.get("tags")
    if tags is not None and tags_of(tags) != tags:
        draft.set("tags", tags_of(tags), "tags", "written as a list")
    status = draft.get("status")
    if status is None:
        draft.set("status", "active", "added status", "active")
    elif status not in STATUSES:
        draft.set("status", "active", "status", f"{status!s} → active")
        add_tag(draft, str(status), "status")
    in_system = dest.startswith(SYSTEM_DIR + "/")
    if draft.get("scope") is None and not in_system:
        if defaults.scope is None:
            return NO_SCOPE
        draft.set("scope", defaults.scope, "added scope", defaults.scope)
    source = draft.get("source")
    if source is None or (isinstance(source, str) and not source.strip()):
        value = defaults.source or f"{fmt}:{origin or draft.note.rel}"
        draft.set("source", value, "added source", value)
    if draft.get("source_kind") is None:
        kind = defaults.source_kind or default_kind
        draft.set("source_kind", kind, "added source_kind", kind)
    elif draft.get("source_kind") not in SOURCE_KINDS:
        original = str(draft.get("source_kind"))
        kind = defaults.source_kind or default_kind
        draft.set("source_kind", kind, "source_kind", f"{original} → {kind}")
        add_tag(draft, original, "source_kind")
    unknown = [k for k in meta if k not in FIELDS]
    if unknown:
        draft.keep("fields kept as written", ", ".join(unknown))
    return None


def finish(draft: Draft, dest: str) -> Converted:
    """The draft rendered (or the reason it cannot be)."""
    try:
        content = draft.render()
    except (ValueError, TypeError) as exc:
        return Converted(draft.note.rel, dest, None, problem=f"its frontmatter could not be extended ({exc})")
    return Converted(draft.note.rel, dest, content, tuple(draft.mapped), tuple(draft.kept))


def unreadable(rel: str, dest: str, why: str) -> Converted:
    return Converted(rel, dest, None, problem=why)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def convert_note(file: SourceFile, defaults: Defaults, fmt: str, **kinds: str) -> Draft | Converted:
    """The draft of one note with memfs's fields filled in, or the :class:`Converted` saying why
    it cannot be imported."""
    dest = defaults.dest(file.rel)
    try:
        note = read_note(file.rel, file.data)
    except NotReadable as exc:
        return unreadable(file.rel, dest, str(exc))
    draft = Draft(note)
    if note.doc is None:
        draft.keep("no frontmatter", "a block was added in front of the text")
    why = fill_identity(draft, dest, defaults, fmt, **kinds)
    return unreadable(file.rel, dest, why) if why else draft
