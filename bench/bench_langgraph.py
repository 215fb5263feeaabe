"""LangGraph's ``MemfsStore``: a single ``put``, many concurrent ``aput``\\ s (group commits), and
search with and without semantic search (a deterministic hashed bag-of-words embedder, so the
cost shown is memfs's, not a model's).

For each round, in a fresh repository:
  * ``put``: one ``store.put`` of a small item (median over ROUNDS);
  * ``aput x N``: N ``aput``\\ s gathered at once, grouped into commits (wall time, commits made);
  * ``aput x N ungrouped``: the same, each its own commit (as before group commits; only with
    ``--ungrouped``, it takes ~30 s at N=200);
  * search over ITEMS items by words only, and with ``index=`` (hybrid BM25 + vectors).

    .venv/bin/python bench/bench_langgraph.py [--concurrent 200] [--rounds 5] [--items 500] [--ungrouped]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import git

from memfs import MemoryRepo
from memfs.integrations.langgraph import MemfsStore

DIMS = 256
WORDS = ["deploy", "release", "coffee", "milk", "notes", "chinese", "tests", "pipeline", "review", "budget",
         "travel", "python", "typescript", "garden", "music", "meeting", "invoice", "holiday", "kitchen", "bike"]


def embed(texts: list[str]) -> list[list[float]]:
    """Hashed bag of words, normalised: deterministic and free."""
    out = []
    for text in texts:
        vec = [0.0] * DIMS
        for word in text.lower().split():
            vec[int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % DIMS] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        out.append([v / norm for v in vec])
    return out


def fresh(tmp: Path, name: str) -> Path:
    root = tmp / name
    MemoryRepo.init(root, actor="bench:setup")
    git(root, "config", "user.name", "bench")
    git(root, "config", "user.email", "bench@example.invalid")
    return root


def commits(root: Path) -> int:
    import subprocess

    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout)


def bench_put(tmp: Path, rounds: int) -> float:
    store = MemfsStore(fresh(tmp, "put"), actor="agent:bench")
    times = []
    for i in range(rounds + 1):
        start = time.perf_counter()
        store.put(("users", "u5"), f"k{i}", {"text": f"item {i} about {WORDS[i % len(WORDS)]}"})
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def bench_aput(tmp: Path, n: int, name: str, grouped: bool) -> tuple[float, int]:
    root = fresh(tmp, name)
    store = MemfsStore(root, actor="agent:bench")
    before = commits(root)

    async def one(i: int) -> None:
        value = {"text": f"memory {i} about {WORDS[i % len(WORDS)]}", "n": i}
        if grouped:
            await store.aput(("users", f"u{i % 10}"), f"k{i}", value)
        else:
            await asyncio.to_thread(store._apply_group, [[_op(i, value)]])

    async def main() -> None:
        await asyncio.gather(*(one(i) for i in range(n)))

    start = time.perf_counter()
    asyncio.run(main())
    return time.perf_counter() - start, commits(root) - before


def _op(i: int, value: dict[str, object]) -> object:
    from langgraph.store.base import PutOp

    return PutOp(("users", f"u{i % 10}"), f"k{i}", value)


def bench_search(tmp: Path, items: int, rounds: int, semantic: bool) -> tuple[float, float]:
    index = {"dims": DIMS, "embed": embed, "fields": ["text"]} if semantic else None
    store = MemfsStore(fresh(tmp, f"search-{semantic}"), actor="agent:bench", index=index)  # type: ignore[arg-type]
    from langgraph.store.base import PutOp

    start = time.perf_counter()
    store.batch([PutOp(("docs", f"d{i % 5}"), f"k{i}", {"text": " ".join(
        WORDS[(i * j) % len(WORDS)] for j in range(1, 8)) + f" number {i}"}) for i in range(items)])
    fill = time.perf_counter() - start
    times = []
    for r in range(rounds + 1):
        start = time.perf_counter()
        store.search(("docs",), query=f"{WORDS[r % len(WORDS)]} {WORDS[(r + 3) % len(WORDS)]}", limit=10)
        times.append(time.perf_counter() - start)
    return fill, statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrent", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--items", type=int, default=500)
    parser.add_argument("--ungrouped", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp)
        print(f"put, median of {args.rounds}: {bench_put(path, args.rounds) * 1000:.0f} ms")
        wall, made = bench_aput(path, args.concurrent, "grouped", grouped=True)
        print(f"{args.concurrent} concurrent aput, grouped: {wall:.2f} s, {made} commit(s)")
        if args.ungrouped:
            wall_u, made_u = bench_aput(path, args.concurrent, "ungrouped", grouped=False)
            print(f"{args.concurrent} concurrent aput, ungrouped: {wall_u:.2f} s, {made_u} commit(s); "
                  f"grouped is {wall_u / wall:.1f}x faster")
        for semantic in (False, True):
            fill, median = bench_search(path, args.items, args.rounds, semantic)
            label = "hybrid (BM25 + vectors)" if semantic else "words only"
            print(f"{args.items} items {label}: one batch put {fill:.2f} s, search median {median * 1000:.1f} ms")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
