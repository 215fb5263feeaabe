"""What a memory becomes in the index: the Whoosh schema, one document per memory, and the
eligibility/rank fields stored with it so that ranking never has to read a file. A memory with an
unreadable eligibility field is indexed with ``readable: no`` (the query requires ``yes``) and
its stored record names the fields, so ``search --explain`` can say why it was left out.

Each document also keeps the memory as parsed, with the signature of the bytes it was parsed
from (:func:`kept_blob`), so a search reads no file still signed so (:func:`memfs.index.query.search`).
The file stays the truth: the kept parse serves only a file whose ``lstat`` still matches the
signature (:func:`memfs.store.paths.signed_unchanged`) under the same limits; any other file is read
and parsed again, and eligibility is decided on every search from the memory as it is now."""

from __future__ import annotations

import dataclasses
import datetime as dt
import pickle
from dataclasses import dataclass
from typing import Any

from memfs.format.limits import Limits
from memfs.format.model import FIELDS, Memory
from memfs.policy import recall
from memfs.store.paths import Signature

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


def _kept_column() -> Any:
    """The column of :func:`kept_blob`: zlib-compressed bytes, ``b""`` for a document without.
    whoosh3's compressed column has no default of its own (reading a segment without the column
    fails), so it is given one, and every document writes a value (:func:`document`)."""
    from whoosh.columns import CompressedBytesColumn

    column = CompressedBytesColumn()  # type: ignore[no-untyped-call]  # whoosh3 leaves its __init__ unannotated
    column._default = b""
    return column


def make_schema() -> Any:
    from whoosh.fields import COLUMN, ID, NUMERIC, STORED, TEXT, Schema

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
        kept=COLUMN(_kept_column()),
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


def kept_blob(memory: Memory, signature: Signature | None, limits: Limits) -> bytes:
    """What a document keeps of ``memory`` (parsed under ``limits`` from bytes read with
    ``signature``): nothing without a signature (a file too recently changed to tell a later
    change by its stats), else the three pickled, read back by :func:`from_kept`. In a column of
    its own, so ranking, which reads the stored records of every candidate, never unpickles it."""
    if signature is None:
        return b""
    return pickle.dumps((signature, dataclasses.astuple(limits), memory), protocol=pickle.HIGHEST_PROTOCOL)


def from_kept(blob: bytes) -> tuple[Signature, tuple[Any, ...], Memory] | None:
    """(signature, limits as a tuple, memory) of a :func:`kept_blob`; ``None`` for an empty one."""
    if not blob:
        return None
    signature, limits, memory = pickle.loads(blob)
    return signature, limits, memory


def document(memory: Memory, kept: bytes = b"") -> dict[str, Any]:
    """The Whoosh document for ``memory`` (its text fields' token counts are taken from Whoosh as
    it indexes them: :func:`memfs.index.catchup.add_document`); ``kept``: :func:`kept_blob`."""
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
        "kept": kept,
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
