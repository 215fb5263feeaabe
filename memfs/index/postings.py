"""Every live document's BM25 score for one word in one field, read a posting block at a time.

Why not Whoosh's own matchers: Whoosh scores a query one document at a time through a tree of
Python matcher objects (tens of microseconds a document for memfs's many-field queries), and its
one shortcut for top-N, block-max skipping, is unsafe here (it compares a boosted term's bound
without its boost, see :func:`memfs.index.query.search`). A posting block is one unpickled tuple of
ids and one array of weights, so a whole posting list costs well under a microsecond a posting in
one comprehension; and the statistics of an open index are fixed, so the result is kept and a word
asked again costs one dict lookup.

The formula and its inputs are Whoosh's (``whoosh.scoring.bm25`` on the posting's weight and the
quantised field length Whoosh stores), so the scores are the ones Whoosh's scorer gives; a test
pins them equal, and pins that the block reader (the only code here that knows whoosh3's posting
layout) is the one used.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

BM25_B = 0.75
BM25_K1 = 1.2
#: how many postings an open index keeps the scores of (the least recently asked words go first)
KEPT_POSTINGS = 600_000

Scores = dict[int, float]


def bm25(idf: float, tf: float, fl: float, avgfl: float) -> float:
    """Whoosh's ``bm25`` with memfs's B and K1, written the same way so the floats match."""
    return idf * ((tf * (BM25_K1 + 1)) / (tf + BM25_K1 * ((1 - BM25_B) + BM25_B * fl / avgfl)))


class TermScores:
    """``of(field, word)``: each live document holding ``word`` in ``field`` and its BM25 score
    times the field's boost, as Whoosh's boosted term scores it (global document numbers, deleted
    documents left out); kept for the life of the open index, up to ``budget`` postings."""

    def __init__(self, reader: Any, idf: Callable[[str, str], float], avgfl: Mapping[str, float],
                 boosts: Mapping[str, float], budget: int = KEPT_POSTINGS) -> None:
        self.reader = reader
        self.idf = idf
        self.avgfl = avgfl
        self.boosts = boosts
        self.budget = budget
        self.kept = 0
        self._cache: OrderedDict[tuple[str, str], Scores] = OrderedDict()

    def of(self, field: str, word: str) -> Scores:
        key = (field, word)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        found = self._read(field, word)
        self._cache[key] = found
        self.kept += len(found)
        while self.kept > self.budget and len(self._cache) > 1:
            _key, dropped = self._cache.popitem(last=False)
            self.kept -= len(dropped)
        return found

    def _read(self, field: str, word: str) -> Scores:
        idf = self.idf(field, word)
        avgfl = self.avgfl.get(field, 1.0) or 1.0
        boost = self.boosts.get(field, 1.0)
        out: Scores = {}
        for leaf, offset in self.reader.leaf_readers():
            btext = leaf.schema[field].to_bytes(word)
            if (field, btext) not in leaf:
                continue
            ids, weights = read_postings(leaf, field, btext)
            length = field_lengths(leaf, field)
            deleted = leaf.deleted_docs_set if leaf.has_deletions() else ()
            for doc, tf in zip(ids, weights, strict=True):
                if doc not in deleted:
                    out[doc + offset] = bm25(idf, tf, length(doc), avgfl) * boost
        return out


def read_postings(leaf: Any, field: str, btext: bytes) -> tuple[list[int], list[float]]:
    """The local document numbers and weights of one term's postings in one segment, every
    document included (deleted ones too: the filter Whoosh puts over them is taken off and its
    child rewound). Whoosh3's on-disk matcher is read a block at a time; any other matcher (an
    inlined short list) one posting at a time."""
    from whoosh.codec.whoosh3 import W3LeafMatcher
    from whoosh.matching.wrappers import FilterMatcher

    matcher: Any = leaf.postings(field, btext)
    if isinstance(matcher, FilterMatcher):
        matcher = matcher.child
        matcher.reset()
    ids: list[int] = []
    weights: list[float] = []
    if isinstance(matcher, W3LeafMatcher):
        blocks: Any = matcher  # whoosh3 leaves these methods unannotated
        while blocks.is_active():
            blocks._read_ids()
            blocks._read_weights()
            ids.extend(blocks._ids)
            weights.extend(blocks._weights)
            blocks._next_block()
        return ids, weights
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    return ids, weights


def field_lengths(leaf: Any, field: str) -> Callable[[int], int]:
    """A segment's stored (quantised) length of ``field`` per local document, 1 where none is
    stored, as Whoosh's scorer reads it; through whoosh3's per-field length reader, which resolves
    the column once instead of on every lookup."""
    get: Callable[[int], int | None] = leaf._perdoc.doc_field_length_reader(field, 1)
    return lambda doc: get(doc) or 1
