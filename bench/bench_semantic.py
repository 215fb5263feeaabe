"""What ``[semantic]`` costs ``memfs search`` (library, catch-up included), side by side in one run.

    python bench/bench_semantic.py --repo /tmp/locomo-dev/conv-26 [--runs 7]

``--repo`` is a memory repository (a LoCoMo conversation from ``convert.py --git per-conv`` is
about 500 memories); it is copied to a temporary folder, never changed. The embedder is
``bench_langgraph.embed`` (a hashed bag of words: free and deterministic), so the figures are
memfs's cost, not a model's. Rows: a query BM25 fills (the embedder is not asked), a query that
shares no word with any memory (BM25 has no hit; the vectors rank every eligible memory) with
the vector cache cold (every body embedded) and warm, each against the same query without
``[semantic]``. Prints medians (wall and CPU ms) and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import timed

from memfs import MemoryRepo, index
from memfs.ops import semantic

FILLED = "When did Caroline go to the support group?"
NO_WORD = "zyxwvut qqqqq"


def _configure(root: Path, on: bool) -> None:
    path = root / ".memfs.toml"
    kept = path.read_text(encoding="utf-8").split("\n[semantic]")[0] if path.exists() else "format = 1\n"
    path.write_text(kept + ('\n[semantic]\nembed = "bench_langgraph:embed"\ndims = 256\n' if on else ""),
                    encoding="utf-8")


def _median(repo: MemoryRepo, query: str, runs: int, *, cold: bool = False) -> tuple[float, float, int]:
    walls, cpus, hits = [], [], 0
    for _ in range(runs):
        if cold:
            shutil.rmtree(repo.root / ".memfs" / "vectors", ignore_errors=True)
            semantic._caches.clear()
        found: list[int] = []
        wall, used = timed(lambda found=found: found.append(len(repo.search(query, limit=10).hits)))
        walls.append(wall * 1000)
        cpus.append(used * 1000)
        hits = found[0]
    return statistics.median(walls), statistics.median(cpus), hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-semantic-")) / "mem"
    shutil.copytree(args.repo, root, symlinks=True)
    shutil.rmtree(root / ".memfs", ignore_errors=True)
    repo = MemoryRepo.open(root)
    index.reindex(repo.store)
    count = len(repo.store.memory_paths())
    print(f"{count} memories; median of {args.runs}; wall ms / CPU ms / hits")
    print("| query | words only | with [semantic] |")
    print("|---|---|---|")
    for label, query, cold in [("BM25 fills the page", FILLED, False), ("no word in common, cache cold", NO_WORD, True),
                               ("no word in common, cache warm", NO_WORD, False)]:
        _configure(root, False)
        off = _median(repo, query, args.runs)
        _configure(root, True)
        on = _median(repo, query, args.runs, cold=cold)
        print(f"| {label} | {off[0]:.1f} / {off[1]:.1f} / {off[2]} | {on[0]:.1f} / {on[1]:.1f} / {on[2]} |")
    print(f"load average: {os.getloadavg()[0]:.1f}")
    shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
