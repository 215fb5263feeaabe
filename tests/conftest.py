"""Shared fixtures: every test runs git isolated from the machine's and the user's config."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memfs.store.repo import MemoryRepo

ACTOR = "agent:test"


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No ~/.gitconfig, no system config, a fixed actor: tests behave the same on any machine."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMFS_ACTOR", ACTOR)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


def git(cwd: Path, *args: str) -> str:
    """Plain git, as a user or another tool would run it."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def set_identity(path: Path) -> None:
    git(path, "config", "user.name", "Test Person")
    git(path, "config", "user.email", "person@example.invalid")


@pytest.fixture
def repo(tmp_path: Path) -> MemoryRepo:
    """A fresh memory repository (its own git repo) with a per-repo identity for plain git."""
    mem = MemoryRepo.init(tmp_path / "mem", actor=ACTOR)
    set_identity(mem.root)
    return mem


def run_cli(
    *args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh process: ``python -m memfs ARGS``."""
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


def write_file(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path
