"""The MCP server through a real MCP client over stdio (the server runs as `python -m memfs mcp`)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio
import pytest

from memfs import MemoryRepo
from tests.helpers import PROJECT, git

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    keep = ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "MEMFS_ACTOR", "PATH", "PYTHONPATH")
    return {k: os.environ[k] for k in keep if k in os.environ}


def _errlog() -> TextIO:
    """Where the server's stderr goes: this test's captured stderr if it is a real file. Not
    mcp's default, ``sys.stderr`` as it was when mcp was imported: if a CLI test imported mcp
    inside click's test runner first, that is a stream without a file descriptor."""
    try:
        sys.stderr.fileno()
    except OSError:
        return sys.__stderr__
    return sys.stderr


def session(root: Path, *extra: str):
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memfs", "-C", str(root), "--actor", "agent:mcp-test", "mcp", *extra],
        env=_env(),
        cwd=str(PROJECT),
    )
    return Client(stdio_client(params, errlog=_errlog()), read_timeout_seconds=60)


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.parametrize("live", [(), ("--no-live",)], ids=["live-index", "no-live"])
def test_real_client_lists_and_calls_tools(repo: MemoryRepo, live: tuple[str, ...]):
    """With its live index (the default) and without, the same tool results: a search right
    after an edit finds the edit either way."""
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with session(repo.root, "--scope", "user:U5", *live) as client:
            tools = (await client.list_tools()).tools
            seen["tools"] = {t.name: t for t in tools}
            created = await client.call_tool(
                "memory_create",
                {"path": "/memories/facts/b17.md", "file_text": "B17 shipped on Monday.", "reason": "from chat"},
            )
            seen["created"] = (created.is_error, text_of(created))
            viewed = await client.call_tool("memory_view", {"path": "/memories"})
            seen["viewed"] = text_of(viewed)
            escaped = await client.call_tool("memory_view", {"path": "../../etc/passwd"})
            seen["escaped"] = (escaped.is_error, text_of(escaped))
            edited = await client.call_tool(
                "memory_str_replace", {"path": "facts/b17.md", "old_str": "Monday", "new_str": "Tuesday"}
            )
            seen["edited"] = (edited.is_error, text_of(edited))
            log = await client.call_tool("memory_log", {"limit": 5})
            seen["log"] = log.structured_content or json.loads(text_of(log))
            found = await client.call_tool("memory_search", {"query": "B17 shipped"})
            seen["search"] = found.structured_content or json.loads(text_of(found))
            built = await client.call_tool("memory_context", {"task": "when did B17 ship?", "budget": 2000})
            seen["context"] = (built.is_error, text_of(built))

    anyio.run(main)
    tools = seen["tools"]
    for name in ("memory_view", "memory_create", "memory_str_replace", "memory_insert", "memory_delete"):
        assert name in tools and tools[name].description
    assert tools["memory_view"].annotations.read_only_hint is True
    assert "old_str" in tools["memory_str_replace"].input_schema["properties"]
    assert seen["created"][0] is False and "Created facts/b17.md" in seen["created"][1]
    assert "facts/b17.md" in seen["viewed"]
    assert seen["escaped"][0] is True and "outside the memory root" in seen["escaped"][1]
    assert seen["edited"][0] is False
    assert "Tuesday" in (repo.root / "facts/b17.md").read_text()
    assert git(repo.root, "log", "-1", "--format=%an").strip() == "agent:mcp-test"
    log = seen["log"]["result"] if isinstance(seen["log"], dict) and "result" in seen["log"] else seen["log"]
    assert log[0]["op"] == "edit" and log[0]["actor"] == "agent:mcp-test"
    assert [h["path"] for h in seen["search"]["hits"]] == ["facts/b17.md"]
    assert seen["context"][0] is False and "facts/b17.md" in seen["context"][1]


def test_tool_errors_read_as_one_sentence(repo: MemoryRepo):
    """A refusal and a wrong argument, through the real client: the message alone, on one line,
    without the SDK's ``Error executing tool`` prefix or pydantic's text and links."""
    said: dict[str, Any] = {}

    async def main() -> None:
        async with session(repo.root, "--scope", "user:U5", "--no-live") as client:
            for name, tool, arguments in [
                ("missing", "memory_view", {"path": "facts/nothere.md"}),
                ("wrong-type", "memory_search", {"query": "x", "limit": "many"}),
                ("left-out", "memory_search", {}),
            ]:
                result = await client.call_tool(tool, arguments)
                said[name] = (result.is_error, text_of(result))

    anyio.run(main)
    for name, (is_error, text) in said.items():
        assert is_error and "\n" not in text and text, (name, text)
        assert not text.startswith("Error") and "pydantic" not in text and "http" not in text, (name, text)
    assert said["missing"][1].startswith("facts/nothere.md: no such memory")
    assert said["wrong-type"][1].startswith("argument 'limit': input should be a valid integer")
    assert said["left-out"][1] == "argument 'query': field required."
