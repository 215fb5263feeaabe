"""Several repositories, one recall (#28 item 4): a search over three memory repositories against
a search over one, in process (the library) and as a fresh ``memfs search`` process.

    .venv/bin/python bench/bench_roots.py [--size 3000] [--queries 8] [--cli-runs 10]

One corpus of 3 x SIZE memories (``corpus.py``) is split into three repositories (a user's, a
team's, an organisation's); ``one`` holds the first third (a repository of the same size as each)
and ``all`` holds everything (the same memories in one repository). Queries are ``corpus.py``'s,
each scoped to its target's scope. Every search catches up first (a ``git status`` per root), as
the library does by default. Times are medians of wall and CPU (this process and its git
children); the machine is shared, so read the ratios, printed side by side with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from benchlib import packed, timed


def build(base: Path, size: int) -> tuple[dict[str, Path], list[corpus.Query]]:
    docs = corpus.generate(3 * size, seed=1)
    parts = {"user": docs[:size], "team": docs[size:2 * size], "org": docs[2 * size:], "all": docs}
    roots = {}
    for name, chosen in parts.items():
        corpus.write(base / name, chosen)
        packed(base / name)
        roots[name] = base / name
    return roots, corpus.queries(docs[:size], per_kind=QUERIES_PER_KIND, seed=2)


QUERIES_PER_KIND = 8


def medians(action: Callable[[corpus.Query], object], queries: list[corpus.Query]) -> tuple[float, float]:
    walls, cpus = [], []
    for query in queries:
        wall, used = timed(lambda q=query: action(q))
        walls.append(wall)
        cpus.append(used)
    return statistics.median(walls), statistics.median(cpus)


def library(roots: dict[str, Path], queries: list[corpus.Query]) -> dict[str, tuple[float, float]]:
    from memfs import MemoryRepo, MemoryRepos

    one, every = MemoryRepo.open(roots["one"]), MemoryRepo.open(roots["all"])
    three = MemoryRepos.open([roots["user"], roots["team"], roots["org"]])
    alone = [MemoryRepo.open(roots[name]) for name in ("user", "team", "org")]
    for repo in (one, every, *alone):
        repo.search("warm up")
    three.search("warm up")

    def sequential(q: corpus.Query) -> None:
        for repo in alone:
            repo.search(q.text, scope=q.scope)

    return {
        "one repository (SIZE)": medians(lambda q: one.search(q.text, scope=q.scope), queries),
        "three repositories (3 x SIZE)": medians(lambda q: three.search(q.text, scope=q.scope), queries),
        "  the same three, one after another": medians(sequential, queries),
        "one repository (3 x SIZE)": medians(lambda q: every.search(q.text, scope=q.scope), queries),
    }


def fresh(args: list[str], runs: int) -> tuple[float, float]:
    env = {**os.environ, "MEMFS_NO_LIVE": "1"}
    walls, cpus = [], []
    for _ in range(runs):
        wall, used = timed(lambda: subprocess.run([sys.executable, "-m", "memfs", *args], env=env, check=True,
                                                  capture_output=True))
        walls.append(wall)
        cpus.append(used)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    global QUERIES_PER_KIND
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--queries", type=int, default=QUERIES_PER_KIND, help="queries per kind (5 kinds)")
    parser.add_argument("--cli-runs", type=int, default=10)
    opts = parser.parse_args()
    QUERIES_PER_KIND = opts.queries
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        roots, queries = build(base, opts.size)
        roots["one"] = roots["user"]
        print(f"memories per repository: {opts.size}; queries: {len(queries)}; load average before: "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        rows = library(roots, queries)
        base_wall, base_cpu = rows["one repository (SIZE)"]
        print(f"{'in process (library search)':40} {'wall ms':>9} {'CPU ms':>9} {'wall x':>7} {'CPU x':>7}")
        for name, (wall, used) in rows.items():
            print(f"{name.replace('SIZE', str(opts.size)):40} {wall * 1e3:9.1f} {used * 1e3:9.1f} "
                  f"{wall / base_wall:7.2f} {used / base_cpu:7.2f}")
        query = queries[0]
        one = fresh(["-C", str(roots["user"]), "search", query.text, "--scope", query.scope], opts.cli_runs)
        three = fresh([*[a for n in ("user", "team", "org") for a in ("-C", str(roots[n]))], "search", query.text,
                       "--scope", query.scope], opts.cli_runs)
        print(f"{'fresh memfs search process':40} {'wall ms':>9} {'CPU ms':>9} {'wall x':>7} {'CPU x':>7}")
        for name, (wall, used) in (("one repository", one), ("three repositories", three)):
            print(f"{name:40} {wall * 1e3:9.1f} {used * 1e3:9.1f} {wall / one[0]:7.2f} {used / one[1]:7.2f}")
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
