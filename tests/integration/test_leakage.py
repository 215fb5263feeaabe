"""Scope is a boundary: thousands of randomized requests in sessions bound to near-miss scopes
never see another scope's memory, in answers or in error messages (see :mod:`tests.leakage`).

The MCP server bound by its own configuration gets the same treatment through the official
client in ``tests/smoke/test_guard_mcp.py``.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from tests import leakage
from tests.helpers import Prepared

#: Requests through the library here; the MCP test adds its own (together over 10,000).
COUNT = 8500


def answer(repo: MemoryRepo, request: leakage.Request) -> str:
    """What ``request`` shows the caller beyond what it said itself: the answer as JSON or text,
    or the error message, with the echo of its own words and path taken out."""
    return leakage.without_echo(_answer(repo, request), request)


def _answer(repo: MemoryRepo, request: leakage.Request) -> str:
    session = repo.session(request.scope, inherit=request.inherit, actor="agent:leak")
    try:
        if request.kind in ("search", "search-explain"):
            found = session.search(request.words, limit=5, explain=request.kind == "search-explain", catch_up=False)
            return json.dumps(found.to_json(), ensure_ascii=False)
        if request.kind == "context":
            return session.context(request.words, scope=None, budget=600).render("json")
        if request.kind == "view-file":
            return session.tool({"command": "view", "path": request.target}).output
        if request.kind == "view-listing":
            return session.tool({"command": "view", "path": "/memories/notes"}).output
        if request.kind == "log":
            return json.dumps([e.to_json() for e in session.log(limit=10)], ensure_ascii=False)
        if request.kind == "show":
            return session.show(request.target)[1].decode()
        return json.dumps([r.to_json() for r in session.history(request.target)], ensure_ascii=False)
    except MemfsError as exc:
        return f"error: {exc}"


@pytest.fixture
def corpus(prepared: Prepared) -> MemoryRepo:
    repo = prepared("leakage", leakage.build)
    repo.search("release", scope="user:U5")
    return repo


@pytest.mark.slow
def test_randomized_requests_never_see_another_scope(corpus: MemoryRepo) -> None:
    seen: Counter[str] = Counter()
    leaked: list[str] = []
    answered = 0
    for request in leakage.requests(COUNT, seed=11):
        text = answer(corpus, request)
        seen[request.kind] += 1
        answered += leakage.token(request.scope) in text
        found = leakage.leaks(text, request.scope, request.inherit)
        if found:
            leaked.append(f"{request}: {found[:3]} in {text[:200]!r}")
    assert leaked == [], f"{len(leaked)} of {COUNT} requests leaked:\n" + "\n".join(leaked[:10])
    assert sum(seen.values()) == COUNT and set(seen) == set(leakage.KINDS)
    assert answered > COUNT // 10


def test_an_unbound_repository_does_see_every_scope(corpus: MemoryRepo) -> None:
    """The check can fail: the same question without a session shows other scopes' tokens."""
    text = json.dumps(corpus.search("release notes deploy", limit=50, catch_up=False).to_json())
    assert leakage.leaks(text, "user:U5", False)
