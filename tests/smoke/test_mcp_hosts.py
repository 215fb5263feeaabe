"""``memfs mcp`` as MCP hosts meet it: the official client over stdio and over streamable HTTP
(``http://127.0.0.1:PORT/mcp``) lists tools whose every parameter is described, reads ``system/``
as resources, gets the prompt, and calls every tool with valid and with invalid input."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from memfs import MemoryRepo
from memfs.agents.filetext import lines_of, view_text
from tests.helpers import FACT, PROJECT, git, wait_for
from tests.smoke.test_mcp import _env, _errlog, text_of

pytestmark = pytest.mark.slow

SCOPE = "user:U5"


def _client(target: Any) -> Any:
    from mcp.client import Client

    return Client(target, read_timeout_seconds=60)


def _stdio(root: Path, actor: str, *extra: str) -> Any:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memfs", "-C", str(root), "--actor", actor, "mcp", *extra],
        env=_env(), cwd=str(PROJECT),
    )
    return _client(stdio_client(params, errlog=_errlog()))


@contextmanager
def connected(client: Any) -> Iterator[tuple[BlockingPortal, Any]]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(client) as session:
        yield portal, session


def _prepare(repo: MemoryRepo) -> None:
    repo.write("facts/b17.md", fields={**FACT, "description": "B17 status"}, body="B17 shipped on Monday.\n")
    repo.write("facts/root.md", fields=FACT, body="The release is on Friday.\n")
    repo.write("facts/other.md", fields=FACT, body="The calendar says Friday.\n")
    repo.write("notes/plan.md", fields={**FACT, "type": "note", "depends_on": ["facts/root.md", "facts/other.md"]},
               body="# Plan\n\n## Steps\n\nShip on Friday.\n")
    repo.write("notes/theirs.md", fields={**FACT, "scope": "user:U6"}, body="U6's own note about B17.\n")
    repo.retract(["facts/root.md"], reason="the date moved")


def _check_tools(tools: list[Any]) -> dict[str, Any]:
    by_name = {t.name: t for t in tools}
    for tool in tools:
        assert tool.description and not tool.description.startswith(" ") and "\n    " not in tool.description
        for name, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"
    enums = {
        ("memory_search", "type"): {"preference", "fact", "episode", "procedure", "summary", "note"},
        ("memory_remember", "type"): {"preference", "fact", "episode", "procedure", "summary", "note"},
        ("memory_remember", "source_kind"): {"user", "tool", "agent", "document", "system"},
        ("memory_context", "format"): {"markdown", "xml", "json"},
    }
    for (tool, param), values in enums.items():
        schema = by_name[tool].input_schema["properties"][param]
        found = schema.get("enum") or next(o["enum"] for o in schema["anyOf"] if "enum" in o)
        assert set(found) == values, (tool, param)
    for name in ("memory_search", "memory_context", "memory_remember", "search"):
        assert "scope" not in by_name[name].input_schema["properties"]
    assert {"inherit", "type", "at"} <= set(by_name["memory_search"].input_schema["properties"])
    assert "inherit" in by_name["memory_context"].input_schema["properties"]
    return by_name


#: Every tool, called once with valid input and once with invalid input (after the valid one).
CALLS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("memory_view", {"path": "/memories/facts"}, {"path": "../../etc/passwd"}),
    ("memory_create", {"path": "notes/new.md", "file_text": "A new note.", "reason": "test"},
     {"path": "notes/new.md", "file_text": "again"}),
    ("memory_str_replace", {"path": "notes/new.md", "old_str": "A new", "new_str": "One new"},
     {"path": "notes/new.md", "old_str": "absent", "new_str": "x"}),
    ("memory_insert", {"path": "notes/new.md", "insert_line": -1, "insert_text": "- inserted"},
     {"path": "notes/new.md", "insert_line": "first", "insert_text": "x"}),
    ("memory_append", {"path": "notes/new.md", "text": "- appended"}, {"path": "notes/none.md", "text": "x"}),
    ("memory_replace_section", {"path": "notes/plan.md", "heading": "## Steps", "content": "Ship on Monday."},
     {"path": "notes/plan.md", "heading": "", "content": "x"}),
    ("memory_update_description", {"path": "notes/new.md", "description": "a new note"},
     {"path": "notes/new.md", "description": "two\nlines"}),
    ("memory_rename", {"old_path": "notes/new.md", "new_path": "notes/renamed.md"},
     {"old_path": "notes/renamed.md", "new_path": "facts/b17.md"}),
    ("memory_delete", {"path": "notes/renamed.md", "reason": "done"}, {"path": "notes/renamed.md"}),
    ("memory_log", {"limit": 5}, {"limit": 0}),
    ("memory_history", {"path": "facts/b17.md"}, {"path": "notes/theirs.md"}),
    ("memory_search", {"query": "B17 shipped", "type": "fact", "at": "2030-01-01T00:00:00Z", "inherit": False},
     {"query": "B17", "type": "rumour"}),
    ("memory_context", {"task": "when did B17 ship?", "format": "xml", "budget": 1000},
     {"task": "when did B17 ship?", "inherit": True}),
    ("memory_remember", {"body": "U5 reviews PRs on Fridays.", "source": "conversation:C7#msg-2", "type": "fact",
                         "source_kind": "agent", "key": "pr_review_day"},
     {"body": "x", "source": "conversation:C7", "source_kind": "friend"}),
    ("memory_reinstate", {"path": "notes/plan.md", "reason": "the calendar still says Friday"},
     {"path": "facts/b17.md", "reason": "not in review"}),
    ("memory_retract", {"paths": ["facts/other.md"], "reason": "the calendar was wrong"},
     {"paths": [], "reason": "nothing"}),
    ("search", {"query": "B17"}, {"query": ""}),
    ("fetch", {"id": "facts/b17.md"}, {"id": "notes/theirs.md"}),
]


def _exercise(portal: BlockingPortal, client: Any, repo: MemoryRepo) -> list[str]:
    problems = []
    for tool, good, bad in CALLS:
        if good.get("insert_line") == -1:  # after the last line of the text the file tools show
            shown = view_text(good["path"], (repo.root / good["path"]).read_bytes())
            good = {**good, "insert_line": len(lines_of(shown))}
        try:
            ok = portal.call(client.call_tool, tool, good)
        except Exception as exc:  # an MCP protocol error is a failure here
            problems.append(f"{tool} valid: raised {exc!r}")
            continue
        if ok.is_error:
            problems.append(f"{tool} valid: {text_of(ok)}")
        try:
            refused = portal.call(client.call_tool, tool, bad)
            if not refused.is_error:
                problems.append(f"{tool} invalid input was accepted: {bad}")
            elif "U6's own note" in text_of(refused):
                problems.append(f"{tool} showed another scope's memory")
        except Exception as exc:
            if "validation" not in str(exc).lower() and "invalid" not in str(exc).lower():
                problems.append(f"{tool} invalid: raised {exc!r}")
    return problems


def _as_a_host(portal: BlockingPortal, client: Any, repo: MemoryRepo) -> None:
    """What a host does with a server bound to user:U5 acting as the person U5: list and check
    the tools, read the resources, get the prompt, call every tool well and badly."""
    assert client.server_info.version == version("memfs") != ""
    by_name = _check_tools(portal.call(client.list_tools).tools)
    assert {name for name, _, _ in CALLS} == set(by_name)
    resources = portal.call(client.list_resources).resources
    assert "memfs://memory/system/persona.md" in {str(r.uri) for r in resources}
    persona = portal.call(client.read_resource, "memfs://memory/system/persona.md")
    assert "You are an assistant" in persona.contents[0].text
    fact = portal.call(client.read_resource, "memfs://memory/facts/b17.md")
    assert "B17 shipped on Monday." in fact.contents[0].text
    with pytest.raises(Exception, match="no such memory"):
        portal.call(client.read_resource, "memfs://memory/notes/theirs.md")
    prompts = portal.call(client.list_prompts).prompts
    assert [p.name for p in prompts] == ["memory_context"]
    prompt = portal.call(client.get_prompt, "memory_context", {"task": "when did B17 ship?"})
    assert "B17 shipped on Monday." in prompt.messages[0].content.text
    assert _exercise(portal, client, repo) == []
    found = portal.call(client.call_tool, "search", {"query": "B17"})
    fetched = portal.call(client.call_tool, "fetch", {"id": "facts/b17.md"})
    results = json.loads(text_of(found))["results"]
    assert results and {"id", "title", "url"} <= set(results[0]) and "notes/theirs.md" not in text_of(found)
    document = json.loads(text_of(fetched))
    assert document["id"] == "facts/b17.md" and document["title"] == "B17 status"
    assert document["text"] == "B17 shipped on Monday.\n" and document["metadata"]["scope"] == SCOPE
    assert "Ship on Monday." in repo.store.read("notes/plan.md").body
    # reinstated by the person, then flagged again when its other source was retracted
    assert [e.op for e in repo.log("notes/plan.md", limit=2)] == ["retract", "reinstate"]
    assert git(repo.root, "status", "--porcelain", "--untracked-files=no").strip() == ""


def test_a_host_over_stdio(repo: MemoryRepo) -> None:
    _prepare(repo)
    with connected(_stdio(repo.root, "user:U5", "--scope", SCOPE)) as (portal, client):
        _as_a_host(portal, client, repo)


def test_an_inheriting_server_reads_ancestors_unless_asked_not_to(repo: MemoryRepo) -> None:
    repo.write("prefs/global.md", fields={**FACT, "description": "global"}, body="U5 likes short answers.\n")
    with connected(_stdio(repo.root, "agent:host", "--scope", "user:U5/project:P8", "--inherit")) as (portal, client):
        wide = portal.call(client.call_tool, "memory_search", {"query": "short answers"})
        narrow = portal.call(client.call_tool, "memory_search", {"query": "short answers", "inherit": False})
    assert [h["path"] for h in json.loads(text_of(wide))["hits"]] == ["prefs/global.md"]
    assert json.loads(text_of(narrow))["hits"] == []


def test_an_administration_server_lets_the_host_name_a_scope(repo: MemoryRepo) -> None:
    _prepare(repo)
    with connected(_stdio(repo.root, "user:admin", "--all-scopes")) as (portal, client):
        tools = {t.name: t for t in portal.call(client.list_tools).tools}
        mine = portal.call(client.call_tool, "memory_search", {"query": "note about B17", "scope": "user:U6"})
    assert "scope" in tools["memory_search"].input_schema["properties"]
    assert [h["path"] for h in json.loads(text_of(mine))["hits"]] == ["notes/theirs.md"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_host_over_streamable_http(repo: MemoryRepo, tmp_path: Path) -> None:
    _prepare(repo)
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "memfs", "-C", str(repo.root), "--actor", "user:U5", "mcp", "--scope", SCOPE,
         "--http", str(port)],
        stdout=subprocess.DEVNULL, stderr=log, env=_env(), cwd=str(PROJECT),
    )
    try:
        assert wait_for(lambda: _listening(port)), (tmp_path / "server.log").read_text()
        with connected(_client(f"http://127.0.0.1:{port}/mcp")) as (portal, client):
            _as_a_host(portal, client, repo)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    assert "serving MCP at http://127.0.0.1:" in (tmp_path / "server.log").read_text()
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "user:U5"


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
