"""git configuration carried by the environment never reaches memfs's own git calls.

``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``, ``GIT_CONFIG_PARAMETERS``,
``GIT_CONFIG_GLOBAL`` and ``GIT_CONFIG_SYSTEM`` let whoever sets memfs's environment (an agent's
tool runner) point ``core.hooksPath`` at its own hooks and ``core.fsmonitor`` at its own program.
memfs drops them (:mod:`memfs.store.gitcli.process`): a matrix of those variables x the doors that
commit, each checking that the commit was made and that none of the planted programs ran.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.tools import ToolContext
from tests.helpers import FACT, cli, git, options

PROGRAMS = ("pre-commit", "commit-msg", "post-commit", "fsmonitor")


def _plant(where: Path) -> dict[str, str]:
    """Hooks and an fsmonitor program that leave a mark when run; the config that names them."""
    hooks = where / "hooks"
    hooks.mkdir(parents=True)
    for name in PROGRAMS:
        script = (where if name == "fsmonitor" else hooks) / name
        script.write_text(f"#!/bin/sh\ntouch '{where}/ran-{name}'\n")
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"core.hooksPath": str(hooks), "core.fsmonitor": str(where / "fsmonitor")}


def _config_file(where: Path, config: dict[str, str]) -> Path:
    path = where / "foreign.gitconfig"
    path.write_text("[core]\n" + "".join(f"\t{k.split('.')[1]} = {v}\n" for k, v in config.items()))
    return path


def _count(mp: pytest.MonkeyPatch, where: Path, config: dict[str, str]) -> None:
    mp.setenv("GIT_CONFIG_COUNT", str(len(config)))
    for i, (key, value) in enumerate(config.items()):
        mp.setenv(f"GIT_CONFIG_KEY_{i}", key)
        mp.setenv(f"GIT_CONFIG_VALUE_{i}", value)


def _parameters(mp: pytest.MonkeyPatch, where: Path, config: dict[str, str]) -> None:
    mp.setenv("GIT_CONFIG_PARAMETERS", " ".join(f"'{k}'='{v}'" for k, v in config.items()))


def _global(mp: pytest.MonkeyPatch, where: Path, config: dict[str, str]) -> None:
    mp.setenv("GIT_CONFIG_GLOBAL", str(_config_file(where, config)))


def _system(mp: pytest.MonkeyPatch, where: Path, config: dict[str, str]) -> None:
    mp.delenv("GIT_CONFIG_NOSYSTEM", raising=False)
    mp.setenv("GIT_CONFIG_SYSTEM", str(_config_file(where, config)))


VARIABLES: dict[str, Callable[[pytest.MonkeyPatch, Path, dict[str, str]], None]] = {
    "GIT_CONFIG_COUNT": _count, "GIT_CONFIG_PARAMETERS": _parameters, "GIT_CONFIG_GLOBAL": _global,
    "GIT_CONFIG_SYSTEM": _system,
}


def _cli_write(repo: MemoryRepo) -> None:
    done = cli(repo, "--actor", "agent:x", "write", "notes/x.md", *options(FACT), "--body", "x")
    assert done.returncode == 0, done.stderr


def _tool_create(repo: MemoryRepo) -> None:
    result = repo.tool({"command": "create", "path": "notes/x.md", "file_text": "x", "fields": FACT},
                       ToolContext(actor="agent:x"))
    assert result.ok, result.output


def _library_write(repo: MemoryRepo) -> None:
    repo.write("notes/x.md", fields=FACT, body="x")


DOORS: dict[str, Callable[[MemoryRepo], None]] = {"cli write": _cli_write, "tool create": _tool_create,
                                                   "library write": _library_write}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("variable", VARIABLES)
def test_environment_config_runs_nothing_in_memfs_commits(
    repo: MemoryRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, door: str
) -> None:
    where = tmp_path / "foreign"
    config = _plant(where)
    before = git(repo.root, "rev-parse", "HEAD")
    VARIABLES[variable](monkeypatch, where, config)
    DOORS[door](repo)
    monkeypatch.undo()
    assert git(repo.root, "rev-parse", "HEAD") != before
    assert sorted(p.name for p in where.glob("ran-*")) == []


def test_the_planted_config_does_run_in_plain_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The attack is real: plain git, given the same environment, runs the planted hooks."""
    where = tmp_path / "foreign"
    config = _plant(where)
    git(tmp_path, "init", "-q", "plain")
    _count(monkeypatch, where, config)
    git(tmp_path / "plain", "-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-q", "--allow-empty",
        "-m", "x")
    assert "ran-pre-commit" in {p.name for p in where.glob("ran-*")}
