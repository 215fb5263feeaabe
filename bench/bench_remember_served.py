"""What a served ``remember`` costs the server, by function (#28: the CLI ``remember`` target).

    .venv/bin/python bench/bench_remember_served.py --size 3000 [--count 20] [--base /tmp/remember-served]
        [--profile] [--top 25]

A repository of SIZE memories (``bench_remember.make_repo``, kept under ``--base`` and reused; a
fresh copy each run), a live index in this process as ``memfs serve`` keeps it
(:meth:`memfs.MemoryRepo.live_index`), then COUNT ``remember`` requests given to
:func:`memfs.agents.live.answers.remember` exactly as the socket hands them over (the CLI's wire
form), alternating with a bare ``git add`` + ``git commit`` of the file it wrote in another copy.
CPU per write: this process's (every thread: the request, the index thread, the observer) plus
the git children it waited for, against the bare commit's git CPU. With ``--profile``, cProfile
runs in the request's thread and in the index thread (the update the reply waits for) on each
thread's own CPU clock (waits for git, locks and the debounce are not counted), and the
functions with the most cumulative and own time are printed.
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
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_remember import make_repo
from benchlib import ENV, cpu, packed

from memfs import MemoryRepo
from memfs.agents.live import answers, server
from memfs.format.declare import CLI, to_wire
from memfs.ops.verbs.lifecycle import Remember

PLAIN = {**ENV, "MEMFS_HOOKS": "skip"}


def request(i: int) -> dict[str, Any]:
    """The user's own preference: even ones a new key (INSERT), odd ones a new value (SUPERSEDE)."""
    cand = {"type": "preference", "scope": "user:U1", "key": f"bench.served.{i - i % 2}", "source": "user:U1",
            "source_kind": "user", "body": f"Prefers option {i} for the served benchmark."}
    return {"request": to_wire(Remember(cand), CLI), "actor": "user:U1", "json": True}


def git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, env=ENV, capture_output=True, text=True).stdout


def profiled(prof: cProfile.Profile | None, work: Callable[[], Any]) -> Any:
    if prof is None:
        return work()
    prof.enable()
    try:
        return work()
    finally:
        prof.disable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3000)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--base", type=Path, default=Path("/tmp/remember-served"))
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=25)
    opts = parser.parse_args()
    kept = opts.base / f"rem{opts.size}"
    if not kept.exists():
        make_repo(kept, opts.size)
        packed(kept)
    mem, bare = opts.base / f"mem{opts.size}", opts.base / f"bare{opts.size}"
    for copy in (mem, bare):
        shutil.rmtree(copy, ignore_errors=True)
        subprocess.run(["cp", "-a", str(kept), str(copy)], check=True)
    # each thread's own CPU (waits for git, for the lock and for the debounce are not counted)
    request_prof = cProfile.Profile(time.thread_time) if opts.profile else None
    index_prof = cProfile.Profile(time.thread_time) if opts.profile else None
    apply = server.LiveIndex._apply

    def apply_profiled(self: server.LiveIndex, *args: Any, **kwargs: Any) -> None:
        started = time.thread_time()
        profiled(index_prof if counting else None, lambda: apply(self, *args, **kwargs))
        if counting:
            index_cpu[-1] += time.thread_time() - started

    server.LiveIndex._apply = apply_profiled  # type: ignore[method-assign]
    counting = False
    live = MemoryRepo.open(mem, "user:U1").live_index()
    ours: list[float] = []
    own: list[float] = []
    request_cpu: list[float] = []
    index_cpu: list[float] = []
    theirs: list[float] = []
    try:
        for i in range(3):
            answers.remember(live, request(10_000 + i))
        for i in range(opts.count):
            counting = True
            index_cpu.append(0.0)
            started, mine, thread = cpu(), time.process_time(), time.thread_time()
            reply = profiled(request_prof, lambda i=i: answers.remember(live, request(i)))
            request_cpu.append(time.thread_time() - thread)
            ours.append(cpu() - started)
            own.append(time.process_time() - mine)
            counting = False
            assert reply["ok"], reply
            names = [f for f in git_out(mem, "show", "--name-only", "--format=", "HEAD").split() if f.endswith(".md")]
            for name in names:
                (bare / name).parent.mkdir(parents=True, exist_ok=True)
                (bare / name).write_bytes((mem / name).read_bytes())
            started = cpu()
            subprocess.run(["git", "add", "--", *names], cwd=bare, check=True, env=PLAIN, capture_output=True)
            subprocess.run(["git", "commit", "-qm", f"bare {i}"], cwd=bare, check=True, env=PLAIN,
                           capture_output=True)
            theirs.append(cpu() - started)
    finally:
        live.stop()
        server.LiveIndex._apply = apply  # type: ignore[method-assign]
    mine, bare_cpu = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
    print(f"{opts.size:,} memories, {opts.count} served remembers (load {os.getloadavg()[0]:.2f}): "
          f"server CPU {mine:.1f} ms a write (git included; of it the server's process "
          f"{statistics.median(own) * 1000:.1f} ms: the request's thread {statistics.median(request_cpu) * 1000:.1f}, "
          f"the index thread {statistics.median(index_cpu) * 1000:.1f}), bare add + commit {bare_cpu:.1f} ms; "
          f"ratio {mine / bare_cpu:.2f}x")
    for label, prof in (("request thread", request_prof), ("index thread", index_prof)):
        if prof is None:
            continue
        for order in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(order).print_stats(opts.top)
            print(f"--- {label}, by {order}\n{out.getvalue()}")
    for copy in (mem, bare):
        shutil.rmtree(copy, ignore_errors=True)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"({time.perf_counter() - started:.0f} s)")
