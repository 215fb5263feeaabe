"""Scale benchmark (#28 items 5 and 2): memfs at 3k-100k memories against tantivy and Whoosh over the
same documents in the same run, and every per-operation cost against N.

    .venv/bin/python bench/bench_scale.py --sizes 3000,30000,100000 [--base /tmp/memfs-scale]
        [--steps build,library,live,served,remember,mcp,validate] [--queries-per-kind 20]

Corpus and queries: ``bench/corpus.py`` (seed 1, queries seed 2), so every size is the same
generator's output. Each size's repository, memfs index and the two anchors' indexes are built
once under ``--base`` and reused by later runs (their build figures are kept beside them in
``mem<N>.json``); delete the folder to rebuild. Needs ``pip install tantivy`` (not a memfs
dependency).

Steps (each prints medians with wall and CPU, and the load average):

* ``library``: ``MemoryRepo.search`` on a kept repository object (what the library, MCP and the
  adapters call), with the git children's CPU per query (0: no git process ran).
* ``live``: the live server's own search (in process, no socket), tantivy and the bare Whoosh
  index, alternating query by query; then save -> searchable through the live index.
* ``served``: ``memfs serve`` as its own process: fresh ``memfs search`` processes (the entry point
  as it is, the click application alone, and that without bytecode as this machine's shell ran
  it) against fresh tantivy processes (alternating), a ``python -c pass`` floor, each one's share
  of the server's CPU, and the server's RSS.
* ``remember``: ``remember`` in process (CPU) on a copy of the repository, a bare ``git add`` +
  ``git commit`` of the same file in another copy, and ``memfs remember`` as a new process:
  directly, then through ``memfs serve`` (the entry point, and the click application alone),
  with the server's share of the CPU.
* ``mcp``: ``memfs mcp`` over stdio: start -> ``initialize`` answered -> ``tools/list`` answered.
* ``validate``: ``repo.validate()`` of the whole repository, once (CPU).

At the end the figures of the two largest sizes give each measure's growth exponent b
(value = a * N^b) and the 1M value that model predicts.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from bare_tantivy import FRESH, TantivyIndex
from bare_whoosh import BareIndex
from bench_live import args_for, children_cpu, save_to_searchable
from benchlib import ENV, bytecode, cpu, packed, pct

from memfs import MemoryRepo
from memfs.index.analysis import tokens

AT = dt.datetime.fromisoformat(corpus.NOW.isoformat())
PY = sys.executable


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def p95(values: list[float]) -> float:
    return pct(values, 95) * 1000


def own_cpu() -> float:
    return time.process_time()


def build(n: int, base: Path, indexes: bool) -> tuple[Path, dict[str, Any]]:
    """The size-``n`` repository, and with ``indexes`` its memfs index and both anchors (each built
    once, then reused; their figures are kept in ``mem<N>.json``)."""
    root, marker = base / f"mem{n}", base / f"mem{n}.json"
    figures: dict[str, Any] = json.loads(marker.read_text()) if marker.exists() else {}
    if "corpus_s" not in figures:
        shutil.rmtree(root, ignore_errors=True)
        figures["load_before"] = load()
        t0 = time.perf_counter()
        corpus.write(root, corpus.generate(n, seed=1))
        packed(root)
        figures["corpus_s"] = time.perf_counter() - t0
        marker.write_text(json.dumps(figures))
    if indexes and "tantivy_build" not in figures:
        repo = MemoryRepo.open(root, "bench:scale")
        for name, action in (
            ("memfs_reindex", repo.reindex),
            ("whoosh_build", lambda: BareIndex.build(root, base / f"bare{n}")),
            ("tantivy_build", lambda: TantivyIndex.build(root, base / f"tv{n}")),
        ):
            c0, k0, t0 = own_cpu(), children_cpu(), time.perf_counter()
            action()
            figures[name] = {"wall_s": time.perf_counter() - t0, "cpu_s": own_cpu() - c0 + children_cpu() - k0}
        figures["load_after"] = load()
        marker.write_text(json.dumps(figures))
    return root, figures


def texts_for(n: int, per_kind: int) -> list[str]:
    return [q.text for q in corpus.queries(corpus.generate(n, seed=1), per_kind, seed=2)]


def step_library(root: Path, texts: list[str]) -> dict[str, float]:
    repo = MemoryRepo.open(root, "bench:scale")
    repo.search(texts[0], at=AT, limit=10)
    repo.search(texts[1], at=AT, limit=10)
    wall, cpus, kids = [], [], []
    for text in texts:
        c0, k0, t0 = own_cpu(), children_cpu(), time.perf_counter()
        repo.search(text, at=AT, limit=10)
        wall.append(time.perf_counter() - t0)
        cpus.append(own_cpu() - c0)
        kids.append(children_cpu() - k0)
    return {"library_p50": ms(wall), "library_p95": p95(wall), "library_cpu_p50": ms(cpus),
            "library_git_cpu_total": sum(kids) * 1000}


def step_live(root: Path, base: Path, n: int, texts: list[str], whoosh: bool = True) -> dict[str, float]:
    bare = BareIndex(__import__("whoosh.index", fromlist=["open_dir"]).open_dir(str(base / f"bare{n}")))
    tv = TantivyIndex.open(base / f"tv{n}")
    wsearcher, tsearcher = bare.ix.searcher(), tv.ix.searcher()
    analysed = [tokens(t) for t in texts]
    repo = MemoryRepo.open(root, "bench:scale")
    out: dict[str, float] = {}
    with repo.live_server() as server:
        server.live.wait_barrier(server.live.barrier())
        engines = ("live", "tantivy", "whoosh") if whoosh else ("live", "tantivy")
        times: dict[str, list[float]] = {k + a: [] for k in engines for a in ("", "_again")}
        cpus: dict[str, list[float]] = {k: [] for k in times}
        calls: dict[str, Callable[[int], object]] = {
            "live": lambda i: server.live.search(args_for(texts[i])),
            "tantivy": lambda i: tv.search(analysed[i], 10, tsearcher),
            "whoosh": lambda i: bare.search(texts[i], 10, wsearcher),
        }
        if not whoosh:  # the bare Whoosh index takes most of the step's time at 100k
            del calls["whoosh"]
        for i in range(min(3, len(texts))):  # warm-up
            for call in calls.values():
                call(i)
        for again in ("", "_again"):  # each query once, then each again (what a server kept helps)
            for i in range(len(texts)):
                for name, call in calls.items():
                    c0, t0 = own_cpu(), time.perf_counter()
                    call(i)
                    times[name + again].append(time.perf_counter() - t0)
                    cpus[name + again].append(own_cpu() - c0)
        for name in times:
            out[f"{name}_p50"], out[f"{name}_p95"], out[f"{name}_cpu_p50"], out[f"{name}_cpu_p95"] = (
                ms(times[name]), p95(times[name]), ms(cpus[name]), p95(cpus[name]))
        c0 = own_cpu()
        out.update(save_to_searchable(server, root, 15))
        out["save_searchable_cpu_each"] = (own_cpu() - c0) / 15 * 1000
    for i in range(15):
        (root / f"notes/live-{i}.md").unlink(missing_ok=True)
    wsearcher.close()
    return out


def _rss(pid: int) -> dict[str, float]:
    """The process's resident memory (MB): whole, peak, and its anonymous and file-backed parts
    (the latter: mapped pages of the index and of libraries, shared with the page cache)."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {f"server_{name}_mb": int(fields[key].split()[0]) / 1024
            for name, key in (("rss", "VmRSS"), ("hwm", "VmHWM"), ("anon", "RssAnon"), ("file", "RssFile"))}


#: the click application alone (the fast path not tried): what a fresh ``memfs search`` ran before it
CLICK = "import sys; sys.argv[0] = 'memfs'; from memfs.cli import app; app.main()"


def _without_bytecode(base: Path) -> dict[str, str]:
    """An environment that runs a copy of this memfs with no ``.pyc`` files and writes none, as
    every fresh process ran it in this machine's shell (``PYTHONDONTWRITEBYTECODE=1``, and memfs
    installed editable, so never compiled): how the earlier fresh-process figures were taken."""
    copy = base / "memfs-no-bytecode"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(Path(__file__).resolve().parents[1] / "memfs", copy / "memfs",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return {**ENV, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}


def server_cpu(pid: int) -> float:
    """CPU seconds of the server process and of the git children it waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def start_server(root: Path) -> tuple[subprocess.Popen[str], float]:
    server = subprocess.Popen([PY, "-m", "memfs", "serve"], cwd=root, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, env=ENV)
    assert server.stderr is not None
    started = time.perf_counter()
    server.stderr.readline()
    repo = MemoryRepo.open(root, "bench:scale")
    while repo.live_status() is None:
        time.sleep(0.05)
    return server, time.perf_counter() - started


def step_served(root: Path, base: Path, n: int, texts: list[str], runs: int) -> dict[str, float]:
    """A ``memfs serve`` process; fresh ``memfs search`` processes (the entry point as it is, the
    click application alone, and that without bytecode) alternating with fresh tantivy
    processes and ``python -c pass``; each search's share of the server's CPU."""
    server, ready = start_server(root)
    old = _without_bytecode(base)
    try:
        out: dict[str, float] = {"serve_ready_s": ready}
        kinds = ("fresh_memfs", "fresh_click", "fresh_click_nopyc", "fresh_tantivy", "python")
        wall: dict[str, list[float]] = {k: [] for k in kinds}
        used: dict[str, list[float]] = {k: [] for k in kinds}
        served: dict[str, list[float]] = {k: [] for k in kinds}
        for i in range(-1, runs):  # round -1: a warm-up (the server's first answers pay for its start)
            text = texts[i % len(texts)]
            for kind, command, env in (
                # no --at: the bench's searches are "now", as an agent's are
                ("fresh_memfs", [PY, "-m", "memfs", "search", text], ENV),
                ("fresh_click", [PY, "-c", CLICK, "search", text], ENV),
                ("fresh_click_nopyc", [PY, "-c", CLICK, "search", text], old),
                ("fresh_tantivy", [PY, "-c", FRESH, str(base / f"tv{n}"), *tokens(text)], ENV),
                ("python", [PY, "-c", "pass"], ENV),
            ):
                k0, s0, t0 = children_cpu(), server_cpu(server.pid), time.perf_counter()
                subprocess.run(command, cwd=root, capture_output=True, check=True, env=env)
                if i >= 0:
                    wall[kind].append(time.perf_counter() - t0)
                    used[kind].append(children_cpu() - k0)
                    served[kind].append(server_cpu(server.pid) - s0)
        for kind in kinds:
            out[f"{kind}_p50"], out[f"{kind}_cpu_p50"] = ms(wall[kind]), ms(used[kind])
            out[f"{kind}_server_cpu_mean"] = statistics.mean(served[kind]) * 1000
            out[f"{kind}_server_cpu_p50"] = ms(served[kind])
        out.update(_rss(server.pid))
        out.update(_served_saves(root, server.pid, runs))
        return out
    finally:
        server.terminate()
        server.wait(timeout=60)


def _served_saves(root: Path, pid: int, runs: int) -> dict[str, float]:
    """Saves through the file system while ``memfs serve`` runs: the server's CPU per save (its
    update and the first search after it, asked in process by the live client as a fresh CLI
    would), and its RSS after them."""
    from memfs.agents.live.listener import status
    from memfs.agents.live.wire import ask

    took, cpu_each = [], []
    for i in range(runs):
        rel, word = f"notes/served-{i}.md", f"zqxserved{i}w"
        seen = (status(root) or {}).get("processed", 0)
        c0, t0 = _proc_cpu(pid), time.perf_counter()
        (root / rel).write_text(f"---\nid: served{i}\ntype: note\nscope: user:U1\nsource: tool:bench\nstatus: active\n"
                                f"created: 2026-11-01T00:00:00Z\n---\nThe {word} is searchable.\n")
        while True:
            now = (status(root) or {}).get("processed", 0)
            if now > seen:
                seen = now
                reply = ask(root, "search", args_for(word))
                if reply is not None and [h["path"] for h in reply["view"]["hits"]] == [rel]:
                    break
            time.sleep(0.005)
        took.append(time.perf_counter() - t0)
        cpu_each.append(_proc_cpu(pid) - c0)
    out = {"served_save_p50": ms(took), "served_save_p95": p95(took), "served_save_server_cpu_p50": ms(cpu_each)}
    out.update({k.replace("server_", "server_after_saves_"): v for k, v in _rss(pid).items()})
    for i in range(runs):
        (root / f"notes/served-{i}.md").unlink(missing_ok=True)
    return out


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _candidates(count: int) -> list[dict[str, Any]]:
    """The user's own preferences: even ones under a new key (INSERT), odd ones a new value for the
    key just written (SUPERSEDE); the key lookup still runs over the whole corpus's keys."""
    out = []
    for i in range(count):
        out.append({"type": "preference", "scope": "user:U1", "key": f"bench.scale.{i - i % 2}",
                    "source": "user:U1", "source_kind": "user",
                    "body": f"Prefers option {i} for the scale benchmark."})
    return out


def _git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, env=ENV, capture_output=True, text=True).stdout


def step_remember(root: Path, base: Path, n: int, count: int, cli_runs: int) -> dict[str, float]:
    """In-process ``remember`` CPU, a bare add + commit of the same files, and the CLI."""
    from memfs.ops.remember import remember
    from memfs.policy.candidate import from_mapping

    mem, bare = base / f"rem{n}-mem", base / f"rem{n}-bare"
    for copy in (mem, bare):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    cands = _candidates(count + 3 * cli_runs + 2)
    repo = MemoryRepo.open(mem, "user:U1")
    for c in cands[:2]:
        remember(repo.store, from_mapping(c))
    ours_w, ours_c, bare_w, bare_c = [], [], [], []

    def bare_commit(names: list[str], label: str) -> None:
        for name in names:
            (bare / name).parent.mkdir(parents=True, exist_ok=True)
            (bare / name).write_bytes((mem / name).read_bytes())
        k0, t0 = cpu(), time.perf_counter()
        plain = {**ENV, "MEMFS_HOOKS": "skip"}  # bare git: not memfs's hooks, which a memfs commit skips too
        subprocess.run(["git", "add", "--", *names], cwd=bare, check=True, env=plain, capture_output=True)
        subprocess.run(["git", "commit", "-qm", label], cwd=bare, check=True, env=plain, capture_output=True)
        bare_w.append(time.perf_counter() - t0)
        bare_c.append(cpu() - k0)

    for i, c in enumerate(cands[2 : 2 + count]):
        k0, t0 = cpu(), time.perf_counter()
        remember(repo.store, from_mapping(c))
        ours_w.append(time.perf_counter() - t0)
        ours_c.append(cpu() - k0)
        bare_commit([f for f in _git_out(mem, "show", "--name-only", "--format=", "HEAD").split()
                     if f.endswith(".md")], f"bare {i}")
    out = {"remember_p50": ms(ours_w), "remember_cpu_p50": ms(ours_c), "bare_git_p50": ms(bare_w),
           "bare_git_cpu_p50": ms(bare_c)}
    out.update(_cli_remembers(mem, cands[2 + count :], cli_runs))
    for copy in (mem, bare):
        shutil.rmtree(copy, ignore_errors=True)
    return out


def _cli_remembers(mem: Path, cands: list[dict[str, Any]], runs: int) -> dict[str, float]:
    """``memfs remember --json -`` as fresh processes: the direct path (no server), then with
    ``memfs serve`` running: the entry point as it is (the fast path) alternating with the click
    application alone, each with its share of the server's CPU; and ``python -c pass``."""
    kinds = ("cli_remember", "cli_served", "cli_served_click", "rem_python")
    wall: dict[str, list[float]] = {k: [] for k in kinds}
    used: dict[str, list[float]] = {k: [] for k in kinds}
    served: dict[str, list[float]] = {k: [] for k in kinds}
    direct = {**ENV, "MEMFS_NO_LIVE": "1"}

    def once(kind: str, command: list[str], env: dict[str, str], cand: dict[str, Any] | None, pid: int) -> None:
        k0, s0, t0 = children_cpu(), server_cpu(pid) if pid else 0.0, time.perf_counter()
        subprocess.run(command, cwd=mem, input=json.dumps(cand) if cand else "", text=True, check=True,
                       capture_output=True, env=env)
        wall[kind].append(time.perf_counter() - t0)
        used[kind].append(children_cpu() - k0)
        served[kind].append((server_cpu(pid) - s0) if pid else 0.0)

    remember = ["--actor", "user:U1", "remember", "--json", "-"]
    for i in range(runs):
        once("cli_remember", [PY, "-m", "memfs", *remember], direct, cands[i], 0)
        once("rem_python", [PY, "-c", "pass"], ENV, None, 0)
    server, _ = start_server(mem)
    try:
        for i in range(runs):
            once("cli_served", [PY, "-m", "memfs", *remember], ENV, cands[runs + 2 * i], server.pid)
            once("cli_served_click", [PY, "-c", CLICK, *remember], ENV, cands[runs + 2 * i + 1], server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    out: dict[str, float] = {}
    for kind in kinds:
        out[f"{kind}_p50"], out[f"{kind}_cpu_p50"] = ms(wall[kind]), ms(used[kind])
        out[f"{kind}_server_cpu_p50"] = ms(served[kind])
    return out


def step_mcp(root: Path, runs: int) -> dict[str, float]:
    """Start ``memfs mcp`` (stdio) until ``tools/list`` is answered."""
    asks = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    ready, used = [], []
    for _ in range(runs):
        k0, t0 = children_cpu(), time.perf_counter()
        proc = subprocess.Popen([PY, "-m", "memfs", "mcp", "--scope", "user:U1"], cwd=root, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
        assert proc.stdin is not None and proc.stdout is not None
        for ask in asks:
            proc.stdin.write(json.dumps(ask) + "\n")
        proc.stdin.flush()
        answered = 0
        while answered < 2:
            if "id" in json.loads(proc.stdout.readline()):
                answered += 1
        ready.append(time.perf_counter() - t0)
        proc.stdin.close()
        proc.wait(timeout=60)
        used.append(children_cpu() - k0)
    return {"mcp_ready_p50": ms(ready), "mcp_cpu_p50": ms(used)}


def step_validate(root: Path) -> dict[str, float]:
    repo = MemoryRepo.open(root, "bench:scale")
    k0, t0 = cpu(), time.perf_counter()
    repo.validate()
    return {"validate_s": time.perf_counter() - t0, "validate_cpu_s": cpu() - k0}


def report(n: int, r: dict[str, Any]) -> None:
    print(f"\n== {n:,} memories (load {r.get('load_before')} -> {r.get('load_after')})")
    b = r["build"]
    if "tantivy_build" not in b:
        b = {**b, **{k: {"cpu_s": float("nan")} for k in ("memfs_reindex", "whoosh_build", "tantivy_build")},
             "load_after": b.get("load_before")}
    corpus_s = b.get("corpus_s") or float("nan")
    print(f"build: corpus {corpus_s:.0f} s; CPU s memfs reindex {b['memfs_reindex']['cpu_s']:.1f}, "
          f"Whoosh {b['whoosh_build']['cpu_s']:.1f}, tantivy (1 thread) {b['tantivy_build']['cpu_s']:.1f} "
          f"(load {b['load_before']} -> {b['load_after']})")
    if "library_p50" in r:
        print(f"library search p50/p95 {r['library_p50']:.1f} / {r['library_p95']:.1f} ms, CPU p50 "
              f"{r['library_cpu_p50']:.1f} ms, git children CPU over all queries {r['library_git_cpu_total']:.0f} ms")
    if "live_p50" in r:
        for again in ("", "_again"):
            print("  each query once:" if not again else "  each query again (the same server):")
            for name in ("live", "tantivy", "whoosh"):
                k = name + again
                if k + "_p50" not in r:
                    continue
                print(f"  {name:8} p50/p95 {r[k + '_p50']:.2f} / {r[k + '_p95']:.2f} ms, CPU p50/p95 "
                      f"{r[k + '_cpu_p50']:.2f} / {r.get(k + '_cpu_p95', float('nan')):.2f}")
            whoosh = r.get("whoosh" + again + "_p50", float("nan"))
            print(f"  live / tantivy p50: {r['live' + again + '_p50'] / r['tantivy' + again + '_p50']:.1f}x wall, "
                  f"{r['live' + again + '_cpu_p50'] / r['tantivy' + again + '_cpu_p50']:.1f}x CPU; live / whoosh "
                  f"{r['live' + again + '_p50'] / whoosh:.2f}x")
        print(f"  save -> searchable p50/p95 {r['save_searchable_p50']:.0f} / {r['save_searchable_p95']:.0f} ms "
              f"(debounce {r['debounce_ms']:.0f})")
    if "fresh_memfs_p50" in r:
        print(f"served: ready {r['serve_ready_s']:.1f} s; fresh processes, p50 wall / CPU / server CPU (mean, p50; "
              "the server's CPU is read in 10 ms ticks):")
        for kind, label in (("fresh_memfs", "memfs search (entry point)"), ("fresh_click", "click app"),
                            ("fresh_click_nopyc", "click app, no bytecode"), ("fresh_tantivy", "tantivy"),
                            ("python", "python -c pass")):
            print(f"  {label:28} {r[kind + '_p50']:6.0f} / {r[kind + '_cpu_p50']:5.1f} / "
                  f"{r[kind + '_server_cpu_mean']:5.1f}, {r[kind + '_server_cpu_p50']:3.0f} ms")
        tv = r["fresh_tantivy_cpu_p50"]
        print(f"  memfs / tantivy CPU: {r['fresh_memfs_cpu_p50'] / tv:.2f}x (client), "
              f"{(r['fresh_memfs_cpu_p50'] + r['fresh_memfs_server_cpu_mean']) / tv:.2f}x (client + server); "
              f"click app {r['fresh_click_cpu_p50'] / tv:.2f}x, without bytecode "
              f"{r['fresh_click_nopyc_cpu_p50'] / tv:.2f}x; server RSS {r['server_rss_mb']:.0f} MB "
              f"(peak {r['server_hwm_mb']:.0f}; anon {r.get('server_anon_mb', 0):.0f}, "
              f"file {r.get('server_file_mb', 0):.0f})")
    if "served_save_p50" in r:
        print(f"  served save -> found by the live client p50/p95 {r['served_save_p50']:.0f} / "
              f"{r['served_save_p95']:.0f} ms, server CPU p50 {r['served_save_server_cpu_p50']:.0f} ms; RSS after "
              f"{r['server_after_saves_rss_mb']:.0f} MB (anon {r['server_after_saves_anon_mb']:.0f}, "
              f"file {r['server_after_saves_file_mb']:.0f})")
    if "remember_cpu_p50" in r:
        print(f"remember in process p50 {r['remember_p50']:.1f} ms, CPU {r['remember_cpu_p50']:.1f}; bare add+commit "
              f"{r['bare_git_p50']:.1f} ms, CPU {r['bare_git_cpu_p50']:.1f} "
              f"({r['remember_cpu_p50'] / r['bare_git_cpu_p50']:.2f}x CPU)")
    if "cli_remember_p50" in r:
        floor, bare = r["rem_python_cpu_p50"], r["bare_git_cpu_p50"]
        print(f"  CLI remember, p50 wall / client CPU / server CPU; (client + server - python floor {floor:.0f} ms) "
              f"/ bare {bare:.1f} ms:")
        for kind, label in (("cli_remember", "direct (no server)"), ("cli_served", "through the server"),
                            ("cli_served_click", "through it, click app")):
            total = r[kind + "_cpu_p50"] + r[kind + "_server_cpu_p50"]
            print(f"  {label:24} {r[kind + '_p50']:6.0f} / {r[kind + '_cpu_p50']:5.0f} / "
                  f"{r[kind + '_server_cpu_p50']:5.0f} ms: {(total - floor) / bare:.2f}x bare")
    if "mcp_ready_p50" in r:
        print(f"mcp ready (initialize + tools/list) p50 {r['mcp_ready_p50']:.0f} ms, CPU {r['mcp_cpu_p50']:.0f} ms")
    if "validate_cpu_s" in r:
        print(f"validate whole repo {r['validate_s']:.1f} s, CPU {r['validate_cpu_s']:.1f} s")


MODELLED = ("library_cpu_p50", "live_cpu_p50", "tantivy_cpu_p50", "whoosh_cpu_p50", "save_searchable_p50",
            "save_searchable_cpu_each", "served_save_server_cpu_p50",
            "fresh_memfs_cpu_p50", "fresh_tantivy_cpu_p50", "server_rss_mb", "server_anon_mb", "remember_cpu_p50",
            "cli_remember_cpu_p50", "cli_served_cpu_p50", "cli_served_server_cpu_p50", "validate_cpu_s")


def model(results: dict[int, dict[str, Any]]) -> None:
    """value = a * N^b through the two largest sizes that have the measure; the 1M prediction."""
    print("\n== growth model (two largest sizes measured): exponent b, predicted at 1,000,000")
    for name in MODELLED:
        have = sorted((n, r[name]) for n, r in results.items() if name in r and r[name] > 0)
        if len(have) < 2:
            continue
        (n1, v1), (n2, v2) = have[-2], have[-1]
        b = math.log(v2 / v1) / math.log(n2 / n1)
        print(f"  {name:22} {v1:10.1f} @ {n1:,} -> {v2:10.1f} @ {n2:,}: b = {b:.2f}, 1M ~ {v2 * (1e6 / n2) ** b:,.1f}")
    for n, r in sorted(results.items()):
        b = r["build"]
        if "tantivy_build" not in b:
            continue
        print(f"  build CPU s @ {n:,}: memfs {b['memfs_reindex']['cpu_s']:.1f}, "
              f"whoosh {b['whoosh_build']['cpu_s']:.1f}, tantivy {b['tantivy_build']['cpu_s']:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="3000,30000,100000")
    parser.add_argument("--base", type=Path, default=Path("/tmp/memfs-scale"))
    parser.add_argument("--steps", default="library,live,served,remember,mcp")
    parser.add_argument("--queries-per-kind", type=int, default=20)
    parser.add_argument("--cli-runs", type=int, default=10)
    parser.add_argument("--remember", type=int, default=30)
    parser.add_argument("--no-whoosh", action="store_true", help="live step: memfs and tantivy only")
    opts = parser.parse_args()
    opts.base.mkdir(parents=True, exist_ok=True)
    bytecode()  # the children run with their bytecode cached, as an installed memfs does
    steps = set(opts.steps.split(","))
    results: dict[int, dict[str, Any]] = {}
    for n in (int(s) for s in opts.sizes.split(",")):
        root, figures = build(n, opts.base, bool(steps & {"library", "live", "served"}))
        r: dict[str, Any] = {"build": figures, "load_before": load()}
        texts = texts_for(n, opts.queries_per_kind)
        print(f"[{n}] built; {len(texts)} queries; load {load()}", flush=True)
        if "library" in steps:
            r.update(step_library(root, texts))
        if "live" in steps:
            r.update(step_live(root, opts.base, n, texts, whoosh=not opts.no_whoosh))
        if "served" in steps:
            r.update(step_served(root, opts.base, n, texts, opts.cli_runs))
        if "remember" in steps:
            r.update(step_remember(root, opts.base, n, opts.remember, opts.cli_runs))
        if "mcp" in steps:
            r.update(step_mcp(root, 5))
        if "validate" in steps:
            r.update(step_validate(root))
        r["load_after"] = load()
        results[n] = r
        (opts.base / f"result{n}.json").write_text(json.dumps(r))
        report(n, r)
    model(results)


if __name__ == "__main__":
    main()
