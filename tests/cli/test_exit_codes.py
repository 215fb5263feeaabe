"""The exit-code table (:mod:`memfs.cli.exits`), one class of error at a time: every exception
class in :mod:`memfs.errors` raised by a library call ends the command with one line on stderr
and its code (2 for a usage error, 3 for any other); click's own usage errors are 2, problems
found by ``validate`` are 1, an operating-system error is 3, Ctrl-C is 130."""

from __future__ import annotations

import errno
import inspect
from pathlib import Path

import pytest

from memfs import MemoryRepo, errors
from memfs.cli import COMMANDS
from memfs.policy.gate import check
from tests.helpers import NOTE, VALID, candidate, cli, new_repo, options, raw_memory, run_cli, write_file

#: MemfsError and every subclass memfs defines.
ERRORS = sorted(
    (c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, errors.MemfsError)),
    key=lambda c: (len(c.__mro__), c.__name__),
)


def instance(cls: type[errors.MemfsError]) -> errors.MemfsError:
    """An instance of ``cls`` as memfs would raise it."""
    if issubclass(cls, errors.WriteRefused):
        return cls(check(candidate(source="  ")))  # a real refusal: a candidate without a source
    return cls(f"{cls.__name__} raised on purpose")


def raising(monkeypatch: pytest.MonkeyPatch, method: str, error: BaseException) -> None:
    """Make ``MemoryRepo.<method>`` raise ``error``; every command runs its verb through
    ``MemoryRepo.run`` (the typed request), so ``run`` stands for any verb."""
    def fail(self: MemoryRepo, *args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(MemoryRepo, method, fail)


def test_the_table_covers_the_whole_hierarchy() -> None:
    names = {c.__name__ for c in ERRORS}
    assert ERRORS[0] is errors.MemfsError and {"UsageError", "NotFound", "GitError", "WriteRefused"} <= names
    assert all(c.__module__ == errors.__name__ for c in ERRORS)
    assert "ls" in COMMANDS["ls"].calls  # the verb below goes through MemoryRepo.ls


@pytest.mark.parametrize("cls", ERRORS, ids=lambda c: c.__name__)
def test_each_error_class_is_one_line_and_its_exit_code(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch, cls: type[errors.MemfsError]
) -> None:
    error = instance(cls)
    assert type(error) is cls
    raising(monkeypatch, "run", error)  # memfs ls is MemoryRepo.run(Ls(...)), which MemoryRepo.ls also is
    done = cli(repo, "ls")
    assert done.returncode == (2 if issubclass(cls, errors.UsageError) else 3)
    assert done.stderr == f"memfs: error: {error}\n" and done.stdout == ""
    debug = run_cli("--debug", "-C", str(repo.root), "ls")
    assert debug.returncode == 1 and "Traceback" in debug.stderr and cls.__name__ in debug.stderr


def test_click_usage_errors_exit_2(repo: MemoryRepo) -> None:
    for args, words in [
        (["ls", "--no-such-option"], "No such option '--no-such-option'"),
        (["no-such-verb"], "No such command 'no-such-verb'"),
        (["show"], "Missing argument 'PATH'"),
        (["ls", "--json=yes"], "Option '--json' does not take a value"),
    ]:
        done = cli(repo, *args)
        assert done.returncode == 2, args
        assert done.stderr.startswith(f"memfs: error: {words}") and done.stderr.count("\n") == 1, args
        assert done.stdout == "", args


def test_validate_with_problems_exits_1(repo: MemoryRepo) -> None:
    assert cli(repo, "validate").returncode == 0
    write_file(repo.root / "facts/a.md", raw_memory(VALID.format(id="a") + "confidence: 7\n"))
    done = cli(repo, "validate")
    assert done.returncode == 1 and "facts/a.md:" in done.stdout and "confidence" in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (PermissionError(errno.EACCES, "Permission denied", "facts/a.md"), "facts/a.md: Permission denied"),
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
        (OSError("the disk fell off"), "the disk fell off"),
    ],
)
def test_an_operating_system_error_exits_3(
    repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch, error: OSError, line: str
) -> None:
    raising(monkeypatch, "run", error)  # memfs ls is MemoryRepo.run(Ls(...)), which MemoryRepo.ls also is
    done = cli(repo, "ls")
    assert done.returncode == 3 and done.stderr == f"memfs: error: {line}\n"


def test_operating_system_errors_are_one_line(repo: MemoryRepo) -> None:
    lock = repo.store.git.git_dir / "memfs.lock"
    lock.unlink()
    lock.mkdir()
    done = cli(repo, "write", "a.md", *options(NOTE))
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert done.stderr.startswith("memfs: error:") and "memfs.lock" in done.stderr
    assert not (repo.root / "a.md").exists()


def test_interrupted_is_130(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    raising(monkeypatch, "run", KeyboardInterrupt())
    done = cli(repo, "ls")
    assert done.returncode == 130 and done.stderr == "memfs: error: interrupted\n"


def test_a_closed_pipe_exits_0_quietly(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    raising(monkeypatch, "run", BrokenPipeError(errno.EPIPE, "Broken pipe"))
    done = cli(repo, "ls")
    assert done.stderr == ""
    assert done.returncode == 0


# --- the argument at fault, spelled as the user typed it ------------------------------------
def test_param_is_rendered_as_the_cli_flag(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Ls(include_all=...)`` names its argument ``include_all``; ``memfs ls`` spells it
    ``-a/--all``, and the error line uses the longest spelling."""
    raising(monkeypatch, "run", errors.UsageError("x", param="include_all"))
    done = cli(repo, "ls")
    assert done.returncode == 2 and done.stderr == "memfs: error: --all: x\n"


def test_param_named_like_the_flag_is_rendered_as_the_flag(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    raising(monkeypatch, "run", errors.UsageError("x", param="all"))
    done = cli(repo, "ls")
    assert done.returncode == 2 and done.stderr == "memfs: error: --all: x\n"


def test_params_that_are_arguments_or_unknown(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    raising(monkeypatch, "run", errors.MemoryNotFound("no such memory", param="path"))
    done = cli(repo, "show", "a.md")
    assert done.returncode == 3 and done.stderr == "memfs: error: PATH: no such memory\n"
    raising(monkeypatch, "run", errors.UsageError("x", param="nonsense"))
    done = cli(repo, "ls")
    assert done.returncode == 2 and done.stderr == "memfs: error: nonsense: x\n"


def test_force_is_offered_only_where_the_verb_has_it(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    refusal = errors.Refused("a rule says no", forceable=True)
    raising(monkeypatch, "run", refusal)
    done = cli(repo, "write", "a.md", "--body", "x")
    assert done.returncode == 3
    assert done.stderr == "memfs: error: a rule says no (a person may override this with --force)\n"
    raising(monkeypatch, "run", refusal)
    assert cli(repo, "ls").stderr == "memfs: error: a rule says no\n"
    raising(monkeypatch, "run", errors.Refused("a rule says no"))
    assert cli(repo, "write", "a.md", "--body", "x").stderr == "memfs: error: a rule says no\n"


def test_an_operating_system_error_names_its_file_below_a_long_root(tmp_path: Path) -> None:
    """The file is shown relative to the root before a long name is cut: cut first, a root of
    ~100 characters left only its own start in the line (seen when the suite's folders moved)."""
    repo = new_repo(tmp_path / ("deep-" * 20) / "mem")
    lock = repo.store.git.git_dir / "memfs.lock"
    lock.unlink()
    lock.mkdir()
    done = cli(repo, "write", "a.md", *options(NOTE))
    assert done.returncode == 3 and done.stderr == "memfs: error: .git/memfs.lock: Is a directory\n"


def test_an_mcp_tool_names_the_file_below_a_long_root_and_no_part_of_the_root(tmp_path: Path) -> None:
    """The same through MCP, whose reply goes to a model: cut before the root was taken out, the
    reply kept a fragment of the host path."""
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from memfs.mcp_server import build_server

    repo = new_repo(tmp_path / ("deep-" * 20) / "mem")
    lock = repo.store.git.git_dir / "memfs.lock"
    lock.unlink()
    lock.mkdir()
    server = build_server(repo.session("user:U5", actor="agent:mcp-test"))
    with pytest.raises(ToolError) as raised:
        anyio.run(server.call_tool, "memory_remember",
                  {"body": "The quokka lives on Rottnest.", "type": "fact", "source": "conversation:C1"})
    assert str(raised.value) == ".git/memfs.lock: Is a directory"
