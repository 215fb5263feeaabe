"""Index build: memfs's full rebuild against a bare Whoosh build of the same files (#17).

A corpus of SIZE memories (default 10,000) from ``corpus.py`` (seeded, realistic: every type and
status, ~10% Chinese, Zipf words) is written once and committed. Then, alternating, RUNS times:

* memfs: ``memfs.index.catchup.rebuild`` (what ``memfs reindex`` and a first search run: stat
  walk, one ``git status``, read, parse and validate every file, Whoosh documents with memfs's
  schema, state file);
* bare: ``bare_whoosh.BareIndex.build`` (read each file, YAML frontmatter, path/title/tags/body,
  the same analyzer, Whoosh's defaults).

Prints the median CPU (this process plus waited-for git children) and wall of each, their ratio,
and the load average. ``--floor`` adds the Whoosh part of memfs's build alone: memfs's own
documents (schema with the eligibility fields and stored record; parsed beforehand, untimed) added
and committed, which no change outside Whoosh can go below. ``--profile`` adds a cProfile of one
memfs rebuild (top functions by own time), to show what is not Whoosh.

    .venv/bin/python bench/bench_build.py [--size 10000] [--runs 3] [--profile]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bare_whoosh import BareIndex
from benchlib import ENV, timed
from corpus import generate, write

from memfs import MemoryRepo
from memfs.index import catchup


def build_corpus(root: Path, size: int) -> None:
    write(root, generate(size, seed=1))
    subprocess.run(["git", "gc", "-q"], cwd=root, env=ENV, capture_output=True)  # fails harmlessly if auto-gc runs


def memfs_build(root: Path) -> None:
    shutil.rmtree(root / ".memfs", ignore_errors=True)
    catchup.rebuild(MemoryRepo.open(root, actor="bench:build").store)


def bare_build(root: Path, where: Path) -> None:
    shutil.rmtree(where, ignore_errors=True)
    BareIndex.build(root, where)


def whoosh_floor(root: Path, where: Path) -> tuple[float, float]:
    """(wall, CPU) of indexing memfs's own documents for ``root`` with Whoosh alone."""
    from whoosh import index

    from memfs.index.documents import document, make_schema

    repo = MemoryRepo.open(root, actor="bench:build")
    docs = [document(m) for rel in sorted(repo.store.memory_paths()) if (m := repo.store.load(rel)[1]) is not None]
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)

    def build() -> None:
        writer = index.create_in(str(where), make_schema()).writer(limitmb=128)
        for doc in docs:
            writer.add_document(**doc)
        writer.commit()

    return timed(build)


def profile(root: Path, top: int = 30) -> None:
    prof = cProfile.Profile()
    prof.enable()
    memfs_build(root)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    print(out.getvalue())
    whoosh = memfs = other = 0.0
    for (filename, _, _), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        if "/whoosh/" in filename:
            whoosh += tottime
        elif "/memfs/" in filename:
            memfs += tottime
        else:
            other += tottime
    print(f"own time by package: whoosh {whoosh:.2f} s, memfs {memfs:.2f} s, other (yaml, stdlib, git waits) "
          f"{other:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Build the corpus here (reused when present).")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--floor", action="store_true")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="memfs-bench-build-"))
    root = work / "corpus"
    if not (root / ".git").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        build_corpus(root, args.size)
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
          f"{args.size} memories, medians of {args.runs} alternating runs")
    warm = work / "warm-up"
    if not (warm / ".git").is_dir():
        write(warm, generate(20, seed=3))
    memfs_build(warm)  # imports and first-use caches (Whoosh, the analyzer, YAML) out of the timings
    bare_build(warm, work / "warm-ix")
    memfs_runs, bare_runs = [], []
    for _ in range(args.runs):
        memfs_runs.append(timed(lambda: memfs_build(root)))
        bare_runs.append(timed(lambda: bare_build(root, work / "bare-ix")))
    wall_m = statistics.median(w for w, _ in memfs_runs)
    cpu_m = statistics.median(c for _, c in memfs_runs)
    wall_b = statistics.median(w for w, _ in bare_runs)
    cpu_b = statistics.median(c for _, c in bare_runs)
    print(f"memfs rebuild: {cpu_m:6.2f} CPU-s {wall_m:6.2f} s wall   runs (CPU) {[round(c, 2) for _, c in memfs_runs]}")
    print(f"bare Whoosh:   {cpu_b:6.2f} CPU-s {wall_b:6.2f} s wall   runs (CPU) {[round(c, 2) for _, c in bare_runs]}")
    print(f"ratio memfs / bare: {cpu_m / cpu_b:.2f}x CPU, {wall_m / wall_b:.2f}x wall; "
          f"load average at end {os.getloadavg()[0]:.2f}")
    if args.floor:
        wall_f, cpu_f = whoosh_floor(root, work / "floor-ix")
        print(f"Whoosh alone with memfs's documents: {cpu_f:6.2f} CPU-s {wall_f:6.2f} s wall "
              f"({cpu_f / cpu_b:.2f}x the bare build's CPU: the floor for memfs's schema)")
    if args.profile:
        profile(root)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
