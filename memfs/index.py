"""The search index: a Whoosh index of every memory under ``<root>/.memfs/``, kept in step with the files.

The index is a cache of the working tree. Before every read, :func:`sync` runs one ``git status``
(HEAD plus changed/untracked/ignored paths, which git checks against its own stat cache) and, if
that or the stats of the listed files differ from what ``.memfs/state.json`` recorded, compares a
stat snapshot (``mtime_ns``, size) of every memory file and re-indexes only what differs: a plain
``git commit``, ``git pull``, ``git revert`` or checkout, an editor's save, a deletion or a rename
all show up as changed, new or missing files. Files whose mtime is too close to the snapshot to be
trusted ("racy", as git calls it) are re-hashed. Indexing only reads memory files, never writes them.

``state.json`` also records the index format (schema + analyzer version); a mismatch, a missing
or corrupt index, or a corrupt state file triggers a rebuild with a notice, never a traceback.
Rebuilds go to a fresh directory that ``state.json`` then points to, so a concurrent reader keeps
its old snapshot. One writer at a time: every index write holds ``.memfs/index.lock``; a search
that cannot get it in time answers from the index as it is and says so.

Scoring is BM25F over body, description, tags, key, path and the other (non-memfs) frontmatter
values, with Lucene's idf ``log(1 + (N - n + 0.5) / (n + 0.5))``. Term statistics ignore deleted
documents (Whoosh counts them until a merge) and average field lengths come from exact counts in
the state file, so an incrementally updated index ranks exactly like a fresh ``memfs reindex``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs import atomic, locking, paths, recall
from memfs.cjk import ANALYZER_VERSION, is_cjk, tokens
from memfs.errors import InvalidMemory, LockTimeout, MemfsError
from memfs.model import FIELDS, Memory, Problem, utcnow
from memfs.parse import parse

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


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hit:
    """One recalled memory: the file as it is now, and the factors of its score."""

    memory: Memory
    score: float
    relevance: float
    freshness: float
    confidence: float

    @property
    def path(self) -> str:
        return self.memory.path

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        m = self.memory
        out: dict[str, Any] = {
            "path": m.path,
            "id": m.id,
            "scope": m.scope,
            "source": m.source,
            "type": m.type,
            "status": m.status,
            "version": m.version,
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 6),
            "freshness": round(self.freshness, 6),
            "confidence": round(self.confidence, 6),
            "created": _iso(m.created),
            "updated": _iso(m.updated),
            "expires": _iso(m.expires),
            "description": m.description,
            "tags": list(m.tags),
        }
        if body:
            out["body"] = m.body
        return out


@dataclass(frozen=True)
class Filtered:
    """A memory that matched the words but is not eligible, and why (for ``--explain``)."""

    path: str
    reason: str
    relevance: float

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "relevance": round(self.relevance, 6)}


@dataclass
class SearchResult:
    query: str
    scope: str | None
    version: str | None
    at: dt.datetime
    inherit: bool
    terms: list[str]
    hits: list[Hit] = field(default_factory=list)
    filtered: list[Filtered] = field(default_factory=list)
    broken: list[Problem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    stale: bool = False

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        return {
            "query": self.query,
            "scope": self.scope,
            "inherit": self.inherit,
            "version": self.version,
            "at": _iso(self.at),
            "terms": self.terms,
            "hits": [h.to_json(body=body) for h in self.hits],
            "filtered": [f.to_json() for f in self.filtered],
            "unreadable": [p.to_json() for p in self.broken],
            "notices": self.notices,
            "stale": self.stale,
        }


@dataclass
class SyncReport:
    """What one catch-up did. ``stale`` means another process held the index lock too long."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    rebuilt: bool = False
    stale: bool = False
    notices: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.rebuilt)


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


# --- schema and documents --------------------------------------------------------------------
def make_schema():
    from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

    from memfs.cjk import MemfsAnalyzer

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


# --- the working tree ------------------------------------------------------------------------
def _stat_tree(root: Path) -> dict[str, tuple[int, int]]:
    """``rel -> (mtime_ns, size)`` of every memory file (same rules as :func:`paths.iter_memory_paths`)."""
    found: dict[str, tuple[int, int]] = {}
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, prefix + name + "/"))
                    elif name.endswith(".md") and name != "README.md":
                        st = entry.stat()
                        found[prefix + name] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue
    if (root / paths.IGNORE_FILE).is_file():
        spec = paths._ignore_spec(root)
        if spec is not None:
            found = {rel: st for rel, st in found.items() if not spec.match_file(rel)}
    return found


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


class _CorruptIndex(Exception):
    pass


def _probe(repo) -> list | None:
    """HEAD and the paths git reports as changed, untracked or ignored (memory files only), from one
    ``git status`` (with ``--no-optional-locks``, so it never takes the lock a concurrent commit needs).

    Equal probes plus unchanged stats of the listed files mean nothing changed: git has checked every
    tracked file's stat against its index, in C. ``None`` when git cannot answer.
    """
    from memfs.errors import GitError

    prefix = repo.prefix
    try:
        out = repo.git.run(
            "--no-optional-locks",
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=all",
            "--ignored=matching",
            "--",
            prefix or ".",
        )
    except GitError:
        return None
    head = None
    listed: list[str] = []
    records = out.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if record.startswith("# branch.oid "):
            head = record[len("# branch.oid ") :]
        elif record[:2] in ("? ", "! "):
            listed.append(record[2:])
        elif record.startswith("1 "):
            listed.append(record.split(" ", 8)[8])
        elif record.startswith("2 "):
            listed.append(record.split(" ", 9)[9])
            listed.append(records[i])
            i += 1
        elif record.startswith("u "):
            listed.append(record.split(" ", 10)[10])
    rels = sorted({p[len(prefix) :] for p in listed if p.startswith(prefix) and paths.is_memory_name(p[len(prefix) :])})
    return [head, rels]


def _unchanged_since(root: Path, state: _State, probe: list | None) -> bool:
    """Whether ``probe`` proves the working tree still matches ``state`` (no stat walk needed): same
    HEAD, same set of changed/untracked/ignored memory files, and those files' stats as recorded."""
    if probe is None or state.probe is None or probe != state.probe:
        return False
    racy_before = state.snapshot_ns - RACY_NS
    for rel in probe[1]:
        entry = state.files.get(rel)
        try:
            st = os.stat(root / rel)
        except OSError:
            if entry is not None:
                return False
            continue
        if entry is None or entry.mtime_ns != st.st_mtime_ns or entry.size != st.st_size:
            return False
        if entry.mtime_ns >= racy_before:
            return False
    return True


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _load(repo, rel: str) -> tuple[bytes | None, Memory | None, str | None]:
    data = repo.read_bytes(rel)
    if data is None:
        return None, None, None
    try:
        return data, parse(rel, data), None
    except InvalidMemory as exc:
        return data, None, "; ".join(p.message for p in exc.problems) or str(exc)


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


# --- building and catching up -----------------------------------------------------------------
def _open_writer(ix, timeout: float):
    from whoosh.index import LockError

    deadline = time.monotonic() + timeout
    while True:
        try:
            return ix.writer(timeout=min(1.0, timeout), delay=0.05)
        except LockError:
            if time.monotonic() >= deadline:
                raise LockTimeout("the search index is locked by another process") from None


def rebuild(repo, *, progress: Callable[[int, int], None] | None = None, wait: float = REBUILD_WAIT) -> _State:
    """Index every memory from scratch into a fresh directory, then switch ``state.json`` to it."""
    cache = repo.cache_dir
    _ensure_cache(cache)
    with locking.exclusive(cache / LOCK_FILE, timeout=wait):
        return _rebuild_locked(repo, progress)


def _rebuild_locked(repo, progress: Callable[[int, int], None] | None) -> _State:
    from whoosh import index as whoosh_index

    cache = repo.cache_dir
    try:
        serial = _read_state(cache).serial + 1
    except _BadState:
        serial = 1
    name = f"ix-{secrets.token_hex(4)}"
    target = cache / name
    target.mkdir()
    snapshot = time.time_ns()
    probe = _probe(repo)
    stats = _stat_tree(repo.root)
    state = _State(name, serial, snapshot, probe=probe)
    try:
        ix = whoosh_index.create_in(str(target), make_schema())
        writer = _LazyWriter(ix, 0, fresh=True)
        try:
            rels = sorted(stats)
            for done, rel in enumerate(rels, start=1):
                _index_one(repo, writer, state, rel, stats[rel], fresh=True)
                if progress is not None:
                    progress(done, len(rels))
            writer.finish(commit=True)
        except BaseException:
            writer.finish(commit=False)
            raise
        _write_state(cache, state)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    for old in cache.glob("ix-*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    return state


class _LazyWriter:
    """Opens the Whoosh writer (taking its lock) only when a document really changes."""

    def __init__(self, ix, wait: float, fresh: bool = False) -> None:
        self.ix = ix
        self.wait = wait
        self.writer = ix.writer(limitmb=128) if fresh else None

    def get(self):
        if self.writer is None:
            self.writer = _open_writer(self.ix, self.wait)
        return self.writer

    def finish(self, commit: bool) -> None:
        if self.writer is not None:
            writer, self.writer = self.writer, None
            writer.commit() if commit else writer.cancel()


def _index_one(repo, writer: _LazyWriter, state: _State, rel: str, stat: tuple[int, int], *, fresh: bool) -> str:
    """(Re)index one file into ``writer`` and ``state``; returns what happened."""
    old = state.files.get(rel)
    data, memory, broken = _load(repo, rel)
    if data is None:
        if old is not None:
            if not fresh and old.lengths is not None:
                writer.get().delete_by_term("path", rel)
            del state.files[rel]
            return "removed"
        return "none"
    digest = _digest(data)
    if old is not None and old.digest == digest:
        old.mtime_ns, old.size = stat
        return "same"
    if memory is None:
        if not fresh and old is not None and old.lengths is not None:
            writer.get().delete_by_term("path", rel)
        state.files[rel] = _Entry(stat[0], stat[1], digest, None, broken)
        return "updated" if old is not None else "added"
    doc, lengths = _document(memory)
    if fresh:
        writer.get().add_document(**doc)
    else:
        writer.get().update_document(**doc)
    state.files[rel] = _Entry(stat[0], stat[1], digest, lengths, None)
    return "updated" if old is not None else "added"


def _pending(state: _State, current: dict[str, tuple[int, int]]) -> tuple[list[str], list[str]]:
    """(changed or new or racy paths, removed paths) of the working tree against ``state``."""
    racy_before = state.snapshot_ns - RACY_NS
    files = state.files
    changed = [
        rel
        for rel, st in current.items()
        if (entry := files.get(rel)) is None
        or entry.mtime_ns != st[0]
        or entry.size != st[1]
        or entry.mtime_ns >= racy_before
    ]
    removed = [rel for rel in files if rel not in current]
    return changed, removed


def sync(repo, *, wait: float = SYNC_WAIT) -> SyncReport:
    """Bring the index up to date with the memory files (HEAD and the working tree), incrementally.

    Cheap when nothing changed: one stat per memory file and no file reads. Rebuilds (with a
    notice) when there is no usable index. If another process holds the index lock for more than
    ``wait`` seconds, the index is left as it is and the report says ``stale``.
    """
    cache = repo.cache_dir
    report = SyncReport()
    try:
        state = _cached_state(repo)
        if not (cache / state.index_dir).is_dir():
            raise _BadState("its directory is missing")
    except _BadState as why:
        _ensure_cache(cache)
        if not str(why).startswith("there is none"):
            report.notices.append(f"memfs: rebuilding the search index: {why}")
        rebuild(repo)
        report.rebuilt = True
        return report
    snapshot = time.time_ns()
    probe = _probe(repo)
    if _unchanged_since(repo.root, state, probe):
        return report
    current = _stat_tree(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return report
    seen = (state.serial, snapshot, probe, current)
    try:
        with locking.exclusive(cache / LOCK_FILE, timeout=wait):
            try:
                state = _read_state(cache)
            except _BadState as why:
                report.notices.append(f"memfs: rebuilding the search index: {why}")
                _rebuild_locked(repo, None)
                report.rebuilt = True
                return report
            _apply(repo, state, report, wait, seen)
    except LockTimeout:
        report.stale = True
        report.notices.append("memfs: the search index is being updated by another process; results may be stale")
    return report


def _apply(repo, state: _State, report: SyncReport, wait: float, seen: tuple) -> None:
    """Index what changed. ``seen`` is (serial, snapshot time, probe, stats) observed just before the
    lock was taken; it is reused when no other process updated the state in between."""
    cache = repo.cache_dir
    serial, snapshot, probe, current = seen
    if state.serial != serial:
        snapshot = time.time_ns()
        probe = _probe(repo)
        current = _stat_tree(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return
    try:
        ix = _open_dir(cache / state.index_dir)
    except Exception as exc:
        report.notices.append(f"memfs: rebuilding the search index: it could not be opened ({type(exc).__name__})")
        _rebuild_locked(repo, None)
        report.rebuilt = True
        return
    writer = _LazyWriter(ix, wait)
    try:
        for rel in removed:
            if state.files[rel].lengths is not None:
                writer.get().delete_by_term("path", rel)
            del state.files[rel]
            report.removed += 1
        for rel in changed:
            what = _index_one(repo, writer, state, rel, current[rel], fresh=False)
            if what in ("added", "updated", "removed"):
                setattr(report, what, getattr(report, what) + 1)
        writer.finish(commit=True)
    finally:
        writer.finish(commit=False)
    state.snapshot_ns = snapshot
    state.probe = probe
    state.serial += 1
    _write_state(cache, state)


# --- searching --------------------------------------------------------------------------------
def query_terms(text: str) -> list[str]:
    """The unique index terms of a query, in order (at most :data:`MAX_QUERY_TERMS`)."""
    return list(dict.fromkeys(tokens(text[:MAX_QUERY_CHARS])))[:MAX_QUERY_TERMS]


def _text_query(terms: Iterable[str]):
    from whoosh.query import Or, Prefix, Term

    parts = []
    for term in terms:
        for name, boost in FIELD_BOOSTS.items():
            if len(term) == 1 and is_cjk(term):
                parts.append(Prefix(name, term, boost=boost))
            else:
                parts.append(Term(name, term, boost=boost))
    return Or(parts)


def _restriction(rule: recall.ScopeRule, version: str | None, type_: str | None):
    from whoosh.query import And, Or, Term

    parts = [Term("status", "active"), Term("sourced", "yes")]
    scopes = rule.scopes
    if scopes is not None:
        parts.append(Or([Term("scope", s) for s in scopes]))
    if version is not None:
        parts.append(Or([Term("version", version), Term("version", NONE)]))
    if type_ is not None:
        parts.append(Term("type", type_))
    return And(parts)


def _expired(handle: _Handle, now: dt.datetime) -> set[int]:
    from whoosh.query import NumericRange

    return set(handle.searcher.docs_for_query(NumericRange("expires", None, _epoch_us(now))))


def search(
    repo,
    query: str,
    *,
    scope: str | None = None,
    version: str | None = None,
    at: dt.datetime | None = None,
    type: str | None = None,
    limit: int = 10,
    inherit: bool = False,
    explain: bool = False,
    policy: recall.RankPolicy | None = None,
    catch_up: bool = True,
    record: bool = False,
) -> SearchResult:
    """Eligible memories for ``query`` in ``scope``, best first: the one call behind ``memfs search``.

    ``scope`` is matched exactly (``inherit=True`` adds its ancestors by whole ``/`` segments;
    ``None`` searches every scope). ``version=None`` accepts every version. ``at`` is "now" for
    expiry and freshness (default: the current time). ``explain`` also fills ``filtered`` with
    memories that matched the words but are not eligible. Broken memory files are listed in
    ``broken``; ``notices`` carries anything the caller should show the user (a rebuild, a stale
    index). ``catch_up=False`` skips the check against the files (for callers that just did it).
    ``record=True`` counts the hits as recalled in the usage statistics (``memfs stats``); the
    CLI and the MCP server do, internal lookups do not.
    """
    if not isinstance(query, str) or not query.strip():
        raise MemfsError("the search query is empty; say what to look for, e.g. memfs search 'release notes'")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise MemfsError(f"limit {limit!r}: must be a whole number of at least 1")
    scope = recall.check_scope(scope)
    if type is not None and type not in _types():
        raise MemfsError(f"type {type!r}: unknown; use one of: {', '.join(_types())}")
    if at is not None and at.tzinfo is None:
        raise MemfsError(f"at {at.isoformat()}: has no time zone; add one, e.g. Z")
    from whoosh.query import Require

    now = at or utcnow()
    policy = policy or recall.RankPolicy.load(repo.root)
    rule = recall.ScopeRule(scope, inherit)
    terms = query_terms(query)
    result = SearchResult(query, scope, version, now, inherit, terms)
    if len(query) > MAX_QUERY_CHARS or len(dict.fromkeys(tokens(query[:MAX_QUERY_CHARS]))) > MAX_QUERY_TERMS:
        result.notices.append(f"memfs: the query is long; only its first {MAX_QUERY_TERMS} distinct words are used")
    if catch_up:
        report = sync(repo)
        result.notices.extend(report.notices)
        result.stale = report.stale
    handle = _open_handle(repo, result)
    result.broken = handle.state.broken()
    if not terms:
        result.notices.append("memfs: the query has no searchable words (only punctuation or very common words)")
        return result
    q = _text_query(terms)
    restricted = Require(q, _restriction(rule, version, type))
    ranked = _ranked(handle, restricted, _expired(handle, now), limit, now, policy)
    for hit in _final(repo, ranked, rule, version, type, now, result):
        result.hits.append(hit)
        if len(result.hits) == limit:
            break
    if explain:
        result.filtered = _filtered_out(handle, q, rule, version, type, now, limit)
    if record and result.hits:
        from memfs import usage

        usage.record_recall(repo, [hit.path for hit in result.hits])
    return result


def _types() -> tuple[str, ...]:
    from memfs.model import TYPES

    return TYPES


def _open_handle(repo, result: SearchResult) -> _Handle:
    """The open index; one that cannot be opened (corrupt, or removed by a concurrent rebuild) is rebuilt."""
    try:
        return _handle(repo)
    except Exception as exc:
        close(repo)
        result.notices.append(f"memfs: rebuilding the search index: it could not be opened ({type(exc).__name__})")
    try:
        rebuild(repo)
        return _handle(repo)
    except MemfsError:
        raise
    except Exception as exc:
        raise MemfsError(
            f"cannot open the search index in {repo.cache_dir} ({type(exc).__name__}); "
            "delete that folder (it is only a cache) and search again"
        ) from None


def _ranked(handle: _Handle, q, expired: set[int], limit: int, now, policy) -> list[tuple[float, str, Any]]:
    """Eligible candidates ordered by final score, fetched deep enough that the top ``limit`` is exact.

    Freshness and confidence are at most 1, so once the ``limit``-th final score is at least the
    relevance of the last fetched document, nothing further down can overtake it.
    """
    searcher = handle.searcher
    fetch = max(limit * 3, 30)
    while True:
        results = searcher.search(q, limit=fetch, mask=expired or None, optimize=False)
        scored = []
        for hit in results:
            stored = _Stored.from_rec(hit["rec"])
            fresh = recall.freshness(stored, now, policy)
            conf = stored.confidence
            scored.append((recall.final_score(hit.score, fresh, conf), hit["path"], (hit.score, fresh, conf)))
        scored.sort(key=lambda item: (-item[0], item[1]))
        fetched = results.scored_length()
        if fetched < fetch or (len(scored) >= limit and scored[limit - 1][0] >= results[fetched - 1].score):
            return scored
        fetch *= 4


def _final(repo, ranked, rule, version, type_, now, result: SearchResult) -> Iterable[Hit]:
    """Read each candidate's file and apply :func:`recall.eligibility` to it: the final word."""
    known = {p.path for p in result.broken}
    for final, rel, (relevance, fresh, conf) in ranked:
        _data, memory, broken = _load(repo, rel)
        if memory is None:
            if broken and rel not in known:
                result.broken.append(Problem(rel, None, broken, "fix the file; search skips it until it parses"))
            continue
        if recall.eligibility(memory, scope=rule, version=version, now=now) is not None:
            continue
        if type_ is not None and memory.type != type_:
            continue
        yield Hit(memory, final, relevance, fresh, conf)


def _filtered_out(handle: _Handle, q, rule, version, type_, now, limit: int) -> list[Filtered]:
    found = []
    for hit in handle.searcher.search(q, limit=limit * 5 + 20):
        stored = _Stored.from_rec(hit["rec"])
        reason = recall.eligibility(stored, scope=rule, version=version, now=now)
        if reason is None and type_ is not None and stored.type != type_:
            reason = f"wrong type ({stored.type})"
        if reason is not None:
            found.append(Filtered(hit["path"], reason, hit.score))
            if len(found) == limit:
                break
    return found


def reindex(repo, *, progress: Callable[[int, int], None] | None = None) -> ReindexReport:
    """Rebuild the index from scratch (``memfs reindex``)."""
    started = time.perf_counter()
    close(repo)
    state = rebuild(repo, progress=progress)
    count = sum(1 for e in state.files.values() if e.lengths is not None)
    return ReindexReport(count, state.broken(), time.perf_counter() - started)


@dataclass(frozen=True)
class ReindexReport:
    indexed: int
    broken: list[Problem]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unreadable": [p.to_json() for p in self.broken],
            "seconds": round(self.seconds, 3),
        }
