"""Git processes and CPU per memfs operation (#24, #25): how many times memfs starts git for one
``remember``, ``search``, ``sync`` (nothing to do, push only, pull + rebase + push, writer-ref),
``integrate`` and ``purge``, and what that costs, for two versions of memfs side by side.

Each operation runs in process through the CLI's entry (:func:`memfs.cli.main` with its argv, as
``tests/cli`` and in-process callers run it) on a small repository (a bare remote on the local
file system, a few clones, ~20 memories). git is reached through a shim on ``PATH`` that appends
its command line to a log and ``exec``s the real git, so every git process memfs starts is
counted, children of git included (``git`` run by git-filter-repo, hooks). CPU = the worker's
own + its waited-for children (``getrusage``), over the operation only; setup is not counted.

Versions: ``--base REF`` (default ``main``) is exported with ``git archive`` and put first on
``PYTHONPATH`` of its workers; this checkout's ``memfs`` is the other. Rounds alternate the two.
Usage: .venv/bin/python bench/bench_gitcalls.py [--rounds 5] [--base main] [--argv]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPS = ("remember", "search", "sync, nothing to do", "sync, push only", "sync, pull + rebase + push",
       "sync --writer-ref, push only", "integrate, 2 writers", "integrate, nothing to do", "purge")
_SHIM = '#!/bin/sh\nprintf "%s\\n" "$*" >> "$MEMFS_BENCH_GITLOG"\nexec {git} "$@"\n'


def cpu() -> tuple[float, float]:
    """(this process's CPU seconds, its waited-for children's)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def memfs(cwd: Path, *args: str) -> str:
    """``memfs ARGS`` in this process, in ``cwd``; its output. Raises on a non-zero exit."""
    from memfs.cli import main

    out = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(list(args))
        except SystemExit as exc:
            if exc.code not in (0, None):
                raise RuntimeError(f"memfs {' '.join(args)} exited {exc.code}: {out.getvalue()[-500:]}") from None
    return out.getvalue()


def plain_git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


class Worker:
    """One version's measurements in one temporary folder."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.log = Path(os.environ["MEMFS_BENCH_GITLOG"])
        self.found: dict[str, dict[str, object]] = {}

    def measured(self, name: str, action: Callable[[], object]) -> None:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        own, kids = cpu()
        action()
        own_after, kids_after = cpu()
        argv = self.log.read_text().splitlines()[len(lines):]
        self.found[name] = {"procs": len(argv), "cpu": own_after - own + kids_after - kids,
                            "children": kids_after - kids, "argv": argv}

    def clone(self, bare: Path, name: str, actor: str) -> Path:
        from memfs import MemoryRepo
        from memfs.store.init import configure_merge_driver

        path = self.tmp / name
        plain_git(self.tmp, "clone", "-q", str(bare), str(path))
        plain_git(path, "config", "user.name", name)
        plain_git(path, "config", "user.email", f"{name}@example.invalid")
        configure_merge_driver(MemoryRepo.open(path, actor=actor).store.git)
        return path

    def remember(self, clone: Path, key: str, body: str) -> None:
        memfs(clone, "remember", "--scope", "project:bench", "--key", key, "--type", "fact", "--source",
              f"bench:{key}", "--source-kind", "tool", "--body", body)

    def run(self) -> None:
        from memfs import MemoryRepo

        bare = self.tmp / "remote.git"
        plain_git(self.tmp, "init", "-q", "--bare", "--initial-branch=main", str(bare))
        seed = MemoryRepo.init(self.tmp / "seed", actor="agent:seed").root
        plain_git(seed, "config", "user.name", "seed")
        plain_git(seed, "config", "user.email", "seed@example.invalid")
        os.environ["MEMFS_ACTOR"] = "agent:seed"
        for i in range(20):
            self.remember(seed, f"fact_{i}", f"The build number {i} took {40 + i} seconds on the runner.")
        plain_git(seed, "remote", "add", "origin", str(bare))
        plain_git(seed, "push", "-q", "-u", "origin", "main")
        a = self.clone(bare, "a", "agent:a")
        b = self.clone(bare, "b", "agent:b")
        w1 = self.clone(bare, "w1", "agent:w1")
        w2 = self.clone(bare, "w2", "agent:w2")
        integrator = self.clone(bare, "integrator", "agent:integrator")
        alone = self.clone(bare, "alone", "agent:a")
        plain_git(alone, "remote", "remove", "origin")
        os.environ["MEMFS_ACTOR"] = "agent:a"
        memfs(a, "search", "warm up")
        self.remember(a, "warm_up", "The first write builds the catalog's cache.")
        self.measured("remember", lambda: self.remember(a, "deploy_day", "Deploys happen on Tuesdays."))
        self.measured("search", lambda: memfs(a, "search", "build runner seconds"))
        self.measured("sync, push only", lambda: memfs(a, "sync"))
        self.measured("sync, nothing to do", lambda: memfs(a, "sync"))
        os.environ["MEMFS_ACTOR"] = "agent:b"
        self.remember(b, "release_day", "Releases are cut on Thursdays.")
        memfs(b, "sync")
        os.environ["MEMFS_ACTOR"] = "agent:a"
        self.remember(a, "review_rule", "Every change needs one review.")
        self.measured("sync, pull + rebase + push", lambda: memfs(a, "sync"))
        for index, writer in enumerate((w1, w2), 1):
            os.environ["MEMFS_ACTOR"] = f"agent:w{index}"
            self.remember(writer, f"writer_{index}", f"Writer {index} measured the build at {50 + index} seconds.")
            if index == 1:
                self.measured("sync --writer-ref, push only", lambda: memfs(w1, "sync", "--writer-ref"))
            else:
                memfs(writer, "sync", "--writer-ref")
        os.environ["MEMFS_ACTOR"] = "agent:integrator"
        self.measured("integrate, 2 writers", lambda: memfs(integrator, "integrate"))
        self.measured("integrate, nothing to do", lambda: memfs(integrator, "integrate"))
        os.environ["MEMFS_ACTOR"] = "agent:a"
        target = sorted((alone / "facts").rglob("*.md"))[3].relative_to(alone)
        self.measured("purge", lambda: memfs(alone, "purge", str(target), "--reason", "bench", "--yes"))


def worker() -> None:
    import memfs

    with tempfile.TemporaryDirectory(prefix="memfs-gitcalls-") as tmp:
        work = Worker(Path(tmp))
        work.run()
        print(json.dumps({"memfs": memfs.__file__, "ops": work.found}))


def measure(code: Path, shim: Path, log: Path, home: Path) -> dict[str, dict[str, object]]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(code), PATH=f"{shim}{os.pathsep}{env['PATH']}", MEMFS_BENCH_GITLOG=str(log),
               HOME=str(home), GIT_CONFIG_NOSYSTEM="1")
    log.unlink(missing_ok=True)
    done = subprocess.run([sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True,
                          cwd=home, check=False)
    if done.returncode:
        raise SystemExit(f"worker for {code} failed:\n{done.stderr[-3000:]}")
    answer = json.loads(done.stdout.splitlines()[-1])
    if not answer["memfs"].startswith(str(code)):
        raise SystemExit(f"the worker for {code} imported {answer['memfs']}")
    ops: dict[str, dict[str, object]] = answer["ops"]
    return ops


def main() -> None:
    if sys.argv[1:2] == ["--worker"]:
        worker()
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", default="main", help="git revision of the version to compare with")
    parser.add_argument("--argv", action="store_true", help="print each version's git command lines per operation")
    args = parser.parse_args()
    print(f"loadavg at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="memfs-gitcalls-") as tmp:
        work = Path(tmp)
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", args.base, "memfs", "templates", "example_repo"], cwd=ROOT,
                                 check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        shim = work / "shim"
        shim.mkdir()
        real = shutil.which("git")
        (shim / "git").write_text(_SHIM.format(git=real))
        (shim / "git").chmod(0o755)
        (work / "home").mkdir()
        for code in (base, ROOT):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "memfs")], check=True,
                           capture_output=True)
        versions = {args.base: base, "this branch": ROOT}
        runs: dict[str, list[dict[str, dict[str, object]]]] = {name: [] for name in versions}
        for _ in range(args.rounds):
            for name, code in versions.items():
                runs[name].append(measure(code, shim, work / "git.log", work / "home"))
    report(runs, args.argv)
    print(f"loadavg at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def report(runs: dict[str, list[dict[str, dict[str, object]]]], argv: bool) -> None:
    names = list(runs)
    print("medians; CPU ms = the process + its children (git, git-filter-repo's Python), of which children")
    print(f"{'operation':<30}" + "".join(f"{n[:12] + ' procs':>19}{n[:12] + ' CPU ms':>26}" for n in names)
          + f"{'CPU ratio':>11}")
    for op in OPS:
        procs = [statistics.median(int(r[op]["procs"]) for r in runs[n]) for n in names]  # type: ignore[call-overload]
        used = [statistics.median(float(r[op]["cpu"]) for r in runs[n]) * 1000 for n in names]  # type: ignore[arg-type]
        kids = [statistics.median(float(r[op]["children"]) for r in runs[n]) * 1000  # type: ignore[arg-type]
                for n in names]
        shown = "".join(f"{p:>19.0f}{f'{c:.0f} ({k:.0f})':>26}" for p, c, k in zip(procs, used, kids, strict=True))
        print(f"{op:<30}{shown}{used[-1] / used[0]:>11.2f}")
    if argv:
        for name in names:
            print(f"\n== {name}: git command lines per operation (first round)")
            for op in OPS:
                lines = runs[name][0][op]["argv"]
                print(f"-- {op} ({len(lines)})")  # type: ignore[arg-type]
                for line in lines:  # type: ignore[attr-defined]
                    print(f"   {line[:160]}")


if __name__ == "__main__":
    main()
