"""What a memory becomes in the index: the Whoosh schema, one document per memory, and the
eligibility/rank fields stored with it so that ranking never has to read a file. A memory with an
unreadable eligibility field is indexed with ``readable: no`` (the query requires ``yes``) and
its stored record names the fields, so ``search --explain`` can say why it was left out."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from memfs.format.model import FIELDS, Memory
from memfs.policy import recall

NONE = "<none>"

#: Text fields and their query boosts.
FIELD_BOOSTS: dict[str, float] = {
    "body": 1.0,
    "description": 2.0,
    "tags": 2.0,
    "key": 2.0,
    "pathtext": 1.0,
    "extra": 2.0,
}
TEXT_FIELDS = tuple(FIELD_BOOSTS)


def make_schema() -> Any:
    from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

    from memfs.index.analysis import MemfsAnalyzer

    analyzer = MemfsAnalyzer()
    text = {name: TEXT(analyzer=analyzer, phrase=False) for name in TEXT_FIELDS}
    return Schema(
        path=ID(stored=True, unique=True),
        scope=ID(),
        status=ID(),
        version=ID(),
        type=ID(),
        sourced=ID(),
        readable=ID(),
        expires=NUMERIC(numtype=int, bits=64, signed=True),
        rec=STORED(),
        **text,
    )


def epoch_us(value: dt.datetime) -> int:
    return int(value.timestamp() * 1_000_000)


def _extra_text(memory: Memory) -> str:
    """Values of frontmatter keys memfs does not define (``speaker``, ``ticket``...), as text."""
    parts: list[str] = []
    for name, value in memory.meta.items():
        if name in FIELDS:
            continue
        items = value if isinstance(value, list) else [value]
        parts.extend(str(v) for v in items if isinstance(v, str | int | float) and not isinstance(v, bool))
    return "\n".join(parts)


def _texts(memory: Memory) -> dict[str, str]:
    stem = memory.path[:-3] if memory.path.endswith(".md") else memory.path
    return {
        "body": memory.body,
        "description": memory.description or "",
        "tags": "\n".join(memory.tags),
        "key": memory.key or "",
        "pathtext": stem,
        "extra": _extra_text(memory),
    }


def document(memory: Memory) -> dict[str, Any]:
    """The Whoosh document for ``memory`` (its text fields' token counts are taken from Whoosh as
    it indexes them: :func:`memfs.index.catchup.add_document`)."""
    texts = _texts(memory)
    when = memory.updated or memory.created
    doc: dict[str, Any] = {
        "path": memory.path,
        "scope": memory.scope or NONE,
        "status": memory.status or NONE,
        "version": memory.version if memory.version is not None else NONE,
        "type": memory.type or NONE,
        "sourced": "yes" if (memory.source or "").strip() else "no",
        "readable": "no" if memory.unreadable else "yes",
        "rec": (
            memory.scope,
            memory.version,
            memory.status,
            memory.source,
            memory.expires.isoformat() if memory.expires else None,
            memory.type,
            when.isoformat() if when else None,
            recall.confidence_factor(memory),
            list(memory.unreadable),
            memory.source_kind,
        ),
    }
    if memory.expires is not None:
        doc["expires"] = epoch_us(memory.expires)
    for name in TEXT_FIELDS:
        if texts[name]:
            doc[name] = texts[name]
    return doc


@dataclass(frozen=True)
class Stored:
    """The eligibility/rank fields of an indexed memory, read back from the index."""

    scope: str | None
    version: str | None
    status: str | None
    source: str | None
    expires: dt.datetime | None
    type: str | None
    updated: dt.datetime | None
    confidence: float
    unreadable: tuple[str, ...] = ()
    created: dt.datetime | None = None
    source_kind: str | None = None

    @classmethod
    def from_rec(cls, rec: tuple[Any, ...]) -> Stored:
        scope, version, status, source, expires, type_, when, confidence, unreadable, source_kind = rec
        return cls(
            scope,
            version,
            status,
            source,
            dt.datetime.fromisoformat(expires) if expires else None,
            type_,
            dt.datetime.fromisoformat(when) if when else None,
            confidence,
            tuple(unreadable),
            None,
            source_kind,
        )
