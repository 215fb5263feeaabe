"""Fixtures: every test runs git isolated from the machine's and the user's config.

Factories and the CLI runners are in :mod:`tests.helpers`."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from tests.helpers import ACTOR, new_repo


def _isolate(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("MEMFS_ACTOR", ACTOR)
    for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No ~/.gitconfig, no system config, a fixed actor: tests behave the same on any machine."""
    _isolate(monkeypatch, tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One freshly initialised memory repository per session, copied for each test that needs a
    new one (a copy costs a tenth of ``memfs init``'s dozen git processes)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        _isolate(monkeypatch, tmp_path_factory.mktemp("template-home"))
        return new_repo(tmp_path_factory.mktemp("template") / "mem").root


@pytest.fixture(autouse=True)
def closed_indexes() -> Iterator[None]:
    """Search indexes opened by a test are closed after it (the CLI now runs in this process)."""
    yield
    from memfs import index

    index.close_all()


@pytest.fixture
def repo(tmp_path: Path, template_repo: Path) -> MemoryRepo:
    """A fresh memory repository (its own git repo, as ``memfs init`` makes it) with a per-repo
    identity for plain git."""
    shutil.copytree(template_repo, tmp_path / "mem", symlinks=True)
    return MemoryRepo.open(tmp_path / "mem", ACTOR)
