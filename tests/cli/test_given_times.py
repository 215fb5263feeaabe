"""A time a person or a model asks for is read by one rule at every door
(:func:`memfs.format.times.given_time`): a date alone is 00:00 UTC, a zoned date-time is
itself, and a time without a zone or a text that is no time is refused with the same words,
at the command line (``--at``, ``write`` and ``remember``'s ``--expires``) and through MCP (``at``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import anyio
import pytest

from memfs import MemoryRepo
from memfs.errors import UsageError
from memfs.format.times import given_time
from tests.helpers import cli

CASES = {
    "2026-06-01": dt.datetime(2026, 6, 1, tzinfo=dt.UTC),
    "2026-06-01T10:30:00Z": dt.datetime(2026, 6, 1, 10, 30, tzinfo=dt.UTC),
    "2026-06-01T12:30:00+02:00": dt.datetime(2026, 6, 1, 10, 30, tzinfo=dt.UTC),
}
REFUSED = {"2026-06-01T10:30:00": "has no time zone", "next week": "not an ISO 8601 time", "": "not an ISO 8601 time"}


@pytest.mark.parametrize(("text", "moment"), CASES.items())
def test_the_natural_forms_are_read(text: str, moment: dt.datetime) -> None:
    assert given_time(text, "--at") == moment


@pytest.mark.parametrize(("text", "why"), REFUSED.items())
def test_the_rest_is_refused_naming_the_field(text: str, why: str) -> None:
    with pytest.raises(UsageError, match=why) as raised:
        given_time(text, "--at")
    assert str(raised.value).startswith(f"--at {text!r}:")


def _cli_search(repo: MemoryRepo, text: str) -> str:
    done = cli(repo, "search", "anything", "--scope", "user:U5", "--at", text)
    return done.stdout + done.stderr if done.returncode else ""


def _cli_write(repo: MemoryRepo, text: str) -> str:
    done = cli(repo, "write", "facts/t.md", "--type", "fact", "--scope", "user:U5", "--source", "tool:t",
               "--expires", text, "--body", "a fact")
    return done.stdout + done.stderr if done.returncode else ""


def _cli_remember(repo: MemoryRepo, text: str) -> str:
    done = cli(repo, "remember", "--scope", "user:U5", "--source", "tool:t", "--expires", text,
               "--body", f"A fact that stops at {text or 'no time'}.")
    return done.stdout + done.stderr if done.returncode else ""


def _mcp_search(repo: MemoryRepo, text: str) -> str:
    from mcp.server.mcpserver.exceptions import ToolError

    from memfs.mcp_server import build_server

    server = build_server(repo.session("user:U5", actor="agent:t"))
    try:
        anyio.run(server.call_tool, "memory_search", {"query": "anything", "at": text})
    except ToolError as exc:
        return str(exc)
    return ""


DOORS: dict[str, Callable[[MemoryRepo, str], str]] = {
    "cli search --at": _cli_search, "cli write --expires": _cli_write, "cli remember --expires": _cli_remember,
    "mcp memory_search at": _mcp_search}


@pytest.mark.parametrize("door", DOORS)
@pytest.mark.parametrize("text", [*CASES, *REFUSED])
def test_every_door_reads_a_time_the_same_way(repo: MemoryRepo, door: str, text: str) -> None:
    refused = DOORS[door](repo, text)
    if text in REFUSED:
        assert REFUSED[text] in refused and repr(text) in refused, refused
    else:
        assert refused == ""
