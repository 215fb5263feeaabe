"""In-process adapter for the LoCoMo scorer (``score.py --python bench/locomo_adapter.py:factory``).

Each conversation folder must be a git repository (``convert.py --git per-conv``). The adapter
calls the same library function as ``memfs search`` (:func:`memfs.index.search`), so its
retrieval equals the CLI's; only process start-up is left out of the latency.
Options (``--opt key=value``): ``fresh=0`` turns freshness off (every type stops aging);
``boost_<field>=x``, ``k1=x``, ``b=x`` override scoring constants for experiments.
"""

from __future__ import annotations

from memfs import MemoryRepo, index
from memfs.index import documents, postings
from memfs.policy import recall


def factory(ctx: dict):
    repo = MemoryRepo.open(ctx["conv_dir"])
    index.reindex(repo.store)
    policy = None
    for name, value in ctx["opts"].items():  # experiments: boost_<field>=x, k1=x, b=x
        if name.startswith("boost_"):
            documents.FIELD_BOOSTS[name[6:]] = float(value)
        elif name in ("k1", "b"):
            setattr(postings, f"BM25_{name.upper()}", float(value))
    if ctx["opts"].get("fresh") == "0":
        policy = recall.RankPolicy({})

    def search(query: str, limit: int) -> list[dict]:
        result = index.search(repo.store, query, scope=ctx["scope"], limit=limit, policy=policy)
        return [{"source": h.memory.source, "path": h.path} for h in result.hits]

    return search
