"""CPU of a fresh ``memfs`` process per write, the direct path (no ``memfs serve``): issues #25 and #28.

Side by side, alternating run by run, two copies of memfs on ``PYTHONPATH`` (``--before``: a
folder holding a ``memfs`` package, e.g. ``git archive main memfs | tar -x -C DIR``; the other is
this checkout), each compiled to bytecode first (``benchlib.bytecode``), with ``MEMFS_NO_LIVE=1``:

* ``remember``: ``memfs --actor user:U1 remember --json -`` of a new preference, in a repository
  of 3k and one of 30k memories (``corpus.py``; each copy of memfs writes in its own copy);
* ``sync, nothing``: ``memfs sync`` in a clone that is up to date with its own remote (3k);
* ``sync, 1 to push``: ``memfs sync`` after one plain-git commit of a new memory (3k);
* the git baselines: ``git add`` + ``git commit`` of one new file in a copy of the same size, and
  ``git add`` + ``git commit`` + ``git pull --rebase`` + ``git push`` (nothing to pull) in a plain
  clone of the 3k repository with a remote of its own;
* ``python -c pass``: the interpreter's start-up floor.

CPU is the child's user + system with its own children (git), from ``wait4``. Prints the medians
and the targets' ratios: #25 (remember + sync with one to push) / (git commit + pull + push) and
#28 (remember - python floor) / (git add + commit).

    .venv/bin/python bench/bench_cli_cpu.py --before /tmp/main_src [--runs 9] [--sizes 3000 30000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from benchlib import ENV, bytecode, git, packed

CHECKOUT = Path(__file__).resolve().parents[1]
REMEMBER = ["--actor", "user:U1", "remember", "--json", "-"]


def child_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(command: list[str], cwd: Path, env: dict[str, str], stdin: str = "") -> float:
    """CPU seconds of one process (and the processes it waited for)."""
    before = child_cpu()
    subprocess.run(command, cwd=cwd, env=env, input=stdin, text=True, check=True, capture_output=True)
    return child_cpu() - before


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def build(base: Path, n: int) -> Path:
    root = base / f"mem{n}"
    if not (root / ".git").exists():
        corpus.write(root, corpus.generate(n, seed=1))
        packed(root)
    return root


def candidate(i: int) -> str:
    return json.dumps({"type": "preference", "scope": "user:U1", "key": f"bench.cli.{i}", "source": "user:U1",
                       "source_kind": "user", "body": f"Prefers option {i} for the CLI benchmark."})


def plain_commit(root: Path, name: str) -> None:
    """A new memory committed by plain git (what a sync then has to push)."""
    path = root / "facts" / f"{name}.md"
    path.write_text(f"---\ntype: fact\nscope: user:U1\nsource: user:U1\n---\nPlain commit {name}.\n")
    git(root, "add", "--", str(path.relative_to(root)))
    git(root, "commit", "-qm", f"plain {name}")


def bare_commit(root: Path, name: str, env: dict[str, str]) -> float:
    """CPU of a plain ``git add`` + ``git commit`` of one new memory file (hooks skipped, as memfs's
    own commits skip them)."""
    path = root / "facts" / f"{name}.md"
    path.write_text(f"---\ntype: preference\nscope: user:U1\nkey: {name}\nsource: user:U1\n---\nPlain {name}.\n")
    rel = str(path.relative_to(root))
    return run(["git", "add", "--", rel], root, env) + run(["git", "commit", "-qm", f"plain {name}"], root, env)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a folder holding the memfs package to compare")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 30000])
    parser.add_argument("--base", type=Path, default=None, help="where the generated repositories are kept")
    args = parser.parse_args()
    bytecode()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.before / "memfs")], check=True)
    base = args.base or Path(tempfile.mkdtemp(prefix="bench-cli-cpu-"))
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-cli-cpu-run-"))
    variants = {"before": str(args.before.resolve()), "after": str(CHECKOUT)}
    envs = {k: {**ENV, "PYTHONPATH": v, "MEMFS_NO_LIVE": "1"} for k, v in variants.items()}
    py = sys.executable
    print(f"load at start {load()}", flush=True)
    copies: dict[tuple[str, int], Path] = {}
    for n in args.sizes:
        root = build(base, n)
        for name in [*variants, "git"]:  # "git": the bare add + commit of the same size
            copies[name, n] = work / f"{name}{n}"
            shutil.copytree(root, copies[name, n], symlinks=True)
    clones = {}
    for name in [*variants, "git"]:  # a remote each: one's pushes leave the others' syncs with nothing to fetch
        remote, clones[name] = work / f"remote-{name}.git", work / f"clone-{name}"
        git(work, "clone", "-q", "--bare", str(build(base, args.sizes[0])), str(remote))
        git(work, "clone", "-q", str(remote), str(clones[name]))
        git(clones[name], "config", "user.name", "bench")
        git(clones[name], "config", "user.email", "bench@example.invalid")
    plain = {**ENV, "MEMFS_HOOKS": "skip"}
    for name, env in envs.items():  # unmeasured: the first command in a copy builds its caches (catalog, probes)
        for n in args.sizes:
            run([py, "-m", "memfs", *REMEMBER], copies[name, n], env, candidate(-n))
        run([py, "-m", "memfs", "sync"], clones[name], env)
    cpu: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        cpu.setdefault(key, []).append(value)

    serial = 0
    for r in range(args.runs):
        for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
            env = envs[name]
            for n in args.sizes:
                serial += 1
                used = run([py, "-m", "memfs", *REMEMBER], copies[name, n], env, candidate(serial))
                add(f"{name} remember {n}", used)
            add(f"{name} sync nothing", run([py, "-m", "memfs", "sync"], clones[name], env))
            serial += 1
            plain_commit(clones[name], f"{name}{serial}")
            add(f"{name} sync push", run([py, "-m", "memfs", "sync"], clones[name], env))
        for n in args.sizes:
            serial += 1
            add(f"git add+commit {n}", bare_commit(copies["git", n], f"git{serial}", plain))
        serial += 1
        clone = clones["git"]
        add("git commit+pull+push", bare_commit(clone, f"git{serial}", plain)
            + run(["git", "pull", "-q", "--rebase"], clone, plain) + run(["git", "push", "-q"], clone, plain))
        add("python -c pass", run([py, "-c", "pass"], CHECKOUT, ENV))
        print(f"round {r + 1}/{args.runs} done, load {load()}", flush=True)
    med = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
    print(f"\nmedians of {args.runs}, CPU ms (load at end {load()}):")
    for key in sorted(med):
        print(f"  {key:<22} {med[key]:8.1f}   (min {min(cpu[key]) * 1000:.1f}, max {max(cpu[key]) * 1000:.1f})")
    floor, gitloop = med["python -c pass"], med["git commit+pull+push"]
    for name in variants:
        print(f"\n{name}:")
        for n in args.sizes:
            rem, commit = med[f"{name} remember {n}"], med[f"git add+commit {n}"]
            ratio = (rem - floor) / commit
            print(f"  #28 remember {n}: ({rem:.0f} - {floor:.0f}) / {commit:.0f} = {ratio:.2f}x (target 2x)")
        both = med[f"{name} remember {args.sizes[0]}"] + med[f"{name} sync push"]
        print(f"  #25 remember + sync push: {both:.0f} / git {gitloop:.0f} = {both / gitloop:.2f}x (target 3x)")
    for key in sorted(k for k in med if k.startswith("after ")):
        before = med["before " + key.removeprefix("after ")]
        print(f"  after / before, {key.removeprefix('after ')}: {med[key] / before:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
