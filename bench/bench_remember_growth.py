"""Does one ``remember`` cost more in a bigger repository? (#28 item 2)

    .venv/bin/python bench/bench_remember_growth.py --size 20000 [--count 20] [--base /tmp/remember-growth]

A repository of SIZE memories (``bench_remember.make_repo``: one commit, kept under ``--base`` and
reused), one kept :class:`MemoryRepo` (what the library, MCP and the adapters hold), three warm-up
``remember`` calls, then COUNT timed ones (the user's own preferences: even ones a new key, odd
ones a new value for it) under cProfile. Prints this process's CPU per ``remember`` (git's
children excluded: ``bench_scale.py --steps remember`` measures those against a bare commit) and
the functions with the most own time, so a cost that grows with SIZE shows by name.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_remember import make_repo

from memfs import MemoryRepo
from memfs.ops.remember import remember
from memfs.policy.candidate import Candidate, from_mapping


def candidate(i: int) -> Candidate:
    return from_mapping({"type": "preference", "scope": "user:U1", "key": f"bench.p.{i - i % 2}",
                         "source": "user:U1", "source_kind": "user", "body": f"Prefers option {i} here."})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--base", type=Path, default=Path("/tmp/remember-growth"))
    opts = parser.parse_args()
    root = opts.base / f"rem{opts.size}"
    if not root.exists():
        make_repo(root, opts.size)
    repo = MemoryRepo.open(root, "user:U1")
    start = int(time.time() * 1000) % 10**9 * 2
    for i in range(3):
        remember(repo.store, candidate(start + 100 + i))
    prof = cProfile.Profile()
    used = time.process_time()
    prof.enable()
    for i in range(opts.count):
        remember(repo.store, candidate(start + i))
    prof.disable()
    used = time.process_time() - used
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(20)
    print(f"{opts.size:,} memories: {used / opts.count * 1000:.1f} ms CPU per remember (this process), "
          f"load {'/'.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    print(out.getvalue())


if __name__ == "__main__":
    main()
