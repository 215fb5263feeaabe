"""A conformance suite for LangGraph's ``BaseStore``, written from its documented behaviour (the
docstrings of ``BaseStore``, ``Item``, the ops and ``TTLConfig`` in ``langgraph.store.base``),
run against LangGraph's own ``InMemoryStore`` and against memfs's ``MemfsStore``: the first run
shows the suite checks real behaviour, the second that memfs behaves the same.

Where the documented contract leaves room (natural-language search, TTL, keeping ``created_at``
on update) a store declares what it supports (:class:`Kind`) and the suite checks what each
declared; the memfs-only tests at the end check what the store adds (one commit a batch, items
as memories, TTL refreshes out of git).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore

from memfs import InvalidMemory, MemoryRepo
from memfs.integrations.langgraph import MemfsStore, namespace_of, scope_of
from tests.helpers import commit_count, git

#: Most tests commit through git once a put (the round-trip test: 120 times).
pytestmark = pytest.mark.slow

T0 = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)


@dataclass
class Kind:
    """What a store under test supports beyond the core contract."""

    name: str
    text_search: bool  # a query ranks matching items first and leaves others out
    keeps_created: bool  # created_at stays the creation time on update (Item's docstring)
    clock: list[dt.datetime]


@pytest.fixture(params=["InMemoryStore", "MemfsStore"])
def subject(request: pytest.FixtureRequest, tmp_path: Path, template_repo: Path) -> Iterator[tuple[BaseStore, Kind]]:
    clock = [T0]
    if request.param == "InMemoryStore":
        yield InMemoryStore(), Kind("InMemoryStore", text_search=False, keeps_created=False, clock=clock)
        return
    repo: MemoryRepo = request.getfixturevalue("repo")
    store = MemfsStore(repo, actor="agent:graph", clock=lambda: clock[0])
    yield store, Kind("MemfsStore", text_search=True, keeps_created=True, clock=clock)


# --- get, put, delete -------------------------------------------------------------------------
def test_put_then_get_returns_the_item(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    value = {"text": "U5 takes oat milk", "n": 3, "ok": True, "none": None, "nested": {"a": [1, 2.5, "x"]}}
    store.put(("users", "u5"), "coffee", value)
    item = store.get(("users", "u5"), "coffee")
    assert isinstance(item, Item)
    assert (item.namespace, item.key, item.value) == (("users", "u5"), "coffee", value)
    assert item.created_at.tzinfo is not None and item.updated_at >= item.created_at
    assert store.get(("users", "u5"), "tea") is None
    assert store.get(("users", "u6"), "coffee") is None
    assert store.get(("users",), "coffee") is None


def test_put_replaces_the_value(subject: tuple[BaseStore, Kind]) -> None:
    store, kind = subject
    store.put(("users", "u5"), "coffee", {"text": "oat milk"})
    first = store.get(("users", "u5"), "coffee")
    kind.clock[0] = T0 + dt.timedelta(minutes=5)
    store.put(("users", "u5"), "coffee", {"text": "black"})
    second = store.get(("users", "u5"), "coffee")
    assert first is not None and second is not None
    assert second.value == {"text": "black"} and second.updated_at >= first.updated_at
    if kind.keeps_created:
        assert second.created_at == first.created_at and second.updated_at > first.updated_at


def test_delete_removes_and_a_missing_item_is_no_error(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    store.put(("users", "u5"), "coffee", {"text": "oat milk"})
    store.delete(("users", "u5"), "coffee")
    store.delete(("users", "u5"), "never-there")
    assert store.get(("users", "u5"), "coffee") is None
    assert store.search(("users",)) == []


# --- search ------------------------------------------------------------------------------------
def _fill(store: BaseStore) -> None:
    store.put(("docs",), "root", {"text": "root document", "rank": 1, "color": "red"})
    store.put(("docs", "a"), "one", {"text": "release notes in Chinese", "rank": 2, "color": "blue",
                                     "meta": {"lang": "zh", "pages": 3}, "tags": ["notes", "zh"]})
    store.put(("docs", "a", "b"), "two", {"text": "deploy checklist", "rank": 3, "color": "red",
                                          "meta": {"lang": "en", "pages": 10}, "tags": ["ops"]})
    store.put(("docs2",), "other", {"text": "release notes elsewhere", "rank": 4, "color": "red"})
    store.put(("archive", "docs"), "old", {"text": "release notes archived", "rank": 5, "color": "red"})


def _keys(items: list[SearchItem]) -> set[str]:
    return {i.key for i in items}


def test_search_reads_the_prefix_and_every_namespace_below_it(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    _fill(store)
    assert _keys(store.search(("docs",))) == {"root", "one", "two"}
    assert _keys(store.search(("docs", "a"))) == {"one", "two"}
    assert _keys(store.search(("docs", "a", "b"))) == {"two"}
    assert _keys(store.search(("doc",))) == set()
    assert _keys(store.search((), limit=100)) == {"root", "one", "two", "other", "old"}
    found = store.search(("docs", "a"))
    assert all(isinstance(i, SearchItem) for i in found)
    assert {(i.namespace, i.key) for i in found} == {(("docs", "a"), "one"), (("docs", "a", "b"), "two")}


@pytest.mark.parametrize(
    ("conditions", "keys"),
    [
        ({"color": "red"}, {"root", "two"}),
        ({"color": "red", "rank": 3}, {"two"}),
        ({"rank": {"$gt": 1}}, {"one", "two"}),
        ({"rank": {"$gte": 2, "$lt": 3}}, {"one"}),
        ({"rank": {"$lte": 2}}, {"root", "one"}),
        ({"color": {"$eq": "blue"}}, {"one"}),
        ({"color": {"$ne": "red"}}, {"one"}),
        ({"meta": {"lang": "en"}}, {"two"}),
        ({"meta": {"pages": {"$gt": 5}}}, {"two"}),
        ({"tags": ["notes", "zh"]}, {"one"}),
        ({"tags": ["notes"]}, set()),
        ({"missing": "x"}, set()),
    ],
)
def test_filters_follow_the_documented_operators(
    subject: tuple[BaseStore, Kind], conditions: dict[str, Any], keys: set[str]
) -> None:
    store, _ = subject
    _fill(store)
    assert _keys(store.search(("docs",), filter=conditions)) == keys


def test_limit_and_offset_page_through_the_results(subject: tuple[BaseStore, Kind]) -> None:
    store, kind = subject
    for n in range(7):
        kind.clock[0] = T0 + dt.timedelta(seconds=n)
        store.put(("pages",), f"k{n}", {"n": n})
    pages = [store.search(("pages",), limit=3, offset=o) for o in (0, 3, 6)]
    assert [len(p) for p in pages] == [3, 3, 1]
    seen = [i.key for p in pages for i in p]
    assert sorted(seen) == [f"k{n}" for n in range(7)] and len(set(seen)) == 7
    assert store.search(("pages",), limit=2, offset=10) == []


def test_a_query_finds_the_matching_items(subject: tuple[BaseStore, Kind]) -> None:
    store, kind = subject
    _fill(store)
    found = store.search(("docs",), query="deploy checklist")
    assert "two" in _keys(found) and _keys(found) <= {"root", "one", "two"}
    if kind.text_search:
        assert [i.key for i in found] == ["two"] and found[0].score is not None and found[0].score > 0
        assert _keys(store.search((), query="release notes")) == {"one", "other", "old"}
        assert _keys(store.search(("docs",), query="release notes", filter={"color": "red"})) == set()


# --- namespaces -------------------------------------------------------------------------------
def test_list_namespaces_by_prefix_suffix_and_depth(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    for namespace in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f")]:
        store.put(namespace, "k", {"x": 1})
    assert store.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert store.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert store.list_namespaces(prefix=("a",), suffix=("d", "*")) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]
    assert store.list_namespaces(max_depth=1) == [("a",)]
    everything = store.list_namespaces()
    assert len(everything) == 5 and everything == sorted(everything)
    assert store.list_namespaces(limit=2, offset=1) == everything[1:3]
    assert store.list_namespaces(prefix=("z",)) == []


def test_namespaces_are_validated(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    for namespace in [(), ("a.b",), ("langgraph", "x"), ("a", "")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(namespace, "k", {"x": 1})
    with pytest.raises(InvalidNamespaceError):
        store.get(("a.b",), "k")
    with pytest.raises(InvalidNamespaceError):
        store.search(("a", ""))


LABELS = ["user 5", "中文标签", "a:b", "x/y", "=3D", "%41", "party 🎉", "über", "u\u0308ber", "A", "a", "-_@+"]
KEYS = ["key with / slash", "..dots..", "README", "über", "u\u0308ber", "a\\b", "x" * 300, " padded ", "CON", "k.md"]


def test_any_label_and_key_round_trips(subject: tuple[BaseStore, Kind]) -> None:
    """Every key of a label in one batch (``put`` is a batch of one ``PutOp``: the same naming,
    one commit per label instead of per key); the labels one after another."""
    store, _ = subject
    for label in LABELS:
        store.batch([PutOp(("ns", label), key, {"label": label, "key": key}) for key in KEYS])
    for label in LABELS:
        for key in KEYS:
            item = store.get(("ns", label), key)
            assert item is not None and item.value == {"label": label, "key": key}, (label, key)
            assert item.namespace == ("ns", label) and item.key == key
        assert {i.key for i in store.search(("ns", label), limit=100)} == set(KEYS)
    assert store.list_namespaces(prefix=("ns",)) == sorted(("ns", label) for label in LABELS)


# --- batches and async -------------------------------------------------------------------------
def test_a_batch_answers_each_op_in_order(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject
    store.put(("b",), "old", {"v": 0})
    results = store.batch([
        PutOp(("b",), "new", {"v": 1}),
        GetOp(("b",), "old"),
        SearchOp(("b",)),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("b",)),)),
        PutOp(("b",), "new", {"v": 2}),
        PutOp(("b",), "old", None),
    ])
    assert len(results) == 6 and results[0] is None and results[4] is None and results[5] is None
    assert isinstance(results[1], Item) and results[1].value == {"v": 0}
    assert isinstance(results[2], list) and results[3] == [("b",)]
    after = store.get(("b",), "new")
    assert after is not None and after.value == {"v": 2}, "the last put of a key in a batch wins"
    assert store.get(("b",), "old") is None


def test_the_async_api(subject: tuple[BaseStore, Kind]) -> None:
    store, _ = subject

    async def main() -> tuple[Any, ...]:
        await store.aput(("a", "b"), "k", {"x": 1})
        got = await store.aget(("a", "b"), "k")
        found = await store.asearch(("a",), filter={"x": 1})
        spaces = await store.alist_namespaces(prefix=("a",))
        await store.adelete(("a", "b"), "k")
        gone = await store.aget(("a", "b"), "k")
        return got, found, spaces, gone

    got, found, spaces, gone = asyncio.run(main())
    assert got is not None and got.value == {"x": 1}
    assert [i.key for i in found] == ["k"] and spaces == [("a", "b")] and gone is None


# --- TTL -------------------------------------------------------------------------------------------
def test_ttl_is_supported_or_refused_as_documented(subject: tuple[BaseStore, Kind]) -> None:
    store, kind = subject
    if not store.supports_ttl:
        with pytest.raises(NotImplementedError):
            store.put(("t",), "k", {"x": 1}, ttl=5)
        return
    store.put(("t",), "k", {"x": 1}, ttl=10)
    kind.clock[0] = T0 + dt.timedelta(minutes=6)
    assert store.get(("t",), "k") is not None  # a read refreshes the TTL: it now ends at minute 16
    kind.clock[0] = T0 + dt.timedelta(minutes=12)
    assert store.get(("t",), "k", refresh_ttl=False) is not None  # expired items stay until swept
    assert isinstance(store, MemfsStore)
    assert store.sweep_ttl() == 0
    kind.clock[0] = T0 + dt.timedelta(minutes=16)
    assert store.sweep_ttl() == 1 and store.get(("t",), "k") is None


def _ttl_store(repo: MemoryRepo, clock: list[dt.datetime], **config: Any) -> MemfsStore:
    return MemfsStore(repo, clock=lambda: clock[0], ttl_config=config or None)  # type: ignore[arg-type]


def test_omit_expired_hides_items_whose_ttl_ran_out(repo: MemoryRepo) -> None:
    clock = [T0]
    store = _ttl_store(repo, clock, omit_expired=True, default_ttl=1.0)
    store.put(("t",), "short", {"x": 1})
    store.put(("t",), "forever", {"x": 2}, ttl=None)
    clock[0] = T0 + dt.timedelta(seconds=30)
    assert store.get(("t",), "short", refresh_ttl=False) is not None
    clock[0] = T0 + dt.timedelta(seconds=61)
    assert store.get(("t",), "short") is None
    assert _keys(store.search(("t",))) == {"forever"}
    assert store.list_namespaces() == [("t",)]


def test_refresh_on_read_can_be_turned_off(repo: MemoryRepo) -> None:
    clock = [T0]
    store = _ttl_store(repo, clock, refresh_on_read=False, omit_expired=True)
    store.put(("t",), "k", {"x": 1}, ttl=1)
    clock[0] = T0 + dt.timedelta(seconds=50)
    assert store.get(("t",), "k") is not None  # not refreshed: the config says so
    clock[0] = T0 + dt.timedelta(seconds=70)
    assert store.get(("t",), "k") is None


# --- what memfs adds -------------------------------------------------------------------------------
def test_a_batch_of_100_puts_is_one_commit(repo: MemoryRepo) -> None:
    store = MemfsStore(repo, actor="agent:graph")
    start = commit_count(repo)
    store.batch([PutOp(("bulk", f"g{n % 4}"), f"item-{n}", {"n": n, "text": f"item number {n}"}) for n in range(100)])
    assert commit_count(repo) == start + 1
    assert git(repo.root, "log", "-1", "--format=%an %s").strip() == "agent:graph memfs: langgraph 100 memories"
    assert len(store.search(("bulk",), limit=1000)) == 100
    assert [i.key for i in store.search(("bulk",), query="number 42")][:1] == ["item-42"]
    store.batch([PutOp(("bulk", "g0"), f"item-{n}", None) for n in range(0, 100, 4)])
    assert commit_count(repo) == start + 2 and len(store.search(("bulk",), limit=1000)) == 75


def test_items_are_memories_every_door_sees(repo: MemoryRepo) -> None:
    store = MemfsStore(repo, source="graph:G1", defaults={"type": "fact", "tags": ["graph"]})
    store.put(("memories", "user 5"), "coffee", {"text": "U5 takes oat milk"})
    memory = repo.store.read("langgraph/memories/user 5/coffee.md")
    assert (memory.scope, memory.key, memory.type, memory.source, memory.tags) == (
        "memories/user=205", "coffee", "fact", "graph:G1", ("graph",))
    assert namespace_of(memory.scope) == ("memories", "user 5") and scope_of(("memories", "user 5")) == memory.scope
    session = repo.session("memories/user=205", actor="agent:reader")
    assert [h.path for h in session.search("oat milk").hits] == ["langgraph/memories/user 5/coffee.md"]
    assert repo.validate() == [] or all(p.severity == "warning" for p in repo.validate())
    reopened = MemfsStore(repo.root)
    item = reopened.get(("memories", "user 5"), "coffee")
    assert item is not None and item.value == {"text": "U5 takes oat milk"}


def test_refreshed_reads_stay_out_of_git(repo: MemoryRepo) -> None:
    clock = [T0]
    store = _ttl_store(repo, clock)
    store.put(("t",), "k", {"x": 1}, ttl=10)
    start = commit_count(repo)
    clock[0] = T0 + dt.timedelta(minutes=5)
    assert store.get(("t",), "k") is not None and store.search(("t",))
    assert commit_count(repo) == start
    assert git(repo.root, "status", "--porcelain").strip() == ""
    assert (repo.root / ".memfs" / "langgraph-ttl.json").exists()
    memory = repo.store.read("langgraph/t/k.md")
    assert memory.expires == T0 + dt.timedelta(minutes=10)  # what git has: the last write plus the TTL


def test_what_memfs_refuses_changes_nothing(repo: MemoryRepo) -> None:
    store = MemfsStore(repo)
    start = commit_count(repo)
    with pytest.raises(Exception, match=r"secret|refused"):
        store.batch([PutOp(("a",), "ok", {"x": 1}), PutOp(("a",), "key", {"token": "ghp_" + "a" * 36})])
    assert commit_count(repo) == start and store.get(("a",), "ok") is None


def test_a_file_broken_by_hand_is_reported(repo: MemoryRepo) -> None:
    store = MemfsStore(repo)
    store.put(("a",), "k", {"x": 1})
    store.put(("a",), "j", {"x": 2})
    path = repo.root / "langgraph/a/k.md"
    path.write_text(path.read_text().replace('"x": 1', '"x": '))
    assert [i.key for i in store.search(("a",))] == ["j"]
    assert [p.path for p in store.broken] == ["langgraph/a/k.md"]
    with pytest.raises(InvalidMemory, match="does not parse"):
        store.get(("a",), "k")


def test_ops_given_to_batch_directly_are_validated(repo: MemoryRepo) -> None:
    """``validate_op_namespace``'s advice for stores that serialize namespaces: ``("x.y",)`` must
    not reach the namespace ``("x", "y")`` through ``batch``."""
    store = MemfsStore(repo)
    for op in (GetOp(("x.y",), "k"), PutOp(("x.y",), "k", {"v": 1}), SearchOp(("",))):
        with pytest.raises(InvalidNamespaceError):
            store.batch([op])


def test_a_store_takes_the_repository_not_a_session(repo: MemoryRepo) -> None:
    with pytest.raises(Exception, match="not a session"):
        MemfsStore(repo.session("user:U5"))

