"""``MemoryRepo.open`` + ``validate()`` of a small, unchanged repository: the findings cache's
fixed cost per call, which the test suite pays thousands of times and a user at every command
that validates (#24).

A repository of SIZE memories (default 8) is written and validated once (the cache is built);
then ROUNDS times, CALLS × (open, validate), the CPU milliseconds per call of this process and its
git children (:func:`benchlib.cpu`); the median of the rounds. Run the same script in another
checkout to compare (alternate the two):

    PYTHONPATH=CHECKOUT .venv/bin/python bench/bench_validate_small.py [--size 8] [--calls 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memfs-bench-") as tmp:
        os.environ.update(HOME=tmp, GIT_CONFIG_GLOBAL=f"{tmp}/gitconfig", GIT_CONFIG_NOSYSTEM="1",
                          MEMFS_HOOKS="skip", MEMFS_FSYNC="0")
        import memfs
        from memfs import MemoryRepo

        root = Path(tmp) / "mem"
        repo = MemoryRepo.init(root, actor="user:U5")
        fields = {"type": "fact", "scope": "user:U5", "source": "bench:small"}
        for i in range(options.size):
            repo.write(f"facts/k{i}.md", fields=fields, body=f"value {i}\n")
        assert repo.validate() == []
        rounds = []
        for _ in range(options.rounds):
            used = cpu()
            for _ in range(options.calls):
                MemoryRepo.open(root, "user:U5").validate()
            rounds.append((cpu() - used) / options.calls * 1000)
    print(f"{memfs.__file__}: open+validate of {options.size} memories: "
          f"{statistics.median(rounds):.2f} ms CPU per call (rounds: {', '.join(f'{r:.2f}' for r in rounds)})")


if __name__ == "__main__":
    main()
