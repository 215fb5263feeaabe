"""The MCP server reading through a live index it keeps (``memfs mcp`` without ``--no-live``):
same answers as without one, its own writes found by the next read, hand edits once their event
is processed, the session's scope still the boundary, and the direct path when the live index is
busy. Tests wait on the live index's own signals, never on sleeps."""

from __future__ import annotations

import gc
import json
import re
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from memfs import MemoryRepo
from memfs.agents.live.server import LiveIndex
from tests.helpers import commit_all, memory_text, wait_for, write_file

pytestmark = pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning")
AT = "2026-06-01T00:00:00+00:00"
TEXTS = {
    "facts/deploy.md": ("user:U5", "Deploy on Friday after the release notes are reviewed."),
    "facts/coffee.md": ("user:U5", "The team coffee budget is reviewed every summer."),
    "facts/invoice.md": ("user:U5", "Invoices are due on the first Friday of the month."),
    "facts/other.md": ("user:U7", "Deploy secrets of U7: the Friday release rota."),
    "system/persona.md": ("user:U5", "You are a careful release assistant."),
}
QUERIES = ["deploy friday", "release notes", "coffee budget summer", "invoice", "rota"]


def fact(scope: str, body: str) -> str:
    return memory_text(body, type="fact", scope=scope, source="tool:ci", created="2026-01-01T00:00:00Z")


@pytest.fixture
def live(repo: MemoryRepo) -> Iterator[LiveIndex]:
    for rel, (scope, body) in TEXTS.items():
        write_file(repo.root / rel, fact(scope, body))
    commit_all(repo.root, "memories")
    started = repo.live_index()
    yield started
    started.stop()


def call(server: Any, tool: str, **arguments: Any) -> Any:
    result = anyio.run(server.call_tool, tool, arguments)
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        return structured.get("result", structured)
    return "\n".join(getattr(c, "text", "") for c in getattr(result, "content", result))


def servers(repo: MemoryRepo, live: LiveIndex, scope: str = "user:U5") -> tuple[Any, Any]:
    from memfs.mcp_server import build_server

    session = repo.session(scope, actor="agent:mcp-test")
    return build_server(session), build_server(session, live)


def nonce_free(text: str) -> str:
    """A context with its per-render delimiter nonce blanked."""
    return re.sub(r"(<<<(?:MEMORY|END) )\d+", r"\1N", text)


def hits(found: Any) -> list[str]:
    return [hit["path"] for hit in found["hits"]]


def test_a_server_let_go_lets_its_session_go(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's tool records are built once per process (:func:`memfs.mcp_tools.sdk_tool`) and
    kept without the closures of the server that built them: a server let go frees its session
    and everything it holds (a work-tree watch, a search index), even the first server built.
    (No tool is called: the SDK runs tools on worker threads, whose last job may stay referenced
    until the thread goes idle.)"""
    from memfs import mcp_tools
    from memfs.mcp_server import build_server

    monkeypatch.setattr(mcp_tools, "_TOOLS", {})
    session = repo.session("user:U5", actor="agent:mcp-test")
    server = build_server(session)
    assert mcp_tools._TOOLS and all(kept.fn is None for kept in mcp_tools._TOOLS.values())
    let_go = weakref.ref(session)
    del session, server
    gc.collect()
    assert let_go() is None


def test_the_same_answers_with_and_without_the_live_index(repo: MemoryRepo, live: LiveIndex) -> None:
    direct, through = servers(repo, live)
    answered = live.answered
    for query in QUERIES:
        assert call(through, "memory_search", query=query, at=AT) == call(direct, "memory_search", query=query, at=AT)
        assert nonce_free(call(through, "memory_context", task=query, at=AT)) == nonce_free(
            call(direct, "memory_context", task=query, at=AT))
        assert call(through, "search", query=query) == call(direct, "search", query=query)
    assert live.answered == answered + 3 * len(QUERIES)
    assert "facts/other.md" not in json.dumps([call(through, "memory_search", query=q) for q in QUERIES])


def test_its_own_writes_are_found_by_the_next_read(repo: MemoryRepo, live: LiveIndex) -> None:
    _direct, through = servers(repo, live)
    for i in range(3):
        call(through, "memory_create", path=f"facts/new{i}.md", file_text=f"Quokka number {i} lives here.",
             reason="test")
        assert f"facts/new{i}.md" in hits(call(through, "memory_search", query=f"quokka {i}"))
    call(through, "memory_str_replace", path="facts/new0.md", old_str="Quokka", new_str="Wombat", reason="test")
    assert hits(call(through, "memory_search", query="wombat")) == ["facts/new0.md"]
    remembered = call(through, "memory_remember", body="Prefers tea over coffee in the morning.",
                      source="conversation:C9", type="fact", key="morning_drink")
    assert remembered["paths"][0] in hits(call(through, "memory_search", query="tea morning"))


def test_hand_edits_are_found_once_processed_and_the_scope_still_binds(repo: MemoryRepo, live: LiveIndex) -> None:
    direct, through = servers(repo, live)
    write_file(repo.root / "facts/hand.md", fact("user:U5", "A hand-written note about marmalade."))
    write_file(repo.root / "facts/foreign.md", fact("user:U7", "Marmalade recipe of U7."))
    live.settle()
    found = call(through, "memory_search", query="marmalade")
    assert hits(found) == ["facts/hand.md"] == hits(call(direct, "memory_search", query="marmalade"))
    assert found["hits"][0]["uncommitted"] is True
    _direct7, through7 = servers(repo, live, "user:U7")
    assert hits(call(through7, "memory_search", query="marmalade")) == ["facts/foreign.md"]


def test_a_busy_live_index_leaves_reads_to_the_direct_path(repo: MemoryRepo, live: LiveIndex) -> None:
    direct, through = servers(repo, live)
    live.query_wait = 0.01
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with live.lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(30)
        answered = live.answered
        assert call(through, "memory_search", query="deploy friday", at=AT) == call(
            direct, "memory_search", query="deploy friday", at=AT)
        assert live.answered == answered
    finally:
        release.set()
        holder.join()


def test_recalls_through_the_live_index_are_counted_after_the_answer(repo: MemoryRepo, live: LiveIndex) -> None:
    from memfs.store import usage

    _direct, through = servers(repo, live)
    for _ in range(2):
        assert hits(call(through, "memory_search", query="invoice", at=AT)) == ["facts/invoice.md"]
    assert call(through, "search", query="invoice")["results"][0]["id"] == "facts/invoice.md"
    assert wait_for(lambda: usage.load(repo.store).get("facts/invoice.md", usage.Usage()).recalls == 3)


def test_readers_on_any_thread_share_one_open_index(repo: MemoryRepo, live: LiveIndex) -> None:
    from memfs.index.reader import handle

    _direct, through = servers(repo, live)
    call(through, "memory_search", query="deploy", at=AT)
    opened: list[object] = []
    for _ in range(3):
        worker = threading.Thread(target=lambda: opened.append(live.read(handle)))
        worker.start()
        worker.join()
    opened.append(live.read(handle))
    assert len({id(o) for o in opened}) == 1


def test_a_live_index_still_starting_leaves_reads_to_the_direct_path(repo: MemoryRepo, live: LiveIndex) -> None:
    """``memfs mcp`` answers while its live index builds: until it is ready, the same answers
    from the direct path; then through it."""
    from memfs.mcp_server import build_server

    ready: list[LiveIndex] = []
    session = repo.session("user:U5", actor="agent:mcp-test")
    starting = build_server(session, lambda: ready[0] if ready else None)
    direct = build_server(session)
    answered = live.answered
    first = call(starting, "memory_search", query=QUERIES[0], at=AT)
    assert live.answered == answered and first == call(direct, "memory_search", query=QUERIES[0], at=AT)
    ready.append(live)
    assert call(starting, "memory_search", query=QUERIES[0], at=AT) == first and live.answered == answered + 1
