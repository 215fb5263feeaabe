"""MCP recall with and without the live index ``memfs mcp`` keeps (#17): ``memory_search`` through
the MCP server object in-process (no transport), alternating query by query between a server
built without a live index (every search asks git first: ``--no-live``) and one reading through
it (the default), on ``bench/corpus.py``'s corpus and queries.

    .venv/bin/python bench/bench_mcp_live.py [--sizes 10000] [--queries-per-kind 20]

Prints wall and CPU medians and p95 per search and the load average.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from benchlib import pct

from memfs import MemoryRepo
from memfs.mcp_server import build_server

AT = corpus.NOW.isoformat()


def timed(server: Any, text: str) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    anyio.run(server.call_tool, "memory_search", {"query": text, "at": AT, "limit": 10})
    return time.perf_counter() - t0, time.process_time() - c0


def run(n: int, per_kind: int, base: Path) -> None:
    root = base / f"mem{n}"
    docs = corpus.generate(n, seed=1)
    corpus.write(root, docs)
    texts = [q.text for q in corpus.queries(docs, per_kind, seed=2)]
    repo = MemoryRepo.open(root, "agent:bench")
    repo.reindex()
    live = repo.live_index()
    try:
        direct, through = build_server(repo), build_server(repo, live)
        timed(direct, texts[0]), timed(through, texts[0])
        load = Path("/proc/loadavg").read_text().split()[:3]
        walls: dict[str, list[float]] = {"direct": [], "live": []}
        cpus: dict[str, list[float]] = {"direct": [], "live": []}
        for text in texts:
            for name, server in (("direct", direct), ("live", through)):
                wall, cpu = timed(server, text)
                walls[name].append(wall)
                cpus[name].append(cpu)
    finally:
        live.stop()
    print(f"== {n} memories, {len(texts)} queries, load {load} -> {Path('/proc/loadavg').read_text().split()[:3]}")
    for name in ("direct", "live"):
        print(f"memory_search {name:6}: p50 {statistics.median(walls[name]) * 1000:.1f} ms, p95 "
              f"{pct(walls[name], 95) * 1000:.1f} ms (CPU p50 {statistics.median(cpus[name]) * 1000:.1f} ms)")
    print(f"direct / live p50: {statistics.median(walls['direct']) / statistics.median(walls['live']):.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--queries-per-kind", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memfs-mcp-live-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            run(n, args.queries_per_kind, Path(tmp))


if __name__ == "__main__":
    main()
