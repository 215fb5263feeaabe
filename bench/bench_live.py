"""Live index benchmark (#17 item 2): memfs search answered by a running live index, side by side
in one run with a bare Whoosh index of the same files, a ``grep -r`` full scan, and a fresh
``memfs search`` process with and without the server; save -> searchable with the live index.

    .venv/bin/python bench/bench_live.py --sizes 10000[,50000] [--queries-per-kind 40] [--cli-runs 15]

Corpus and queries: ``bench/corpus.py`` (seeded, realistic: types, scopes, statuses, expiry,
versions, ~10% Chinese, Zipf words). Every search is unscoped, limit 10, evaluated at the
corpus's "now"; memfs's and the bare index's queries alternate one by one, so both see the same
load. Times are medians (and p95) of wall clock per query, with the CPU time of this process
alongside (the machine is shared: ratios measured in one run are what to compare).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from bare_whoosh import BareIndex
from benchlib import pct

from memfs import MemoryRepo
from memfs.agents.live import wire

AT = corpus.NOW.isoformat()


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()


def args_for(text: str) -> dict[str, Any]:
    """A live search request as the CLI sends it (:meth:`memfs.cli.State.ask_live`)."""
    import datetime as dt

    from memfs.format.declare import CLI, to_wire
    from memfs.ops.verbs.recall import Search

    request = Search(query=text, at=dt.datetime.fromisoformat(AT), limit=10)
    return {"request": to_wire(request, CLI), "actor": None, "json": False}


def med(values: list[float]) -> float:
    return statistics.median(values) * 1000


def p95(values: list[float]) -> float:
    return pct(values, 95) * 1000


def search_side_by_side(server: Any, bare: BareIndex, texts: list[str]) -> dict[str, float]:
    """Alternate: live in-process, live over the socket, bare Whoosh (one searcher kept open), and
    live in-process with no per-term scores kept (``cold``: a fresh, empty store of them for that
    one query, so every word's postings are read anew; the warm one is put back after)."""
    from memfs.index.postings import TermScores
    from memfs.index.reader import handle

    live, sock, plain, cold = [], [], [], []
    live_cpu, plain_cpu, cold_cpu = [], [], []
    searcher = bare.ix.searcher()
    root = server.live.repo.root
    for text in texts:  # warm-up: open searchers, fill caches
        server.live.search(args_for(text))
        bare.search(text, 10, searcher)
        break
    for text in texts:
        c0, t0 = time.process_time(), time.perf_counter()
        reply = server.live.search(args_for(text))
        live.append(time.perf_counter() - t0)
        live_cpu.append(time.process_time() - c0)
        assert reply["ok"], reply
        t0 = time.perf_counter()
        assert wire.request(root, "search", args_for(text)) is not None
        sock.append(time.perf_counter() - t0)
        c0, t0 = time.process_time(), time.perf_counter()
        bare.search(text, 10, searcher)
        plain.append(time.perf_counter() - t0)
        plain_cpu.append(time.process_time() - c0)
        opened = handle(server.live.repo)
        warm = opened.terms
        opened.terms = TermScores(warm.reader, warm.idf, warm.avgfl, warm.boosts)
        c0, t0 = time.process_time(), time.perf_counter()
        server.live.search(args_for(text))
        cold.append(time.perf_counter() - t0)
        cold_cpu.append(time.process_time() - c0)
        opened.terms = warm
    searcher.close()
    return {
        "live_p50": med(live), "live_p95": p95(live), "live_cpu_p50": med(live_cpu),
        "socket_p50": med(sock), "socket_p95": p95(sock),
        "bare_p50": med(plain), "bare_p95": p95(plain), "bare_cpu_p50": med(plain_cpu),
        "cold_p50": med(cold), "cold_p95": p95(cold), "cold_cpu_p50": med(cold_cpu),
    }


def direct_side_by_side(repo: MemoryRepo, texts: list[str]) -> dict[str, float]:
    """Today's path (catch-up check per query) on the same queries, for the before column."""
    import datetime as dt

    at = dt.datetime.fromisoformat(AT)
    took = []
    for text in texts:
        t0 = time.perf_counter()
        repo.search(text, at=at, limit=10)
        took.append(time.perf_counter() - t0)
    return {"direct_p50": med(took), "direct_p95": p95(took)}


def grep_scan(root: Path, texts: list[str]) -> float:
    took = []
    for text in texts:
        patterns = [arg for w in text.split() for arg in ("-e", w)]
        t0 = time.perf_counter()
        subprocess.run(["grep", "-r", "-l", "-i", "-F", "--include=*.md", *patterns, str(root)],
                       capture_output=True, check=False)
        took.append(time.perf_counter() - t0)
    return med(took)


def fresh_cli(root: Path, texts: list[str], runs: int) -> dict[str, float]:
    """``python -m memfs search`` in a fresh process, alternating with and without the server."""
    with_server, without, cpu_with, cpu_without = [], [], [], []
    env_off = {**os.environ, "MEMFS_NO_LIVE": "1"}
    for i in range(runs):
        text = texts[i % len(texts)]
        for env, into, cpu_into in ((os.environ, with_server, cpu_with), (env_off, without, cpu_without)):
            c0, t0 = children_cpu(), time.perf_counter()
            subprocess.run([sys.executable, "-m", "memfs", "search", "--at", AT, text], cwd=root, env=env,
                           capture_output=True, check=True)
            into.append(time.perf_counter() - t0)
            cpu_into.append(children_cpu() - c0)
    bare_python = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare_python.append(time.perf_counter() - t0)
    return {"cli_live_p50": med(with_server), "cli_direct_p50": med(without), "python_startup_p50": med(bare_python),
            "cli_live_cpu_p50": med(cpu_with), "cli_direct_cpu_p50": med(cpu_without)}


def children_cpu() -> float:
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def save_to_searchable(server: Any, root: Path, runs: int) -> dict[str, float]:
    """Write a memory with a new word, then wait for the server's processed signal and query it:
    the time from the write's start to the query returning the hit."""
    live = server.live
    took = []
    for i in range(runs):
        word = f"zqxlive{i}w"
        rel = f"notes/live-{i}.md"
        text = (f"---\nid: live{i}\ntype: note\nscope: user:U1\nsource: tool:bench\nstatus: active\n"
                f"created: 2026-11-01T00:00:00Z\n---\nThe {word} is searchable.\n")
        since = live.processed
        t0 = time.perf_counter()
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        batch = live.wait_for(lambda b, r=rel: r in b.paths or b.full is not None, since, timeout=60)
        reply = live.search(args_for(word))
        took.append(time.perf_counter() - t0)
        assert batch is not None and [h["path"] for h in reply["view"]["hits"]] == [rel], reply
    return {"save_searchable_p50": med(took), "save_searchable_p95": p95(took), "debounce_ms": live.debounce * 1000}


def profile(server: Any, texts: list[str]) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for text in texts:
        server.live.search(args_for(text))
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(18)
    return out.getvalue()


def run(n: int, per_kind: int, cli_runs: int, base: Path) -> dict[str, Any]:
    root = base / f"mem{n}"
    t0 = time.perf_counter()
    docs = corpus.generate(n, seed=1)
    corpus.write(root, docs)
    texts = [q.text for q in corpus.queries(docs, per_kind, seed=2)]
    repo = MemoryRepo.open(root, "bench:live")
    repo.reindex()
    bare = BareIndex.build(root, base / f"bare{n}")
    print(f"[{n}] corpus, memfs index and bare index built in {time.perf_counter() - t0:.0f} s", flush=True)
    out: dict[str, Any] = {"n": n, "queries": len(texts), "load_before": loadavg()}
    out.update(direct_side_by_side(repo, texts[: min(60, len(texts))]))
    print(f"[{n}] today's path measured", flush=True)
    with repo.live_server() as server:
        server.live.wait_barrier(server.live.barrier())
        out.update(search_side_by_side(server, bare, texts))
        print(f"[{n}] live and bare searches measured", flush=True)
        out["grep_p50"] = grep_scan(root, texts[:20])
        out.update(fresh_cli(root, texts, cli_runs))
        print(f"[{n}] fresh processes measured", flush=True)
        out.update(save_to_searchable(server, root, 15))
        out["profile"] = profile(server, texts[:60])
    out["load_after"] = loadavg()
    return out


def report(r: dict[str, Any]) -> None:
    print(f"\n== {r['n']} memories, {r['queries']} queries; load {r['load_before']} -> {r['load_after']}")
    print(f"search p50/p95 ms: live in-process {r['live_p50']:.1f} / {r['live_p95']:.1f} (CPU p50 "
          f"{r['live_cpu_p50']:.1f}); live via socket {r['socket_p50']:.1f} / {r['socket_p95']:.1f}; bare Whoosh "
          f"{r['bare_p50']:.1f} / {r['bare_p95']:.1f} (CPU p50 {r['bare_cpu_p50']:.1f}); today's direct path "
          f"{r['direct_p50']:.1f} / {r['direct_p95']:.1f}")
    print(f"ratio live/bare: p50 {r['live_p50'] / r['bare_p50']:.2f}x, p95 {r['live_p95'] / r['bare_p95']:.2f}x "
          f"(target <= 1.5x)")
    print(f"live in-process, no scores kept (cold): {r['cold_p50']:.1f} / {r['cold_p95']:.1f} (CPU p50 "
          f"{r['cold_cpu_p50']:.1f}); ratio cold/bare p50 {r['cold_p50'] / r['bare_p50']:.2f}x, p95 "
          f"{r['cold_p95'] / r['bare_p95']:.2f}x")
    print(f"grep -r full scan p50 {r['grep_p50']:.0f} ms: {r['grep_p50'] / r['live_p50']:.0f}x the live p50, "
          f"{r['grep_p50'] / r['socket_p50']:.0f}x via socket (target >= 50x at 50k)")
    print(f"fresh memfs search process p50: with the server {r['cli_live_p50']:.0f} ms (its CPU "
          f"{r['cli_live_cpu_p50']:.0f} ms), without {r['cli_direct_p50']:.0f} ms (CPU incl. git "
          f"{r['cli_direct_cpu_p50']:.0f} ms); python -c pass: {r['python_startup_p50']:.0f} ms; "
          "target <= 150 ms at 10k")
    print(f"save -> searchable with the live index p50/p95: {r['save_searchable_p50']:.0f} / "
          f"{r['save_searchable_p95']:.0f} ms (debounce {r['debounce_ms']:.0f} ms; target <= 300 ms at 10k)")
    print("profile of 60 live searches (cumulative):")
    print("\n".join(r["profile"].splitlines()[:40]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--queries-per-kind", type=int, default=40)
    parser.add_argument("--cli-runs", type=int, default=15)
    parser.add_argument("--keep", type=Path, default=None)
    opts = parser.parse_args()
    base = opts.keep or Path(tempfile.mkdtemp(prefix="memfs-live-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    try:
        for n in (int(s) for s in opts.sizes.split(",")):
            report(run(n, opts.queries_per_kind, opts.cli_runs, base))
    finally:
        if opts.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
