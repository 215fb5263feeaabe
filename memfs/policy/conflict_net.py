"""The wider net (pure: no I/O): the few active memories most like a new one that the probable
conflict rules (:mod:`memfs.policy.conflicts`) did not pair with it, for the doors where a model
is in the loop.

The offline rules are built for precision: a pair they call a conflict is superseded without
asking. Some pairs they miss are still the same subject in other words ("I'm vegetarian." /
"Cut the meat from my meal plans, I went vegan."). A model can tell, so the file tools, MCP and
the Anthropic adapter name these *near misses* in their reply ("similar memory X: if the new one
replaces it, edit or delete it"), and a ``[judge] conflict`` or MCP sampling is asked about them.
Nothing is superseded on similarity alone: only a judge's ``replace`` makes ``remember`` replace
a near miss, and ``context`` keeps using the strict rules.

**Similarity.** The Jaccard overlap of two texts' features: their content tokens as the rules
read them (:func:`memfs.policy.conflict_tokens.tokens`, already read and remembered for the
rules, rejected values left out), the value classes and kinds of number they hold
("class:language"), and their CJK characters (so that a different cut of the same words still
meets). A near miss shares at least
:data:`NEAR_SHARED` features and reaches :data:`NEAR_MIN`, and does not open with another name than
the new memory's (:data:`memfs.policy.conflicts.OTHER_NAMES`: another person's fact).

**Where the thresholds come from.** A write meets the net among all the comparable memories of its
scope, not one pair at a time: ``bench/bench_conflicts.py`` stores every old side of a pair set of
one language and type in one scope and writes each new side against them all ("in one
repository"). On the development sets, one shared feature and an overlap of 0.1 name a changed
value's old memory for 0.95–1.00 of the conflicts (two shared features and 0.2: 0.50–1.00, and
0.42 on a set written after the rules), at 1.1–2.4 names a write, a third to a half of them the
pair's own. Naming is cheap (a line in the reply; a judge is asked at most :data:`NEAR_MAX` more
questions) and a missed changed value is what the net is for, so the bar is low.

**Bounded.** At most :data:`NEAR_MAX` near misses per write, of the new memory's scope, type and
version (:func:`memfs.policy.conflicts.comparable`), short memories only (a document is not one
value); each memory's features are read once and remembered, so a write weighs each memory of
its scope in constant time and asks a judge at most :data:`NEAR_MAX` more questions.

**Meaning.** Words miss pairs that share none ("My editor of choice is VS Code." / "I code in Zed
these days."). When ``[semantic]`` names an embedder, the same comparable memories are also
ranked by the cosine similarity of their vectors (:func:`by_meaning`, given the cosines: the
vectors come from the cache, :mod:`memfs.ops.conflicts`); those reaching :data:`MEANING_MIN`, and
clearly closer than an unrelated sentence of :data:`UNRELATED` (else the embedder cannot read the
text: English-only models and Chinese), join
the near misses by words, the best of each ranking in turn (:func:`merged`), still at most
:data:`NEAR_MAX` in all.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from memfs.policy import conflict_slots, conflicts
from memfs.policy.conflict_tokens import tokens

#: At most this many near misses are named per write (and put to a judge).
NEAR_MAX = 3
#: The least Jaccard overlap of features for a near miss (see "Where the thresholds come from").
NEAR_MIN = 0.1
#: The fewest features a near miss shares with the new memory.
NEAR_SHARED = 1
#: The least cosine similarity of two memories' vectors for a near miss by meaning (chosen on the
#: development pair sets with all-MiniLM-L6-v2: ``bench/bench_conflicts.py --semantic``).
MEANING_MIN = 0.45
#: Sentences unlike any memory, one per language the rules read. An embedder that finds the new
#: memory about as like one of them as like a stored memory does not tell that text apart (an
#: English-only model reads every Chinese sentence alike: cosine 1.0), so the vectors name nothing.
UNRELATED = ("The quick brown fox jumps over the lazy dog.", "明天的天气预报说会下雨。")
#: How much closer to the new memory a stored one must be than the closest of :data:`UNRELATED`.
MEANING_MARGIN = 0.2


@functools.lru_cache(maxsize=4096)
def features(text: str) -> frozenset[str]:
    """What the similarity of two texts is measured on (see the module docstring)."""
    held = [t for t in tokens(text) if not t.rejected]
    forms = {t.form for t in held}
    chars = {c for t in held if not t.form.isascii() and ":" not in t.form for c in t.form}
    return frozenset(forms | chars | conflict_slots.keys(text))


def similarity(a: str, b: str) -> float:
    """The Jaccard overlap of the features of ``a`` and ``b`` (0 when either has none)."""
    fa, fb = features(a), features(b)
    union = fa | fb
    return len(fa & fb) / len(union) if union else 0.0


def comparable(new: Any, memories: Iterable[Any], paired: Iterable[str] = ()) -> list[Any]:
    """The memories the net weighs for ``new`` (a memory or a candidate: ``path``, ``scope``,
    ``type``, ``version``, ``key``, ``body``): of its scope, type and version, active, short, not in
    ``paired`` (the paths the rules already paired); none for a keyed or long ``new``."""
    if new.key or len(new.body) > conflicts.MAX_CHARS:
        return []
    probe = conflicts.probe_of(new)
    if not conflicts.eligible(probe):
        return []
    skip = set(paired)
    return [memory for memory in memories if memory.path not in skip and conflicts.comparable(probe, memory)
            and len(memory.body) <= conflicts.MAX_CHARS]


def near(new: Any, memories: Iterable[Any], paired: Iterable[str] = ()) -> list[tuple[Any, float]]:
    """The near misses of ``new`` by words among ``memories`` (:func:`comparable` ones only), most
    similar first, at most :data:`NEAR_MAX`."""
    mine = features(new.body)
    scored = []
    for memory in comparable(new, memories, paired):
        theirs = features(memory.body)
        shared = len(mine & theirs)
        if shared < NEAR_SHARED:
            continue
        score = shared / len(mine | theirs)
        if score >= NEAR_MIN:
            scored.append((memory, score))
    scored.sort(key=lambda pair: (-pair[1], pair[0].path))
    found: list[tuple[Any, float]] = []
    for memory, score in scored:
        if len(found) == NEAR_MAX:
            break
        if conflicts.compare(memory.body, new.body).why != conflicts.OTHER_NAMES:
            found.append((memory, score))
    return found


def by_meaning(candidates: Iterable[Any], cosines: Mapping[str, float], baseline: float,
               least: float = MEANING_MIN) -> list[tuple[Any, float]]:
    """The near misses by meaning among ``candidates`` (what :func:`comparable` returned), given
    each one's cosine similarity to the new memory by path (a path without one is not weighed)
    and ``baseline``, the new memory's highest cosine to :data:`UNRELATED`: those reaching
    ``least`` (another value only to measure) and :data:`MEANING_MARGIN` above ``baseline``, most
    similar first (ties by path), at most :data:`NEAR_MAX`."""
    floor = max(least, baseline + MEANING_MARGIN)
    scored = [(memory, cosines[memory.path]) for memory in candidates
              if memory.path in cosines and cosines[memory.path] >= floor]
    scored.sort(key=lambda pair: (-pair[1], pair[0].path))
    return scored[:NEAR_MAX]


def merged(by_words: list[tuple[Any, float]], by_vectors: list[tuple[Any, float]]
           ) -> list[tuple[Any, float | None, float | None]]:
    """The near misses of both rankings, the best of each in turn (words first), each memory once
    with its word overlap and its cosine (``None``: not named by that ranking), at most
    :data:`NEAR_MAX`: neither ranking crowds out the other's best."""
    words = {memory.path: score for memory, score in by_words}
    meaning = {memory.path: score for memory, score in by_vectors}
    out: list[tuple[Any, float | None, float | None]] = []
    seen: set[str] = set()
    for i in range(max(len(by_words), len(by_vectors))):
        for ranking in (by_words, by_vectors):
            if i < len(ranking) and ranking[i][0].path not in seen and len(out) < NEAR_MAX:
                memory = ranking[i][0]
                seen.add(memory.path)
                out.append((memory, words.get(memory.path), meaning.get(memory.path)))
    return out


def forget() -> None:
    """Drop the remembered features (a benchmark's cold start)."""
    features.cache_clear()
