"""Every verb is declared once, and every door offers exactly what its declaration says.

For each typed request (:mod:`memfs.ops.verbs`, :mod:`memfs.agents.verbs`): the
:class:`~memfs.api.MemoryRepo` method takes exactly the request's fields (same names, defaults,
positional order); the click command offers exactly the fields declared for the CLI, as
:func:`memfs.cli.derive.parameter` makes them, plus presentation options only (``--json``...);
the MCP tool's input schema has exactly the fields declared for MCP, each with its help as its
description; the file tools likewise. A last test declares a new verb, adds a field to it, and
finds the field at every door without another line changed.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

import memfs.agents.verbs
import memfs.ops.verbs
from memfs import MemoryRepo
from memfs.agents.verbs import FILE_COMMANDS
from memfs.cli import COMMANDS, derive
from memfs.cli import cli as group
from memfs.format.declare import CLI, MCP, NOT_SET, fields, from_wire, param, to_wire
from memfs.mcp_server import build_server, tool_schemas
from memfs.mcp_tools import offered
from memfs.ops.verbs.declare import VERBS, Request, request
from tests.helpers import cli, run_cli

assert memfs.agents.verbs and memfs.ops.verbs  # every declaration module is loaded
DECLARED = sorted(VERBS)
#: Options a command may carry besides its verb's parameters: how it prints, asks a person (--yes) or judges
#: its exit code (validate --strict: warnings fail it), never what the verb does.
PRESENTATION = {"as_json", "as_dot", "yes", "top", "verbose", "quiet", "strict"}
#: Verbs whose CLI command is not yet derived from the declaration (their options are hand-written).
HAND_WRITTEN_CLI: set[str] = set()


def command(verb: str) -> click.Command:
    with click.Context(group) as ctx:
        found = group.get_command(ctx, verb)
    assert found is not None, verb
    return found


def shape(p: click.Parameter) -> tuple[Any, ...]:
    return (p.name, tuple(p.opts), p.required, p.multiple, p.nargs, p.type.to_info_dict(), p.default,
            getattr(p, "is_flag", None), getattr(p, "help", None))


def test_every_declared_verb_is_a_command_and_calls_its_method() -> None:
    for verb in DECLARED:
        assert verb in COMMANDS, f"{verb} is declared but has no command"
        assert VERBS[verb].method in COMMANDS[verb].calls


@pytest.mark.parametrize("verb", DECLARED)
def test_the_method_takes_exactly_the_request(verb: str) -> None:
    cls = VERBS[verb]
    method = inspect.signature(getattr(MemoryRepo, cls.method))
    taken = [p for p in method.parameters.values() if p.name != "self"]
    declared = inspect.signature(cls).parameters
    assert [p.name for p in taken if p.kind is p.POSITIONAL_OR_KEYWORD] == [
        p.name for p in declared.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert {p.name: p.default for p in taken} == {
        p.name: p.default for p in declared.values()}, f"MemoryRepo.{cls.method} and {cls.__name__} differ"


@pytest.mark.parametrize("verb", sorted(set(DECLARED) - HAND_WRITTEN_CLI))
def test_the_command_offers_exactly_the_cli_fields(verb: str) -> None:
    found = command(verb)
    declared = fields(VERBS[verb], CLI)
    own = [p for p in found.params if p.name not in PRESENTATION]
    assert [shape(p) for p in own] == [shape(p) for f in declared for p in derive.parameters(f)]
    assert found.help == memfs.ops.verbs.declare.description(VERBS[verb], CLI)


@pytest.mark.parametrize("verb", sorted(set(DECLARED) - HAND_WRITTEN_CLI))
def test_the_real_help_shows_every_declared_option(verb: str) -> None:
    done = run_cli(verb, "--help")
    assert done.returncode == 0, done.stderr
    for field in fields(VERBS[verb], CLI):
        for made in derive.parameters(field):
            if isinstance(made, click.Option):
                assert made.opts[-1] in done.stdout, (verb, made.opts)


def test_a_declared_bound_is_enforced_by_the_command(repo: MemoryRepo) -> None:
    """``Search.limit`` says ``minimum=1``: the command refuses 0 as a usage error (exit 2)."""
    done = cli(repo, "search", "anything", "--limit", "0")
    assert done.returncode == 2 and "--limit" in done.stderr
    assert cli(repo, "search", "anything", "--limit", "1").returncode == 0


def test_the_hand_written_commands_are_the_listed_ones() -> None:
    derived = {verb for verb in DECLARED
               if [p.name for p in command(verb).params if p.name not in PRESENTATION]
               == [p.name for f in fields(VERBS[verb], CLI) for p in derive.parameters(f)]}
    assert set(DECLARED) - derived == HAND_WRITTEN_CLI


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    from tests.helpers import new_repo

    repo = new_repo(tmp_path_factory.mktemp("registry"))
    made = {"bound": repo.session("user:U5", actor="user:U5"), "admin": repo}
    yield {label: {t["name"]: t for t in tool_schemas(build_server(r))} for label, r in made.items()}


def _declared_tools() -> list[tuple[str, type]]:
    return [(cls.tool, cls) for cls in VERBS.values() if cls.tool] + [
        (cls.tool, cls) for cls in FILE_COMMANDS.values()]


@pytest.mark.parametrize("label", ["bound", "admin"])
@pytest.mark.parametrize(("tool", "cls"), _declared_tools(), ids=[t for t, _ in _declared_tools()])
def test_the_mcp_tool_offers_exactly_the_mcp_fields(
    servers: dict[str, dict[str, Any]], label: str, tool: str, cls: type
) -> None:
    schema = servers[label][tool]["input_schema"]
    expected = offered(cls, admin=label == "admin")
    assert list(schema.get("properties", {})) == [f.name for f in expected] or sorted(
        schema.get("properties", {})) == sorted(f.name for f in expected)
    for field in expected:
        described = schema["properties"][field.name].get("description")
        assert described == field.spec.text(MCP), (tool, field.name)
    required = {f.name for f in expected if f.spec.model_required or (
        f.default is NOT_SET and not (label == "admin" and f.name == "scope"))}
    assert set(schema.get("required", [])) == required


def test_servers_built_in_one_process_each_call_their_own_session(tmp_path: Path) -> None:
    """A server's tools are copies of the SDK's records built once per process
    (:func:`memfs.mcp_server.sdk_tool`), each holding its own server's functions: two servers
    over two repositories, bound to two scopes, each write to and read from their own."""
    import anyio

    from tests.helpers import new_repo

    a, b = new_repo(tmp_path / "a"), new_repo(tmp_path / "b")
    first = build_server(a.session("user:U5", actor="agent:a"))
    second = build_server(b.session("user:U6", actor="agent:b"))
    for server, word in ((first, "alpha"), (second, "beta")):
        anyio.run(server.call_tool, "memory_create", {"path": "notes/n.md", "file_text": f"{word}\n"})
    assert (a.store.read("notes/n.md").body, a.store.read("notes/n.md").scope) == ("alpha\n", "user:U5")
    assert (b.store.read("notes/n.md").body, b.store.read("notes/n.md").scope) == ("beta\n", "user:U6")
    for server, word in ((second, "beta"), (first, "alpha")):
        result = anyio.run(server.call_tool, "memory_view", {"path": "notes/n.md"})
        assert word in "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def test_a_request_crosses_the_socket_unchanged() -> None:
    import datetime as dt

    from memfs.ops.verbs.recall import Search

    op = Search("rocket fuel", scope="user:U5", inherit=True, at=dt.datetime(2026, 1, 2, tzinfo=dt.UTC), limit=3)
    assert from_wire(Search, to_wire(op, CLI), CLI) == dataclasses.replace(op, explain=False)


@pytest.fixture
def probe() -> Iterator[None]:
    yield
    VERBS.pop("probe-verb", None)


def test_a_new_field_is_one_change(probe: None, tmp_path: Path) -> None:
    """Declare a verb with one field; then the same verb with a second field: the second field
    appears as a CLI option, an MCP schema property and a request parameter, with nothing else
    written for it."""

    def declare(extra: bool) -> type[Request[Any]]:
        VERBS.pop("probe-verb", None)
        namespace: dict[str, Any] = {
            "__doc__": "Probe the registry.",
            "__annotations__": {"word": "str", **({"depth": "int"} if extra else {})},
            "__module__": __name__,
            "word": param(help="A word.", argument=True, kw_only=False),
        }
        if extra:
            namespace["depth"] = param(default=2, help="How deep.", minimum=1)
        made: type[Request[Any]] = request("probe-verb", tool="memory_probe")(type("Probe", (Request,), namespace))
        return made

    for extra in (False, True):
        cls = declare(extra)
        cli_names = [p.name for p in derive.command(cls)(lambda state, op: None).params]
        from memfs import mcp_tools

        mcp_names = list(mcp_tools.signature(cls, admin=False, returns=str).parameters)
        assert cli_names == mcp_names == list(inspect.signature(cls).parameters) == (
            ["word", "depth"] if extra else ["word"])
    option = derive.parameter(fields(cls, CLI)[1])
    assert option.opts == ["--depth"] and option.default == 2 and getattr(option, "help", None) == "How deep."
