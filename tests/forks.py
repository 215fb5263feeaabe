"""Many short Python processes without paying Python's and memfs's start-up for each: a fork
server.

A test that kills a process at each step of an operation (``tests/integration/test_crash_matrix.py``)
needs a process per run, since a kill must leave the disk as a dead process leaves it. What it
does not need is a fresh interpreter importing memfs every time (~0.3 s, most of such a run). The
server imports memfs once, then forks a child per run: the child is a process of its own (own
pid, own environment, exits or dies on its own), which has done nothing but import, as a fresh
``python -c SCRIPT`` would have by the time the script starts.

The server also loads once what memfs loads lazily on a command's first write: the secret
scanner's detect-secrets plugins (~0.17 s of imports, which would otherwise be paid again in
every child). A child then differs from a fresh process only in having these caches full, which
no step of a commit path depends on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

_SERVER = r"""
import json, os, sys, traceback
import memfs.api
from memfs.policy.secrets_scan import scan

scan("warm up")

for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.chdir(job["cwd"])
        os.environ.clear()
        os.environ.update(job["env"])
        sys.argv = ["-c", *job["argv"]]
        try:
            exec(compile(job["script"], "<string>", "exec"), {"__name__": "__main__"})
        except SystemExit:
            raise
        except BaseException:
            traceback.print_exc()
            sys.exit(1)
        sys.exit(0)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


@dataclass(frozen=True)
class Done:
    """A finished run: its exit code (``-N`` if a signal N killed it) and what it printed
    (stdout and stderr together)."""

    returncode: int
    output: str


class ForkServer:
    """``with ForkServer(folder) as forks: forks.run(script, args, env)``: each run is
    ``python -c SCRIPT ARGS`` in a child of one server process, with exactly ``env`` as its
    environment and this process's working directory."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.runs = 0
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def run(self, script: str, args: list[str], env: dict[str, str]) -> Done:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.runs += 1
        output = self.folder / f"fork-{self.runs}.out"
        job = {"script": script, "argv": args, "env": env, "cwd": os.getcwd(), "output": str(output)}
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, "the fork server died"
        return Done(int(answer), output.read_text(errors="replace"))

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait()
        self.proc.stdout.close()


def crash_points(trace: Path) -> list[str]:
    """The crash points a traced run passed, each step numbered by its occurrence (``git-add:2``):
    what a crash test kills one by one."""
    seen: dict[str, int] = {}
    points = []
    for step in trace.read_text().split():
        seen[step] = seen.get(step, 0) + 1
        points.append(f"{step}:{seen[step]}")
    return points
