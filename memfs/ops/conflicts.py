"""Probable conflicts in a repository (:mod:`memfs.policy.conflicts` over what is stored): the
memories a new one probably replaces, for the file tools' notice, the near misses of the wider
net (:mod:`memfs.policy.conflict_net`) for the doors with a model in the loop, and every pair,
for ``memfs validate`` and ``memfs review``."""

from __future__ import annotations

from typing import Any

from memfs.format.model import Memory
from memfs.policy import conflict_net, conflicts
from memfs.store.gitcli import ere_escape
from memfs.store.repo import Store


def in_scope(repo: Store, scope: str) -> list[Memory]:
    """The memories of ``scope`` the session sees (the write-path cache names the files, else one
    ``git grep``; each is parsed, broken files are skipped: validation reports them)."""
    known = repo.catalog()
    if known is not None:
        rels = known.in_scope(scope)
    else:
        rels = repo.files_matching(f"^scope:[[:space:]]*['\"]?{ere_escape(scope)}['\"]?[[:space:]]*(#.*)?$")
    found = []
    for rel in rels:
        data, memory, _ = repo.load(rel)
        if data is not None and memory is not None and memory.scope == scope and repo.visible(rel, data):
            found.append(memory)
    return found


def similar(repo: Store, memory: Memory) -> list[tuple[Memory, conflicts.Verdict]]:
    """The active memories of ``memory``'s scope it probably gives a new value for, newest first."""
    if memory.scope is None or not conflicts.eligible(memory):
        return []
    return conflicts.against(memory, in_scope(repo, memory.scope))


def around(repo: Store, memory: Memory) -> tuple[list[tuple[Memory, conflicts.Verdict]],
                                                 list[tuple[Memory, conflicts.Verdict]]]:
    """What a door with a model in the loop tells it about ``memory``, its scope read once: the
    memories it probably replaces (:func:`similar`) and its near misses, the few most like it
    that the rules did not pair (:mod:`memfs.policy.conflict_net`), most similar first, each with
    a verdict that says so (never superseded on this alone)."""
    if memory.scope is None or not conflicts.eligible(memory):
        return [], []
    scope = in_scope(repo, memory.scope)
    found = conflicts.against(memory, scope)
    return found, near_misses(memory, scope, [m.path for m, _ in found])


def near_misses(new: Any, scope: list[Memory], paired: list[str]) -> list[tuple[Memory, conflicts.Verdict]]:
    """The near misses of ``new`` (a memory or a candidate) among ``scope``, the memories in
    ``paired`` left out, each with its verdict (``different``, and why it is named)."""
    return [(other, conflicts.Verdict("different", f"similar wording ({score:.0%} of their words shared); the "
                                                   "offline rules found no conflict"))
            for other, score in conflict_net.near(new, scope, [*paired, getattr(new, "path", None) or ""])]


def every_pair(repo: Store) -> list[conflicts.Pair]:
    """Every probable conflict among the memories the session sees (``memfs review``)."""
    return conflicts.pairs(repo.scan().memories)
