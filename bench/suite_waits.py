"""Where the test suite's wall time goes that CPU does not explain: a pytest plugin and its report.

Record (one JSON line per test, one file per xdist worker)::

    PYTHONPATH=bench SUITE_WAITS=/tmp/waits .venv/bin/pytest -q -p suite_waits

Report, by test file (the slowest first, or ``--by cpu`` / ``--by idle`` / ``--by procs``)::

    .venv/bin/python bench/suite_waits.py /tmp/waits [--by wall|cpu|idle] [--top N]

Per test: wall time (setup, call and teardown), the worker's CPU (``time.process_time``), its
finished children's CPU (``RUSAGE_CHILDREN``: git, Python processes) and the time the worker sat
runnable waiting for a CPU (``/proc/self/schedstat``). ``idle`` is what is left: sleeping, waiting
for the disk, or waiting for children (their own run-queue time cannot be read, so on a loaded
machine it counts here too; read it on an idle one). ``procs``: the processes the test started
through ``subprocess`` (git, Python, servers), and those its Python children started in turn
(``bench/spawns/sitecustomize.py``, put on the children's ``PYTHONPATH``; counted when a child
exits, so a server's count lands on the test during which it stopped); processes git starts
itself (hooks, ``gc --auto``, ``fast-export``) are not counted.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import resource
import subprocess
import time
from collections.abc import Iterator
from typing import Any, TextIO

import pytest

_out: list[TextIO] = []
_spawned = [0]
_children_file: list[str] = []
_SPAWNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spawns")


def _runqueue() -> float:
    try:
        with open("/proc/self/schedstat") as handle:
            return int(handle.read().split()[1]) / 1e9
    except OSError:
        return 0.0


def _children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _count_spawns(prefix: str, worker: str) -> str:
    """Count this process's ``subprocess`` starts, and have Python children count theirs into a
    file (the path returned)."""
    real = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        _spawned[0] += 1
        return real(self, *args, **kwargs)

    subprocess.Popen._execute_child = counting  # type: ignore[attr-defined]
    children = f"{prefix}.{worker}.spawns"
    open(children, "w").close()
    os.environ["SUITE_SPAWNS"] = children
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [_SPAWNS, os.environ.get("PYTHONPATH")]))
    return children


def _child_spawns(children: str) -> int:
    with open(children, "r+") as handle:
        count = sum(int(line) for line in handle if line.strip())
        handle.truncate(0)
    return count


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if not _out:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        prefix = os.environ.get("SUITE_WAITS", "/tmp/suite-waits")
        _out.append(open(f"{prefix}.{worker}.jsonl", "a"))  # noqa: SIM115
        _children_file.append(_count_spawns(prefix, worker))
    wall, cpu, children, queued = time.monotonic(), time.process_time(), _children(), _runqueue()
    _spawned[0] = 0
    yield
    _out[0].write(json.dumps({
        "id": item.nodeid, "wall": time.monotonic() - wall, "cpu": time.process_time() - cpu,
        "child": _children() - children, "runq": _runqueue() - queued,
        "procs": _spawned[0] + _child_spawns(_children_file[0]),
    }) + "\n")
    _out[0].flush()


def pytest_unconfigure(config: pytest.Config) -> None:
    for handle in _out:
        handle.close()
    _out.clear()


def report(prefix: str, by: str, top: int) -> None:
    rows = []
    for name in glob.glob(f"{prefix}.*.jsonl"):
        with open(name) as handle:
            rows += [json.loads(line) for line in handle]
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0] * 6)
    for row in rows:
        total = files[row["id"].split("::")[0]]
        for i, value in enumerate((row["wall"], row["cpu"], row["child"], row["runq"], row.get("procs", 0), 1)):
            total[i] += value

    def key(item: tuple[str, list[float]]) -> Any:
        wall, cpu, child, runq, procs, _ = item[1]
        return {"wall": wall, "cpu": cpu + child, "idle": wall - cpu - child - runq, "procs": procs}[by]

    sums = [sum(t[i] for t in files.values()) for i in range(5)]
    print(f"{len(rows)} tests: wall {sums[0]:.1f} s, CPU {sums[1]:.1f} s + children {sums[2]:.1f} s, "
          f"run queue {sums[3]:.1f} s, idle {sums[0] - sums[1] - sums[2] - sums[3]:.1f} s, {int(sums[4])} processes")
    print("  wall    CPU  child   runq   idle  procs  tests  file")
    for name, (wall, cpu, child, runq, procs, n) in sorted(files.items(), key=key, reverse=True)[:top]:
        print(f"{wall:6.1f} {cpu:6.1f} {child:6.1f} {runq:6.1f} {wall - cpu - child - runq:6.1f} {int(procs):6d} "
              f"{int(n):6d}  {name}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("--by", choices=("wall", "cpu", "idle", "procs"), default="wall")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    report(args.prefix, args.by, args.top)
