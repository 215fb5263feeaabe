"""A served search's CPU with the whole-tree ``git status`` probe asked of the writing git at every
call (what the live index does since the review of #28: exact, so an edit whose event is not
processed yet is never taken as committed) against the kept probe it used before (reused until
an event came). Both in one run, alternating rounds of 100 searches of one live index.

    .venv/bin/python bench/bench_served_probe.py [--memories 2000] [--folders 40] [--rounds 7]

Prints the median CPU time of this process per served search for each, and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from memfs import MemoryRepo
from memfs.agents.live.probe import CachedProbeGit
from memfs.format.declare import CLI, to_wire
from memfs.ops.verbs.recall import Search
from memfs.store import gitcli


def kept_probe(self: CachedProbeGit, pathspec: str) -> gitcli.Probe | None:
    """The probe as it was before: the kept one, until an event makes the live index drop it."""
    self._settle()
    with self._probe_lock:
        if self._probe is not None and self._probe[0] == pathspec:
            return self._probe[1]
    found = self._whole(pathspec)
    with self._probe_lock:
        self._probe = (pathspec, found)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--folders", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp()) / "mem"
    repo = MemoryRepo.init(root, actor="user:U5")
    for key, value in (("user.name", "bench"), ("user.email", "bench@example.invalid")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    for i in range(args.memories):
        folder = root / f"f{i % args.folders}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.md").write_text(
            f"---\ntype: fact\nscope: user:U5\nsource: tool:ci\nstatus: active\n---\nThe rocket {i} is blue.\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "memories"], check=True)
    asked: dict[str, Any] = {"request": to_wire(Search(query="rocket blue"), CLI), "actor": None, "json": False}
    ways = {"kept probe (before)": kept_probe, "asked at every call (after)": CachedProbeGit.probe}
    times: dict[str, list[float]] = {name: [] for name in ways}
    with repo.live_server(debounce=0.01) as server:
        live = server.live
        for _ in range(5):
            live.search(asked)
        for _ in range(args.rounds):
            for name, probe in ways.items():
                CachedProbeGit.probe = probe  # type: ignore[method-assign]
                live.search(asked)
                started = time.process_time()
                for _ in range(100):
                    live.search(asked)
                times[name].append((time.process_time() - started) * 10)
        CachedProbeGit.probe = ways["asked at every call (after)"]  # type: ignore[method-assign]
    for name, found in times.items():
        print(f"{name}: {statistics.median(found):.2f} ms CPU per served search "
              f"({args.memories} memories in {args.folders} folders)")
    print("load average", " ".join(f"{n:.1f}" for n in os.getloadavg()))


if __name__ == "__main__":
    main()
