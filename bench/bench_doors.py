"""Every door on the live index (#28 item 1): fresh ``memfs`` processes answered by a running
``memfs serve`` against the same commands with ``MEMFS_NO_LIVE`` (the direct path), alternated one
by one in one run so both see the same load; a search over two roots served by one process; save
-> searchable for a ``remember`` sent through the server; MCP ready (initialize + tools/list)
with its live index and without.

    .venv/bin/python bench/bench_doors.py --size 10000 [--runs 11]

Figures: medians of wall time and of CPU (the child's user + system: what a command costs the
machine, the server's share not included; the server's own CPU is reported apart), and the load
average before and after. The corpus is ``bench/corpus.py``'s (seed 1).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
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
from benchlib import bytecode

from memfs import MemoryRepo
from memfs.agents.live import wire

AT = corpus.NOW.isoformat()
MEMFS = [sys.executable, "-m", "memfs"]
OFF = {**os.environ, "MEMFS_NO_LIVE": "1"}


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` and of the children it waited for (its git processes)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def med(values: list[float]) -> float:
    return statistics.median(values) * 1000


def run_once(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    c0, t0 = children_cpu(), time.perf_counter()
    done = subprocess.run([*MEMFS, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"memfs {' '.join(args)} failed: {done.stderr}")
    return time.perf_counter() - t0, children_cpu() - c0, done.stdout


def side_by_side(cases: list[tuple[list[str], list[str]]], cwd: Path) -> dict[str, float]:
    """Each case's command through the server, then directly; both outputs compared (a remember's
    commit id aside): what the server answers is what the direct path prints."""
    walls: dict[str, list[float]] = {"live": [], "direct": []}
    cpus: dict[str, list[float]] = {"live": [], "direct": []}
    for live_args, direct_args in cases:
        outs = []
        for name, args, env in (("live", live_args, dict(os.environ)), ("direct", direct_args, OFF)):
            wall, cpu, out = run_once(args, env, cwd)
            walls[name].append(wall)
            cpus[name].append(cpu)
            outs.append(re.sub(r"(\d*)(live|direct)", "N", out.split("commit ")[0]))
        if outs[0] != outs[1]:
            raise SystemExit(f"outputs differ for {live_args}:\n{outs[0]}\n---\n{outs[1]}")
    return {"live_wall": med(walls["live"]), "direct_wall": med(walls["direct"]),
            "live_cpu": med(cpus["live"]), "direct_cpu": med(cpus["direct"])}


def found(root: Path, word: str) -> bool:
    """Whether a search through the server finds ``word`` now."""
    request = {"query": word, "scope": None, "inherit": False, "version": None, "at": None, "type": None,
               "limit": 10, "explain": False}
    reply = wire.ask(root, "search", {"request": request, "actor": None, "json": False})
    if reply is not None and not reply.get("ok"):
        raise SystemExit(f"the server refused a search: {reply}")
    if reply is None:
        raise SystemExit(f"the server did not answer a search for {word}")
    if not reply["view"]["hits"]:
        direct = subprocess.run([*MEMFS, "search", word], cwd=root, env=OFF, capture_output=True, text=True)
        print(f"not found through the server: {word}; directly: {direct.stdout.strip()!r}", flush=True)
    return bool(reply["view"]["hits"])


def start_server(roots: list[Path]) -> subprocess.Popen[bytes]:
    given = [a for root in roots for a in ("-C", str(root))]
    server = subprocess.Popen([*MEMFS, *given, "serve"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while wire.request(roots[-1], "status", {}) is None:
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit("memfs serve did not start")
        time.sleep(0.1)
    return server


def stop_server(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    server.wait(60)


def mcp_ready(root: Path, extra: list[str]) -> float:
    """Seconds from starting ``memfs mcp`` to its answer to tools/list (after initialize)."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    t0 = time.perf_counter()
    proc = subprocess.Popen([*MEMFS, "-C", str(root), "mcp", "--all-scopes", *extra], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    proc.stdin.flush()
    took = None
    for line in proc.stdout:
        if json.loads(line).get("id") == 2:
            took = time.perf_counter() - t0
            break
    proc.stdin.close()
    proc.wait(120)
    if took is None:
        raise SystemExit("memfs mcp gave no tools/list answer")
    return took


def run(n: int, runs: int, base: Path) -> dict[str, Any]:
    root, other = base / "mem", base / "team"
    t0 = time.perf_counter()
    docs = corpus.generate(n, seed=1)
    corpus.write(root, docs)
    MemoryRepo.open(root, "bench:doors").reindex()
    shutil.copytree(root, other, symlinks=True)
    texts = [q.text for q in corpus.queries(docs, max(2, runs // 4 + 1), seed=2)][:runs]
    print(f"corpus of {n} (and its copy) built and indexed in {time.perf_counter() - t0:.0f} s", flush=True)
    out: dict[str, Any] = {"n": n, "runs": len(texts), "load_before": loadavg()}
    out["mcp_ready_no_live"] = statistics.median(mcp_ready(root, ["--no-live"]) for _ in range(3)) * 1000
    out["mcp_ready_live"] = statistics.median(mcp_ready(root, []) for _ in range(3)) * 1000
    server = start_server([root, other])
    try:
        cpu0 = process_cpu(server.pid)
        search = [(["search", "--at", AT, t], ["search", "--at", AT, t]) for t in texts]
        out["search"] = side_by_side(search, root)
        out["search"]["server_cpu"] = (process_cpu(server.pid) - cpu0) * 1000 / len(texts)
        def remember(kind: str, i: int) -> list[str]:
            # words of their own for every write, so none reconciles with another (both INSERT)
            words = " ".join(f"{w}{i}{kind}" for w in ("zyx", "qua", "vel"))
            return ["--actor", f"user:bench{kind}", "remember", "--scope", f"user:bench{kind}", "--type", "fact",
                    "--source", "conversation:bench", "--source-kind", "user", "--body", f"{words.capitalize()}."]

        cpu1 = process_cpu(server.pid)
        out["remember"] = side_by_side([(remember("live", i), remember("direct", i)) for i in range(len(texts))], root)
        # the server also applies the direct writes' events: its CPU per pair of writes
        out["remember"]["server_cpu"] = (process_cpu(server.pid) - cpu1) * 1000 / len(texts)
        searchable = [found(root, f"zyx{i}live") for i in range(len(texts))]
        out["searchable_after_remember"] = f"{sum(searchable)} of {len(searchable)}"
        roots = [(["-C", str(root), "-C", str(other), "search", "--at", AT, t],) * 2 for t in texts]
        cpu2 = process_cpu(server.pid)
        out["roots"] = side_by_side([(a, b) for a, b in roots], root)
        out["roots"]["server_cpu"] = (process_cpu(server.pid) - cpu2) * 1000 / len(texts)
        out["server_cpu_s"] = process_cpu(server.pid) - cpu0
        out["server_rss_mb"] = int(Path(f"/proc/{server.pid}/statm").read_text().split()[1]) * os.sysconf(
            "SC_PAGE_SIZE") / 2**20
    finally:
        stop_server(server)
    python = []
    for _ in range(len(texts)):
        t1 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        python.append(time.perf_counter() - t1)
    out["python_startup"] = med(python)
    out["load_after"] = loadavg()
    return out


def report(r: dict[str, Any]) -> None:
    print(f"\n{r['n']} memories, {r['runs']} runs per door, load {r['load_before']} -> {r['load_after']}, "
          f"python start-up {r['python_startup']:.0f} ms")
    print("| fresh process | through the server: wall / client CPU / server CPU ms | direct: wall / CPU ms "
          "| CPU direct ÷ (client + server) |")
    print("|---|---|---|---|")
    for name in ("search", "remember", "roots"):
        f = r[name]
        both = f["live_cpu"] + f["server_cpu"]
        print(f"| {name} | {f['live_wall']:.0f} / {f['live_cpu']:.0f} / {f['server_cpu']:.0f} "
              f"| {f['direct_wall']:.0f} / {f['direct_cpu']:.0f} | {f['direct_cpu'] / max(both, 1e-9):.1f}× |")
    print(f"remember through the server: searchable when it returns: {r['searchable_after_remember']}")
    print(f"MCP ready (initialize + tools/list), median of 3: {r['mcp_ready_live']:.0f} ms with its live index, "
          f"{r['mcp_ready_no_live']:.0f} ms with --no-live")
    print(f"server: {r['server_cpu_s']:.1f} s CPU for all the requests above, RSS {r['server_rss_mb']:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=11)
    ns = parser.parse_args()
    bytecode()
    OFF.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="mfsdoors") as tmp:
        os.environ["XDG_RUNTIME_DIR"] = tmp
        report(run(ns.size, ns.runs, Path(tmp)))


if __name__ == "__main__":
    main()
