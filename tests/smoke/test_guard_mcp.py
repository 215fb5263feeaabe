"""The core guard's door matrix through MCP: the official ``mcp`` client over stdio, talking to
``python -m memfs mcp --scope user:U5`` as an agent host would (see ``tests/guard_matrix.py``).

One server bound to user:U5 serves every attack of the matrix for each of the three doors in turn,
and then the read-only requests of ``test_a_bound_server_shows_no_other_scope`` (a module's
server, :func:`u5`); after each call the repository must be as it was (no commit, nothing on disk,
nothing in ``.git`` or outside the root), the call must be a tool error that names the rule, and
no answer may show another scope's memory. Each test starts by checking that the repository is
exactly as prepared, so one test cannot hand the next a changed repository.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from memfs import MemoryRepo
from memfs.agents.filetext import lines_of, view_text
from tests import guard_matrix as gm
from tests import leakage
from tests.helpers import ACTOR, Prepared, copy_repo, git, isolate
from tests.smoke.test_mcp import session, text_of

pytestmark = pytest.mark.slow


class McpDoor(gm.Door):
    """The MCP file tools of a server bound to user:U5, acting as an agent."""

    name = "mcp file tools"
    bound = True
    carries = frozenset({"reason", "path"})

    def __init__(self, portal: BlockingPortal, client: Any) -> None:
        self.portal = portal
        self.client = client

    def call(self, tool: str, arguments: dict[str, Any]) -> gm.Outcome:
        arguments = {k: v for k, v in arguments.items() if v is not None}
        result = self.portal.call(self.client.call_tool, tool, arguments)
        return gm.Outcome(not result.is_error, text_of(result))

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_create", {"path": path, "file_text": gm.file_text(path, fields, body),
                                           "reason": reason})

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        command, arguments = gm.tool_edit(repo, path, old, new)
        return self.call(f"memory_{command}", {**arguments, "reason": reason})

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_delete", {"path": path, "reason": reason})

    def describe(self, repo: MemoryRepo, path: str, text: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_update_description", {"path": path, "description": text, "reason": reason})

    def move(self, repo: MemoryRepo, old: str, new: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_rename", {"old_path": old, "new_path": new, "reason": reason})

    def read(self, repo: MemoryRepo, path: str) -> gm.Outcome:
        return self.call("memory_view", {"path": path})


class McpBareDoor(McpDoor):
    """``memory_create`` from a bare body with ``fields``, and ``memory_insert`` for edits."""

    name = "mcp bare body and insert"

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_create", {"path": path, "file_text": body, "fields": fields, "reason": reason})

    def edit(self, repo: MemoryRepo, path: str, old: str, new: str, reason: str | None) -> gm.Outcome:
        data = repo.store.read_bytes(path)
        if data is None or old not in data.decode().split("---", 2)[-1]:
            return gm.NA
        lines = len(lines_of(view_text(path, data)))  # after the last line of the text the tool shows
        return self.call("memory_insert", {"path": path, "insert_line": lines, "insert_text": new, "reason": reason})


class McpRememberDoor(McpDoor):
    """``memory_remember`` and ``memory_retract``: the verbs, bound to the server's scope."""

    name = "mcp remember/retract"

    def create(self, repo: MemoryRepo, path: str, fields: dict[str, Any], body: str, reason: str | None) -> gm.Outcome:
        if set(fields) - {"type", "scope", "source", "source_kind", "status"} or path != "notes/s.md":
            return gm.NA
        if fields.get("scope", gm.SCOPE) != gm.SCOPE or fields.get("status", "active") != "active":
            return gm.NA
        return self.call("memory_remember", {"body": body, "source": fields["source"], "type": fields["type"],
                                             "source_kind": fields.get("source_kind"), "reason": reason})

    def delete(self, repo: MemoryRepo, path: str, reason: str | None) -> gm.Outcome:
        return self.call("memory_retract", {"paths": [path], "reason": reason or "x"})

    edit = describe = move = read = lambda self, *args: gm.NA  # type: ignore[assignment]


@contextmanager
def served(root: Path, scope: str = gm.SCOPE) -> Iterator[tuple[BlockingPortal, Any]]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
        session(root, "--scope", scope)
    ) as client:
        yield portal, client


@dataclass
class Served:
    """The module's server bound to :data:`gm.SCOPE`, the repository it serves (prepared by
    :func:`gm.prepare`), the folder outside its root, and a snapshot of it as prepared."""

    portal: BlockingPortal
    client: Any
    root: Path
    outside: Path
    prepared: gm.Snapshot

    def repo(self) -> MemoryRepo:
        """The served repository as a test finds it: as prepared (checked), opened afresh."""
        repo = MemoryRepo.open(self.root, ACTOR)
        now = gm.snapshot(repo, self.outside)
        assert _kept(now) == _kept(self.prepared), "an earlier test left the served repository changed"
        return repo


def _kept(snapshot: gm.Snapshot) -> gm.Snapshot:
    """What must be as prepared between tests: all but the refusal log (refusals add to it)."""
    return dataclasses.replace(snapshot, refusal_log="")


@pytest.fixture(scope="module")
def u5(tmp_path_factory: pytest.TempPathFactory, template_repo: Path, _home: Path) -> Iterator[Served]:
    """One server for the module's tests that need a prepared repository bound to user:U5 (a
    server's start is most of the CPU of a short test: the SDK's imports and tool models)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolate(monkeypatch, _home)
        folder = tmp_path_factory.mktemp("guard-mcp")
        repo = MemoryRepo.open(copy_repo(template_repo, folder / "mem"), ACTOR)
        outside = folder / "outside"
        gm.prepare(repo, outside)
        prepared = gm.snapshot(repo, outside)
        with served(repo.root) as (portal, client):
            yield Served(portal, client, repo.root, outside, prepared)


@pytest.mark.parametrize("door_class", [McpDoor, McpBareDoor, McpRememberDoor], ids=lambda c: c.name)
def test_every_attack_is_refused_through_mcp(door_class: type[McpDoor], u5: Served) -> None:
    from tests.cli.test_guard_doors import run_matrix

    repo = u5.repo()
    cells, failures = run_matrix(repo, door_class(u5.portal, u5.client), u5.outside)
    print(f"guard matrix: {door_class.name}: {cells} cells")
    assert cells > 0
    assert failures == [], f"{len(failures)} of {cells} cells failed:\n" + "\n".join(failures[:40])
    assert _kept(gm.snapshot(repo, u5.outside)) == _kept(u5.prepared), "the matrix did not put the repository back"


def test_a_bound_server_shows_no_other_scope(u5: Served) -> None:
    """search, context, log and the listing of a server bound to user:U5 never show user:U6."""
    repo, portal, client = u5.repo(), u5.portal, u5.client
    answers = [
        portal.call(client.call_tool, "memory_search", {"query": "spare key blue pot"}),
        portal.call(client.call_tool, "memory_context", {"task": "where is the spare key?"}),
        portal.call(client.call_tool, "memory_log", {"limit": 50}),
        portal.call(client.call_tool, "memory_view", {"path": "/memories/facts"}),
    ]
    tools = {t.name: t for t in portal.call(client.list_tools).tools}
    shown = "\n".join(text_of(a) + json.dumps(a.structured_content or {}) for a in answers)
    assert not any(a.is_error for a in answers)
    assert gm.FOREIGN not in shown and gm.FOREIGN_TEXT not in shown and gm.OTHER_SCOPE not in shown
    assert gm.BASE in shown
    for name in ("memory_search", "memory_context", "memory_remember"):
        assert "scope" not in tools[name].input_schema["properties"]
    assert git(repo.root, "status", "--porcelain", "--untracked-files=no").strip() == ""


#: Randomized requests per bound server (two servers): with the library's in
#: ``tests/integration/test_leakage.py``, over 10,000 requests in all.
MCP_REQUESTS = 800


@pytest.mark.parametrize("scope", ["user:U5", "user:U50/project:P8"])
def test_randomized_requests_to_a_bound_server_never_see_another_scope(prepared: Prepared, scope: str) -> None:
    repo = prepared("leakage", leakage.build)
    kinds = ("search", "context", "view-file", "view-listing", "log")
    leaked: list[str] = []
    with served(repo.root, scope) as (portal, client):
        for request in leakage.requests(MCP_REQUESTS, seed=len(scope), kinds=kinds, scopes=(scope,)):
            tool, arguments = _mcp_request(request)
            result = portal.call(client.call_tool, tool, arguments)
            parts = (text_of(result), json.dumps(result.structured_content or {}, ensure_ascii=False))
            found = [f for part in parts for f in leakage.leaks(leakage.without_echo(part, request), scope, False)]
            if found:
                leaked.append(f"{request}: {found[:3]}")
    assert leaked == [], f"{len(leaked)} of {MCP_REQUESTS} requests leaked:\n" + "\n".join(leaked[:10])


def _mcp_request(request: leakage.Request) -> tuple[str, dict[str, Any]]:
    if request.kind == "search":
        return "memory_search", {"query": request.words, "limit": 5}
    if request.kind == "context":
        return "memory_context", {"task": request.words, "budget": 600}
    if request.kind == "view-file":
        return "memory_view", {"path": request.target}
    if request.kind == "view-listing":
        return "memory_view", {"path": "/memories/notes"}
    return "memory_log", {"limit": 10}
