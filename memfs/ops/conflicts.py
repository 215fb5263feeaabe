"""Probable conflicts in a repository (:mod:`memfs.policy.conflicts` over what is stored): the
memories a new one probably replaces, for the file tools' notice, and every pair, for ``memfs
validate`` and ``memfs review``."""

from __future__ import annotations

from memfs.format.model import Memory
from memfs.policy import conflicts
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


def every_pair(repo: Store) -> list[conflicts.Pair]:
    """Every probable conflict among the memories the session sees (``memfs review``)."""
    return conflicts.pairs(repo.scan().memories)
