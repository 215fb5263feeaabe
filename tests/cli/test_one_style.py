"""One CLI style (issue #29): every verb answers a usage error with one ``memfs: error:`` line
(and, given ``--json``, the error as a JSON object on stdout), nothing prompts without a
terminal, and the error object has one shape everywhere."""

from __future__ import annotations

import json

import click
import pytest

from memfs import MemoryRepo, errors
from memfs.cli import COMMANDS, LazyGroup
from memfs.cli import cli as group
from tests.helpers import PREFERENCE_PATH, candidate, cli, run_cli

_CTX = click.Context(group)


def _command(verb: str) -> click.Command:
    assert isinstance(group, LazyGroup)
    found = group.get_command(_CTX, verb)
    assert found is not None
    return found


def _has_json(verb: str) -> bool:
    return any("--json" in p.opts for p in _command(verb).params if isinstance(p, click.Option))


JSON_VERBS = [verb for verb in sorted(COMMANDS) if _has_json(verb)]


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memfs: error: ") and stderr.endswith("\n"), stderr
    return lines[0]


def json_error(stdout: str, exit_code: int) -> dict[str, object]:
    error = json.loads(stdout)["error"]
    assert isinstance(error, dict) and set(error) == {"type", "message", "exit"}, stdout
    assert error["exit"] == exit_code
    return error


def test_the_matrix_covers_every_verb_and_the_json_ones() -> None:
    assert len(COMMANDS) >= 39 and {"search", "import", "purge", "watch", "serve"} <= set(JSON_VERBS)
    assert "mcp" not in JSON_VERBS and "tool" not in JSON_VERBS


@pytest.mark.parametrize("verb", sorted(COMMANDS))
def test_a_usage_error_is_one_line_naming_the_option(repo: MemoryRepo, verb: str) -> None:
    done = cli(repo, verb, "--no-such-option")
    assert done.returncode == 2 and done.stdout == ""
    line = one_error_line(done.stderr)
    assert "--no-such-option" in line and f"'memfs {verb} --help'" in line


@pytest.mark.parametrize("verb", JSON_VERBS)
def test_a_usage_error_under_json_is_also_a_json_object(repo: MemoryRepo, verb: str) -> None:
    done = cli(repo, verb, "--json", "--no-such-option")
    assert done.returncode == 2
    line = one_error_line(done.stderr)
    error = json_error(done.stdout, 2)
    assert error["type"] == "UsageError" and line == f"memfs: error: {error['message']}"


def test_json_after_a_double_dash_is_not_the_option(repo: MemoryRepo) -> None:
    done = cli(repo, "search", "--no-such-option", "--", "--json")
    assert done.returncode == 2 and done.stdout == ""


@pytest.mark.parametrize("cls", [errors.UsageError, errors.NotFound, errors.ConflictError, errors.GitError])
def test_a_memfs_error_under_json_has_its_class_and_exit(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch, cls: type[errors.MemfsError]
) -> None:
    def fail(self: MemoryRepo, *args: object, **kwargs: object) -> None:
        raise cls("on purpose")

    monkeypatch.setattr(MemoryRepo, "run", fail)
    done = cli(repo, "ls", "--json")
    code = 2 if cls is errors.UsageError else 3
    assert done.returncode == code and one_error_line(done.stderr) == "memfs: error: on purpose"
    assert json_error(done.stdout, code) == {"type": cls.__name__, "message": "on purpose", "exit": code}


def test_ctrl_c_under_json_is_a_json_error_too(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(self: MemoryRepo, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(MemoryRepo, "run", interrupt)
    done = cli(repo, "ls", "--json")
    assert done.returncode == 130 and one_error_line(done.stderr) == "memfs: error: interrupted"
    assert json_error(done.stdout, 130)["type"] == "Interrupted"


# --- nothing prompts without a terminal -----------------------------------------------------
@pytest.fixture
def purgeable(repo: MemoryRepo) -> MemoryRepo:
    from memfs.ops.remember import remember

    remember(repo.store, candidate("Chinese", "c:1"))
    assert (repo.root / PREFERENCE_PATH).exists()
    return repo


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_purge_without_a_terminal_says_to_pass_yes(purgeable: MemoryRepo, as_json: bool) -> None:
    done = cli(purgeable, "purge", PREFERENCE_PATH, "--reason", "r", *(["--json"] if as_json else []), input="y\n")
    assert done.returncode == 2 and "--yes" in one_error_line(done.stderr)
    assert "Purge it?" not in done.stderr
    if as_json:
        assert json_error(done.stdout, 2)["type"] == "UsageError"
    else:
        assert done.stdout == ""
    assert (purgeable.root / PREFERENCE_PATH).exists()


def test_purge_on_a_terminal_still_asks(purgeable: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    from memfs.cli import options

    monkeypatch.setattr(options, "on_terminal", lambda: True)
    done = cli(purgeable, "purge", PREFERENCE_PATH, "--reason", "r", input="n\n")
    assert done.returncode == 130 and "Purge it?" in done.stderr
    assert done.stderr.endswith("memfs: error: aborted\n")
    assert (purgeable.root / PREFERENCE_PATH).exists()


def test_global_option_errors_are_one_line_too() -> None:
    done = run_cli("--no-such-global")
    assert done.returncode == 2 and "--no-such-global" in one_error_line(done.stderr)
