"""What the writer-ref route and the integrator cost (#25 item 1), sequentially, on a file remote.

For each N (writers): N clones each ``remember`` one memory and sync, on the ``direct`` route
(each sync after the first finds main moved: fetch, rebase, push) and on the ``writer-ref`` route
(fetch main, push the writer's own branch); then one ``integrate`` round brings the N writer
branches into main, and a second round finds nothing new. The writers run one after another: this
measures CPU per operation and per writer integrated, not contention (the concurrent N-writer
benchmark against real servers is ``bench_servers``'s job). CPU = this process + waited-for git
children. Medians over rounds.

Usage: .venv/bin/python bench/bench_integrate.py [--writers 5 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import git, timed

from memfs import MemoryRepo
from memfs.ops.sync import sync


def clone(url: Path, path: Path, actor: str) -> MemoryRepo:
    git(path.parent, "clone", "-q", str(url), str(path))
    return MemoryRepo.open(path, actor=actor)


def fact(n: int) -> dict[str, object]:
    return {"type": "fact", "scope": f"team:t{n}", "key": "lang", "body": f"value {n}", "source": f"doc:{n}",
            "source_kind": "document"}


def one_round(tmp: Path, writers: int) -> dict[str, float]:
    seed = MemoryRepo.init(tmp / "seed", actor="agent:seed")
    git(tmp, "clone", "-q", "--bare", str(seed.root), str(tmp / "remote.git"))
    remote = tmp / "remote.git"
    out: dict[str, float] = {}
    for route in ("direct", "writer-ref"):
        repos = [clone(remote, tmp / f"{route}-w{i}", f"agent:w{i}") for i in range(writers)]
        for i, repo in enumerate(repos):
            repo.remember(fact(i + (writers if route == "writer-ref" else 0)))
        costs = [timed(partial(sync, repo.store, route=route))[1] for repo in repos]
        out[f"sync {route} CPU ms/op"] = 1000 * statistics.median(costs)
    integrator = clone(remote, tmp / "integrator", "agent:integrator")
    out["integrate N writers CPU ms"] = 1000 * timed(integrator.integrate)[1]
    out["integrate nothing new CPU ms"] = 1000 * timed(integrator.integrate)[1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, nargs="+", default=[5, 20])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    for writers in args.writers:
        runs = []
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                runs.append(one_round(Path(tmp), writers))
        print(f"\nN = {writers} writers (medians of {args.rounds} rounds)")
        for name in runs[0]:
            value = statistics.median(r[name] for r in runs)
            per = f"  ({value / writers:.0f} per writer)" if name == "integrate N writers CPU ms" else ""
            print(f"  {name:32} {value:8.0f}{per}")
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
