"""Consolidation: which episodes belong together, and the default summary of a group (pure).

``memfs consolidate`` turns a group of related episodes into one ``type: summary`` memory that
``depends_on`` them, and marks them ``superseded`` (:mod:`memfs.ops.consolidate`). This module
decides the groups and writes the default summary:

* **Related**: two active episodes of the same scope and version whose times (``created``, else
  ``updated``) are at most ``window_days`` apart and whose terms overlap by at least
  ``min_overlap`` (Jaccard: shared terms over all terms). Groups are the connected sets of related
  episodes with at least ``min_group`` members (single link: A~B and B~C puts A, B, C together).
* **Summary**: :func:`extractive`, the default summariser: no model and no network. It keeps the
  first sentence of each episode, oldest first, with its date and path, and names the terms the
  group shares. Any callable with the same signature (:data:`Summariser`) can replace it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memfs.format.config import ConsolidateConfig
from memfs.format.model import Memory

#: Terms of a memory (the search analyzer's, given by the caller: policy does not import the index).
Terms = Callable[[Memory], frozenset[str]]
_SENTENCE = re.compile(r"(.+?[.!?。！？])(?:\s|$)", re.DOTALL)
SHARED_TERMS = 6


@dataclass(frozen=True)
class Summary:
    """What a summariser returns: the summary memory's body and one-line description."""

    body: str
    description: str


#: A summariser: the group (oldest first) -> its summary.
Summariser = Callable[[Sequence[Memory]], Summary]


def when(memory: Memory) -> dt.datetime | None:
    """The time of an episode: when it was recorded (``created``), else last changed."""
    return memory.created or memory.updated


def related(a: Memory, b: Memory, terms: Terms, rules: ConsolidateConfig) -> bool:
    if (a.scope, a.version) != (b.scope, b.version):
        return False
    ta, tb = when(a), when(b)
    if ta is None or tb is None or abs(ta - tb) > dt.timedelta(days=rules.window_days):
        return False
    mine, theirs = terms(a), terms(b)
    union = mine | theirs
    return bool(union) and len(mine & theirs) / len(union) >= rules.min_overlap


def groups(episodes: Sequence[Memory], terms: Terms, rules: ConsolidateConfig) -> list[list[Memory]]:
    """The groups of related active episodes (each oldest first; groups in order of their first)."""
    pool = sorted((m for m in episodes if m.type == "episode" and m.status == "active" and when(m) is not None),
                  key=lambda m: (when(m), m.path))
    parent = list(range(len(pool)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(pool):
        for j in range(i + 1, len(pool)):
            b = pool[j]
            ta, tb = when(a), when(b)
            assert ta is not None and tb is not None
            if tb - ta > dt.timedelta(days=rules.window_days):
                break  # sorted by time: nothing later is within the window of a
            if related(a, b, terms, rules):
                parent[root(j)] = root(i)
    found: dict[int, list[Memory]] = {}
    for i, memory in enumerate(pool):
        found.setdefault(root(i), []).append(memory)
    return [g for g in found.values() if len(g) >= rules.min_group]


def shared_terms(group: Sequence[Memory], terms: Terms, limit: int = SHARED_TERMS) -> list[str]:
    """The terms most members of the group use (at least two), most common first."""
    counts: Counter[str] = Counter(t for m in group for t in terms(m))
    return [t for t, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= 2][:limit]


def first_sentence(memory: Memory) -> str:
    """The description, else the first sentence of the body's first paragraph of prose."""
    if memory.description:
        return memory.description
    for block in memory.body.split("\n\n"):
        text = " ".join(line.strip().lstrip("#>-*• ").strip() for line in block.splitlines()).strip()
        if text:
            found = _SENTENCE.match(text)
            return (found.group(1) if found else text)[:200]
    return memory.path


def extractive(terms: Terms) -> Summariser:
    """The default summariser: each episode's first sentence, oldest first, dated, with its path,
    then the terms they share. Deterministic; no model, no network."""

    def summarise(group: Sequence[Memory]) -> Summary:
        times = [t for m in group if (t := when(m)) is not None]
        span = f"{times[0]:%Y-%m-%d} to {times[-1]:%Y-%m-%d}" if times else "unknown dates"
        common = shared_terms(group, terms)
        lines = [f"{len(group)} related episodes in {group[0].scope}, {span}.", ""]
        for memory in group:
            stamp = f"{t:%Y-%m-%d}" if (t := when(memory)) is not None else "undated"
            lines.append(f"- {stamp} ({memory.path}): {first_sentence(memory)}")
        if common:
            lines += ["", "Shared terms: " + ", ".join(common) + "."]
        description = f"{len(group)} episodes, {span}" + (f": {', '.join(common[:3])}" if common else "")
        return Summary("\n".join(lines) + "\n", description)

    return summarise
