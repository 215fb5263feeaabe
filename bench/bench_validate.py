"""Whole-repository ``validate`` and its secret scan at scale (#17).

A corpus of SIZE memories (default 10,000) from ``corpus.py`` is written once; then, RUNS times,
``Store.validate()`` (parse every file, field and cross-file checks, the secret scan of every
file) and the secret scan alone (``secrets_scan.scan`` of every file's text), medians of CPU
seconds. Run the same script in another checkout to compare (alternate the two).

    .venv/bin/python bench/bench_validate.py [--size 10000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import packed
from corpus import generate, write

from memfs import MemoryRepo
from memfs.policy.conflicts import tokens
from memfs.policy.secrets_scan import scan
from memfs.store.reading import conflict_problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Build the corpus here (reused when present).")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="memfs-bench-validate-"))
    root = work / "corpus"
    if not (root / ".git").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        write(root, generate(args.size, seed=1))
        packed(root)
    repo = MemoryRepo.open(root, actor="bench:validate")
    texts = [(root / rel).read_text(encoding="utf-8") for rel in repo.store.memory_paths()]
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {len(texts)} files")
    scans, validates, conflicts = [], [], []
    memories = repo.store.scan().memories
    for _ in range(args.runs):
        started = time.process_time()
        found = sum(len(scan(text)) for text in texts)
        scans.append(time.process_time() - started)
        started = time.process_time()
        problems = repo.validate()
        validates.append(time.process_time() - started)
        tokens.cache_clear()
        started = time.process_time()
        pairs = conflict_problems(memories)
        conflicts.append(time.process_time() - started)
    print(f"secret scan of every file: {statistics.median(scans):.2f} CPU-s "
          f"({statistics.median(scans) / len(texts) * 1e6:.0f} µs a file; {found} findings)")
    print(f"validate (whole repository): {statistics.median(validates):.2f} CPU-s ({len(problems)} problems); "
          f"load average at end {os.getloadavg()[0]:.2f}")
    print(f"  of which probable conflicts (#27): {statistics.median(conflicts):.2f} CPU-s, cold token cache "
          f"({len(pairs) // 2} pairs)")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
