"""The live server's search requests (``memfs serve``, in process, no socket) against the way they
were answered before each request shared the server's parsed files and settings: a new store
object opened for every request. Same hits, same order, same scores, same notices, same
eligibility filtering, on an index of several segments with deleted and updated memories,
ineligible ones of every kind, CJK text, and queries that find nothing; and a parse kept from
one request is never served for a file whose bytes changed since (the index is left stale on
purpose: the file is the final word)."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memfs import MemoryRepo, index
from memfs.agents.live.server import _search, call_args
from memfs.agents.live.view import search_view
from memfs.index.postings import holders_in, read_postings
from memfs.index.reader import handle
from memfs.ops.search import search
from memfs.ops.verbs.recall import Search
from memfs.store import atomic
from memfs.store.repo import Store
from tests.helpers import commit_all, new_repo, put

AT = "2026-06-01T00:00:00+00:00"
WORDS = ("release", "notes", "german", "deploy", "friday", "budget", "coffee", "python", "review", "mirror",
         "invoice", "garden", "rocket", "ticket", "window", "summer")
CJK = ("東京", "会議", "予算", "来週", "発表", "資料")
SCOPES = ("user:U5", "user:U5/project:P8", "user:U7", "team:T1")
COUNT = 160


def _text(rng: random.Random, k: int) -> str:
    """``k`` words, low-numbered ones far more often, now and then a CJK word."""
    out = []
    for _ in range(k):
        out.append(rng.choice(CJK) if rng.random() < 0.15 else WORDS[min(int(rng.expovariate(0.25)), len(WORDS) - 1)])
    return " ".join(out)


def _fields(rng: random.Random, i: int) -> dict[str, Any]:
    """Mostly eligible memories; every fifth one ineligible in one way or another."""
    fields: dict[str, Any] = {"scope": SCOPES[i % len(SCOPES)], "source": "tool:ci",
                              "type": rng.choice(["fact", "note", "episode"]), "description": _text(rng, 3)}
    if i % 5 == 4:
        kind = (i // 5) % 4
        if kind == 0:
            fields["expires"] = "2026-02-01T00:00:00Z"
        elif kind == 1:
            fields["status"] = rng.choice(["retracted", "superseded", "needs_review"])
        elif kind == 2:
            fields["source"] = None
        else:
            fields["confidence"] = "very"  # unreadable: indexed ``readable: no``
    return fields


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> MemoryRepo:
    """A built index, then edits, deletions and additions caught up incrementally (more segments,
    deleted documents), then edits left uncaught (the files differ from the index)."""
    rng = random.Random(11)
    mem = new_repo(tmp_path_factory.mktemp("live-requests"))
    for i in range(COUNT):
        put(mem, f"notes/n{i:03d}.md", _text(rng, rng.randint(2, 40)), **_fields(rng, i))
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    for i in range(0, COUNT, 9):
        put(mem, f"notes/n{i:03d}.md", _text(rng, 6), **_fields(rng, i + 1))
    for i in range(5, COUNT, 13):
        (mem.root / f"notes/n{i:03d}.md").unlink()
    for i in range(COUNT, COUNT + 12):
        put(mem, f"notes/n{i:03d}.md", _text(rng, 10), **_fields(rng, i))
    commit_all(mem.root, "edits, deletions, additions")
    index.sync(mem.store)
    for i in range(2, COUNT, 17):
        if (mem.root / f"notes/n{i:03d}.md").exists():
            put(mem, f"notes/n{i:03d}.md", _text(rng, 8), **_fields(rng, 4))  # ineligible now, not re-indexed
    leaves = handle(mem.store).stats.reader.leaf_readers()
    assert len(leaves) > 1 and any(leaf.has_deletions() for leaf, _offset in leaves)
    return mem


def _args(query: str, *, as_json: bool = True, **over: Any) -> dict[str, Any]:
    """A search request as the CLI sends it (``tests/integration/test_live_index.py``'s form)."""
    request = {"query": query, "scope": None, "inherit": False, "version": None, "at": AT, "type": None,
               "limit": 10, "explain": False, **over}
    return {"request": request, "actor": None, "json": as_json}


def _as_before(store: Store, args: dict[str, Any]) -> dict[str, Any]:
    """The request answered as before: a new store object opened on the root for it."""
    op, actor, as_json = call_args(Search, args)
    fresh = type(store)(store.root, store.git, actor)
    view = fresh if op.scope is None else fresh.session(op.scope, inherit=bool(op.inherit))
    result = search(view, dataclasses.replace(op, catch_up=False, record=False))
    return {"notices": fresh.notices, "view": search_view(result, as_json=as_json)}


queries = st.lists(st.sampled_from(WORDS + CJK + tuple(c[0] for c in CJK) + ("zzyzx", "the")), min_size=1, max_size=4)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=queries, scope=st.sampled_from((None, *SCOPES)), inherit=st.booleans(),
       type_=st.sampled_from((None, "fact", "note")), limit=st.integers(1, 25), explain=st.booleans(),
       as_json=st.booleans())
def test_a_request_answers_as_a_new_store_did(repo: MemoryRepo, words: list[str], scope: str | None, inherit: bool,
                                              type_: str | None, limit: int, explain: bool, as_json: bool) -> None:
    """The server's store, kept across every example (its parsed files and settings shared by all
    requests), against a new store per request."""
    args = _args(" ".join(words), scope=scope, inherit=inherit and scope is not None, type=type_, limit=limit,
                 explain=explain, as_json=as_json)
    reply, _recall = _search(repo.store, args)
    assert reply == _as_before(repo.store, args)


def test_the_queries_cover_hits_filtering_cjk_and_nothing_found(repo: MemoryRepo) -> None:
    """The generated corpus gives the property above something to compare: hits in several
    segments, memories left out as ineligible, CJK hits, and an empty answer."""
    def hits(query: str, **over: Any) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = _search(repo.store, _args(query, **over))[0]["view"]["json"]["hits"]
        return found

    assert len(hits("budget review", limit=25)) == 25
    assert hits("東京") and hits("東")
    assert hits("zzyzx") == []
    explained = _search(repo.store, _args("budget garden python", explain=True, limit=5))[0]["view"]["json"]
    assert explained["filtered"], "no ineligible memory matched"
    assert {h["scope"] for h in hits("budget", scope="user:U7", limit=25)} == {"user:U7"}


def test_a_kept_parse_is_never_served_for_changed_bytes(repo: MemoryRepo, tmp_path: Path) -> None:
    """A hit parsed by one request, then its file rewritten (same length, then not) into an
    ineligible memory without re-indexing: the next request re-reads the file and leaves it out."""
    rel = "notes/n900.md"
    path = put(repo, rel, "kumquat marmalade recipe", scope="user:U5", source="tool:ci", description="kumquat")
    index.sync(repo.store)
    try:
        mine = _args("kumquat", scope="user:U5")
        assert [h["path"] for h in _search(repo.store, mine)[0]["view"]["json"]["hits"]] == [rel]
        text = path.read_text()
        same_length = text.replace("scope: user:U5", "scope: user:U7")
        assert len(same_length) == len(text) and same_length != text
        path.write_text(same_length)
        assert _search(repo.store, mine)[0]["view"]["json"]["hits"] == []
        path.write_text(text.replace("status: active", "status: retracted"))
        reply = _search(repo.store, mine)[0]
        assert reply["view"]["json"]["hits"] == [] and reply == _as_before(repo.store, mine)
        path.write_text(text)
        assert [h["path"] for h in _search(repo.store, mine)[0]["view"]["json"]["hits"]] == [rel]
    finally:
        path.unlink()
        index.sync(repo.store)


def test_a_request_has_its_own_actor_notices_and_binding_and_finishes_a_crashed_write(repo: MemoryRepo) -> None:
    store = repo.store
    bound = store.session("user:U7")
    first = bound.for_request("agent:a")
    assert (first.actor, first.binding, first.notices) == ("agent:a", None, [])
    first.notices.append("only mine")
    assert store.notices == [] and store.for_request(None).notices == []
    assert first.parsed_files is store.parsed_files and first.at_head is store.at_head
    debris = store.git.git_dir / f".{store.journal_path.name}.0a1b{atomic.TEMP_SUFFIX}"
    lookalikes = [store.git.git_dir / name for name in (f".{store.journal_path.name}{atomic.TEMP_SUFFIX}",
                                                      f"{store.journal_path.name}.x{atomic.TEMP_SUFFIX}")]
    for made in (debris, *lookalikes):
        made.write_bytes(b"")
    try:
        store.for_request(None)
        assert not debris.exists() and all(made.exists() for made in lookalikes)
    finally:
        for made in (debris, *lookalikes):
            made.unlink(missing_ok=True)


def test_the_settings_are_read_again_when_the_file_changes(repo: MemoryRepo) -> None:
    """The parsed ``.memfs.toml`` shared by the requests follows the file: a limit changed between
    two requests applies to the second (its hits' files no longer parse), as it did with a new
    store per request."""
    config = repo.root / ".memfs.toml"
    before = config.read_bytes() if config.exists() else None
    args = _args("budget review", limit=25)
    try:
        assert _search(repo.store, args)[0]["view"]["json"]["hits"]
        assert repo.store.for_request(None).limits().value_chars != 5
        config.write_text((before or b"").decode() + "\n[limits]\nvalue_chars = 5\n")
        assert repo.store.for_request(None).limits().value_chars == 5
        reply = _search(repo.store, args)[0]
        assert reply["view"]["json"]["hits"] == [] and reply == _as_before(repo.store, args)
    finally:
        if before is None:
            config.unlink()
        else:
            config.write_bytes(before)
    assert _search(repo.store, args)[0]["view"]["json"]["hits"]


def test_postings_of_a_term_a_segment_lacks_and_of_an_empty_index_are_empty(repo: MemoryRepo, tmp_path: Path) -> None:
    from whoosh import index as whoosh_index

    from memfs.index.documents import make_schema

    deleted_held = 0
    for leaf, _offset in handle(repo.store).stats.reader.leaf_readers():
        ids, weights = read_postings(leaf, "body", leaf.schema["body"].to_bytes("zzyzx"))
        assert (len(ids), len(weights)) == (0, 0)
        assert len(holders_in(leaf, "status", "no-such-status")) == 0
        active = holders_in(leaf, "status", "active").tolist()
        assert active == sorted(active) and len(active) == len(set(active))
        deleted_held += len(set(active) & set(leaf.deleted_docs_set))
    assert deleted_held, "the ids of deleted documents are the caller's to drop"
    empty = whoosh_index.create_in(str(tmp_path), make_schema()).reader()
    for leaf, _offset in empty.leaf_readers():
        assert len(read_postings(leaf, "body", b"budget")[0]) == 0
