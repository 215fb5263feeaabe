"""The options before the verb: ``-C`` (default: the repository containing the current
directory), ``--actor``, ``--debug``."""

from __future__ import annotations

from pathlib import Path

from memfs import MemoryRepo
from tests.helpers import NOTE, cli, git, options, run_cli


def test_commands_act_on_the_repo_containing_the_cwd(repo: MemoryRepo) -> None:
    (repo.root / "deep/er").mkdir(parents=True)
    done = run_cli("write", "a.md", *options(NOTE), cwd=repo.root / "deep/er")
    assert done.returncode == 0 and (repo.root / "a.md").exists()


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    plain = run_cli("-C", str(tmp_path), "ls")
    assert plain.returncode == 3 and "not inside a git repository" in plain.stderr
    debug = run_cli("--debug", "-C", str(tmp_path), "ls")
    assert "Traceback" in debug.stderr


def test_actor_option_sets_the_author(repo: MemoryRepo) -> None:
    cli(repo, "--actor", "user:alice", "write", "a.md", *options(NOTE))
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "user:alice"
    run_cli("--actor", "user:alice", "-C", str(repo.root), "write", "b.md", *options(NOTE))
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "user:alice"
