"""Scope is a boundary: thousands of randomized requests in sessions bound to near-miss scopes
never see another scope's memory, in answers or in error messages (see :mod:`tests.leakage`).

The MCP server bound by its own configuration gets the same treatment through the official
client in ``tests/smoke/test_guard_mcp.py``.
"""

from __future__ import annotations

import functools
import json
from collections import Counter

import pytest

from memfs import MemoryRepo
from memfs.errors import MemfsError
from tests import leakage
from tests.helpers import Prepared

#: Requests through the library here; the MCP test adds its own (together over 10,000).
COUNT = 8500
#: The requests are checked in this many tests (every SHARDS-th request, each from its own
#: start), so that test workers share them; together they are the COUNT requests, once each.
SHARDS = 10


def shard(number: int) -> list[tuple[int, leakage.Request]]:
    """Shard ``number``'s requests, with their places among the COUNT."""
    return [(n, request) for n, request in enumerate(_requests()) if n % SHARDS == number]


@functools.cache
def _requests() -> tuple[leakage.Request, ...]:
    return tuple(leakage.requests(COUNT, seed=11))

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
    return prepared("leakage", leakage.build)


@pytest.mark.slow
@pytest.mark.parametrize("number", range(SHARDS))
def test_randomized_requests_never_see_another_scope(corpus: MemoryRepo, number: int) -> None:
    requests = [request for _, request in shard(number)]
    seen: Counter[str] = Counter()
    leaked: list[str] = []
    answered = 0
    for request in requests:
        text = answer(corpus, request)
        seen[request.kind] += 1
        answered += leakage.token(request.scope) in text
        found = leakage.leaks(text, request.scope, request.inherit)
        if found:
            leaked.append(f"{request}: {found[:3]} in {text[:200]!r}")
    assert leaked == [], f"{len(leaked)} of {len(requests)} requests leaked:\n" + "\n".join(leaked[:10])
    assert sum(seen.values()) == len(requests) and set(seen) == set(leakage.KINDS)
    assert answered > len(requests) // 10


def test_the_shards_are_the_whole_set_of_requests() -> None:
    """Split for the workers, not cut: every one of the COUNT requests is in exactly one shard."""
    whole = list(enumerate(leakage.requests(COUNT, seed=11)))
    shards = [shard(number) for number in range(SHARDS)]
    assert len(whole) == COUNT == sum(len(part) for part in shards)
    assert sorted((pair for part in shards for pair in part), key=lambda pair: pair[0]) == whole

def test_an_unbound_repository_does_see_every_scope(corpus: MemoryRepo) -> None:
    """The check can fail: the same question without a session shows other scopes' tokens."""
    text = json.dumps(corpus.search("release notes deploy", limit=50, catch_up=False).to_json())
    assert leakage.leaks(text, "user:U5", False)
