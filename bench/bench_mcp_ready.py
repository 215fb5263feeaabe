"""How soon ``memfs mcp`` (stdio) answers ``initialize`` and ``tools/list``, and what it costs.

    python bench/bench_mcp_ready.py [--size 3000] [--runs 5] [--base DIR] [--before DIR]

For each mode (with its live index, and ``--no-live``) it starts the server ``--runs`` times and
prints the medians of: wall time to the ``tools/list`` answer; the server's CPU up to that
answer (its own and its waited-for children's, read from ``/proc`` the moment the answer
arrives); then its first ``memory_search`` answer's wall time; and its whole CPU once stdin
closes (the live index's build included). ``python -c pass`` is the start-up floor. The
repository (``corpus.py``, indexed) is kept in ``--base`` between runs. ``--before DIR`` (a copy
of another commit's ``memfs`` package, e.g. ``git archive REV memfs | tar -x -C DIR``) runs that
code too, interleaved run by run with this one, so both see the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from bench_doors import process_cpu
from bench_live import children_cpu
from benchlib import ENV, bytecode

from memfs import MemoryRepo

ASKS = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]
SEARCH = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
          "params": {"name": "memory_search", "arguments": {"query": "deploy database"}}}


#: A front that answers the handshake from a file of answers (one JSON-RPC line each, in order),
#: with no SDK: the least an answer to initialize + tools/list before the SDK is imported costs.
FRONT = """import json, sys
answers = open(sys.argv[1], "rb").read().splitlines()
done = 0
for line in sys.stdin.buffer:
    if "id" in json.loads(line):
        sys.stdout.buffer.write(answers[done] + b"\\n")
        sys.stdout.buffer.flush()
        done += 1
        if done == len(answers):
            break
"""


def _asked(command: list[str], env: dict[str, str], root: Path) -> subprocess.Popen[str]:
    """``command`` started (in ``root``: not the checkout's folder, which would shadow --before's
    code) with the handshake written to its stdin."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, cwd=root)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(a) + "\n" for a in ASKS))
    proc.stdin.flush()
    return proc


def _ready(proc: subprocess.Popen[str], t0: float) -> dict[str, float]:
    """Wall time and the process's CPU when its answer to tools/list arrives."""
    assert proc.stdout is not None
    while json.loads(proc.stdout.readline()).get("id") != 2:
        pass
    return {"ready": time.perf_counter() - t0, "ready_cpu": process_cpu(proc.pid)}


def once(root: Path, extra: list[str], code: Path | None = None, no_bytecode: bool = False) -> dict[str, float]:
    env = ENV if code is None else {**ENV, "PYTHONPATH": str(code)}
    if no_bytecode:
        env = {**env, "PYTHONDONTWRITEBYTECODE": "1"}
    k0, t0 = children_cpu(), time.perf_counter()
    proc = _asked([sys.executable, "-m", "memfs", "-C", str(root), "mcp", "--all-scopes", *extra], env, root)
    assert proc.stdin is not None and proc.stdout is not None
    out = _ready(proc, t0)
    proc.stdin.write(json.dumps(SEARCH) + "\n")
    proc.stdin.flush()
    while json.loads(proc.stdout.readline()).get("id") != 3:
        pass
    out["search"] = time.perf_counter() - t0
    proc.stdin.close()
    proc.wait(timeout=120)
    out["total_cpu"] = children_cpu() - k0
    return out


def handshake(root: Path, answers: Path) -> None:
    """The server's own answers to initialize and tools/list, kept in ``answers`` for :data:`FRONT`."""
    proc = _asked([sys.executable, "-m", "memfs", "-C", str(root), "mcp", "--all-scopes", "--no-live"], ENV, root)
    assert proc.stdin is not None and proc.stdout is not None
    lines = [line for line in (proc.stdout.readline() for _ in range(2)) if "id" in json.loads(line)]
    proc.stdin.close()
    proc.wait(timeout=120)
    answers.write_text("".join(lines))


def front(root: Path, answers: Path) -> dict[str, float]:
    """Wall and CPU until :data:`FRONT` answered tools/list."""
    t0 = time.perf_counter()
    proc = _asked([sys.executable, "-c", FRONT, str(answers)], ENV, root)
    assert proc.stdin is not None
    out = _ready(proc, t0)
    proc.stdin.close()
    proc.wait(timeout=60)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--base", type=Path, default=Path("/tmp/mfs_mcp_ready"))
    parser.add_argument("--before", type=Path, help="another commit's memfs package, run interleaved")
    parser.add_argument("--before-without-bytecode", action="store_true",
                        help="run --before's copy with PYTHONDONTWRITEBYTECODE=1 (and no .pyc there), as this "
                             "machine's shell ran every fresh process")
    parser.add_argument("--front", action="store_true", help="also time a front answering the handshake (no SDK)")
    ns = parser.parse_args()
    bytecode()
    root = ns.base / f"mem{ns.size}"
    if not (root / ".git").exists():
        corpus.write(root, corpus.generate(ns.size, seed=1))
        MemoryRepo.open(root, "bench:mcp").reindex()
    floor = []
    for _ in range(ns.runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        floor.append(time.perf_counter() - t0)
    print(f"{ns.size} memories, {ns.runs} runs a mode, load {os.getloadavg()[0]:.2f}, "
          f"python -c pass {statistics.median(floor) * 1000:.0f} ms")
    print("| mode | ready wall | ready CPU | first search wall | whole CPU |")
    print("|---|---|---|---|---|")
    codes: list[tuple[str, Path | None]] = [("", None)] + ([("before, ", ns.before)] if ns.before else [])
    for name, extra in (("live", []), ("--no-live", ["--no-live"])):
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in codes}
        for _ in range(ns.runs):
            for label, code in codes:
                runs[label].append(once(root, extra, code, bool(code) and ns.before_without_bytecode))
        for label, _ in reversed(codes):
            def med(key: str, done: list[dict[str, Any]] = runs[label]) -> str:
                return f"{statistics.median(r[key] for r in done) * 1000:.0f} ms"

            print(f"| {label}{name} | {med('ready')} | {med('ready_cpu')} | {med('search')} | {med('total_cpu')} |")
    if ns.front:
        answers = ns.base / "handshake.jsonl"
        handshake(root, answers)
        done = [front(root, answers) for _ in range(ns.runs)]
        print(f"| front (answers kept in a file, no SDK) | {statistics.median(d['ready'] for d in done) * 1000:.0f} ms "
              f"| {statistics.median(d['ready_cpu'] for d in done) * 1000:.0f} ms | | |")
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
