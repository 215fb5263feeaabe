"""The read side of the index: an open searcher per memory root and thread, with exact BM25F.

A :class:`Handle` is opened for one version of the state file and reopened when it changes, so a
reader never mixes an old index with new statistics. Term statistics ignore deleted documents
(Whoosh counts them until a merge) and average field lengths come from exact counts in the state
file, so an incrementally updated index ranks exactly like a fresh ``memfs reindex``.
"""

from __future__ import annotations

import bisect
import contextlib
import math
import threading
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from memfs.format.model import Memory, Problem
from memfs.index import packed
from memfs.index import state as index_state
from memfs.index.documents import FIELD_BOOSTS, Stored, from_kept
from memfs.index.postings import BM25_B, BM25_K1, TermScores, holders, holders_in, read_postings
from memfs.index.state import State
from memfs.store.paths import Signature
from memfs.store.repo import Store

if TYPE_CHECKING:
    from whoosh.query.qcore import Query
    from whoosh.searching import Results

#: how many eligibility restrictions an open index keeps the matching documents of
ALLOWED_CACHE = 32
#: how many documents' stored path and record an open index keeps
KEPT_RECORDS = 20_000
#: how many documents' kept parse (:meth:`Handle.kept`) an open index keeps unpickled (~3.5 KB
#: each: the hits of the last few hundred searches)
KEPT_PARSED = 2_000
#: what the index kept of a memory: the signature of the bytes parsed, the limits, the memory
Kept = tuple[Signature, tuple[Any, ...], Memory]

#: one flag per document number of an open index
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Holds:
    """One clause of an eligibility restriction: the memory holds one of ``values`` in the ID
    field ``field``, or (with ``prefix``) any value starting with it."""

    field: str
    values: tuple[str, ...]
    prefix: str | None = None


#: an eligibility restriction: every clause holds
Restriction = tuple[Holds, ...]


class CorruptIndex(Exception):
    """Whoosh could not open the index directory; the message says why."""


def open_dir(path: Path) -> Any:
    """``whoosh.index.open_dir``; on a corrupt index Whoosh leaks the file it was reading, so that
    file is collected here, quietly, and the caller gets :class:`CorruptIndex`."""
    import gc
    import warnings

    from whoosh import index as whoosh_index

    from memfs.index.mapped import read_in_place

    read_in_place()
    problem = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            return whoosh_index.open_dir(str(path))
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
        gc.collect()
    raise CorruptIndex(problem)


class Stats:
    """Collection statistics that ignore deleted documents, so ranks do not depend on merge history."""

    def __init__(self, reader: Any, state: State) -> None:
        self.reader = reader
        self.count = max(reader.doc_count(), 1)
        self.avgfl = state.average_lengths()
        self.deleted: list[tuple[Any, list[int]]] = []
        for leaf, _offset in reader.leaf_readers():
            if leaf.has_deletions():
                self.deleted.append((leaf, sorted(leaf.deleted_docs_set)))
        self._df: dict[tuple[str, Any], int] = {}
        #: the live documents holding a word in a field counted another way (from the packed
        #: postings, :meth:`Handle.counted`), or ``None`` where it cannot; whoosh's term table
        #: and a walk of the deleted documents' postings otherwise
        self.counted: Callable[[str, Any], int | None] = lambda _field, _text: None

    def df(self, fieldname: str, text: Any) -> int:
        key = (fieldname, text)
        found = self._df.get(key)
        if found is None:
            found = self.counted(fieldname, text)
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
        """Lucene's ``log(1 + (N - n + 0.5) / (n + 0.5))`` over live documents."""
        n = self.df(fieldname, text)
        return math.log(1 + (self.count - n + 0.5) / (n + 0.5))


def _weighting(stats: Stats) -> Any:
    """Whoosh's BM25F with memfs's statistics (live-document idf, exact average lengths): the
    searcher's own scoring. Search adds up :mod:`memfs.index.postings`'s scores instead; this is
    the reference they are pinned to (``tests/integration/test_postings.py``)."""
    from whoosh.scoring import BM25F, BM25FScorer, WeightScorer

    class Scorer(BM25FScorer):
        def __init__(self, searcher: Any, fieldname: str, text: Any, B: float, K1: float, qf: int = 1) -> None:
            self.idf = stats.idf(fieldname, text)
            self.avgfl = stats.avgfl.get(fieldname, 1.0)
            self.B = B
            self.K1 = K1
            self.qf = qf
            self.setup(searcher, fieldname, text)

    class Weighting(BM25F):
        def scorer(self, searcher: Any, fieldname: str, text: Any, qf: int = 1) -> Any:
            if not searcher.schema[fieldname].scorable:
                return WeightScorer.for_(searcher, fieldname, text)
            return Scorer(searcher, fieldname, text, self.B, self.K1, qf=qf)

    return Weighting(B=BM25_B, K1=BM25_K1)


class SearcherView(Protocol):
    """The part of ``whoosh.searching.Searcher`` memfs uses, with the types whoosh3 leaves out
    (``docs_for_query`` and ``close`` are unannotated there)."""

    def search(self, q: Query, **kwargs: Any) -> Results: ...
    def docs_for_query(self, q: Query) -> Iterable[int]: ...
    def close(self) -> None: ...


class Handle:
    """The open index and searcher matching one version of the state file."""

    def __init__(self, cache: Path, state: State, state_key: tuple[int, ...] | None,
                 segments: Segments | None = None) -> None:
        from whoosh.searching import Searcher

        self.state = state
        self.state_key = state_key
        self.ix = open_dir(cache / state.index_dir)
        reader = self.ix.reader()
        self.stats = Stats(reader, state)
        self.searcher: SearcherView = Searcher(reader, weighting=_weighting(self.stats))
        self.terms = TermScores(reader, self.stats.idf, self.stats.avgfl, FIELD_BOOSTS, read=self._postings)
        self.size = self.terms.size
        self._dir = cache / state.index_dir
        self.stats.counted = self.counted
        self._allowed: dict[Hashable, Mask] = {}
        self._broken: list[Problem] | None = None
        self._expiries: tuple[list[int], list[int]] | None = None
        self._expired_at: tuple[int, Mask] = (-1, np.zeros(self.size, np.bool_))
        self._records: dict[int, tuple[str, Stored]] = {}
        self._kept: dict[int, Kept | None] = {}
        self._kept_column: Any = None
        leaves = reader.leaf_readers()
        self._leaves = [(leaf, offset, _segment_id(leaf)) for leaf, offset in leaves]
        #: what was read from each segment, handed on to the index opened after the next write
        self.segments = (segments or Segments()).kept_for({name for _l, _o, name in self._leaves if name})

    def broken(self) -> list[Problem]:
        """The memory files the index could not parse, listed once per open index (every search
        reports them, and the state holds an entry per memory). Shared: callers must not change it."""
        if self._broken is None:
            self._broken = self.state.broken()
        return self._broken

    def record(self, doc: int) -> tuple[str, Stored]:
        """A document's path and eligibility/rank record, kept (up to :data:`KEPT_RECORDS`):
        reading them back from the index decompresses and unpickles its stored fields."""
        found = self._records.get(doc)
        if found is None:
            if len(self._records) >= KEPT_RECORDS:
                self._records.clear()
            fields = self.stats.reader.stored_fields(doc)
            found = self._records[doc] = (fields["path"], Stored.from_rec(fields["rec"]))
        return found

    def kept(self, doc: int) -> Kept | None:
        """What the index kept of document ``doc``'s memory as parsed, with the signature of the
        bytes it was parsed from (:func:`memfs.index.documents.kept_blob`; ``None`` if nothing was
        kept). Unpickled once per open index for the last :data:`KEPT_PARSED` documents asked.
        The caller decides whether the file still has that signature; this never reads it."""
        if doc in self._kept:
            return self._kept[doc]
        if self._kept_column is None:
            self._kept_column = self.stats.reader.column_reader("kept", translate=False)
        if len(self._kept) >= KEPT_PARSED:
            self._kept.clear()
        found = self._kept[doc] = from_kept(self._kept_column[doc])
        return found

    def expired(self, now_us: int) -> Mask:
        """The documents whose ``expires`` is at or before ``now_us`` (epoch microseconds). The
        expiring documents are read once per open index, sorted by expiry; a query only finds its
        place among them, and the flags are reused until the next expiry passes. Shared: callers
        must not change them."""
        if self._expiries is None:
            self._expiries = self._expiry_list()
        times, docs = self._expiries
        cut = bisect.bisect_right(times, now_us)
        if self._expired_at[0] != cut:
            flags = np.zeros(self.size, np.bool_)
            flags[docs[:cut]] = True
            self._expired_at = (cut, flags)
        return self._expired_at[1]

    def _expiry_list(self) -> tuple[list[int], list[int]]:
        """Each expiring document's expiry, sorted. A segment's are read once and kept by its id
        (:attr:`segments`, handed to the index opened after the next write: segments never change
        once written), so a reopened index reads only its new segments' records."""
        whens, docs = [], []
        for leaf, offset, name in self._leaves:
            found = self.segments.expiries.get(name) if name else None
            if found is None:
                found = _segment_expiries(leaf)
                if name:
                    self.segments.expiries[name] = found
            whens.append(found[0])
            docs.append(found[1] + offset)
        if not whens:
            return [], []
        when, doc = np.concatenate(whens), np.concatenate(docs)
        order = np.lexsort((doc, when))
        return when[order].tolist(), doc[order].tolist()

    def allowed(self, key: Hashable, restriction: Restriction) -> Mask:
        """The live documents ``restriction`` matches, computed once per open index from the ID
        fields' posting lists: the eligibility restriction of a session is the same for every
        query, so no query walks it per document (as a ``Require`` did), and an index reopened
        after a write computes it in a few block reads. Shared: callers must not change the flags."""
        found = self._allowed.get(key)
        if found is None:
            if len(self._allowed) >= ALLOWED_CACHE:
                self._allowed.pop(next(iter(self._allowed)))
            found = self.live().copy()
            for clause in restriction:
                words = [*clause.values, *(self.prefixed(clause.field, clause.prefix) if clause.prefix else ())]
                found &= holders(self.stats.reader, clause.field, words, self.size, self._holders_in)
            self._allowed[key] = found
        return found

    def _holders_in(self, leaf: Any, field: str, word: str) -> npt.NDArray[np.int64]:
        name = _segment_id(leaf)
        if name is None:
            return holders_in(leaf, field, word)
        return self.segments.holders(name, field, word, lambda: holders_in(leaf, field, word))

    def _postings(self, leaf: Any, field: str, btext: bytes) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """A segment's postings of a word from its packed file (:mod:`memfs.index.packed`), or
        decoded from whoosh's blocks when it has none or does not pack ``field``."""
        name = _segment_id(leaf)
        found = None if name is None else self.segments.postings_of(self._dir, name, leaf.doc_count_all())
        if found is None or field not in found.fields:
            return read_postings(leaf, field, btext)
        return found.postings(field, btext)

    def counted(self, field: str, text: Any) -> int | None:
        """How many live documents hold ``text`` in ``field``, from every segment's packed
        postings (``None`` if a segment has none for ``field``): what whoosh's document frequency
        less the deleted holders gives, without a term-table lookup or a postings walk."""
        live = self.live()
        total = 0
        for leaf, offset, name in self._leaves:
            found = None if name is None else self.segments.postings_of(self._dir, name, leaf.doc_count_all())
            if found is None or field not in found.fields:
                return None
            btext = text if isinstance(text, bytes) else leaf.schema[field].to_bytes(text)
            total += found.count(field, btext, live[offset:offset + found.docs] if leaf.has_deletions() else None)
        return total

    def prefixed(self, field: str, prefix: str) -> tuple[str, ...]:
        """The indexed words of ``field`` that start with ``prefix``."""
        return tuple(w.decode() if isinstance(w, bytes) else w for w in self.stats.reader.expand_prefix(field, prefix))

    def live(self) -> Mask:
        """Which document numbers are not deleted."""
        return self.terms.live()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.searcher.close()


def _segment_id(leaf: Any) -> str | None:
    segment = leaf.segment()
    return None if segment is None else str(segment.segment_id())


def _segment_expiries(leaf: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(expiries in epoch microseconds, local document numbers) of one segment's documents that
    have an ``expires``, deleted ones included (the live flags leave those out)."""
    from whoosh.query.ranges import NumericRange
    from whoosh.searching import Searcher

    from memfs.index.documents import epoch_us

    whens, docs = [], []
    searcher: SearcherView = Searcher(leaf, closereader=False)
    for doc in searcher.docs_for_query(NumericRange("expires", None, None)):
        expires = Stored.from_rec(leaf.stored_fields(doc)["rec"]).expires
        if expires is not None:
            whens.append(epoch_us(expires))
            docs.append(doc)
    return np.array(whens, np.int64), np.array(docs, np.int64)


class Segments:
    """What an open index read from its segments that a later one can reuse: each segment's
    expiring documents and, per ID field and word, the documents holding it (the eligibility
    restriction's posting ids). Keyed by segment id: a segment never changes once written (a
    deletion marks documents, which the live flags apply), so the index opened after a write
    reads only its new segments (~50 ms saved a reopen at 100k memories)."""

    #: the most (segment, field, word) id lists kept
    MAX_HOLDERS = 4096

    def __init__(self) -> None:
        self.expiries: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}
        self._packed: dict[str, packed.Packed | None] = {}
        self._holders: dict[tuple[str, str, str], npt.NDArray[np.int64]] = {}
        self._lock = threading.Lock()

    def kept_for(self, names: set[str]) -> Segments:
        """A new memo holding what this one knows of the segments in ``names``."""
        kept = Segments()
        with self._lock:
            kept.expiries = {name: found for name, found in self.expiries.items() if name in names}
            kept._holders = {k: ids for k, ids in self._holders.items() if k[0] in names}
            kept._packed = {name: found for name, found in self._packed.items() if name in names and found}
        return kept

    def postings_of(self, index_dir: Path, name: str, docs: int) -> packed.Packed | None:
        """Segment ``name``'s packed postings, mapped once (``None``, not looked for again by this
        open index, if it has none: a segment is packed right after the commit that wrote it)."""
        with self._lock:
            if name in self._packed:
                return self._packed[name]
        found = packed.load(packed.path_for(index_dir, name), docs)
        with self._lock:
            self._packed[name] = found
        return found

    def holders(self, name: str, field: str, word: str,
                read: Callable[[], npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
        key = (name, field, word)
        with self._lock:
            found = self._holders.get(key)
        if found is None:
            found = read()
            with self._lock:
                if len(self._holders) >= self.MAX_HOLDERS:
                    self._holders.clear()
                self._holders[key] = found
        return found


_local = threading.local()


def _handles() -> dict[str, Handle]:
    found: dict[str, Handle] | None = getattr(_local, "handles", None)
    if found is None:
        found = _local.handles = {}
    return found


@contextlib.contextmanager
def shared(handles: dict[str, Handle]) -> Iterator[None]:
    """Use ``handles`` as this thread's open indexes for the block: a long-running process that
    lets one reader at a time in (the live index, under its lock) keeps one set for every thread
    it reads from, so a worker thread that is new (an MCP host's pool starts one after a pause)
    does not open the index, its eligibility sets and its kept scores anew."""
    saved = getattr(_local, "handles", None)
    _local.handles = handles
    try:
        yield
    finally:
        _local.handles = saved


def handle(repo: Store) -> Handle:
    """The open index for ``repo`` matching the current state file (reopened when it changed);
    raises :class:`~memfs.index.state.BadState` or :class:`CorruptIndex` when it cannot be opened."""
    cache = repo.cache_dir
    handles = _handles()
    current = handles.get(str(cache))
    if current is not None and current.state_key == index_state.key(cache):
        return current
    state = index_state.cached(cache)
    if current is not None:
        current.close()
        handles.pop(str(cache), None)
    opened = Handle(cache, state, state.disk.key, None if current is None else current.segments)
    handles[str(cache)] = opened
    return opened


def close(repo: Store) -> None:
    """Close this thread's open index for ``repo`` (tests and long-running programs)."""
    opened = _handles().pop(str(repo.cache_dir), None)
    if opened is not None:
        opened.close()


def close_all() -> None:
    """Close every index this thread has open."""
    handles = _handles()
    for opened in handles.values():
        opened.close()
    handles.clear()
