"""What a search pays for memories saved just before they were indexed (#28): unsigned, then signed.

    .venv/bin/python bench/bench_resign.py [--old 3000] [--new 200] [--runs 200]

A repository of ``--old`` memories written long ago (mtime an hour back: signed when indexed),
then ``--new`` memories saved and indexed at once, as ``remember`` and the live index do: within
git's racy margin, so their documents keep no parse. Searches whose hits are those new memories
are timed (CPU per search, in this process, ``catch_up=False`` as the live server asks) while they
are unsigned, then after the margin has passed and later updates (one more saved memory each, as
the live index makes them) have signed them, in one run side by side. Also printed: the CPU of
such an update signing none and signing some, and memory files read per search (through
``paths.read_file``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import commit_all

from memfs import MemoryRepo, index
from memfs.index import catchup, incremental, query
from memfs.index import state as index_state
from memfs.store import paths

WORDS = ("amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "heron", "indigo", "jasper")


def text(i: int, fresh: bool) -> str:
    word = WORDS[i % len(WORDS)]
    tag = "fresh" if fresh else "old"
    return (f"---\nid: m-{tag}-{i}\ntype: fact\nscope: user:U5\nsource: tool:bench\nstatus: active\n"
            f"created: 2026-01-01T00:00:00Z\ndescription: {tag} {word} note {i}\n---\n"
            f"A {tag} memory about {word} number {i}, {'recent' if fresh else 'settled'} words.\n")


def build(root: Path, old: int, new: int) -> MemoryRepo:
    repo = MemoryRepo.init(root, actor="user:U5")
    stamp = time.time_ns() - 3_600 * 10**9
    for i in range(old):
        path = root / f"old/{i // 500}/m{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text(i, False))
        os.utime(path, ns=(stamp, stamp))
    commit_all(root, "old")
    index.rebuild(repo.store)
    for i in range(new):
        path = root / f"new/m{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text(i, True))
    index.sync(repo.store)
    return repo


def searches(repo: MemoryRepo, runs: int, new: int, cold: bool) -> tuple[list[float], float]:
    """CPU ms per search, and memory files read per search. ``cold``: each search on a repository
    opened for it (nothing parsed kept from an earlier search, as in a fresh process or a new
    library object; the open is not timed), else all on one (the live server's)."""
    reads = [0]
    real = paths.read_file

    def counting(root: Path, rel: str, **kw: object) -> object:
        if rel.endswith(".md"):
            reads[0] += 1
        return real(root, rel, **kw)  # type: ignore[arg-type]

    paths.read_file = counting  # type: ignore[assignment]
    at = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
    times = []
    try:
        for n in range(runs):
            q = f"fresh {WORDS[n % min(len(WORDS), new)]} recent"
            store = MemoryRepo.open(repo.root, "user:U5").store if cold else repo.store
            start = time.process_time()
            found = query.search(store, q, at=at, catch_up=False, limit=max(1, min(10, new // len(WORDS))))
            times.append((time.process_time() - start) * 1000)
            assert found.hits and all(h.path.startswith("new/") for h in found.hits), q
    finally:
        paths.read_file = real  # type: ignore[assignment]
    return times, reads[0] / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=int, default=3000)
    parser.add_argument("--new", type=int, default=200)
    parser.add_argument("--runs", type=int, default=200)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = build(Path(tmp) / "mem", a.old, a.new)
        before = {cold: searches(repo, a.runs, a.new, cold) for cold in (False, True)}
        plain = updates(repo, 20, "plain")
        paths.RACY_NS = 0  # the margin has passed (as 2 s of waiting would make it)
        signing, signed = [], 0
        while index_state.read(repo.store.cache_dir).signable(2**62):
            times, count = updates(repo, 1, f"signing{len(signing)}")
            signing += times
            signed += count
        after = {cold: searches(repo, a.runs, a.new, cold) for cold in (False, True)}
    print(f"{a.old} old + {a.new} just saved memories, {a.runs} searches each (up to 10 hits, all just saved), "
          f"load {os.getloadavg()[0]:.2f}")
    for cold, label in ((False, "one repository object (warm)"), (True, "a repository opened per search (cold)")):
        (u, ur), (g, gr) = before[cold], after[cold]
        print(f"  {label}: CPU p50 unsigned {statistics.median(u):.2f} ms, signed {statistics.median(g):.2f} ms "
              f"(ratio {statistics.median(g) / statistics.median(u):.2f}); files read per search {ur:.1f} -> {gr:.1f}")
    print(f"  an index update of one saved memory (the live index's): CPU p50 {statistics.median(plain[0]):.1f} ms "
          f"signing none; {statistics.median(signing):.1f} ms while signing up to {catchup.SIGN_EACH} more "
          f"({signed} signed over {len(signing)} updates)")


def updates(repo: MemoryRepo, count: int, tag: str) -> tuple[list[float], int]:
    """CPU ms of ``count`` index updates, each of one memory saved just before (as the live index
    makes them), and how many memories they signed besides."""
    times, signed = [], 0
    for i in range(count):
        rel = f"extra/{tag}-{i}.md"
        (repo.root / rel).parent.mkdir(exist_ok=True)
        (repo.root / rel).write_text(text(10_000 + i, False))
        start = time.process_time()
        signed += incremental.apply_paths(repo.store, [rel]).signed
        times.append((time.process_time() - start) * 1000)
    return times, signed


if __name__ == "__main__":
    main()
