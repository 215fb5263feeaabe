"""Helpers shared by the benchmark scripts: isolated git, CPU accounting, percentiles."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

#: git without the user's or the system's configuration, so runs are comparable anywhere.
ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def bytecode() -> None:
    """Run every fresh Python process as an installed memfs runs: memfs compiled once here, and
    ``PYTHONDONTWRITEBYTECODE`` (set in this machine's shell) dropped from :data:`ENV` and this
    process's environment. With it set and memfs installed editable (never compiled), every fresh
    process compiled memfs from source, which earlier fresh-process figures include."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(__file__).resolve().parents[1] / "memfs")],
                   check=True, capture_output=True)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, env=ENV, capture_output=True)


def commit_all(root: Path, message: str = "bulk") -> None:
    """Commit everything under ``root`` as a bench identity (for generated repositories)."""
    git(root, "config", "user.name", "bench")
    git(root, "config", "user.email", "bench@example.invalid")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


def cpu() -> float:
    """CPU seconds of this process plus every child it has waited for (git processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one call."""
    wall, used = time.perf_counter(), cpu()
    action()
    return time.perf_counter() - wall, cpu() - used


def pct(values: list[float], p: float) -> float:
    """The p-th percentile by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def packed(root: Path) -> None:
    """Wait for a background ``git gc --auto`` a bulk commit may have started, then pack the
    objects: copies of the repository (``shutil.copytree``) and timings are then undisturbed."""
    deadline = time.monotonic() + 120
    while (root / ".git" / "gc.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    subprocess.run(["git", "gc", "-q"], cwd=root, env=ENV, capture_output=True)
