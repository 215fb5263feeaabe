"""Compute the new bytes of a memory file for a write (pure: no disk, no git).

New files come from the canonical writer; existing files change only the lines of the fields
that change (plus ``revision`` and ``updated``), and their body stays byte for byte unless a new
body is given.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memfs.errors import ConflictError, InvalidMemory
from memfs.format import yamlio
from memfs.format.document import Document, compose
from memfs.format.model import FIELDS, Memory
from memfs.format.names import default_id
from memfs.format.parse import build, load_document, parse

#: Fields memfs maintains itself on every change.
MANAGED = ("revision", "created", "updated")


@dataclass(frozen=True)
class Edit:
    """The outcome of preparing a write: new bytes (``None`` if nothing changes) and the record."""

    content: bytes | None
    memory: Memory
    created: bool


def _same(old: object, new: Any) -> bool:
    if new is None:
        return old is None
    try:
        loaded: object = yamlio.as_loaded(new)
        return loaded == old
    except (TypeError, ValueError):
        return False


def _finish_body(body: str) -> str:
    return body if body.endswith(("\n", "\r")) or body == "" else body + "\n"


def check_revision(path: str, actual: int, expected: int | None, then: str = "and redo your change") -> None:
    """Optimistic concurrency: :class:`ConflictError` if the caller read another revision."""
    if expected is not None and actual != expected:
        raise ConflictError(
            f"{path}: changed since you read it (you had revision {expected}, it is now "
            f"revision {actual}); read it again {then}"
        )


def new_file(path: str, fields: Mapping[str, Any], body: str, now: dt.datetime, floor: int = 0) -> Edit:
    """A new file from the canonical writer. ``floor`` is the highest revision the path ever had
    (a file created again continues above it, so no revision number is handed out twice)."""
    meta: dict[str, Any] = {"id": default_id(path), "status": "active"}
    meta.update({k: v for k, v in fields.items() if v is not None and k not in MANAGED})
    meta.update(revision=floor + 1, created=fields.get("created") or now, updated=now)
    text = compose(yamlio.render(meta, FIELDS), _finish_body(body)).render()
    data = text.encode("utf-8")
    return Edit(data, parse(path, data), True)


def update_file(
    path: str,
    current: bytes,
    fields: Mapping[str, Any],
    body: str | None,
    now: dt.datetime,
    expected_revision: int | None = None,
    loaded: tuple[Document, dict[str, Any]] | None = None,
    floor: int = 0,
    old: Memory | None = None,
) -> Edit:
    """The edit of an existing file; ``loaded`` is ``current`` already split and parsed, and
    ``old`` the memory built from that parse, if the caller has them (a transaction that just read
    the file). The new revision is above both the current one and ``floor``, the highest revision
    the memory ever had (after a revert the file says an older number)."""
    doc, meta = loaded if loaded is not None else load_document(path, current)
    if old is None or loaded is None:
        old = build(path, meta, doc.body, doc.frontmatter)
    check_revision(path, old.revision, expected_revision)
    changes = {k: v for k, v in fields.items() if k not in MANAGED and not _same(meta.get(k), v)}
    new_body = None if body is None else _finish_body(body)
    if not changes and (new_body is None or new_body == doc.body):
        return Edit(None, old, False)
    changes["revision"] = max(old.revision, floor) + 1
    changes["updated"] = now
    try:
        frontmatter, new_meta = yamlio.edit_checked(doc.frontmatter, changes, doc.newline, before=meta)
    except ValueError as exc:
        raise InvalidMemory(f"{path}: {exc}; the file was left unchanged") from None
    new_doc = doc.with_frontmatter(frontmatter)
    if new_body is not None:
        new_doc = new_doc.with_body(new_body)
    data = new_doc.render().encode("utf-8")
    return Edit(data, build(path, new_meta, new_doc.body, frontmatter), False)
