"""Probable conflicts in a repository (:mod:`memfs.policy.conflicts` over what is stored): the
memories a new one probably replaces, for the file tools' notice, the near misses of the wider
net (:mod:`memfs.policy.conflict_net`) for the doors with a model in the loop, and every pair,
for ``memfs validate`` and ``memfs review``."""

from __future__ import annotations

from typing import Any

from memfs.format.model import Memory
from memfs.ops import semantic
from memfs.policy import conflict_net, conflict_pairs, conflicts
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
    a verdict that says so (never superseded on this alone). A memory :func:`~memfs.policy.conflicts.kept_apart`
    from it is neither: someone decided that both hold."""
    if memory.scope is None or not conflicts.eligible(memory):
        return [], []
    scope = [m for m in in_scope(repo, memory.scope) if not conflicts.kept_apart(memory, m)]
    found = conflicts.against(memory, scope)
    return found, near_misses(repo, memory, scope, [m.path for m, _ in found])


def near_misses(repo: Store, new: Any, scope: list[Memory], paired: list[str]
                ) -> list[tuple[Memory, conflicts.Verdict]]:
    """The near misses of ``new`` (a memory or a candidate) among ``scope``, the memories in
    ``paired`` left out, each with its verdict (``different``, and why it is named): by words,
    and by meaning when ``[semantic]`` names an embedder (the comparable memories' vectors from
    the cache, ``new``'s computed once: :func:`memfs.ops.semantic.cosines`)."""
    candidates = conflict_net.comparable(new, scope, [*paired, getattr(new, "path", None) or ""])
    if not candidates:
        return []
    by_words = conflict_net.near(new, candidates)
    by_vectors: list[tuple[Memory, float]] = []
    if repo.config().semantic.embed is not None:
        cosines, baseline = semantic.cosines(repo, new.body.strip(), {m.path: m.body.strip() for m in candidates},
                                             conflict_net.UNRELATED)
        by_vectors = conflict_net.by_meaning(candidates, cosines, baseline)
    return [(other, conflicts.Verdict("different", _why(words, meaning)))
            for other, words, meaning in conflict_net.merged(by_words, by_vectors)]


def _why(words: float | None, meaning: float | None) -> str:
    said = [f"similar wording ({words:.0%} of their words shared)"] if words is not None else []
    said += [f"similar meaning (cosine {meaning:.2f})"] if meaning is not None else []
    return f"{' and '.join(said)}; the offline rules found no conflict"


def every_pair(repo: Store) -> list[conflicts.Pair]:
    """Every probable conflict among the memories the session sees (``memfs review``)."""
    return conflict_pairs.pairs(repo.scan().memories)
