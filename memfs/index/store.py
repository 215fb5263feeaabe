"""The on-disk index: schema and documents, the state file, open handles, exact BM25F statistics."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.format.model import FIELDS, Memory, Problem
from memfs.index.analysis import ANALYZER_VERSION, tokens
from memfs.policy import recall
from memfs.store import atomic

SCHEMA_VERSION = 1
INDEX_FORMAT = f"schema{SCHEMA_VERSION}-analyzer{ANALYZER_VERSION}"
STATE_FILE = "state.json"
LOCK_FILE = "index.lock"
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
BM25_B = 0.75
BM25_K1 = 1.2
MAX_QUERY_CHARS = 20_000
MAX_QUERY_TERMS = 64
RACY_NS = 2_000_000_000
SYNC_WAIT = 5.0
REBUILD_WAIT = 600.0


# --- schema and documents --------------------------------------------------------------------
def make_schema():
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
        expires=NUMERIC(numtype=int, bits=64, signed=True),
        rec=STORED(),
        **text,
    )


def _epoch_us(value: dt.datetime) -> int:
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


def _document(memory: Memory) -> tuple[dict[str, Any], list[int]]:
    """The Whoosh document for ``memory`` and the exact token count of each text field."""
    texts = _texts(memory)
    lengths = [len(tokens(texts[name])) for name in TEXT_FIELDS]
    when = memory.updated or memory.created
    doc: dict[str, Any] = {
        "path": memory.path,
        "scope": memory.scope or NONE,
        "status": memory.status or NONE,
        "version": memory.version if memory.version is not None else NONE,
        "type": memory.type or NONE,
        "sourced": "yes" if (memory.source or "").strip() else "no",
        "rec": (
            memory.scope,
            memory.version,
            memory.status,
            memory.source,
            memory.expires.isoformat() if memory.expires else None,
            memory.type,
            when.isoformat() if when else None,
            recall.confidence_factor(memory),
        ),
    }
    if memory.expires is not None:
        doc["expires"] = _epoch_us(memory.expires)
    for name in TEXT_FIELDS:
        if texts[name]:
            doc[name] = texts[name]
    return doc, lengths


@dataclass(frozen=True)
class _Stored:
    """The eligibility/rank fields of an indexed memory, read back from the index."""

    scope: str | None
    version: str | None
    status: str | None
    source: str | None
    expires: dt.datetime | None
    type: str | None
    updated: dt.datetime | None
    confidence: float
    created: dt.datetime | None = None

    @classmethod
    def from_rec(cls, rec: tuple) -> _Stored:
        scope, version, status, source, expires, type_, when, confidence = rec
        return cls(
            scope,
            version,
            status,
            source,
            dt.datetime.fromisoformat(expires) if expires else None,
            type_,
            dt.datetime.fromisoformat(when) if when else None,
            confidence,
        )


# --- state -----------------------------------------------------------------------------------
@dataclass
class _Entry:
    mtime_ns: int
    size: int
    digest: str
    lengths: list[int] | None
    broken: str | None = None

    def to_json(self) -> list[Any]:
        return [self.mtime_ns, self.size, self.digest, self.lengths, self.broken]


@dataclass
class _State:
    index_dir: str
    serial: int = 0
    snapshot_ns: int = 0
    files: dict[str, _Entry] = field(default_factory=dict)
    probe: list | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": INDEX_FORMAT,
            "index_dir": self.index_dir,
            "serial": self.serial,
            "snapshot_ns": self.snapshot_ns,
            "probe": self.probe,
            "files": {rel: e.to_json() for rel, e in self.files.items()},
        }

    def average_lengths(self) -> dict[str, float]:
        """Mean token count of each text field over the memories that have it (as Lucene does)."""
        totals, having = [0] * len(TEXT_FIELDS), [0] * len(TEXT_FIELDS)
        for entry in self.files.values():
            if entry.lengths is not None:
                for i, n in enumerate(entry.lengths):
                    if n:
                        totals[i] += n
                        having[i] += 1
        return {name: (totals[i] / having[i] if having[i] else 1.0) for i, name in enumerate(TEXT_FIELDS)}

    def broken(self) -> list[Problem]:
        found = [(rel, e.broken) for rel, e in self.files.items() if e.broken is not None]
        return [Problem(rel, None, why, "fix the file; search skips it until it parses") for rel, why in sorted(found)]


class _BadState(Exception):
    pass


def _read_state(cache: Path) -> _State:
    try:
        raw = json.loads((cache / STATE_FILE).read_bytes())
        if raw.get("format") != INDEX_FORMAT:
            raise _BadState(f"it was built by another memfs version ({raw.get('format')})")
        files = {rel: _Entry(*values) for rel, values in raw["files"].items()}
        return _State(raw["index_dir"], raw["serial"], raw["snapshot_ns"], files, raw.get("probe"))
    except FileNotFoundError:
        raise _BadState("there is none yet") from None
    except _BadState:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise _BadState(f"its state file is unreadable ({type(exc).__name__})") from None


def _write_state(cache: Path, state: _State) -> None:
    atomic.write_bytes(cache / STATE_FILE, json.dumps(state.to_json(), separators=(",", ":")).encode())
    with contextlib.suppress(OSError):
        _parsed[str(cache)] = (_state_key(cache), state)


def _ensure_cache(cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_text("# memfs search index: a cache, rebuilt from the memory files at will\n*\n")



# --- handles (open index + searcher, cached per thread) ----------------------------------------
_local = threading.local()


class _Handle:
    def __init__(self, cache: Path, state: _State, state_key: tuple[int, int, int]) -> None:
        from whoosh.searching import Searcher

        self.state = state
        self.state_key = state_key
        self.ix = _open_dir(cache / state.index_dir)
        reader = self.ix.reader()
        self.stats = _Stats(reader, state)
        self.searcher = Searcher(reader, weighting=_weighting(self.stats))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.searcher.close()


def _handles() -> dict[str, _Handle]:
    found = getattr(_local, "handles", None)
    if found is None:
        found = _local.handles = {}
    return found


def _state_key(cache: Path) -> tuple[int, int, int]:
    st = (cache / STATE_FILE).stat()
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _handle(repo) -> _Handle:
    """The open index for ``repo`` matching the current state file (reopened when it changed)."""
    cache = repo.cache_dir
    key = str(cache)
    handles = _handles()
    current = handles.get(key)
    state_key = _state_key(cache)
    if current is not None and current.state_key == state_key:
        return current
    state = _cached_state(repo)
    if current is not None:
        current.close()
        handles.pop(key, None)
    handle = _Handle(cache, state, state_key)
    handles[key] = handle
    return handle


_parsed: dict[str, tuple[tuple[int, int, int], _State]] = {}


def _cached_state(repo) -> _State:
    """The state file, parsed once per change of the file (it is large: one entry per memory).
    Callers must not mutate it; :func:`_read_state` gives a private copy."""
    cache = repo.cache_dir
    try:
        key = _state_key(cache)
    except FileNotFoundError:
        raise _BadState("there is none yet") from None
    found = _parsed.get(str(cache))
    if found is not None and found[0] == key:
        return found[1]
    state = _read_state(cache)
    _parsed[str(cache)] = (key, state)
    return state


def close(repo) -> None:
    """Close this thread's open index for ``repo`` (tests and long-running programs)."""
    handle = _handles().pop(str(repo.cache_dir), None)
    if handle is not None:
        handle.close()


# --- exact statistics and scoring --------------------------------------------------------------
class _Stats:
    """Collection statistics that ignore deleted documents, so ranks do not depend on merge history."""

    def __init__(self, reader, state: _State) -> None:
        self.reader = reader
        self.count = max(reader.doc_count(), 1)
        self.avgfl = state.average_lengths()
        self.deleted: list[tuple[Any, list[int]]] = []
        for leaf, _offset in reader.leaf_readers():
            if leaf.has_deletions():
                self.deleted.append((leaf, sorted(leaf.deleted_docs_set)))
        self._df: dict[tuple[str, Any], int] = {}

    def df(self, fieldname: str, text: Any) -> int:
        key = (fieldname, text)
        found = self._df.get(key)
        if found is None:
            found = self.reader.doc_frequency(fieldname, text) - self._deleted_with(fieldname, text)
            self._df[key] = found
        return found

    def _deleted_with(self, fieldname: str, text: Any) -> int:
        gone = 0
        for leaf, deleted in self.deleted:
            btext = text if isinstance(text, bytes) else leaf.schema[fieldname].to_bytes(text)
            if (fieldname, btext) not in leaf:
                continue
            matcher = leaf._terms.matcher(fieldname, btext, leaf.schema[fieldname].format)
            for docnum in deleted:
                if not matcher.is_active():
                    break
                if matcher.id() < docnum:
                    matcher.skip_to(docnum)
                    if not matcher.is_active():
                        break
                if matcher.id() == docnum:
                    gone += 1
        return gone

    def idf(self, fieldname: str, text: Any) -> float:
        import math

        n = self.df(fieldname, text)
        return math.log(1 + (self.count - n + 0.5) / (n + 0.5))


def _weighting(stats: _Stats):
    from whoosh.scoring import BM25F, BM25FScorer

    class Scorer(BM25FScorer):
        def __init__(self, searcher, fieldname, text, B, K1, qf=1):
            self.idf = stats.idf(fieldname, text)
            self.avgfl = stats.avgfl.get(fieldname, 1.0)
            self.B = B
            self.K1 = K1
            self.qf = qf
            self.setup(searcher, fieldname, text)

    class Weighting(BM25F):
        def scorer(self, searcher, fieldname, text, qf=1):
            from whoosh.scoring import WeightScorer

            if not searcher.schema[fieldname].scorable:
                return WeightScorer.for_(searcher, fieldname, text)
            return Scorer(searcher, fieldname, text, self.B, self.K1, qf=qf)

    return Weighting(B=BM25_B, K1=BM25_K1)


class _CorruptIndex(Exception):
    pass


def _open_dir(path: Path):
    """``whoosh.index.open_dir``; on a corrupt index Whoosh leaks the file it was reading, so that
    file is collected here, quietly, and the caller gets :class:`_CorruptIndex`."""
    import warnings

    from whoosh import index as whoosh_index

    problem = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            return whoosh_index.open_dir(str(path))
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
        import gc

        gc.collect()
    raise _CorruptIndex(problem)
