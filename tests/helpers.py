"""Shared factories for tests: plain git, repositories, memory files, and the CLI in-process or in
a real process. Tests import from here; ``conftest.py`` only holds fixtures."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from memfs import MemoryRepo

ACTOR = "agent:test"


def git(cwd: Path, *args: str) -> str:
    """Plain git, as a user or another tool would run it."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def set_identity(path: Path) -> None:
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "person@example.invalid")


def new_repo(path: Path, actor: str = ACTOR) -> MemoryRepo:
    """A fresh memory repository (its own git repo) with a per-repo identity for plain git."""
    mem = MemoryRepo.init(path, actor=actor)
    set_identity(mem.root)
    return mem


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def memory_text(body: str = "text\n", **fields: Any) -> str:
    """A memory file's text: the given fields (``None`` leaves one out) over sensible defaults."""
    from memfs.format import yamlio
    from memfs.format.model import FIELDS

    meta: dict[str, Any] = {"type": "note", "scope": "user:U5", "source": "test:helpers", "status": "active"}
    meta.update(fields)
    return f"---\n{yamlio.render(meta, FIELDS)}---\n{body}"


@dataclass(frozen=True)
class Ran:
    """What a CLI run did, shaped like :class:`subprocess.CompletedProcess`."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None) -> Ran:
    """The ``memfs`` entry point (:func:`memfs.cli.main`) in this process, through click's test
    runner: the same parsing, error lines and exit codes as a real run, without starting Python."""
    from memfs.cli import main

    runner = CliRunner()
    with runner.isolation(input=input, env=env) as (out, err, _), contextlib.chdir(cwd or os.getcwd()):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # what the interpreter does with an uncaught exception (--debug)
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            code = 1
        stdout, stderr = out.getvalue(), err.getvalue()
    return Ran(args, code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


def run_process(
    *args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh process: ``python -m memfs ARGS`` (smoke tests only)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "memfs", *args],
        cwd=cwd,
        input=input,
        text=True,
        capture_output=True,
        env=full_env,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
