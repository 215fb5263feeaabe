"""The live server's own search, each query asked once of a fresh server, against tantivy (#28).

    .venv/bin/python bench/bench_query_once.py --size 100000 [--base /tmp/memfs-scale] [--runs 3]
    PYTHONPATH=/path/to/other/tree .venv/bin/python /this/tree/bench/bench_query_once.py ...  # another memfs

``bench_scale.py``'s live step without its save loop: a new ``memfs serve`` (in process) per run,
three warm-up queries, then the 50 queries once each, memfs and tantivy alternating query by
query; CPU p50 and mean per query, and the load average. Repeated runs because a query new to the
server is what the #28 target is measured on and it moves by ±20% between runs on a loaded machine.
Run from outside the tree with ``PYTHONPATH`` set to compare two trees (the editable install
otherwise wins). Needs the corpus and the tantivy index ``bench_scale.py`` built under ``--base``.

``--served``: then a ``memfs serve`` process (the same tree), the 50 queries asked once each over
its socket; its CPU per query (p50 from 10 ms ticks, so the mean too) and its RSS after them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bare_tantivy import TantivyIndex
from bench_live import args_for
from bench_scale import texts_for

from memfs import MemoryRepo
from memfs.index.analysis import tokens


def once(root: Path, tv_dir: Path, texts: list[str]) -> dict[str, float]:
    tv = TantivyIndex.open(tv_dir)
    searcher = tv.ix.searcher()
    analysed = [tokens(t) for t in texts]
    with MemoryRepo.open(root, "bench:scale").live_server() as server:
        server.live.wait_barrier(server.live.barrier())
        for i in range(3):
            server.live.search(args_for(texts[i]))
            tv.search(analysed[i], 10, searcher)
        memfs, tantivy = [], []
        for i, text in enumerate(texts):
            c0 = time.process_time()
            server.live.search(args_for(text))
            memfs.append(time.process_time() - c0)
            c0 = time.process_time()
            tv.search(analysed[i], 10, searcher)
            tantivy.append(time.process_time() - c0)
    return {"memfs_p50": statistics.median(memfs) * 1000, "memfs_mean": statistics.mean(memfs) * 1000,
            "tantivy_p50": statistics.median(tantivy) * 1000}


def served(root: Path, texts: list[str]) -> dict[str, float]:
    """The queries asked once each of a ``memfs serve`` process: its CPU per answer and its RSS."""
    from bench_scale import _rss, server_cpu

    from memfs.agents.live.wire import ask

    server = subprocess.Popen([sys.executable, "-m", "memfs", "serve"], cwd=root, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stderr is not None
        server.stderr.readline()
        while MemoryRepo.open(root, "bench:scale").live_status() is None:
            time.sleep(0.05)
        for text in texts[:3]:
            ask(root, "search", args_for(text))
        cpu = []
        for text in texts:
            s0 = server_cpu(server.pid)
            reply = ask(root, "search", args_for(text))
            assert reply is not None and reply.get("ok"), reply
            cpu.append(server_cpu(server.pid) - s0)
        return {"cpu_p50": statistics.median(cpu) * 1000, "cpu_mean": statistics.mean(cpu) * 1000, **_rss(server.pid)}
    finally:
        server.terminate()
        server.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=30000)
    parser.add_argument("--base", type=Path, default=Path("/tmp/memfs-scale"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--served", action="store_true", help="also the queries over a memfs serve's socket")
    opts = parser.parse_args()
    texts = texts_for(opts.size, 10)
    import memfs

    print(f"memfs from {Path(memfs.__file__).parent}; {len(texts)} queries at {opts.size:,}", flush=True)
    for run in range(opts.runs):
        r = once(opts.base / f"mem{opts.size}", opts.base / f"tv{opts.size}", texts)
        print(f"run {run + 1}: memfs CPU p50 {r['memfs_p50']:.2f} ms (mean {r['memfs_mean']:.2f}), tantivy "
              f"{r['tantivy_p50']:.2f} ms: {r['memfs_p50'] / r['tantivy_p50']:.1f}x; load "
              f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    if opts.served:
        r = served(opts.base / f"mem{opts.size}", texts)
        print(f"served: server CPU a query p50 {r['cpu_p50']:.0f} ms (mean {r['cpu_mean']:.2f}); RSS after "
              f"{r['server_rss_mb']:.0f} MB (peak {r['server_hwm_mb']:.0f}; anon {r['server_anon_mb']:.0f}, file "
              f"{r['server_file_mb']:.0f}); load {'/'.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
