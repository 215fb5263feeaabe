"""The agents layer's requests run against a store: the one place a ``context`` request becomes an
assembly (the library's ``MemoryRepo.context`` and the live index's socket both run it). It is a module of
its own because the declarations name :mod:`memfs.agents.evaluate`'s result, which imports
:mod:`memfs.agents.context`: the request imported there would be a cycle."""

from __future__ import annotations

from memfs.agents.context import assemble
from memfs.agents.rendering import Context
from memfs.agents.verbs import Context as ContextRequest
from memfs.policy.tokens import counter
from memfs.store.repo import Store


def context(repo: Store, op: ContextRequest) -> Context:
    """:func:`~memfs.agents.context.assemble` with the request's values, the token counter named by
    ``op.counter`` unless ``op.count`` is given."""
    return assemble(
        repo, op.task, scope=op.scope, version=op.version, budget=op.budget, format=op.format,
        inherit=bool(op.inherit), system_share=op.system_share, count=op.count or counter(op.counter),
        at=op.at, min_relevance=op.min_relevance, all_scopes=op.all_scopes,
    )
