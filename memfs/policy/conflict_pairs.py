"""Probable-conflict pairs among many memories (pure): candidates by shared words, each judged once.

Split from :mod:`memfs.policy.conflicts` (which judges one pair): what :func:`pairs` needs of each
body is a :class:`Reading`, a function of the body alone, so the findings cache can keep it with the
file's content id and :mod:`memfs.policy.conflict_delta` can compare only what a change touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.policy import conflict_slots
from memfs.policy.conflicts import (
    MAX_CHARS,
    MAX_SHARING,
    MAX_TOKENS,
    Pair,
    TextRead,
    eligible,
    kept_apart,
    sketch_from_tokens,
    sketch_of_text,
    tokens,
    weigh,
    when,
)


def pairs(memories: Iterable[Any], read: Mapping[str, Reading] | None = None) -> list[Pair]:
    """Every probable conflict among ``memories``: each text is read once; only memories of one
    scope, type and version that share a token are compared, and only short ones (at most
    :data:`MAX_TOKENS` content tokens: a value is said in a sentence or two, a longer memory is a
    document); a token found in more than :data:`MAX_SHARING` of them names no subject. A text
    of the speaker's own with a change verb ("I moved to York.") is compared with every other text
    of the speaker's own (they share no word, only the subject "I"). ``read``: bodies' :func:`reading` by path."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for memory in memories:
        if eligible(memory):
            groups.setdefault(group_of(memory), []).append(memory)
    found: list[Pair] = []
    seen: dict[str, TextRead] = {}
    for group in groups.values():
        readings = {m.path: (read.get(m.path) if read else None) or reading(m.body) for m in group}
        short = sorted((m for m in group if readings[m.path].short), key=when)
        users: dict[str, list[int]] = {}
        for number, memory in enumerate(short):
            for form in readings[memory.path].forms:
                users.setdefault(form, []).append(number)
        candidates = {(i, j) for numbers in users.values() if len(numbers) <= MAX_SHARING
                      for k, i in enumerate(numbers) for j in numbers[k + 1:]}
        speakers = [n for n, memory in enumerate(short) if readings[memory.path].speaker]
        candidates |= {(i, j) for j in speakers if readings[short[j].path].announces for i in speakers if i < j}
        for i, j in sorted(candidates):
            pair = judged(short[i], short[j], seen)
            if pair is not None:
                found.append(pair)
    return found


def group_of(memory: Any) -> tuple[Any, ...]:
    """The memories an :func:`eligible` one may conflict with share this: scope, type, version."""
    return (memory.scope, memory.type or "note", memory.version)


@dataclass(frozen=True)
class Reading:
    """What :func:`pairs` needs of a body to find candidates (forms, ``short`` enough, the speaker's,
    ``announces`` a change): a function of the body alone, kept with its content id."""

    forms: frozenset[str]
    short: bool
    speaker: bool
    announces: bool


def reading(body: str) -> Reading:
    """The :class:`Reading` of ``body``."""
    read = tokens(body) if len(body) <= MAX_CHARS else ()
    if not 0 < len(read) <= MAX_TOKENS:
        return Reading(frozenset(), False, False, False)
    sketch = sketch_of_text(body)
    forms = frozenset(t.form for t in read) | conflict_slots.keys(body)
    return Reading(forms, True, sketch.speaker, sketch.changed or sketch.tiny_marked)


def judged(older: Any, newer: Any, seen: dict[str, TextRead] | None = None) -> Pair | None:
    """The conflict of two candidates of :func:`pairs`, ``older`` first by :func:`when`, or ``None``:
    a function of their bodies, keys and ``distinct_from`` (``seen``: the texts this pass read
    already). Two memories either of which names the other in ``distinct_from`` are no conflict:
    someone (the caller, a judge, a person) decided that both hold."""
    if (older.key and newer.key) or kept_apart(older, newer):
        return None
    seen = {} if seen is None else seen
    for memory in (older, newer):  # each text read once a pass (the remembered readings hold 4,096)
        if memory.path not in seen:
            toks = tokens(memory.body)
            seen[memory.path] = (toks, sketch_from_tokens(memory.body, toks))
    (old_tokens, old_sketch), (new_tokens, new_sketch) = seen[older.path], seen[newer.path]
    if not (old_sketch.may_conflict(new_sketch) or conflict_slots.may_pair(older.body, newer.body)):
        return None
    verdict = weigh(older.body, newer.body, (old_tokens, new_tokens))
    return Pair(older.path, newer.path, verdict.why) if verdict.conflict else None
