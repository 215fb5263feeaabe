"""Cost of one memfs write + commit against a bare `git add` + `git commit` of the same file,
and of validating the whole repository (as a pre-commit hook would).

For each repository size (default 1,000 and 10,000 memory files, generated directly and
committed once), alternate ROUNDS times between:
  * memfs: ``MemoryRepo.write(path, fields={"description": ...})`` (lock, journal, minimal edit,
    validation, atomic write, commit of exactly that path);
  * bare:  the same one-line edit written by Python, then ``git add FILE`` and ``git commit -q``.
Prints medians of wall and CPU time (this process plus waited-for git children) and the ratio.

    .venv/bin/python bench/bench_write.py [--sizes 1000 10000] [--rounds 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import ENV, commit_all, git, timed

from memfs import MemoryRepo

BODY = "The deploy pipeline for service {i} runs the full test suite before release. " * 6


def make_repo(root: Path, count: int) -> MemoryRepo:
    MemoryRepo.init(root, actor="bench:setup")
    for i in range(count):
        folder = root / f"area{i % 5}"
        folder.mkdir(exist_ok=True)
        (folder / f"m{i:05d}.md").write_text(
            f"---\nid: m{i:05d}\ntype: fact\nscope: project:P{i % 7}\nsource: bench:{i}\nrevision: 1\n"
            f"created: 2026-09-20T10:00:00Z\nupdated: 2026-09-20T10:00:00Z\nstatus: active\n"
            f"description: memory {i}\n---\n{BODY.format(i=i)}\n",
            encoding="utf-8",
        )
    commit_all(root)
    return MemoryRepo.open(root, actor="bench:memfs")








def bench_size(count: int, rounds: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="memfs-bench-") as tmp:
        root = Path(tmp) / "mem"
        repo = make_repo(root, count)
        memfs_times, bare_times = [], []
        for r in range(rounds):
            memfs_path = f"area{r % 5}/m{r:05d}.md"
            bare_file = root / f"area{(count - 1 - r) % 5}/m{count - 1 - r:05d}.md"

            def memfs_write(path: str = memfs_path, r: int = r) -> None:
                repo.write(path, fields={"description": f"edited {r}"})

            def bare_commit(path: Path = bare_file, r: int = r) -> None:
                text = path.read_text(encoding="utf-8")
                path.write_text(text.replace("description: memory", f"description: edited {r} memory"), "utf-8")
                git(root, "add", str(path))
                git(root, "commit", "-qm", f"edit {r}")

            memfs_times.append(timed(memfs_write))
            bare_times.append(timed(bare_commit))
        validate_times = [timed(repo.validate) for _ in range(3)]
        cli_times = [timed(lambda: subprocess.run([sys.executable, "-m", "memfs", "-C", str(root), "validate", "-q"],
                                                  env=ENV, capture_output=True, check=True)) for _ in range(3)]
    out = {"validate_ms": statistics.median(s[0] for s in validate_times) * 1000,
           "validate_cli_ms": statistics.median(s[0] for s in cli_times) * 1000}
    for name, samples in (("memfs", memfs_times), ("bare", bare_times)):
        out[f"{name}_wall_ms"] = statistics.median(s[0] for s in samples) * 1000
        out[f"{name}_cpu_ms"] = statistics.median(s[1] for s in samples) * 1000
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    print("files   memfs write+commit ms (wall/cpu)   bare git add+commit ms (wall/cpu)   ratio wall / cpu")
    results = []
    for count in args.sizes:
        r = bench_size(count, args.rounds)
        results.append((count, r))
        print(
            f"{count:>6}  {r['memfs_wall_ms']:>10.1f} / {r['memfs_cpu_ms']:<10.1f}"
            f"            {r['bare_wall_ms']:>10.1f} / {r['bare_cpu_ms']:<10.1f}"
            f"           {r['memfs_wall_ms'] / r['bare_wall_ms']:.2f} / {r['memfs_cpu_ms'] / r['bare_cpu_ms']:.2f}"
        )
    print("validate (whole repo, library / fresh CLI process), ms wall:")
    for count, r in results:
        print(f"{count:>6}  {r['validate_ms']:.0f} / {r['validate_cli_ms']:.0f}")
    print(f"load average at end: {os.getloadavg()[0]:.1f}; medians of {args.rounds} alternating rounds")


if __name__ == "__main__":
    main()
