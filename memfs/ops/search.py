"""``search``: a :class:`~memfs.ops.verbs.recall.Search` request run against a store, the one
place a request becomes an index query (the library's ``MemoryRepo.search`` and the live
index's socket both run it)."""

from __future__ import annotations

from memfs import index
from memfs.index.results import SearchResult
from memfs.ops import semantic
from memfs.ops.verbs.recall import Search
from memfs.store import usage
from memfs.store.repo import Store


def search(repo: Store, op: Search) -> SearchResult:
    """Eligible memories for ``op`` (:func:`memfs.index.search`); with ``op.record`` the hits
    count as recalled in the usage statistics (the CLI and MCP ask for that). With ``[semantic]``
    configured, vectors fill the places BM25 leaves empty (:mod:`memfs.ops.semantic`)."""
    result = index.search(
        repo, op.query, scope=op.scope, version=op.version, at=op.at, type=op.type, limit=op.limit,
        inherit=bool(op.inherit), explain=op.explain, policy=op.policy, catch_up=op.catch_up,
        descendants=op.descendants, near=semantic.near(repo),
    )
    if op.record and result.hits:
        usage.record_recall(repo, [hit.path for hit in result.hits])
    return result
