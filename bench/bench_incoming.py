"""What judging incoming commits costs ``memfs sync``: a plain fetch into the remote-tracking ref
(what sync did before) against the quarantined fetch (:mod:`memfs.ops.incoming`: fetch into a
quarantine object folder, read the new commits' messages and changed files, judge them with the
secret scanner, move the objects in, set the ref).

Two clones of the same remote, in the same state: another clone pushes N commits (one new memory
each, or one commit changing N files), then one clone fetches them plainly and the other through
the quarantine. Remote: a bare repository on the local file system holding M memories.

CPU = this process + waited-for children (git). Medians over rounds; the load average is printed
because the machine is shared.
Usage: .venv/bin/python bench/bench_incoming.py [--memories 2000] [--commits 1 10 50] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sync import build_remote, clone, fields
from benchlib import git, timed

from memfs.ops import incoming


def bench(tmp: Path, memories: int, counts: list[int], rounds: int) -> None:
    bare = build_remote(tmp, memories)
    writer, plain, judged = clone(tmp, bare, "w"), clone(tmp, bare, "p"), clone(tmp, bare, "q")
    print(f"remote: {memories} memories; load average {os.getloadavg()[0]:.1f}")
    print(f"{'commits':>8} {'plain wall':>11} {'judged wall':>12} {'ratio':>6} {'plain cpu':>10} {'judged cpu':>11}"
          f"  (ms, median of {rounds})")
    serial = 0
    for n in counts:
        rows: list[tuple[float, float, float, float]] = []
        for _ in range(rounds):
            for _ in range(n):
                serial += 1
                writer.write(f"new/w{serial}.md", fields=fields(serial), body=f"incoming memory {serial}\n")
            git(writer.root, "push", "-q", "origin", "main")
            pw, pc = timed(lambda: git(plain.root, "fetch", "--quiet", "--no-tags", "origin",
                                       "+refs/heads/main:refs/remotes/origin/main"))
            jw, jc = timed(lambda: incoming.fetch(judged.store, "origin", "main", "refs/remotes/origin/main"))
            rows.append((pw, jw, pc, jc))
        pw, jw, pc, jc = (statistics.median(r[i] for r in rows) * 1000 for i in range(4))
        print(f"{n:>8} {pw:>11.0f} {jw:>12.0f} {jw / pw:>6.2f} {pc:>10.0f} {jc:>11.0f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--commits", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memfs-bench-incoming-") as tmp:
        bench(Path(tmp), args.memories, args.commits, args.rounds)


if __name__ == "__main__":
    main()
