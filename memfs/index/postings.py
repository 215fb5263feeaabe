"""Every live document's BM25 score for one word in one field, read a posting block at a time.

Why not Whoosh's own matchers: Whoosh scores a query one document at a time through a tree of
Python matcher objects (tens of microseconds a document for memfs's many-field queries), and its
one shortcut for top-N, block-max skipping, is unsafe here: its matcher replacement compares a
boosted term's bound without its boost and drops documents that belong in the top N (found in
#13). Its DisjunctionMax also scores a document with the best posting each side's matcher stands
on, held by that document or not. A posting block is one unpickled tuple of
ids and one array of weights, so a whole posting list costs well under a microsecond a posting in
one comprehension; and the statistics of an open index are fixed, so the result is kept and a word
asked again costs one dict lookup.

The formula and its inputs are Whoosh's (``whoosh.scoring.bm25``, written out the same way, on the
posting's weight and the quantised field length Whoosh stores), so the scores are the ones
Whoosh's scorer gives. Two functions here know whoosh3's on-disk layout (the posting blocks and
the one-byte length column; whoosh3 is pinned exactly); a test pins the scores equal to Whoosh's
scorer and the block reader as the one used.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, chain, repeat
from typing import Any

import numpy as np
import numpy.typing as npt

BM25_B = 0.75
BM25_K1 = 1.2
#: how many postings an open index keeps the scores of (the least recently asked words go first;
#: 12 bytes a posting)
KEPT_POSTINGS = 3_000_000

Ids = npt.NDArray[np.int32]
Floats = npt.NDArray[np.float64]
#: a query term's clauses: per text field, the indexed words it stands for there
Parts = tuple[tuple[str, tuple[str, ...]], ...]
#: ``(segment reader, field, word as bytes)`` -> that segment's local ids and weights, as
#: :func:`read_postings` gives them
Read = Callable[[Any, str, bytes], tuple[npt.NDArray[np.int64], Floats]]


@dataclass(frozen=True)
class Postings:
    """Documents (global numbers, ascending, each once) and their scores, as two arrays: adding
    up a query's terms is then a few array operations in C, not a dict update per posting."""

    ids: Ids
    scores: Floats

    def __len__(self) -> int:
        return len(self.ids)

    def as_dict(self) -> dict[int, float]:
        return dict(zip(self.ids.tolist(), self.scores.tolist(), strict=True))


EMPTY = Postings(np.zeros(0, np.int32), np.zeros(0, np.float64))


#: below one posting per this many documents, :func:`union` sorts the postings; above, it adds
#: them up in an array with a slot per document (each way is the cheaper one there)
SPARSE_BELOW = 16


def union(parts: list[Postings], size: int, *, add: float = 0.0) -> Postings:
    """Every document any of ``parts`` holds (ascending) and its score summed over ``parts`` in
    their order (each posting plus ``add``). ``np.bincount`` adds the weights in input order, so
    every document's sum is the same left-to-right sum a loop over the parts gives, whether the
    documents are numbered by sorting the postings (few of them: no array of ``size`` slots is
    made) or are the slots of such an array (many)."""
    if not parts:
        return EMPTY
    ids = np.concatenate([p.ids for p in parts])
    weights = np.concatenate([p.scores for p in parts])
    if add:
        weights = weights + add
    if len(ids) * SPARSE_BELOW < size:
        found, slot = np.unique(ids, return_inverse=True)
        return Postings(found.astype(np.int32, copy=False),
                        np.bincount(slot, weights=weights, minlength=len(found)).astype(np.float64, copy=False))
    present = np.zeros(size, np.bool_)
    present[ids] = True
    found = np.flatnonzero(present)
    dense = np.bincount(ids, weights=weights, minlength=size)
    return Postings(found.astype(np.int32), dense[found].astype(np.float64, copy=False))


class TermScores:
    """Per-term scores of one open index: ``of(field, word)`` is each live document holding
    ``word`` in ``field`` and its BM25 score times the field's boost, as Whoosh's boosted term
    scores it (global document numbers, deleted documents left out); ``term`` sums a query term's
    fields and keeps the result for the life of the open index, up to ``budget`` postings.
    ``read`` gives a segment's postings of a word (default: decoded from whoosh's blocks)."""

    def __init__(self, reader: Any, idf: Callable[[str, str], float], avgfl: Mapping[str, float],
                 boosts: Mapping[str, float], budget: int = KEPT_POSTINGS, read: Read | None = None) -> None:
        self.reader = reader
        self.read: Read = read or read_postings
        self.idf = idf
        self.avgfl = avgfl
        self.boosts = boosts
        self.budget = budget
        self.kept = 0
        self.size = reader.doc_count_all()
        self._cache: OrderedDict[Parts, Postings] = OrderedDict()
        self._lengths: dict[tuple[int, str], npt.NDArray[np.uint8]] = {}
        self._live: npt.NDArray[np.bool_] | None = None
        self._norms: dict[str, Floats] = {}
        self._leaf_list: list[tuple[Any, int]] | None = None

    def term(self, parts: Parts) -> Postings:
        """Each live document a query term matches and its score: the sum over ``parts``, one
        ``(field, words)`` per field, of that field's best word the document holds (several words
        for a lone CJK character, which matches every indexed bigram it starts), as Whoosh's OR of
        the fields' terms adds them up. Kept, least recently asked first out."""
        found = self._cache.get(parts)
        if found is not None:
            self._cache.move_to_end(parts)
            return found
        found = self._sum(parts)
        self._cache[parts] = found
        self.kept += len(found)
        while self.kept > self.budget and len(self._cache) > 1:
            _key, dropped = self._cache.popitem(last=False)
            self.kept -= len(dropped)
        return found

    def _sum(self, parts: Parts) -> Postings:
        """The fields' scores added up, the field with the most documents first."""
        fields = sorted((self._best(field, words) for field, words in parts), key=len, reverse=True)
        if len(fields) <= 1:
            return fields[0] if fields else EMPTY
        return union(fields, self.size)

    def _best(self, field: str, words: tuple[str, ...]) -> Postings:
        found = [self.of(field, word) for word in words]
        if len(found) == 1:
            return found[0]
        best = np.full(self.size, -1.0)
        for one in found:
            np.maximum.at(best, one.ids, one.scores)
        ids = np.flatnonzero(best >= 0.0).astype(np.int32)
        return Postings(ids, best[ids])

    def of(self, field: str, word: str) -> Postings:
        """Each live document holding ``word`` in ``field`` and its boosted BM25 score (not kept)."""
        idf = self.idf(field, word)
        boost = self.boosts.get(field, 1.0)
        k1p = BM25_K1 + 1
        norm = self._norm(field)
        ids: list[Ids] = []
        scores: list[Floats] = []
        for number, (leaf, offset) in enumerate(self._leaves()):
            local, tf = self.read(leaf, field, leaf.schema[field].to_bytes(word))
            if not len(local):
                continue
            if leaf.has_deletions():
                live = self.live()[local + offset]
                local, tf = local[live], tf[live]
            scores.append(idf * ((tf * k1p) / (tf + norm[self._field_lengths(number, leaf, field)[local]])) * boost)
            ids.append((local + offset).astype(np.int32))
        if not ids:
            return EMPTY
        return Postings(np.concatenate(ids), np.concatenate(scores))

    def _leaves(self) -> list[tuple[Any, int]]:
        if self._leaf_list is None:
            self._leaf_list = list(self.reader.leaf_readers())
        return self._leaf_list

    def _norm(self, field: str) -> Floats:
        """BM25's length normalisation of ``field`` per stored length byte (``K1 * ((1 - B) + B
        * length / average length)``), once per open index: its average length is fixed."""
        found = self._norms.get(field)
        if found is None:
            avgfl = self.avgfl.get(field, 1.0) or 1.0
            found = self._norms[field] = BM25_K1 * ((1 - BM25_B) + BM25_B * _length_table() / avgfl)
        return found

    def _field_lengths(self, number: int, leaf: Any, field: str) -> npt.NDArray[np.uint8]:
        found = self._lengths.get((number, field))
        if found is None:
            found = self._lengths[(number, field)] = np.frombuffer(length_bytes(leaf, field), np.uint8)
        return found

    def live(self) -> npt.NDArray[np.bool_]:
        """Which document numbers are not deleted (the flags Whoosh's filter over a segment's
        postings would apply), computed once per open index."""
        if self._live is None:
            self._live = np.ones(self.size, np.bool_)
            for leaf, offset in self.reader.leaf_readers():
                if leaf.has_deletions():
                    self._live[np.fromiter(leaf.deleted_docs_set, np.int64) + offset] = False
        return self._live


def holders(reader: Any, field: str, words: Iterable[str], size: int,
            memo: Callable[[Any, str, str], npt.NDArray[np.int64]] | None = None) -> npt.NDArray[np.bool_]:
    """Which documents (global numbers, deleted ones included) hold any of ``words`` in
    ``field``, from the posting lists' ids alone: an eligibility filter over a whole index costs a
    block read per 128 documents, not a matcher step per document. ``memo(leaf, field, word)``,
    if given, answers a segment's local ids instead of :func:`holders_in` (a caller that keeps
    them per segment)."""
    found = np.zeros(size, np.bool_)
    local = memo or holders_in
    for leaf, offset in reader.leaf_readers():
        for word in words:
            ids = local(leaf, field, word)
            if len(ids):
                found[ids + offset] = True
    return found


def holders_in(leaf: Any, field: str, word: str) -> npt.NDArray[np.int64]:
    """The local numbers of the documents of one segment that hold ``word`` in ``field``."""
    return read_postings(leaf, field, leaf.schema[field].to_bytes(word), weights=False)[0]


@lru_cache(maxsize=1)
def _length_table() -> Floats:
    """Whoosh's decoded field length per stored length byte; 1 for none (a byte of 0), as
    Whoosh's scorer takes it."""
    from whoosh.util.numeric import byte_to_length

    return np.array([byte_to_length(i) or 1 for i in range(256)], np.float64)


def read_postings(leaf: Any, field: str, btext: bytes, *, weights: bool = True) -> tuple[npt.NDArray[np.int64], Floats]:
    """The local document numbers and weights of one term's postings in one segment (none if the
    segment does not hold the term), every document included (deleted ones too: the matcher is
    opened from the segment's term table, without the filter ``leaf.postings`` puts over deleted
    documents, which cost a second term lookup, a set of the deleted documents and a block read
    that was thrown away). Whoosh3's on-disk matcher is read a block at a time; any other matcher
    (an inlined short list) one posting at a time. ``weights=False``: the ids only (no weight is
    decoded; the weights returned are empty)."""
    from whoosh.codec.whoosh3 import W3LeafMatcher
    from whoosh.reading import TermNotFound

    terms: Any = getattr(leaf, "_terms", None)  # an empty index's reader has no term table
    try:
        matcher: Any = None if terms is None else terms.matcher(field, btext, leaf.schema[field].format)
    except TermNotFound:
        matcher = None
    if matcher is None:
        return np.zeros(0, np.int64), np.zeros(0, np.float64)
    ids: list[Any] = []
    found: list[Any] = []
    if isinstance(matcher, W3LeafMatcher):
        blocks: Any = matcher  # whoosh3 leaves these methods unannotated
        while blocks.is_active():
            blocks._read_data()
            deltas = blocks._data[0]
            ids.append(deltas if blocks._byteids else accumulate(deltas))
            if weights:
                found.append(_block_weights(blocks._data[1], blocks._blocklength))
            blocks._next_block()
    else:
        while matcher.is_active():
            ids.append((matcher.id(),))
            found.append((matcher.weight(),) if weights else ())
            matcher.next()
    return np.fromiter(chain.from_iterable(ids), np.int64), np.fromiter(chain.from_iterable(found), np.float64)


def _block_weights(stored: Any, count: int) -> Iterable[float]:
    """A posting block's weights as whoosh3's ``_read_weights`` gives them, without its generator
    into an ``array``: none stored is 1.0 each, one number is that number for each (rounded to a
    32-bit float, as the ``array("f")`` it fills), else the stored sequence."""
    if stored is None:
        return repeat(1.0, count)
    if isinstance(stored, float):
        return repeat(float(np.float32(stored)), count)
    found: Iterable[float] = stored
    return found


def length_bytes(leaf: Any, field: str) -> bytes:
    """A segment's stored length byte of ``field`` for every local document (0 where none is
    stored), read in one piece from whoosh3's one-byte-per-document length column."""
    from whoosh.codec import whoosh3

    layout: Any = whoosh3  # its helpers are unannotated
    count = leaf.doc_count_all()
    column: Any = leaf._perdoc._cached_reader(layout._lenfield(field), layout.LENGTHS_COLUMN)
    if column is None:
        return bytes(count)
    raw: bytes = column._dbfile.get(column._basepos, column._count)
    return raw + bytes(count - len(raw))
