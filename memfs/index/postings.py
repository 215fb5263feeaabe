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
from collections.abc import Callable, Mapping
from functools import lru_cache
from itertools import accumulate
from typing import Any

BM25_B = 0.75
BM25_K1 = 1.2
#: how many postings an open index keeps the scores of (the least recently asked words go first)
KEPT_POSTINGS = 600_000

Scores = dict[int, float]
#: a query term's clauses: per text field, the indexed words it stands for there
Parts = tuple[tuple[str, tuple[str, ...]], ...]


class TermScores:
    """Per-term scores of one open index: ``of(field, word)`` is each live document holding
    ``word`` in ``field`` and its BM25 score times the field's boost, as Whoosh's boosted term
    scores it (global document numbers, deleted documents left out); ``term`` sums a query term's
    fields and keeps the result for the life of the open index, up to ``budget`` postings."""

    def __init__(self, reader: Any, idf: Callable[[str, str], float], avgfl: Mapping[str, float],
                 boosts: Mapping[str, float], budget: int = KEPT_POSTINGS) -> None:
        self.reader = reader
        self.idf = idf
        self.avgfl = avgfl
        self.boosts = boosts
        self.budget = budget
        self.kept = 0
        self._cache: OrderedDict[Parts, Scores] = OrderedDict()
        self._lengths: dict[tuple[int, str], bytes] = {}

    def term(self, parts: Parts) -> Scores:
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

    def _sum(self, parts: Parts) -> Scores:
        """The fields' scores added up, starting from the largest (taken over, not copied)."""
        fields = sorted((self._best(field, words) for field, words in parts), key=len, reverse=True)
        total = fields[0] if fields else {}
        for more in fields[1:]:
            for doc, score in more.items():
                total[doc] = total.get(doc, 0.0) + score
        return total

    def _best(self, field: str, words: tuple[str, ...]) -> Scores:
        best = self.of(field, words[0])
        for word in words[1:]:
            for doc, score in self.of(field, word).items():
                if score > best.get(doc, -1.0):
                    best[doc] = score
        return best

    def of(self, field: str, word: str) -> Scores:
        """Each live document holding ``word`` in ``field`` and its boosted BM25 score (not kept)."""
        idf = self.idf(field, word)
        avgfl = self.avgfl.get(field, 1.0) or 1.0
        boost = self.boosts.get(field, 1.0)
        k1, b = BM25_K1, BM25_B
        k1p, omb = k1 + 1, 1 - b
        norm = [k1 * (omb + b * length / avgfl) for length in _length_table()]
        out: Scores = {}
        for number, (leaf, offset) in enumerate(self.reader.leaf_readers()):
            btext = leaf.schema[field].to_bytes(word)
            if (field, btext) not in leaf:
                continue
            ids, weights = read_postings(leaf, field, btext)
            raw = self._lengths.get((number, field))
            if raw is None:
                raw = self._lengths[(number, field)] = length_bytes(leaf, field)
            scores = {doc + offset: idf * ((tf * k1p) / (tf + norm[raw[doc]])) * boost
                      for doc, tf in zip(ids, weights, strict=True)}
            if leaf.has_deletions():
                for doc in leaf.deleted_docs_set:
                    scores.pop(doc + offset, None)
            out.update(scores)
        return out


@lru_cache(maxsize=1)
def _length_table() -> list[int]:
    """Whoosh's decoded field length per stored length byte; 1 for none (a byte of 0), as
    Whoosh's scorer takes it."""
    from whoosh.util.numeric import byte_to_length

    return [byte_to_length(i) or 1 for i in range(256)]


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
            blocks._read_data()
            deltas = blocks._data[0]
            ids.extend(deltas if blocks._byteids else accumulate(deltas))
            blocks._read_weights()
            weights.extend(blocks._weights)
            blocks._next_block()
        return ids, weights
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    return ids, weights


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
