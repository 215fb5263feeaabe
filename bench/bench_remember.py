"""Throughput of ``remember`` and the secret gate's false-positive rate.

1. A repository of SIZE memories (default 10,000; generated directly, one commit) gets COUNT
   candidates (default 1,000: 60% new keys → INSERT, 20% the same value again from a new source
   → REINFORCE, 20% a new value → SUPERSEDE), three ways, each on a fresh copy:
     * memfs, one commit per candidate (``remember``: gate, git grep for the key, reconcile,
       lock, journal, validation, atomic write, commit);
     * memfs, all in one transaction (``remember_batch``, one commit);
     * bare git: the same final file contents written by Python, ``git add`` + ``git commit`` each.
   Prints candidates/s (wall) and CPU (this process plus waited-for git children).
   ``--paired N`` (default 100; 0 skips) then measures the #17 target side by side: N candidates
   alternating, one ``remember`` in-process in one copy, then a bare ``git add`` + ``git commit``
   of the very file it wrote in another copy; and ``--paired-cli`` (default 10) the same with
   ``memfs remember --json -`` as a new process against ``git add`` + ``git commit`` processes
   (``--serve``: with ``memfs serve`` running in that copy, so the CLI asks it, and the server's
   CPU counted with the client's above ``python -c pass``, the #28 target's ratio).
   Prints medians (wall, and CPU including git children) and their ratio.
2. Idempotency lookup: cold (cache deleted: full ``git log --grep`` over history) and warm.
3. Gate false positives: the share of ordinary texts the gate refuses as secrets, on the LoCoMo
   dev turns (read-only from shared/, never copied) and the example repository's bodies; also the
   rate of detect-secrets' full default plugin set (with its entropy and keyword plugins, in its
   file mode) on the same text, for comparison.

    .venv/bin/python bench/bench_remember.py [--size 10000] [--count 1000] [--paired 100]
        [--paired-cli 10] [--serve] [--skip-throughput] [--locomo PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_scale import server_cpu, start_server
from benchlib import ENV, bytecode, commit_all, cpu, git, packed, timed

from memfs import MemoryRepo
from memfs.ops import idempotency
from memfs.ops.remember import remember, remember_batch
from memfs.policy.candidate import Candidate, from_mapping
from memfs.policy.secrets_scan import scan

LOCOMO = Path("/work/shared/bench/locomo/locomo10_dev.json")
BODY = "Service {i} deploys through the staging pipeline after the full test suite passes. "






def make_repo(root: Path, size: int) -> None:
    MemoryRepo.init(root, actor="bench:setup")
    for i in range(size):
        folder = root / "facts" / f"area{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"k{i:05d}.md").write_text(
            f"---\nid: facts/area{i % 10}/k{i:05d}\ntype: fact\nscope: project:P{i % 7}\nkey: k{i:05d}\n"
            f"source: bench:{i}\nsource_kind: document\nrevision: 1\ncreated: 2026-09-20T10:00:00Z\n"
            f"updated: 2026-09-20T10:00:00Z\nstatus: active\nconfidence: 0.8\n---\n{BODY.format(i=i) * 3}\n",
            encoding="utf-8",
        )
    commit_all(root)


def candidates(size: int, count: int) -> list[Candidate]:
    rng = random.Random(7)
    existing = rng.sample(range(size), count)
    out = []
    for n, i in enumerate(existing):
        kind = n % 5
        data = {"type": "fact", "source_kind": "document", "source": f"doc:new-{n}", "idempotency_key": f"bench-{n}"}
        if kind < 3:
            data.update(scope=f"project:P{n % 7}", key=f"new{n:05d}", body=f"New fact number {n} about the release.")
        elif kind == 3:
            data.update(scope=f"project:P{i % 7}", key=f"k{i:05d}", body=(BODY.format(i=i) * 3).strip())
        else:
            data.update(scope=f"project:P{i % 7}", key=f"k{i:05d}", body=f"Service {i} now deploys on Fridays only.")
        out.append(from_mapping(data))
    return out


def run_single(root: Path, cands: list[Candidate]) -> tuple[float, float, dict[str, int]]:
    repo = MemoryRepo.open(root, actor="bench:memfs")
    ops: dict[str, int] = {}
    wall, used = time.perf_counter(), cpu()
    for c in cands:
        op = remember(repo.store, c).op.value
        ops[op] = ops.get(op, 0) + 1
    return time.perf_counter() - wall, cpu() - used, ops


def run_batch(root: Path, cands: list[Candidate]) -> tuple[float, float]:
    repo = MemoryRepo.open(root, actor="bench:memfs")
    wall, used = time.perf_counter(), cpu()
    remember_batch(repo.store, cands)
    return time.perf_counter() - wall, cpu() - used


def run_bare(root: Path, final: Path, cands: list[Candidate]) -> tuple[float, float]:
    """The same files (taken from the memfs run's result) written and committed one by one."""
    out = subprocess.run(
        ["git", "log", "--format=", "--name-only", f"-n{len(cands)}"],
        cwd=final,
        capture_output=True,
        text=True,
        env=ENV,
    ).stdout.split()
    files = [f for f in out if f.endswith(".md")][::-1]
    wall, used = time.perf_counter(), cpu()
    for name in files:
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((final / name).read_bytes())
        git(root, "add", "--", name)
        git(root, "commit", "-qm", f"bare {name}")
    return time.perf_counter() - wall, cpu() - used


def paired(base: Path, tmp: Path, size: int, count: int, cli: bool, serve: bool = False) -> None:
    """``remember`` and a bare add + commit of the file it wrote, alternating, one pair at a time
    (``serve``: the CLI's through a ``memfs serve`` of the copy, see :func:`served_ratio`)."""
    mem, bare = tmp / ("pair-cli-mem" if cli else "pair-mem"), tmp / ("pair-cli-bare" if cli else "pair-bare")
    for path in (mem, bare):
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(base, path, symlinks=True)
    repo = MemoryRepo.open(mem, actor="bench:memfs")
    cands = candidates(size, count + 3)
    command = [sys.executable, "-m", "memfs", "remember", "--json", "-"]
    for c in cands[:3]:  # warm-up (builds the write-path cache once, as the first write of a session does)
        remember(repo.store, c)
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    served: list[float] = []
    floor: list[float] = []
    server = start_server(mem)[0] if serve else None
    for n, c in enumerate(cands[3:]):
        before = git_out(mem, "rev-parse", "HEAD")
        if cli:
            data = json.dumps({k: v for k, v in _mapping(c).items() if v is not None})
            floor.append(timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True))[1])
            was = server_cpu(server.pid) if server else 0.0
            spent = timed(lambda d=data: subprocess.run(command, cwd=mem, input=d, text=True, check=True,  # type: ignore[misc]
                                                        capture_output=True, env=ENV))
            served.append(server_cpu(server.pid) - was if server else 0.0)
        else:
            spent = timed(lambda c=c: remember(repo.store, c))  # type: ignore[misc]
        if git_out(mem, "rev-parse", "HEAD") == before:
            continue  # a NOOP commits nothing: there is no bare counterpart
        ours.append(spent)
        names = [f for f in git_out(mem, "show", "--name-only", "--format=", "HEAD").split() if f.endswith(".md")]
        for name in names:
            (bare / name).parent.mkdir(parents=True, exist_ok=True)
            (bare / name).write_bytes((mem / name).read_bytes())
        theirs.append(timed(lambda names=names, n=n: (bare_git(bare, "add", "--", *names),  # type: ignore[misc]
                                                      bare_git(bare, "commit", "-qm", f"bare {n}"))))
    if server is not None:
        server.terminate()
        server.wait(timeout=60)
    label = "memfs remember --json - (new process)" if cli else "memfs remember (in-process)"
    report_pair(label + (" through memfs serve" if serve else ""), ours,
                "bare git add + git commit of the same file(s)", theirs)
    if serve:
        served_ratio(ours, served, floor, theirs)


def served_ratio(ours: list[tuple[float, float]], served: list[float], floor: list[float],
                 theirs: list[tuple[float, float]]) -> None:
    """The #28 target's ratio: (client CPU + the server's share − ``python -c pass``) / a bare
    ``git add`` + ``git commit``, CPU, medians (the server's in 10 ms clock ticks, so its mean too)."""
    client, bare = statistics.median(c for _, c in ours), statistics.median(c for _, c in theirs)
    server, python = statistics.median(served), statistics.median(floor)
    mean = statistics.fmean(served)
    print(f"  client CPU {client * 1000:.1f} ms, server CPU {server * 1000:.1f} ms (mean {mean * 1000:.1f}), "
          f"python -c pass {python * 1000:.1f} ms, bare {bare * 1000:.1f} ms")
    print(f"  (client + server - python floor) / bare: {(client + server - python) / bare:.2f}x "
          f"(with the server's mean {(client + mean - python) / bare:.2f}x); load average {os.getloadavg()[0]:.2f}")


def bare_git(cwd: Path, *args: str) -> None:
    """git without memfs's hooks (the copy is a memfs repository), which a memfs commit skips too."""
    subprocess.run(["git", *args], cwd=cwd, check=True, env={**ENV, "MEMFS_HOOKS": "skip"}, capture_output=True)


def _mapping(c: Candidate) -> dict[str, object]:
    return {"type": c.type, "scope": c.scope, "key": c.key, "source": c.source, "source_kind": c.source_kind,
            "body": c.body, "idempotency_key": c.idempotency_key}


def git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, env=ENV, capture_output=True, text=True).stdout


def report_pair(label: str, ours: list[tuple[float, float]], other: str, theirs: list[tuple[float, float]]) -> None:
    wall_o, cpu_o = statistics.median(w for w, _ in ours), statistics.median(c for _, c in ours)
    wall_t, cpu_t = statistics.median(w for w, _ in theirs), statistics.median(c for _, c in theirs)
    print(f"{label}: median {wall_o * 1000:.1f} ms wall, {cpu_o * 1000:.1f} ms CPU (n={len(ours)})")
    print(f"{other}: median {wall_t * 1000:.1f} ms wall, {cpu_t * 1000:.1f} ms CPU")
    print(f"  ratio: {wall_o / wall_t:.2f}x wall, {cpu_o / cpu_t:.2f}x CPU; load average {os.getloadavg()[0]:.2f}")


def idempotency_lookup(root: Path) -> tuple[float, float, int]:
    repo = MemoryRepo.open(root, actor="bench:memfs")
    idempotency.drop_cache(repo.store)
    t = time.perf_counter()
    keys = idempotency.applied_keys(repo.store)
    cold = time.perf_counter() - t
    warm = []
    for _ in range(20):
        t = time.perf_counter()
        idempotency.applied_in(repo.store, "bench-5")
        warm.append(time.perf_counter() - t)
    return cold, sorted(warm)[len(warm) // 2], len(keys)


def ordinary_texts(locomo: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if locomo.is_file():
        data = json.loads(locomo.read_text(encoding="utf-8"))
        turns = []
        for conv in data:
            for name, session in conv["conversation"].items():
                if name.startswith("session_") and isinstance(session, list):
                    turns += [t["text"] for t in session if t.get("text")]
        out["LoCoMo dev turns"] = turns
    example = Path(__file__).resolve().parents[1] / "example_repo"
    if example.is_dir():
        out["example_repo files"] = [p.read_text(encoding="utf-8") for p in sorted(example.rglob("*.md"))]
    return out


def detect_secrets_default_rate(texts: list[str]) -> float:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import default_settings

    flagged = 0
    with default_settings():
        plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()]
        for text in texts:
            if any(
                p.analyze_line(filename="memory.md", line=line, line_number=n)
                for n, line in enumerate(text.splitlines(), 1)
                for p in plugins
            ):
                flagged += 1
    return flagged / max(1, len(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--count", type=int, default=1_000)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--paired", type=int, default=100)
    parser.add_argument("--paired-cli", type=int, default=10)
    parser.add_argument("--serve", action="store_true",
                        help="Run the CLI pairs through 'memfs serve' (#28's CLI remember target).")
    parser.add_argument("--skip-gate", action="store_true", help="Skip the gate false-positive part.")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")

    if args.paired_cli:
        bytecode()  # fresh processes run compiled memfs, as an installed one does
    if args.paired or args.paired_cli:
        with tempfile.TemporaryDirectory(prefix="memfs-bench-") as tmp:
            base = Path(tmp) / "base"
            make_repo(base, args.size)
            packed(base)
            if args.paired:
                paired(base, Path(tmp), args.size, args.paired, cli=False)
            if args.paired_cli:
                paired(base, Path(tmp), args.size, args.paired_cli, cli=True, serve=args.serve)

    if not args.skip_throughput:
        with tempfile.TemporaryDirectory(prefix="memfs-bench-") as tmp:
            base = Path(tmp) / "base"
            make_repo(base, args.size)
            cands = candidates(args.size, args.count)
            copies = {name: Path(tmp) / name for name in ("single", "batch", "bare")}
            for path in copies.values():
                shutil.copytree(base, path, symlinks=True)
            wall, used, ops = run_single(copies["single"], cands)
            print(
                f"memfs remember, one commit each: {args.count / wall:.1f} candidates/s "
                f"({wall * 1000 / args.count:.1f} ms wall, {used * 1000 / args.count:.1f} ms CPU each); ops {ops}"
            )
            single_wall = wall
            wall, used = run_batch(copies["batch"], cands)
            print(
                f"memfs remember_batch, one commit: {args.count / wall:.1f} candidates/s "
                f"({wall:.2f} s wall, {used:.2f} s CPU in all)"
            )
            wall, used = run_bare(copies["bare"], copies["single"], cands)
            print(
                f"bare git add+commit of the same files: {args.count / wall:.1f} files/s "
                f"({wall * 1000 / args.count:.1f} ms wall, {used * 1000 / args.count:.1f} ms CPU each)"
            )
            print(f"ratio memfs single / bare git (wall): {single_wall / wall:.2f}")
            cold, warm, n = idempotency_lookup(copies["single"])
            print(
                f"idempotency lookup: cold {cold * 1000:.1f} ms ({n} keys, full git log scan), "
                f"warm {warm * 1000:.2f} ms (median of 20)"
            )

    for name, texts in ({} if args.skip_gate else ordinary_texts(args.locomo)).items():
        t = time.process_time()
        flagged = [x for x in texts if scan(x)]
        spent = time.process_time() - t
        rate = len(flagged) / max(1, len(texts))
        print(
            f"gate false positives on {name}: {len(flagged)}/{len(texts)} = {rate:.2%} "
            f"({spent * 1e6 / max(1, len(texts)):.0f} µs CPU per text)"
        )
        for text in flagged[:5]:
            print(f"    flagged: {text[:100]!r} -> {[f.rule for f in scan(text)]}")
        print(
            f"    detect-secrets with all default plugins (entropy, keyword...): "
            f"{detect_secrets_default_rate(texts):.2%} flagged"
        )


if __name__ == "__main__":
    main()
