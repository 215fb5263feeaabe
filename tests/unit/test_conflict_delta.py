"""Probable conflicts found again around a change (memfs.policy.conflict_delta): after every kind
of change (a new, edited, deleted or renamed memory, a key or status set, one moved to another
scope, a token pushed over or under the sharing cut) :func:`pairs_since` gives exactly what
:func:`conflict_pairs.pairs` gives from scratch, in the same order."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import random

import pytest

from memfs.format.model import Memory
from memfs.policy import conflict_pairs, conflicts
from memfs.policy.conflict_delta import Member, pairs_since

PEOPLE = ["Kai", "Ana", "Lee", "Mo", "Sam", "Ivy"]
PLACES = ["Berlin", "Paris", "York", "Leeds", "Oslo", "Rome", "Lima", "Kyiv"]
TEMPLATES = [
    "{p} works in {c}.", "{p} works in {c} now.", "{p} lives in {c}.", "{p} moved to {c}.",
    "I live in {c}.", "I moved to {c}.", "I am vegan now.", "The office is in {c}.",
    "{p} likes jazz.", "{p} no longer works in {c}.", "{p}在{c}工作。", "{p}现在在{c}工作。",
    "Deploys of {c} go through the staging pipeline after the full test suite of the service passes, "
    "then the on-call engineer of {p} checks the dashboards and the error budget before the release.",
]


def _memory(rng: random.Random, path: str) -> Memory:
    body = rng.choice(TEMPLATES).format(p=rng.choice(PEOPLE), c=rng.choice(PLACES))
    day = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=rng.randrange(40))
    return Memory(path, {}, body, id=path[:-3], type=rng.choice(["fact", "fact", "preference", "episode"]),
                  scope=rng.choice(["user:U1", "user:U1", "user:U2"]), key=rng.choice([None] * 5 + ["city"]),
                  version=None, status=rng.choice(["active"] * 6 + ["superseded"]), revision=rng.randrange(1, 3),
                  created=day, updated=day if rng.random() < 0.8 else None)


def _member(memory: Memory) -> Member:
    text = repr((memory.path, memory.body, memory.type, memory.scope, memory.key, memory.status, memory.revision,
                 memory.created, memory.updated))
    return Member(memory, hashlib.sha1(text.encode()).hexdigest(), conflict_pairs.reading(memory.body))


def _change(rng: random.Random, memories: dict[str, Memory], serial: int) -> None:
    kind = rng.choice(["add", "add", "edit", "delete", "rename", "key", "status", "scope", "system"])
    path = rng.choice(sorted(memories)) if memories else None
    if kind == "add" or path is None:
        name = f"facts/m{serial:04d}.md"
        memories[name] = _memory(rng, name)
    elif kind == "edit":
        memories[path] = dataclasses.replace(_memory(rng, path), created=memories[path].created)
    elif kind == "delete":
        del memories[path]
    elif kind == "rename":
        moved = memories.pop(path)
        name = f"{rng.choice(['facts', 'notes', 'system'])}/r{serial:04d}.md"
        memories[name] = dataclasses.replace(moved, path=name)
    elif kind == "key":
        memories[path] = dataclasses.replace(memories[path], key=None if memories[path].key else "city")
    elif kind == "status":
        memories[path] = dataclasses.replace(memories[path], status=rng.choice(["active", "retracted"]))
    elif kind == "scope":
        memories[path] = dataclasses.replace(memories[path], scope=rng.choice(["user:U1", "user:U2", "user:U3"]))
    else:
        moved = memories.pop(path)
        memories["system/" + path.split("/")[-1]] = dataclasses.replace(moved, path="system/" + path.split("/")[-1])


@pytest.mark.parametrize("seed", range(12))
def test_pairs_since_is_pairs_from_scratch(seed: int) -> None:
    rng = random.Random(seed)
    memories = {f"facts/m{i:04d}.md": _memory(rng, f"facts/m{i:04d}.md") for i in range(rng.choice([40, 90]))}
    before = [_member(memories[p]) for p in sorted(memories)]
    old_pairs = conflict_pairs.pairs(m.memory for m in before)
    seen_pairs = 0
    for step in range(25):
        for serial in range(rng.choice([1, 1, 2, 6])):
            _change(rng, memories, 1000 * step + serial)
        now = [_member(memories[p]) for p in sorted(memories)]
        expected = conflict_pairs.pairs(m.memory for m in now)
        assert pairs_since({m.memory.path: m for m in before}, old_pairs, now) == expected
        seen_pairs += len(expected)
        before, old_pairs = now, expected
    assert seen_pairs > 0


def test_a_token_falling_under_the_sharing_cut_pairs_unchanged_memories() -> None:
    """Two unchanged memories that share only tokens used by more than MAX_SHARING memories are
    not compared; once others stop using it, they are, though neither of them changed."""
    day = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

    def fact(i: int, body: str) -> Memory:
        return Memory(f"facts/{i:03d}.md", {}, body, type="fact", scope="user:U1", status="active",
                      revision=1, created=day + dt.timedelta(days=i))

    crowd = [fact(i, f"Zed{i} works with Quorra.") for i in range(conflicts.MAX_SHARING - 1)]
    pair = [fact(100, "Quorra works in Berlin."), fact(101, "Quorra works in Paris now.")]
    before = [_member(m) for m in [*crowd, *pair]]
    old_pairs = conflict_pairs.pairs(m.memory for m in before)
    after = [_member(m) for m in [*crowd[1:], *pair]]
    expected = conflict_pairs.pairs(m.memory for m in after)
    assert expected and expected != old_pairs
    assert pairs_since({m.memory.path: m for m in before}, old_pairs, after) == expected
    assert pairs_since({m.memory.path: m for m in after}, expected, before) == old_pairs


def test_readings_given_are_the_ones_pairs_computes() -> None:
    rng = random.Random(5)
    memories = [_memory(rng, f"facts/m{i:03d}.md") for i in range(60)]
    read = {m.path: conflict_pairs.reading(m.body) for m in memories}
    assert conflict_pairs.pairs(memories, read) == conflict_pairs.pairs(memories)


Grouped = dict[tuple[object, ...], list[conflicts.Pair]]


def _by_group(found: list[conflicts.Pair], memories: dict[str, Memory]) -> Grouped:
    groups: Grouped = {}
    for pair in found:
        groups.setdefault(conflict_pairs.group_of(memories[pair.older]), []).append(pair)
    return groups


@pytest.mark.parametrize("seed", range(8))
def test_pairs_since_over_the_touched_groups_alone(seed: int) -> None:
    """What the cached validate relies on (:func:`memfs.store.crossfile.update`): fed only the
    members of the groups a changed memory was or is in, and their old pairs, :func:`pairs_since`
    gives those groups' pairs; with the other groups' old pairs kept, every group holds exactly
    the pairs :func:`pairs` finds, in its order (the order across groups is no path's concern)."""
    rng = random.Random(seed)
    memories = {f"facts/m{i:04d}.md": _memory(rng, f"facts/m{i:04d}.md") for i in range(60)}
    old_pairs = conflict_pairs.pairs(memories[p] for p in sorted(memories))
    compared = 0
    for step in range(25):
        before = dict(memories)
        for serial in range(rng.choice([1, 1, 2])):
            _change(rng, memories, 1000 * step + serial)
        changed = {p for p in before.keys() | memories.keys() if before.get(p) != memories.get(p)}
        touched = {conflict_pairs.group_of(side[p]) for side in (before, memories) for p in changed
                   if p in side and conflicts.eligible(side[p])}

        def members(side: dict[str, Memory], touched: set[tuple[object, ...]] = touched) -> list[Member]:
            return [_member(side[p]) for p in sorted(side)
                    if conflicts.eligible(side[p]) and conflict_pairs.group_of(side[p]) in touched]

        again = pairs_since({m.memory.path: m for m in members(before)},
                            [p for p in old_pairs if conflict_pairs.group_of(before[p.older]) in touched],
                            members(memories))
        kept = [p for p in old_pairs if conflict_pairs.group_of(before[p.older]) not in touched]
        expected = conflict_pairs.pairs(memories[p] for p in sorted(memories))
        assert _by_group([*kept, *again], memories) == _by_group(expected, memories)
        compared += len(expected)
        old_pairs = [*kept, *again]
    assert compared > 0
