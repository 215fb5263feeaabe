"""Retraction at scale: a 10k-memory repository where one root has ~1,000 descendants.

The DAG below the root has chains of depth >= 20, diamonds (memories derived from two chains) and
one cycle; 3,000 unrelated memories also carry depends_on edges among themselves, so the graph
loader has realistic noise to skip. The script reports (medians of --runs, CPU and wall):

* graph build: ``load_graph`` (from the write-path cache in ``.memfs/``, validated by one
  ``git status``; #17), the same without the cache (git grep prefilter, read only ``depends_on``
  of the files that mention it) and building it from ``repo.scan()`` (parse all 10k files);
* the closure alone (pure function);
* the whole ``retract`` (graph + closure + ~1,000 minimal-diff edits + validation + journal +
  atomic writes + one commit), in-process and as the ``memfs retract`` command, with the
  repository at rest (caches current; once also right after the reset, which leaves the
  revision cache behind HEAD and ~1,000 files changed within the last second);
* the crash-safe writes alone (``atomic.write_many`` of the same bytes);
* the baseline: a bare ``git add`` + ``git commit`` of exactly the same changed files (the new
  bytes already on disk), and the same including writing those bytes with plain ``write()``;
  once more with the retraction's timestamp moved on per run, so git stores new blobs as a real
  retraction's commit does (the same bytes are already in the object store).

CPU is this process plus its git children (``os.times``). Between runs the retraction is undone
with ``git reset --hard`` (a benchmark-only shortcut; users revert).

    .venv/bin/python bench/bench_retract.py [--memories 10000] [--runs 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memfs import MemoryRepo
from memfs.format import yamlio
from memfs.format.model import FIELDS
from memfs.ops.retract import load_graph, retract
from memfs.policy import lineage
from memfs.store import atomic, revisions

ROOT = "facts/root.md"
CHAINS, DEPTH, DIAMONDS = 40, 22, 100
UNRELATED_DERIVED = 3000


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="b@x", GIT_COMMITTER_NAME="bench")
    env["GIT_COMMITTER_EMAIL"] = "b@x"
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def memory_text(path: str, deps: list[str], now: dt.datetime, rng: random.Random) -> str:
    meta = {
        "id": path[:-3],
        "type": "summary" if deps else "fact",
        "scope": f"user:U{rng.randrange(20)}/project:P{rng.randrange(5)}",
        "source": f"conversation:C{rng.randrange(10_000)}#msg-{rng.randrange(50)}",
        "source_kind": "agent" if deps else "user",
        "revision": 1,
        "created": now,
        "updated": now,
        "depends_on": deps or None,
        "status": "active",
        "confidence": 0.9,
        "description": f"memory {path}",
        "tags": ["bench", f"t{rng.randrange(30)}"],
    }
    body = " ".join(f"word{rng.randrange(5000)}" for _ in range(60))
    return "---\n" + yamlio.render(meta, FIELDS) + "---\n" + body + "\n"


def build_repo(directory: Path, total: int, seed: int = 7) -> tuple[MemoryRepo, int]:
    """Write ``total`` memories directly (no memfs writes) and commit them once."""
    rng = random.Random(seed)
    now = dt.datetime(2026, 9, 20, 10, 0, tzinfo=dt.UTC)
    MemoryRepo.init(directory, actor="agent:bench")
    files: dict[str, list[str]] = {ROOT: []}
    chains = [[f"derived/c{c:02d}/n{k:02d}.md" for k in range(DEPTH)] for c in range(CHAINS)]
    for chain in chains:
        for k, path in enumerate(chain):
            files[path] = [ROOT if k == 0 else chain[k - 1]]
    files[chains[0][0]].append(chains[0][-1])  # the cycle: a chain's head also depends on its own tail
    flat = [p for chain in chains for p in chain]
    for i in range(DIAMONDS):
        a, b = rng.sample(range(CHAINS), 2)
        files[f"derived/diamond/d{i:03d}.md"] = [chains[a][rng.randrange(DEPTH)], chains[b][rng.randrange(DEPTH)]]
    others = [f"notes/{i // 500:02d}/m{i:05d}.md" for i in range(total - len(files))]
    for i, path in enumerate(others):
        files[path] = []
        if i >= 1000 and i < 1000 + UNRELATED_DERIVED:
            files[path] = rng.sample(others[:1000], rng.randrange(1, 4))
    for i in range(20):  # some descendants also cite an unrelated memory (an independent parent)
        files[flat[i * 37 % len(flat)]].append(others[i])
    for path, deps in files.items():
        target = directory / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(memory_text(path, deps, now, rng), encoding="utf-8")
    git(directory, "add", "-A")
    git(directory, "commit", "-qm", "bench: initial memories")
    reverse: dict[str, list[str]] = {}
    for path, deps in files.items():
        for dep in deps:
            reverse.setdefault(dep, []).append(path)
    expected = len(lineage.invalidation_closure([ROOT], reverse))
    return MemoryRepo.open(directory, actor="agent:bench"), expected


def timed(func: Callable[[], object]) -> tuple[float, float, float, object]:
    """(wall, CPU, of which system CPU, result): the kernel's share is printed apart, since on
    some file systems creating a file costs far more than elsewhere (see bench/README.md)."""
    before, start = os.times(), time.perf_counter()
    result = func()
    wall = time.perf_counter() - start
    after = os.times()
    cpu = sum(after[i] - before[i] for i in range(4))
    system = after[1] - before[1] + after[3] - before[3]
    return wall, cpu, system, result


def median_run(
    label: str,
    runs: int,
    func: Callable[[], object],
    reset: Callable[[], None] | None = None,
    prepare: Callable[[], None] | None = None,
) -> dict:
    """Median wall and CPU of ``func`` over ``runs``; ``prepare`` runs untimed before each run."""
    walls, cpus, systems = [], [], []
    result = None
    for _ in range(runs):
        if prepare:
            prepare()
        wall, cpu, system, result = timed(func)
        walls.append(wall)
        cpus.append(cpu)
        systems.append(system)
        if reset:
            reset()
    out = {"label": label, "wall": statistics.median(walls), "cpu": statistics.median(cpus), "result": result}
    print(
        f"{label:<58} wall {out['wall'] * 1000:8.1f} ms   cpu {out['cpu'] * 1000:8.1f} ms"
        f"   (sys {statistics.median(systems) * 1000:6.1f})",
        flush=True,
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="Build the repository here and keep it.")
    args = parser.parse_args()
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="memfs-bench-retract-"))
    start = time.perf_counter()
    if args.keep and (workdir / ROOT).is_file():  # reuse a repository an earlier run kept
        initial = git(workdir, "log", "--format=%H", "--grep=^bench: initial memories$", "-n1").strip()
        git(workdir, "reset", "-q", "--hard", initial)
        repo = MemoryRepo.open(workdir, actor="agent:bench")
        expected = len(lineage.invalidation_closure([ROOT], load_graph(repo.store).children))
    else:
        if workdir.exists() and any(workdir.iterdir()):
            shutil.rmtree(workdir)
        repo, expected = build_repo(workdir, args.memories)
    base = repo.store.git.head()
    print(
        f"repository: {args.memories} memories, root {ROOT} has {expected} descendants "
        f"(built in {time.perf_counter() - start:.1f} s); load average {os.getloadavg()[0]:.2f}, "
        f"{os.cpu_count()} cores; medians of {args.runs} runs\n",
        flush=True,
    )

    def reset() -> None:
        repo.store.git.reset_hard(base)

    def at_head() -> None:
        """The repository at rest, as a retraction usually finds it: the revision cache at HEAD
        (any memfs write leaves it there; the reset moved HEAD off it, so every run would re-read
        history first) and the reset's rewrite of ~1,000 files more than a second old (the
        write-path cache re-reads files changed within the second it last looked). Printed once
        without, below."""
        time.sleep(1.1)
        revisions.marks(repo.store.git, repo.store.pathspec)

    grep = median_run("graph: load_graph (write-path cache, validated)", args.runs, lambda: load_graph(repo.store))
    repo.store.use_catalog = False
    median_run("graph: load_graph without the cache (git grep + depends_on)", args.runs, lambda: load_graph(repo.store))
    repo.store.use_catalog = True
    scan = median_run(
        "graph: parse every file (repo.scan + build)",
        max(1, args.runs // 2),
        lambda: lineage.build(repo.store.scan().memories),
    )
    graph = grep["result"]
    assert graph.children == scan["result"].children
    closure = median_run("closure (pure)", args.runs, lambda: lineage.invalidation_closure([ROOT], graph.children))
    assert len(closure["result"]) == expected
    fsync_log: list[float] = []
    real_fsync = os.fsync

    def counted_fsync(fd: int) -> None:
        start = time.perf_counter()
        real_fsync(fd)
        fsync_log.append(time.perf_counter() - start)

    os.fsync = counted_fsync
    whole = median_run(
        "retract, in-process (graph+closure+edits+commit)",
        args.runs,
        lambda: retract(repo.store, [ROOT], reason="bench"),
        reset,
        prepare=at_head,
    )
    os.fsync = real_fsync
    assert len(whole["result"].plan.downstream) == expected
    per_run = len(fsync_log) // args.runs
    fsync_ms = sum(fsync_log) / args.runs * 1000
    print(f"  of which fsync (foundation's atomic writes): {per_run} calls, mean {fsync_ms:.0f} ms a run")
    os.fsync = lambda fd: None
    nosync = median_run(
        "retract, in-process, fsync disabled (bench only)",
        args.runs,
        lambda: retract(repo.store, [ROOT], reason="b"),
        reset,
        prepare=at_head,
    )
    os.fsync = real_fsync
    median_run(
        "retract, in-process, just after the reset (caches behind)",
        args.runs,
        lambda: retract(repo.store, [ROOT], reason="bench"),
        reset,
    )

    memfs = [sys.executable, "-m", "memfs", "retract", ROOT, "--reason", "bench"]
    cli = median_run(
        "retract, 'memfs retract' command (new process)",
        args.runs,
        lambda: subprocess.run(memfs, cwd=workdir, check=True, capture_output=True),
        reset,
        prepare=at_head,
    )

    retract(repo.store, [ROOT], reason="bench")
    changed = repo.store.git.diff_names("HEAD~1", "HEAD", ".")
    new_bytes = {p: (workdir / p).read_bytes() for p in changed}
    reset()

    def write_all() -> None:
        for p, data in new_bytes.items():
            with open(workdir / p, "wb") as handle:
                handle.write(data)

    def bare_commit() -> None:
        git(workdir, "add", "--", *changed)
        git(workdir, "commit", "-qm", "bare")

    label = f"bare git add + git commit of the same {len(changed)} files"
    bare = median_run(label, args.runs, bare_commit, reset, prepare=write_all)
    stamp = re.search(rb"^updated: (\S+)$", new_bytes[ROOT], re.MULTILINE)
    assert stamp is not None
    shifted = [0]

    def write_unseen() -> None:
        """The same files with the retraction's time moved on a second per run (same length), so
        git stores blobs it has not seen, as a real retraction's commit does: the bytes above are
        already in the object store (the retraction wrote them), so that commit stores no blob."""
        shifted[0] += 1
        when = dt.datetime.fromisoformat(stamp.group(1).decode().replace("Z", "+00:00"))
        new = (when + dt.timedelta(seconds=shifted[0])).strftime("%Y-%m-%dT%H:%M:%SZ").encode()
        for p, data in new_bytes.items():
            with open(workdir / p, "wb") as handle:
                handle.write(data.replace(stamp.group(1), new))

    label = f"bare git add + git commit of the same {len(changed)} files, unseen blobs"
    bare_new = median_run(label, args.runs, bare_commit, reset, prepare=write_unseen)
    from memfs.format import edit
    from memfs.format.model import utcnow
    from memfs.policy.lineage import INVALIDATED_BY, Invalidation
    from memfs.store import gitcli

    def as_memfs_commits() -> None:
        repo.store.git.commit_paths(changed, "memfs: bench\n", gitcli.Identity.for_actor("agent:bench"))

    label = "  memfs gitcli.commit_paths (add -A + commit --only, pathspecs)"
    median_run(label, args.runs, as_memfs_commits, reset, prepare=write_all)
    now = utcnow()
    old = {p: (workdir / p).read_bytes() for p in changed if p != ROOT}
    record = [Invalidation(ROOT, "bench", now, "agent:bench").to_yaml()]
    fields = {"status": "needs_review", INVALIDATED_BY: record}
    median_run(
        f"  edit.update_file (minimal-diff editor) x {len(old)}",
        args.runs,
        lambda: [edit.update_file(p, data, fields, None, now) for p, data in old.items()],
    )
    targets = {workdir / p: data for p, data in new_bytes.items()}
    median_run(
        f"  atomic.write_many of the same {len(targets)} files (temporaries + renames, 2 syncs)",
        args.runs,
        lambda: atomic.write_many(targets, {t: atomic.temp_name(t) for t in targets}),
        reset,
    )
    bare_w = median_run(
        "bare: plain write() of the new bytes + git add + commit",
        args.runs,
        lambda: (write_all(), bare_commit()),
        reset,
    )

    print()
    print(f"graph build speed-up, load_graph vs full scan: {scan['wall'] / grep['wall']:.1f}x")
    for label, run in (("retract (in-process)", whole), ("retract, fsync disabled", nosync), ("'memfs retract'", cli)):
        print(
            f"{label + ' / bare git commit:':<45} {run['wall'] / bare['wall']:5.2f}x wall, "
            f"{run['cpu'] / bare['cpu']:5.2f}x cpu   (vs bare write+commit: {run['wall'] / bare_w['wall']:.2f}x wall)"
        )
        print(f"{'':<45} {run['cpu'] / bare_new['cpu']:5.2f}x cpu against the bare commit of unseen blobs")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
