"""The one file-tool implementation (issue #24): every declared command has exactly one runner,
every door reads a request from the declarations (exactly the fields its door offers, each of
its declared type), and a field added to a declaration reaches the runner with nothing else
written, at ``memfs tool``/MCP and at the Anthropic door alike."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.agents import memory_tool, tools
from memfs.agents.filetools import RUNNERS, Door, Outcome, Run, parse_request
from memfs.agents.filetools.engine import runs
from memfs.agents.verbs import FILE_COMMANDS, REFERENCE, FileCommand, file_command
from memfs.errors import UsageError
from memfs.format.declare import MCP, NOT_SET, Field, fields, param

DOORS: list[Door] = [tools.DOOR, memory_tool.DOOR]
SAMPLES: dict[Any, Any] = {str: "x", int: 3, bool: True, dict: {"type": "fact"}}


def _sample(field: Field) -> Any:
    if field.sequence:
        return [SAMPLES[field.base], SAMPLES[field.base]]
    return SAMPLES[typing.get_origin(field.base) or field.base]


def test_every_declared_command_has_exactly_one_runner() -> None:
    assert set(RUNNERS) == set(FILE_COMMANDS.values())
    with pytest.raises(TypeError, match="has a runner already"):
        runs(FILE_COMMANDS["view"])(lambda run, op: Outcome(op, "", "."))


def test_every_door_says_every_text() -> None:
    def keys(door: Door) -> set[str]:
        return {k for k in door.texts if not k.startswith("wrong ")}

    assert keys(tools.DOOR) == keys(memory_tool.DOOR)


def test_the_doors_serve_the_declared_commands() -> None:
    assert list(tools.DOOR.commands) == list(FILE_COMMANDS) == list(tools.COMMANDS)
    assert list(memory_tool.DOOR.commands) == ["view", "create", "str_replace", "insert", "delete", "rename"]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.offers)
def test_a_request_takes_exactly_the_fields_its_door_offers(door: Door) -> None:
    for name, cls in door.commands.items():
        offered = fields(cls, door.offers)
        others = [f for f in fields(cls, MCP) if f.name not in {o.name for o in offered}]
        request = {"command": name, "not_a_field": 1, **{f.name: _sample(f) for f in (*offered, *others)}}
        op = parse_request(request, door)
        assert type(op) is cls
        assert {f.name: getattr(op, f.name) for f in offered} == {f.name: _sample(f) for f in offered}, name
        assert all(getattr(op, f.name) == f.default for f in others), name
        for field in offered:
            wrong = {**request, field.name: object()}
            with pytest.raises(UsageError):
                parse_request(wrong, door)
            if field.default is NOT_SET:
                with pytest.raises(UsageError, match=f"'{field.name}' is required"):
                    parse_request({k: v for k, v in request.items() if k != field.name}, door)


def test_the_texts_a_model_reads_for_a_bad_request() -> None:
    def said(door: Door, request: Any) -> str:
        with pytest.raises(UsageError) as caught:
            parse_request(request, door)
        return str(caught.value)

    assert said(tools.DOOR, {"command": "create"}) == "'path' is required"
    assert said(tools.DOOR, {"command": "create", "path": 3, "file_text": ""}) == "'path' must be a string, got int"
    assert said(tools.DOOR, {"command": "create", "path": "", "file_text": ""}) == "'path' may not be empty"
    assert said(tools.DOOR, {"command": "insert", "path": "a.md", "insert_line": True, "insert_text": ""}) == (
        "'insert_line' must be a whole number, got bool")
    assert said(tools.DOOR, {"command": "nuke"}).startswith("unknown command 'nuke'; use one of: view, create")
    assert said(tools.DOOR, ["view"]) == "the request must be a JSON object with a 'command'"
    assert said(memory_tool.DOOR, {"command": "append"}).startswith("Unknown command: append; use one of: view")
    bad_line = {"command": "insert", "path": "/memories/a", "insert_line": "1", "insert_text": ""}
    assert said(memory_tool.DOOR, bad_line) == "Invalid `insert_line` parameter: '1'. It must be a line number."


def _forget_probe() -> None:
    """Undeclare the ``probe`` command and its runner: a declaration left behind makes a later
    test in this process (``test_every_declared_command_has_exactly_one_runner``) fail."""
    cls = FILE_COMMANDS.pop("probe", None)
    if cls is not None:
        RUNNERS.pop(cls, None)


@pytest.fixture
def probe() -> Iterator[None]:
    yield
    _forget_probe()


def test_a_new_field_reaches_the_runner_at_every_door(probe: None, repo: MemoryRepo) -> None:
    """Declare a file command with one field and its runner; then the same command with a
    second field: the second field reaches the runner through ``memfs tool``'s door and the
    Anthropic door, with nothing else written for it."""

    def declare(extra: bool) -> type[FileCommand]:
        _forget_probe()
        namespace: dict[str, Any] = {
            "__doc__": "Probe the file tools.",
            "__annotations__": {"word": "str", **({"depth": "int"} if extra else {})},
            "__module__": __name__,
            "word": param(help="A word.", doors=(MCP, REFERENCE)),
        }
        if extra:
            namespace["depth"] = param(default=2, help="How deep.", doors=(MCP, REFERENCE))
        cls: type[FileCommand] = file_command("probe", writes=False, reference=True)(
            type("Probe", (FileCommand,), namespace))

        @runs(cls)
        def _probe(run: Run, op: Any) -> Outcome:
            return Outcome(op, repr(sorted(vars(op).items())), ".")

        return cls

    session = repo.session("user:U5", actor="agent:probe")
    for extra in (False, True):
        declare(extra)
        request = {"command": "probe", "word": "hello", "depth": 5}
        expected = repr(sorted({"word": "hello", **({"depth": 5} if extra else {})}.items()))
        result = tools.handle(session.store, request)
        assert result.ok and result.output == expected, result
        assert memory_tool.MemoryTool(session.store).execute(request) == expected
