"""Whole-repository ``validate`` and its secret scan at scale (#17).

A corpus of SIZE memories (default 10,000) from ``corpus.py`` is written once; then, RUNS times,
``Store.validate()`` (parse every file, field and cross-file checks, the secret scan of every
file) and the secret scan alone (``secrets_scan.scan`` of every file's text), medians of CPU
seconds. Then the findings cache (#28): validate without it, a first validate (which builds it), a
second one, and one after a single file was edited, side by side. Run the same script in another
checkout to compare (alternate the two).

    .venv/bin/python bench/bench_validate.py [--size 10000] [--runs 3] [--keep DIR] [--cache-only]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import packed
from corpus import generate, write

from memfs import MemoryRepo
from memfs.policy.conflicts import tokens
from memfs.policy.secrets_scan import scan
from memfs.store import findings
from memfs.store.reading import conflict_problems


def _cpu(call: Callable[[], object]) -> float:
    tokens.cache_clear()
    started = time.process_time()
    call()
    return time.process_time() - started


def cached_runs(repo: MemoryRepo, root: Path, runs: int) -> None:
    """The findings cache (#28), side by side in one run: validate without it (every file read,
    parsed and scanned: what validate cost before), a first validate (no cache: it is built and
    written), a second one (the cache is used whole), and one after a single file was edited in
    the working tree. Each checked to find what the uncached one finds."""
    store = repo.store
    cache = store.cache_dir / findings.CACHE_DIR
    edited = root / store.memory_paths()[-1]
    original = edited.read_bytes()
    uncached, first, second, after_edit, again = [], [], [], [], []
    expected = store.validate(store.scan())
    for number in range(runs):
        uncached.append(_cpu(lambda: store.validate(store.scan())))
        shutil.rmtree(cache, ignore_errors=True)
        first.append(_cpu(store.validate))
        time.sleep(0.05)  # past the clock tick the first run began in (its racily clean files)
        second.append(_cpu(store.validate))
        edited.write_bytes(original + f"\nedit {number}\n".encode())
        after_edit.append(_cpu(store.validate))
        edited.write_bytes(original)
        assert store.validate() == expected
        time.sleep(0.05)
        again.append(_cpu(store.validate))
    base = statistics.median(uncached)
    size = sum(p.stat().st_size for p in cache.iterdir())
    print(f"findings cache ({size / 1e6:.1f} MB on disk), CPU-s medians of {runs}; "
          f"load average {os.getloadavg()[0]:.2f}:")
    for name, times in (("validate without the cache", uncached), ("first validate (builds it)", first),
                        ("second validate (unchanged)", second), ("after one file edited", after_edit),
                        ("unchanged again, after edits", again)):
        median = statistics.median(times)
        print(f"  {name:30} {median:7.2f}  ({median / base:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="Build the corpus here (reused when present).")
    parser.add_argument("--cache-only", action="store_true", help="Only the findings cache's figures (#28).")
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
    if not args.cache_only:
        whole_runs(repo, texts, args.runs)
    cached_runs(repo, root, args.runs)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


def whole_runs(repo: MemoryRepo, texts: list[str], runs: int) -> None:
    """The secret scan of every file, validate without the findings cache, the conflict check."""
    scans, validates, conflicts = [], [], []
    memories = repo.store.scan().memories
    for _ in range(runs):
        started = time.process_time()
        found = sum(len(scan(text)) for text in texts)
        scans.append(time.process_time() - started)
        started = time.process_time()
        problems = repo.store.validate(repo.store.scan())
        validates.append(time.process_time() - started)
        tokens.cache_clear()
        started = time.process_time()
        pairs = conflict_problems(memories)
        conflicts.append(time.process_time() - started)
    print(f"secret scan of every file: {statistics.median(scans):.2f} CPU-s "
          f"({statistics.median(scans) / len(texts) * 1e6:.0f} µs a file; {found} findings)")
    print(f"validate (whole repository, without the findings cache): {statistics.median(validates):.2f} CPU-s "
          f"({len(problems)} problems); load average at end {os.getloadavg()[0]:.2f}")
    print(f"  of which probable conflicts (#27): {statistics.median(conflicts):.2f} CPU-s, cold token cache "
          f"({len(pairs) // 2} pairs)")


if __name__ == "__main__":
    main()
