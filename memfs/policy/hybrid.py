"""Keyword and vector rankings as one ranking that never lowers the keyword ranking's recall
(pure).

What "never lowers" can mean. Recall at a cutoff k is the share of the relevant items found in
the first k results. For the fused ranking to reach BM25's recall at *every* cutoff and for
*every* set of relevant items, the fused first k must hold BM25's first k for every k: take the
relevant set to be BM25's j-th hit alone, and BM25 finds it from cutoff j on, so the fused ranking
must have it within its first j places too, for j = 1, 2, …; so BM25's hits must come first, in
BM25's order. That is the only freedom there is, and :func:`guarded` takes all of it: BM25's hits
in their order, then the vector ranking's other items, best first, in the places BM25 leaves
empty. A page BM25 fills is BM25's page; a query that shares no word with a memory still finds it
when BM25 has fewer hits than asked. Reciprocal rank fusion, which weighs both rankings equally,
lowered recall@5 on the LoCoMo slice from 0.551 to 0.363 with a weak vector ranking (see
bench/README.md): a vector ranking weaker than BM25 pulled lower-ranked items into the page.

Eligibility is decided before either ranking: both lists hold eligible items only.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from itertools import chain
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def guarded(words: Sequence[K], near: Sequence[K], limit: int | None = None, *,
            scores: Sequence[float] | None = None) -> list[K]:
    """BM25's ranking (``words``, best first) with the vector ranking's (``near``, best first)
    other items after it, at most ``limit`` in all; an item listed twice counts at its first place.
    For every cutoff k, the first k of the result hold the first k distinct items of ``words``.

    With ``scores`` (BM25's, one per item of ``words``), items BM25 scored equal are put in the
    vector ranking's order among themselves (those it does not hold after, as they were): BM25's
    order there is no ranking, only a tie-break. The first k then hold every item BM25 scored
    above its k-th, and as many of the k-th's score as BM25's first k do."""
    if scores is not None:
        words = _ties_by(words, scores, {item: n for n, item in reversed(list(enumerate(near)))})
    out: list[K] = []
    seen: set[K] = set()
    for item in chain(words, near):
        if limit is not None and len(out) >= limit:
            break
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _ties_by(words: Sequence[K], scores: Sequence[float], place: dict[K, int]) -> list[K]:
    """``words`` with each run of equal ``scores`` ordered by ``place`` (stable; unplaced last)."""
    if len(scores) != len(words):
        raise ValueError(f"{len(scores)} scores for {len(words)} items")
    out: list[K] = []
    start = 0
    for end in range(1, len(words) + 1):
        if end == len(words) or not math.isclose(scores[end], scores[start], rel_tol=1e-9, abs_tol=1e-12):
            run = list(words[start:end])
            out.extend(sorted(run, key=lambda item: place.get(item, math.inf)))
            start = end
    return out


def recall_at(ranking: Sequence[K], relevant: set[K], k: int) -> float:
    """The share of ``relevant`` among the first ``k`` of ``ranking`` (1.0 when nothing is
    relevant): what :func:`guarded` never lowers, for the benchmark and the tests."""
    if not relevant:
        return 1.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)
