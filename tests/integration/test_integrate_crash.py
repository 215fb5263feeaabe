"""The integrator killed at every step of a round (:mod:`memfs.store.crashpoint`: fetched, before
and after each writer's merge (a fast-forward, a reconcile merge), after the push) leaves a state
the next ``integrate`` completes: every writer on the remote ``main``, exactly as many commits as
an uninterrupted round made (no duplicate), the same memory active, a clean work tree, no merge
in progress. (A commit the integrator makes through a transaction, the lineage pass, is the commit
path the crash matrix already kills at every step.)"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.ops.integrate import MARKER
from memfs.ops.sync import sync
from tests.forks import ForkServer, crash_points
from tests.helpers import Clone, git

_SCRIPT = """
import sys
from memfs import MemoryRepo
MemoryRepo.open(sys.argv[1], "agent:i").integrate()
"""


def _fact(scope: str, value: str) -> dict[str, object]:
    return {"type": "fact", "scope": scope, "key": "lang", "body": value, "source": f"doc:{value}",
            "source_kind": "document"}


@pytest.fixture
def forks(tmp_path: Path) -> Iterator[ForkServer]:
    with ForkServer(tmp_path) as server:
        yield server


def _copy(tmp_path: Path, remote: Path, integrator: Path, name: str) -> tuple[Path, Path]:
    """A copy of the remote and of the integrator's clone, the clone's origin the copy."""
    where = tmp_path / name
    shutil.copytree(remote, where / "remote.git", symlinks=True)
    shutil.copytree(integrator, where / "i", symlinks=True)
    git(where / "i", "remote", "set-url", "origin", str(where / "remote.git"))
    return where / "remote.git", where / "i"


def _active(repo: MemoryRepo) -> list[str]:
    return [m.body for m in repo.store.scan().memories if m.key == "lang" and m.status == "active"]



@pytest.mark.slow
def test_an_integrator_killed_at_any_step_is_completed_by_the_next_run(
        clone: Clone, remote: Path, tmp_path: Path, forks: ForkServer) -> None:
    a, b = clone("a"), clone("b")
    integrator = clone("i")
    a.remember(_fact("team:x", "english"))
    sync(a.store)  # on main already: a's and b's next values are concurrent
    sync(b.store)
    a.remember(_fact("team:x", "german"))
    b.remember(_fact("team:x", "french"))
    for repo in (a, b):  # a's ref fast-forwards main, b's is reconciled with it
        sync(repo.store, route="writer-ref")
    tips = git(remote, "for-each-ref", "--format=%(objectname)", "refs/heads/memfs/writers/").split()

    ref_remote, ref_clone = _copy(tmp_path, remote, integrator.root, "reference")
    trace = tmp_path / "trace"
    done = forks.run(_SCRIPT, [str(ref_clone)], {**os.environ, "MEMFS_CRASH_TRACE": str(trace)})
    assert done.returncode == 0, done.output
    commits = git(ref_remote, "rev-list", "--count", "main")
    winner = _active(MemoryRepo.open(ref_clone, "agent:i"))
    assert len(winner) == 1
    points = crash_points(trace)
    assert {"integrate-fetched:1", "integrate-merging:2", "integrate-merged:2", "integrate-pushed:1"} <= set(points)

    for n, point in enumerate(points):
        run_remote, run_clone = _copy(tmp_path, remote, integrator.root, f"run{n}")
        killed = forks.run(_SCRIPT, [str(run_clone)], {**os.environ, "MEMFS_CRASH_AT": point})
        assert killed.returncode == 9, (point, killed.output)
        repo = MemoryRepo.open(run_clone, "agent:i")
        result = repo.integrate()
        assert result.recovered == point.startswith("integrate-merging"), point
        assert result.pushed or point.startswith("integrate-pushed"), point
        main = git(run_remote, "rev-parse", "main").strip()
        assert all(git(run_remote, "merge-base", "--is-ancestor", tip, main) == "" for tip in tips), point
        assert git(run_remote, "rev-list", "--count", "main") == commits, point
        assert git(run_clone, "status", "--porcelain", "--untracked-files=no") == "", point
        git_dir = repo.store.git.git_dir
        assert not (git_dir / "MERGE_HEAD").exists() and not (git_dir / MARKER).exists(), point
        assert _active(repo) == winner, point
