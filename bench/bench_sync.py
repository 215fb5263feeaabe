"""Collaboration costs: ``memfs sync`` with N pending commits against a remote holding many
memories, and merge driver throughput.

Sync is timed in two situations per N: *push only* (the remote did not move: fetch, nothing to
integrate, fast-forward push) and *rebase* (another clone pushed one commit first: fetch, backup
ref, rebase N commits, post-merge validation, push). The N commits are made with ``repo.write``
beforehand and are not timed. Remote: a bare repository on the local file system.

Merge driver: three-way merges of one memory where both sides changed different fields
(frontmatter only) or also different paragraphs of the body (one ``git merge-file``), in
process, and as git runs it (``python -m memfs merge-driver``, one process per file).

CPU = this process + waited-for children (git, the driver). Medians over rounds.
Usage: .venv/bin/python bench/bench_sync.py [--memories 10000] [--pending 1 10 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchlib import git, timed

from memfs import MemoryRepo
from memfs.format import edit
from memfs.format.model import utcnow
from memfs.ops.sync import sync
from memfs.policy import merge
from memfs.store import gitcli
from memfs.store.init import configure_merge_driver


def fields(i: int) -> dict[str, object]:
    return {
        "type": "fact",
        "scope": f"user:U{i % 50}/project:P{i % 7}",
        "source": f"conversation:C{i}",
        "description": f"memory number {i}",
        "tags": ["bench", f"g{i % 13}"],
    }


def build_remote(tmp: Path, memories: int) -> Path:
    bare = tmp / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", str(bare)], check=True)
    seed = MemoryRepo.init(tmp / "seed", actor="agent:seed")
    now = utcnow()
    for i in range(memories):
        rel = f"facts/d{i % 20}/m{i}.md"
        path = seed.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(
            edit.new_file(rel, fields(i), f"Body of memory {i}.\n\nSecond paragraph.\n", now).content or b""
        )
    git(seed.root, "add", "-A")
    git(seed.root, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "seed")
    git(seed.root, "remote", "add", "origin", str(bare))
    git(seed.root, "push", "-q", "origin", "main")
    return bare


def clone(tmp: Path, bare: Path, name: str) -> MemoryRepo:
    path = tmp / name
    git(tmp, "clone", "-q", str(bare), str(path))
    repo = MemoryRepo.open(path, actor=f"agent:{name}")
    configure_merge_driver(repo.store.git)
    return repo


def bench_sync(tmp: Path, memories: int, pending: list[int], rounds: int) -> None:
    t0 = time.perf_counter()
    bare = build_remote(tmp, memories)
    a, b = clone(tmp, bare, "a"), clone(tmp, bare, "b")
    print(f"remote with {memories} memories built and cloned twice in {time.perf_counter() - t0:.1f}s wall")
    print(f"{'pending':>8} {'case':<10} {'wall ms':>10} {'cpu ms':>10}  (median of {rounds})")
    serial = 0
    for n in pending:
        for case in ("push-only", "rebase"):
            walls, cpus = [], []
            for _ in range(rounds):
                sync(b.store)
                sync(a.store)
                for _ in range(n):
                    serial += 1
                    a.write(f"new/a{serial}.md", fields=fields(serial), body=f"pending {serial}\n")
                if case == "rebase":
                    serial += 1
                    b.write(f"new/b{serial}.md", fields=fields(serial), body=f"other {serial}\n")
                    sync(b.store)
                w, c = timed(lambda: sync(a.store))
                walls.append(w)
                cpus.append(c)
            print(f"{n:>8} {case:<10} {statistics.median(walls) * 1000:>10.0f} {statistics.median(cpus) * 1000:>10.0f}")


def doc(**changes: object) -> bytes:
    meta = {**fields(1), "id": "m", "revision": 3, "created": "2026-09-20T10:00:00Z"}
    meta.update({"updated": "2026-09-20T10:00:00Z", "status": "active"})
    meta.update(changes)
    body = changes.pop("body", "para one\n\npara two\n\npara three\n")
    from memfs.format import yamlio

    meta.pop("body", None)
    return ("---\n" + yamlio.render(meta) + "---\n" + str(body)).encode()


def bench_driver(tmp: Path, count: int, rounds: int) -> None:
    base = doc()
    fm_ours = doc(status="retracted", revision=4, updated="2026-09-21T10:00:00Z")
    fm_theirs = doc(description="edited", tags=["bench", "x"], revision=4, updated="2026-09-22T10:00:00Z")
    body_ours = doc(status="retracted", body="para ONE\n\npara two\n\npara three\n")
    body_theirs = doc(description="edited", body="para one\n\npara two\n\npara THREE\n")
    text = partial(gitcli.merge_text, labels=merge.LABELS)
    print(f"\nmerge driver, {count} merges per round, median of {rounds}")
    print(f"{'case':<34} {'merges/s (wall)':>16} {'cpu ms/merge':>13}")
    for name, ours, theirs in (
        ("in process, frontmatter only", fm_ours, fm_theirs),
        ("in process, + body merge-file", body_ours, body_theirs),
    ):
        rates, per = [], []
        for _ in range(rounds):
            w, c = timed(lambda o=ours, t=theirs: [merge.merge_memory("m.md", base, o, t, text) for _ in range(count)])
            rates.append(count / w)
            per.append(c / count * 1000)
        print(f"{name:<34} {statistics.median(rates):>16.0f} {statistics.median(per):>13.2f}")
    files = {n: tmp / n for n in ("O", "A", "B")}
    cli = max(5, count // 20)
    rates, per = [], []
    for _ in range(rounds):

        def run_cli() -> None:
            for _ in range(cli):
                files["O"].write_bytes(base)
                files["A"].write_bytes(body_ours)
                files["B"].write_bytes(body_theirs)
                subprocess.run(
                    [sys.executable, "-m", "memfs", "merge-driver", *(str(files[k]) for k in "OAB"), "m.md"],
                    check=True,
                    capture_output=True,
                )

        w, c = timed(run_cli)
        rates.append(cli / w)
        per.append(c / cli * 1000)
    print(
        f"{'as git runs it (process per file)':<34} {statistics.median(rates):>16.1f} {statistics.median(per):>13.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--pending", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--merges", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    print(f"loadavg at start: {os.getloadavg()[0]:.1f} (2 cores shared)")
    with tempfile.TemporaryDirectory(prefix="memfs-bench-sync-") as tmp:
        bench_driver(Path(tmp), args.merges, args.rounds)
        bench_sync(Path(tmp), args.memories, args.pending, args.rounds)
    print(f"loadavg at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
