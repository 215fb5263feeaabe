"""One ranking out of several memory repositories' rankings (``memfs -C A -C B search``), as pure
functions.

A hit's score is its coverage (how many of the query's terms it contains, the whole part) plus a
fraction that grows with its BM25F relevance (:func:`memfs.policy.recall.final_score`). Coverage
means the same in every repository; the fraction does not: BM25's term weights come from each
index's own statistics (how many memories, how many contain the word, their lengths), so 0.8 in
a repository of 30 memories and 0.6 in one of 30,000 say nothing about each other. The merge
therefore compares what is comparable and ranks the rest by position:

1. **Coverage first**, as within one index: a hit covering more terms ranks above one covering
   fewer, whichever repository holds it.
2. **Then rank within the repository.** Among hits of the same coverage, the k-th best of each
   repository at that coverage sit together, before every (k+1)-th (reciprocal-rank fusion's
   idea, taken per coverage tier, so no repository's scale can push another's hits down).
3. **Then the order the roots were given** (put the most specific first: the user's, the
   team's, the organisation's).

Each repository's own order is kept (the merge interleaves, never reorders one list), so the
first N merged hits come from each repository's first N: asking every root for ``limit`` hits
is enough. Hits are never merged across roots: two roots holding the same scope, even the same
path, give two hits, each labelled by its root.
"""

from __future__ import annotations

import os
from collections.abc import Sequence


def fuse(scores: Sequence[Sequence[float]], limit: int | None = None) -> list[tuple[int, int]]:
    """The merged order of several rankings, as ``(list index, position in that list)`` pairs,
    best first. ``scores[r]`` is root ``r``'s hit scores, best first (coverage + a fraction)."""
    keyed: list[tuple[int, int, int, int]] = []
    for root, ranked in enumerate(scores):
        tier_rank: dict[int, int] = {}
        for position, score in enumerate(ranked):
            coverage = int(score)
            rank = tier_rank.get(coverage, 0)
            tier_rank[coverage] = rank + 1
            keyed.append((-coverage, rank, root, position))
    keyed.sort()
    merged = [(root, position) for _, _, root, position in keyed]
    return merged if limit is None else merged[:limit]


def labels(roots: Sequence[str]) -> list[str]:
    """A short, distinct label for each (distinct, absolute) root path: its folder's name, or as
    many of its last path parts as it takes to tell it from the others."""
    parts = [[p for p in root.split(os.sep) if p] or [root] for root in roots]
    depth = [1] * len(roots)
    while True:
        made = [os.sep.join(p[-d:]) for p, d in zip(parts, depth, strict=True)]
        clashing = {i for i, label in enumerate(made) if made.count(label) > 1 and depth[i] < len(parts[i])}
        if not clashing:
            return made
        for i in clashing:
            depth[i] += 1
