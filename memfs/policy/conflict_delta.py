"""Probable conflicts again after a few memories changed: :func:`pairs_since` gives exactly what
:func:`memfs.policy.conflict_pairs.pairs` gives over the new memories, from the pairs found before and
the :class:`~memfs.policy.conflict_pairs.Reading` kept for every memory, comparing only what the change
can have moved.

Why that is exact. :func:`~memfs.policy.conflict_pairs.pairs` judges a candidate pair with
:func:`~memfs.policy.conflict_pairs.judged`, a function of the two memories' contents alone (and their
order of age, :func:`~memfs.policy.conflicts.when`, which is fixed by their contents and paths). A
memory is *changed* when its path is new, gone, or holds another content id. Between two unchanged
memories the verdict is therefore the old one; only whether they are candidates can move, and only
through a token whose number of users in their group (the :data:`MAX_SHARING` cut) the change
moved. So the new pairs are: the old pairs of two unchanged memories that are still candidates;
every candidate pair with a changed memory, judged; and the pairs of unchanged memories that became
candidates because a shared token fell to :data:`MAX_SHARING` users or below, judged. Groups no
changed memory was or is in keep their pairs as they were.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.policy.conflict_pairs import Reading, group_of, judged, pairs
from memfs.policy.conflicts import MAX_SHARING, Pair, eligible, when


@dataclass(frozen=True)
class Member:
    """One memory as pairing sees it: the memory (its frontmatter fields and body), the id of the
    content it was read from, and the :class:`Reading` of its body."""

    memory: Any
    blob: str
    reading: Reading


class _Group:
    """The short members of one group and who uses each token."""

    def __init__(self, members: Iterable[Member]) -> None:
        self.members = {m.memory.path: m for m in members if m.reading.short}
        self.users: dict[str, list[str]] = {}
        for path, member in self.members.items():
            for form in member.reading.forms:
                self.users.setdefault(form, []).append(path)

    def candidates(self, older: Member, newer: Member) -> bool:
        """Whether :func:`pairs` would compare ``older`` with ``newer`` in this group."""
        shared = older.reading.forms & newer.reading.forms
        if any(len(self.users.get(form, ())) <= MAX_SHARING for form in shared):
            return True
        return older.reading.speaker and newer.reading.speaker and newer.reading.announces


def _groups(members: Iterable[Member]) -> dict[tuple[Any, ...], list[Member]]:
    found: dict[tuple[Any, ...], list[Member]] = {}
    for member in members:
        if eligible(member.memory):
            found.setdefault(group_of(member.memory), []).append(member)
    return found


def pairs_since(old: Mapping[str, Member], old_pairs: list[Pair], new: list[Member]) -> list[Pair]:
    """:func:`pairs` of ``new``'s memories (in its order), given ``old_pairs``, which must be
    :func:`pairs` of ``old``'s. With nothing of ``old`` (a first run) it is :func:`pairs` itself."""
    if not old or any(p.older not in old or p.newer not in old for p in old_pairs):
        return pairs(m.memory for m in new)
    now = {m.memory.path: m for m in new}
    changed = {p for p, m in now.items() if p not in old or old[p].blob != m.blob}
    changed |= old.keys() - now.keys()
    new_groups, old_groups = _groups(new), _groups(old.values())
    touched = {group_of(m.memory) for m in (*(now[p] for p in changed if p in now),
                                             *(old[p] for p in changed if p in old)) if eligible(m.memory)}
    found: dict[tuple[Any, ...], set[Pair]] = {key: set() for key in new_groups}
    for pair in old_pairs:
        key = group_of(old[pair.older].memory)
        if key not in touched:
            found.setdefault(key, set()).add(pair)
    for key in touched & new_groups.keys():
        found[key] = _again(_Group(old_groups.get(key, ())), _Group(new_groups[key]), changed,
                            [p for p in old_pairs if group_of(old[p.older].memory) == key])
    return [pair for key in new_groups
            for pair in sorted(found[key], key=lambda p: (when(now[p.older].memory), when(now[p.newer].memory)))]


def _again(before: _Group, after: _Group, changed: set[str], old_pairs: list[Pair]) -> set[Pair]:
    """The pairs of one group a change touched (see the module's docstring)."""
    members = after.members
    found = {p for p in old_pairs if p.older not in changed and p.newer not in changed
             and after.candidates(members[p.older], members[p.newer])}
    judged_ones: set[tuple[str, str]] = set()

    def judge(a: str, b: str, group: _Group) -> None:
        older, newer = sorted((members[a], members[b]), key=lambda m: when(m.memory))
        names = (older.memory.path, newer.memory.path)
        if names in judged_ones or not group.candidates(older, newer):
            return
        judged_ones.add(names)
        pair = judged(older.memory, newer.memory)
        if pair is not None:
            found.add(pair)

    speakers = [p for p, m in members.items() if m.reading.speaker]
    for path in changed & members.keys():
        member = members[path]
        partners = {other for form in member.reading.forms if len(after.users[form]) <= MAX_SHARING
                    for other in after.users[form]}
        if member.reading.speaker:
            partners.update(speakers)
        for other in sorted(partners - {path}):
            judge(path, other, after)
    for form, users in after.users.items():
        if len(users) > MAX_SHARING or len(before.users.get(form, ())) <= MAX_SHARING:
            continue
        steady = [p for p in users if p not in changed]
        for k, a in enumerate(steady):
            for b in steady[k + 1:]:
                older, newer = sorted((members[a], members[b]), key=lambda m: when(m.memory))
                if not before.candidates(before.members[older.memory.path], before.members[newer.memory.path]):
                    judge(a, b, after)
    return found
