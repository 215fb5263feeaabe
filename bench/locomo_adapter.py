"""In-process adapter for the LoCoMo scorer (``score.py --python bench/locomo_adapter.py:factory``).

Each conversation folder must be a git repository (``convert.py --git per-conv``). The adapter
calls the same library function as ``memfs search`` (:func:`memfs.index.search`), so its
retrieval equals the CLI's; only process start-up is left out of the latency.
Options (``--opt key=value``): ``fresh=0`` turns freshness off (every type stops aging);
``boost_<field>=x``, ``k1=x``, ``b=x`` override scoring constants for experiments.
``fuse=1`` is ``[semantic]``'s path (:func:`memfs.index.search` with ``near``, the ranking
``memfs.ops.semantic`` builds): BM25's hits in their places, the vectors fill what BM25 leaves
empty (:mod:`memfs.policy.hybrid`), with a deterministic hashed bag-of-words embedder
(``bench_langgraph.embed``; ``embed=idf``: hashed words without stop words, weighted by the
conversation's IDF): no model, so it shows what fusion costs or keeps of BM25's recall, never
what a real model would add (``embed=minilm``: all-MiniLM-L6-v2 in numpy, ``bench/minilm_numpy.py``;
``cache=DIR`` keeps its vectors between runs). ``fuse=rrf`` is the reciprocal rank fusion it replaced (BM25's first
50, the vectors' first 200, k = 60), ``fuse=vectors`` the vectors alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

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

    if ctx["opts"].get("fuse") in ("1", "rrf", "vectors"):
        return _fused(repo, ctx, policy, how=ctx["opts"]["fuse"])
    return search


def _fused(repo: MemoryRepo, ctx: dict, policy: recall.RankPolicy | None, *, how: str):
    import tempfile

    import numpy as np
    from bench_langgraph import DIMS, embed

    from memfs.index import vectors
    from memfs.ops import semantic

    docs = ctx["docs"]
    sources = [f"locomo:{ctx['conv']}:{d['dia_id']}" for d in docs]
    kind = ctx["opts"].get("embed", "hashed")
    if kind == "minilm":  # a real model, in numpy (bench/minilm_numpy.py; MEMFS_BENCH_MINILM names its folder)
        import minilm_numpy

        embedder, dims = minilm_numpy.embed, minilm_numpy.DIMS
    elif kind == "idf":
        embedder, dims = _idf_embedder([d["body"] for d in docs]), 1024
    else:
        embedder, dims = embed, DIMS
    folder = Path(ctx["opts"]["cache"]) if "cache" in ctx["opts"] else Path(tempfile.mkdtemp())
    cache = vectors.VectorCache(folder, f"bench:{kind}", dims, embedder)
    matrix = cache.vectors([d["body"] for d in docs], lambda i: sources[i])
    cache.save()

    def near(query: str, rels: list[str]):
        return semantic._nearest(repo.store, cache, query, rels)

    def search(query: str, limit: int) -> list[dict]:
        if how == "1":
            result = index.search(repo.store, query, scope=ctx["scope"], limit=limit, policy=policy, near=near)
            return [{"source": h.memory.source} for h in result.hits]
        near_scores = vectors.cosine(vectors.checked(embedder([query]), 1, dims)[0], matrix)
        order = np.argsort(-near_scores, kind="stable")[:200]
        ranked = [(sources[i], float(near_scores[i])) for i in order]
        if how == "vectors":
            return [{"source": s} for s, _ in ranked[:limit]]
        result = index.search(repo.store, query, scope=ctx["scope"], limit=50, policy=policy)
        words = [h.memory.source for h in result.hits]
        return [{"source": s} for s in _rrf([words, [s for s, _ in ranked]])[:limit]]

    return search


def _rrf(rankings: list[list[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion (Cormack et al., 2009), what MemfsStore used before #29's guard."""
    total: dict[str, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            total[item] = total.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(total, key=lambda item: -total[item])


_STOP = frozenset("a an and are as at be by did do does for from had has have he her his how i in is it its me "
                  "my of on or she so that the their them they this to was we were what when where which who "
                  "why will with you your".split())


def _idf_embedder(corpus: list[str]):
    """Hashed words (no stop words) weighted ``(1 + log tf) * idf`` over the conversation: a
    deterministic embedder about as good as a lexical ranker gets, still no model."""
    import hashlib
    import math
    import re
    from collections import Counter

    def words(text: str) -> list[str]:
        return [w for w in re.findall(r"\w+", text.lower()) if w not in _STOP]

    df = Counter(w for text in corpus for w in set(words(text)))
    n = len(corpus)

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * 1024
            for word, tf in Counter(words(text)).items():
                slot = int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % 1024
                vec[slot] += (1 + math.log(tf)) * math.log((n + 1) / (df.get(word, 0) + 1))
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out

    return embed
