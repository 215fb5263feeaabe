"""What two (or N) xdist workers would make of the suite: the ``--dist worksteal`` schedule
replayed over measured test times, for an estimate of the idle run's wall time and its tail.

Input: the per-test records of ``bench/suite_waits.py`` from a run with ``-n 0`` (one process, so
the records are in the collection order, slow tests first)::

    .venv/bin/python bench/suite_schedule.py /tmp/waits [--workers 2] [--start 8]

A test's time is its CPU plus its children's (what it needs of a core on an idle machine; its
waits on servers and sleeps are not in it, so the figure is a lower bound for a CPU-bound run);
each worker is taken to have a core of its own (``--workers`` above the cores is not modelled);
``--start``: each worker's collection before its first test, in seconds. The schedule is xdist's:
each worker gets a contiguous share of the collection; a worker with fewer than two tests queued
takes half of the longest queue's tail. Printed: the estimated wall time, each worker's busy
time, and the last tests to finish.
"""

from __future__ import annotations

import argparse
import glob
import heapq
import json


def load(prefix: str) -> list[tuple[str, float]]:
    rows = []
    for name in sorted(glob.glob(f"{prefix}.*.jsonl")):
        with open(name) as handle:
            rows += [json.loads(line) for line in handle]
    return [(row["id"], row["cpu"] + row["child"]) for row in rows]


def simulate(tests: list[tuple[str, float]], workers: int, start: float) -> tuple[float, list[float], list[str]]:
    """(wall, each worker's busy seconds, the last five tests to end) of a worksteal run."""
    share = len(tests) // workers
    queues = [list(range(i * share, len(tests) if i == workers - 1 else (i + 1) * share)) for i in range(workers)]
    busy = [0.0] * workers
    events = [(start, w) for w in range(workers)]
    ended: list[tuple[float, str]] = []
    while events:
        now, w = heapq.heappop(events)
        if len(queues[w]) < 2:  # idle: steal half of the longest queue's tail, keeping it two
            donor = max(range(workers), key=lambda n: len(queues[n]))
            take = min(len(queues[donor]) // 2, max(0, len(queues[donor]) - 2))
            if take and donor != w:
                queues[w] += queues[donor][-take:]
                del queues[donor][-take:]
        if not queues[w]:
            continue
        index = queues[w].pop(0)
        name, seconds = tests[index]
        busy[w] += seconds
        ended.append((now + seconds, name))
        heapq.heappush(events, (now + seconds, w))
    ended.sort()
    return ended[-1][0], busy, [f"{t:7.1f} s  {n}" for t, n in ended[-5:]]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--start", type=float, default=8.0)
    args = parser.parse_args()
    tests = load(args.prefix)
    wall, busy, last = simulate(tests, args.workers, args.start)
    print(f"{len(tests)} tests, {sum(s for _, s in tests):.1f} s of CPU: estimated wall {wall:.1f} s on "
          f"{args.workers} workers (busy {', '.join(f'{b:.1f}' for b in busy)} s)")
    print("last to end:", *last, sep="\n  ")
