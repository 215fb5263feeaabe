"""Git processes per request, and library search p50/p95 with and without the kept probe (#28).

1. ``processes``: at the smallest size, one kept :class:`memfs.MemoryRepo` (warmed by two
   searches), and how many git processes each request starts (every git process memfs starts
   goes through :mod:`memfs.store.gitcli.process`; counted by wrapping its ``run`` and
   ``stream``): a search with nothing changed, a search after a hand edit, ``context``, ``write``
   (a memory added through the library), ``remember``, a file-tool ``create``, and a write the
   guard refuses (a secret in the body).
2. ``search``: at each size (default 3,000, 10,000 and 30,000 memories, generated as in
   ``bench_agents.py``, index built once), ROUNDS library searches (``MemoryRepo.search``,
   catch-up included, as the library, MCP and the adapters call it) on a kept repository
   object: with the kept probe (an inotify watch: no whole-tree ``git status`` per query) and
   without it (an object that never keeps one: the whole-tree scan per query, the code before #28),
   interleaved, p50/p95 wall side by side, and the CPU per search (this process plus its git
   children: what a loaded machine's wall time hides).

    .venv/bin/python bench/bench_requests.py [--sizes 3000,10000,30000] [--rounds 60] [--processes-only]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agents import WORDS, make_repo
from benchlib import cpu, pct

from memfs import MemoryRepo, index
from memfs.agents.tools import ToolContext, handle
from memfs.errors import MemfsError
from memfs.store.gitcli import process

STARTED: Counter[str] = Counter()


def _count_git() -> None:
    real_run, real_stream = process.run, process.stream

    def run(cwd: Path, *args: str, **kwargs: Any) -> Any:
        STARTED[next(a for a in args if not a.startswith("-"))] += 1
        return real_run(cwd, *args, **kwargs)

    def stream(cwd: Path, *args: str) -> Iterator[tuple[bytes, bytes]]:
        STARTED[next(a for a in args if not a.startswith("-"))] += 1
        return real_stream(cwd, *args)

    process.run, process.stream = run, stream  # type: ignore[assignment]


def counted(label: str, action: Callable[[], object]) -> None:
    STARTED.clear()
    action()
    total = sum(STARTED.values())
    print(f"  {label:<34} {total:>2} git processes  {dict(sorted(STARTED.items()))}")


def bench_processes(root: Path) -> None:
    repo = MemoryRepo.open(root, actor="bench:memfs")
    repo.search("release deploy")
    repo.search("release deploy")
    print(f"git processes per request ({root.name}; kept repository object, after two searches):")
    counted("search, nothing changed", lambda: repo.search("release pipeline"))
    edited = root / "area1" / "m00001.md"
    counted("search after a hand edit", lambda: (edited.write_text(edited.read_text() + "\nrollback\n"),
                                                 repo.search("release rollback")))
    counted("search again", lambda: repo.search("release budget"))
    counted("context", lambda: repo.context("release deploy pipeline", scope="project:P1"))
    counted("context again", lambda: repo.context("rollback schema cache", scope="project:P1"))
    fields = {"type": "fact", "scope": "project:P1", "source": "bench:write"}
    counted("write (one memory)", lambda: repo.write("area1/new-write.md", fields=fields, body="A new fact."))
    counted("search after the write", lambda: repo.search("release deploy"))
    counted("remember", lambda: repo.remember({"type": "fact", "scope": "project:P2", "source": "doc:r",
                                               "key": "bench-remember", "body": "Deploys happen on Fridays."}))
    tool = ToolContext(actor="agent:bench", scope="project:P3")
    counted("file-tool create", lambda: handle(repo.store, {"command": "create", "path": "area2/tool.md",
                                                           "file_text": "A tool fact."}, tool))
    secret = "the key is AKIAIOSFODNN7EXAMPLE"

    def refused() -> None:
        with contextlib.suppress(MemfsError):
            repo.write("area1/secret.md", fields=fields, body=secret)

    counted("write refused by the guard", refused)


def bench_search(root: Path, rounds: int) -> None:
    rng = random.Random(3)
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(rounds)]
    kept = MemoryRepo.open(root, actor="bench:memfs")
    scanning = MemoryRepo.open(root, actor="bench:memfs")
    scanning.store.git._whole_probes = -(10**9)  # never past ARM_AFTER: a whole-tree probe each time
    times: dict[str, list[float]] = {"kept probe": [], "whole-tree scan": []}
    cpus: dict[str, list[float]] = {"kept probe": [], "whole-tree scan": []}
    for repo in (kept, scanning):
        for _ in range(3):
            repo.search("warm up release")
    assert kept.store.git._kept is not None and scanning.store.git._kept is None
    for query in queries:
        for label, repo in (("kept probe", kept), ("whole-tree scan", scanning)):
            t, c = time.perf_counter(), cpu()
            repo.search(query)
            times[label].append(time.perf_counter() - t)
            cpus[label].append(cpu() - c)
    line = "  ".join(f"{label}: p50 {statistics.median(v) * 1000:6.2f} ms  p95 {pct(v, 95) * 1000:6.2f} ms"
                     for label, v in times.items())
    ratio = statistics.median(times["whole-tree scan"]) / statistics.median(times["kept probe"])
    print(f"  {root.name:>10}  {line}  (scan/kept {ratio:.1f}x)")
    print(f"  {'':>10}  CPU (this process and its git children) p50: "
          + ", ".join(f"{label} {statistics.median(v) * 1000:.2f} ms" for label, v in cpus.items()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="3000,10000,30000")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--processes-only", action="store_true",
                        help="only the git processes per request (runs on code before #28 too)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average at start: {os.getloadavg()}")
    base = Path(tempfile.mkdtemp(prefix="memfs-bench-requests-"))
    try:
        roots = {}
        for n in sizes:
            root = base / f"{n // 1000}k"
            t = time.perf_counter()
            repo = make_repo(root, n)
            index.sync(repo.store)
            index.close_all()
            roots[n] = root
            print(f"  generated {n} memories and built the index in {time.perf_counter() - t:.0f} s")
        print(f"library search, {args.rounds} queries each, the two interleaved:")
        for n in [] if args.processes_only else sizes:
            bench_search(roots[n], args.rounds)
            index.close_all()
        _count_git()
        bench_processes(roots[sizes[0]])
        print(f"load average at end: {os.getloadavg()}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
