"""Semantic search through LangGraph's ``IndexConfig``, written from its documented behaviour
(``IndexConfig``, ``BaseStore.put``'s ``index``, ``SearchItem.score``, ``get_text_at_path``), run
against LangGraph's ``InMemoryStore`` and memfs's ``MemfsStore`` with one deterministic embedder:
the first run shows the checks hold for LangGraph's own store, the second that memfs's agrees.
The memfs-only tests at the end check what memfs adds: vectors as a rebuildable cache, the
embedder's failures refused before anything is written, and concurrent ``aput``\\ s grouped.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

import pytest
from langgraph.store.base import BaseStore, PutOp
from langgraph.store.memory import InMemoryStore

from memfs import MemoryRepo, WriteRefused
from memfs.index.vectors import EmbeddingFailed
from memfs.integrations.langgraph import MemfsStore
from tests.helpers import commit_count, git

pytestmark = pytest.mark.slow

DIMS = 64
#: Words that mean the same thing share a dimension: what a real model learns, made explicit.
CONCEPTS = {"vegetarian": "food", "dairy": "food", "gluten": "food", "dietary": "food", "meal": "food",
            "flight": "travel", "hotel": "travel", "trip": "travel"}


def embed(texts: Sequence[str]) -> list[list[float]]:
    """A hashed bag of concepts, normalised."""
    out = []
    for text in texts:
        vec = [0.0] * DIMS
        for word in re.findall(r"\w+", text.lower()):
            word = CONCEPTS.get(word, word)
            vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIMS] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        out.append([v / norm for v in vec])
    return out


def _cos(a: str, b: str) -> float:
    x, y = embed([a, b])
    return sum(p * q for p, q in zip(x, y, strict=True))


def _store(kind: str, repo: MemoryRepo, **index: Any) -> BaseStore:
    config: Any = {"dims": DIMS, "embed": embed, **index}
    return InMemoryStore(index=config) if kind == "InMemoryStore" else MemfsStore(repo, index=config)


KINDS = ["InMemoryStore", "MemfsStore"]
PREFS = [PutOp(("prefs", "u5"), "veg", {"text": "U5 is vegetarian"}),
         PutOp(("prefs", "u5"), "dairy", {"text": "U5 avoids dairy, and gluten"}),
         PutOp(("prefs", "u5"), "travel", {"text": "U5 books a hotel near the station"})]


@pytest.mark.parametrize("kind", KINDS)
def test_a_query_finds_items_by_meaning(kind: str, repo: MemoryRepo) -> None:
    store = _store(kind, repo)
    store.batch(PREFS)
    found = store.search(("prefs",), query="dietary preferences")
    assert {i.key for i in found[:2]} == {"veg", "dairy"} and found[2].key == "travel"
    assert all(i.score is not None for i in found) and found[0].score > found[2].score  # type: ignore[operator]
    top = next(i for i in found if i.key == "veg")
    assert top.score == pytest.approx(_cos("dietary preferences", '{"text": "U5 is vegetarian"}'), abs=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_fields_and_a_puts_index_choose_what_is_embedded(kind: str, repo: MemoryRepo) -> None:
    store = _store(kind, repo, fields=["text", "meta.title"])
    store.batch([
        PutOp(("d",), "by-text", {"text": "flight to Oslo", "note": "meal"}),
        PutOp(("d",), "by-title", {"text": "unrelated words", "meta": {"title": "meal plan"}}),
        PutOp(("d",), "own", {"text": "unrelated words", "note": "meal"}, index=["note"]),
        PutOp(("d",), "none", {"text": "meal"}, index=False),
    ])
    found = {i.key: i.score for i in store.search(("d",), query="meal", limit=10)}
    assert found["own"] == pytest.approx(1.0, abs=1e-5), "the put's own index: the note"
    assert found["by-title"] == pytest.approx(_cos("meal", "meal plan"), abs=1e-5), "nested path, best vector"
    assert found["by-text"] == pytest.approx(_cos("meal", "flight to Oslo"), abs=1e-5), "note is not a field"
    assert found["none"] is None, "index=False: no vector, no score"
    assert [i.key for i in store.search(("d",), query="meal", limit=10)][-1] == "none", (
        "index=False: ranked by neither the vectors nor the words, so last")


@pytest.mark.parametrize("kind", KINDS)
def test_the_filter_chooses_before_the_ranking(kind: str, repo: MemoryRepo) -> None:
    store = _store(kind, repo)
    store.batch([PutOp(("t",), f"k{i}", {"text": text, "color": color, "n": i}) for i, (text, color) in enumerate(
        [("red apple", "red"), ("red car", "red"), ("green apple", "green"), ("blue car", "blue")])])
    assert [i.key for i in store.search(("t",), query="apple", filter={"color": "red"})] == ["k0", "k1"]
    assert [i.key for i in store.search(("t",), query="car", filter={"n": {"$gte": 2}})] == ["k3", "k2"]
    pages = [store.search(("t",), query="apple", limit=2, offset=o) for o in (0, 2)]
    assert sorted(i.key for p in pages for i in p) == ["k0", "k1", "k2", "k3"]
    assert pages[0][0].score >= pages[0][1].score >= pages[1][0].score  # type: ignore[operator]


# --- what memfs adds -------------------------------------------------------------------------------
def test_vectors_are_a_cache_rebuilt_from_the_files(repo: MemoryRepo) -> None:
    calls: list[list[str]] = []

    def counted(texts: Sequence[str]) -> list[list[float]]:
        calls.append(list(texts))
        return embed(texts)

    store = MemfsStore(repo, index={"dims": DIMS, "embed": counted, "fields": ["text"]})
    store.batch(PREFS)
    assert [p.name for p in (repo.root / ".memfs" / "vectors").iterdir()] != []
    assert git(repo.root, "status", "--porcelain").strip() == "", "derived data stays out of git"
    store.search(("prefs",), query="meal")
    assert calls[-1] == ["meal"], "kept vectors are not embedded again"
    path = repo.root / "langgraph/prefs/u5/travel.md"
    path.write_text(path.read_text().replace("books a hotel near the station", "is gluten free"))
    git(repo.root, "commit", "-qam", "edited by hand")
    for cache in (repo.root / ".memfs" / "vectors").iterdir():
        cache.unlink()
    reopened = MemfsStore(repo.root, index={"dims": DIMS, "embed": counted, "fields": ["text"]})
    found = reopened.search(("prefs",), query="gluten")
    assert found[0].key == "travel" or {found[0].key, found[1].key} == {"dairy", "travel"}
    assert next(i.score for i in found if i.key == "travel") == pytest.approx(_cos("gluten", "U5 is gluten free"))


def _bad(problem: str) -> Any:
    def embedder(texts: Sequence[str]) -> list[list[float]]:
        if problem == "raises":
            raise ConnectionError("model unreachable")
        vectors = embed(texts)
        if problem == "dims":
            return [v[:-1] for v in vectors]
        if problem == "count":
            return vectors[:-1] or [[0.0] * DIMS, [0.0] * DIMS]
        return [[math.nan, *v[1:]] for v in vectors]

    return embedder


@pytest.mark.parametrize("door", ["put", "aput", "batch"])
@pytest.mark.parametrize(("problem", "message"), [("raises", "raised ConnectionError: model unreachable"),
                                                  ("dims", "63 dimension"), ("count", "vector"),
                                                  ("nan", "not a finite number")])
def test_a_failing_embedder_writes_nothing_and_words_still_find(
    repo: MemoryRepo, door: str, problem: str, message: str
) -> None:
    healthy = MemfsStore(repo, index={"dims": DIMS, "embed": embed})
    healthy.put(("a",), "kept", {"text": "oat milk"})
    start = commit_count(repo)
    probe_ok = {"n": 0}

    def failing(texts: Sequence[str]) -> list[list[float]]:
        probe_ok["n"] += 1
        return embed(texts) if probe_ok["n"] == 1 else _bad(problem)(texts)  # the cache's probe passes

    store = MemfsStore(repo, index={"dims": DIMS, "embed": failing})
    value = {"text": "new item"}
    with pytest.raises(EmbeddingFailed, match=r"langgraph/a/new\.md: the embedder .*" + message):
        if door == "put":
            store.put(("a",), "new", value)
        elif door == "aput":
            asyncio.run(store.aput(("a",), "new", value))
        else:
            store.batch([PutOp(("a",), "fine", {"text": "fine"}, index=False), PutOp(("a",), "new", value)])
    assert commit_count(repo) == start and store.get(("a",), "new") is None and store.get(("a",), "fine") is None
    assert [h.path for h in repo.search("oat milk", scope="a").hits] == ["langgraph/a/kept.md"]
    assert [i.key for i in MemfsStore(repo).search(("a",), query="oat milk")] == ["kept"]


def test_an_embedder_failing_on_one_edited_item_leaves_it_to_its_words(repo: MemoryRepo) -> None:
    def picky(texts: Sequence[str]) -> list[list[float]]:
        if any("poison" in t for t in texts):
            raise ValueError("cannot embed that")
        return embed(texts)

    store = MemfsStore(repo, index={"dims": DIMS, "embed": picky, "fields": ["text"]})
    store.batch(PREFS)
    path = repo.root / "langgraph/prefs/u5/travel.md"
    path.write_text(path.read_text().replace("books a hotel near the station", "poison hotel"))
    found = store.search(("prefs",), query="hotel")
    assert found[0].key == "travel" and found[0].score is None, "ranked by BM25 alone"
    assert [p.path for p in store.broken] == ["langgraph/prefs/u5/travel.md"]
    with pytest.raises(EmbeddingFailed, match=r"^the query: the embedder raised ValueError: cannot embed that"):
        store.search(("prefs",), query="poison")


def test_index_config_mistakes_are_named(repo: MemoryRepo) -> None:
    for index, message in [({"dims": DIMS}, "embed is required"), ({"embed": embed}, "dims must be"),
                           ({"dims": DIMS, "embed": embed, "field": ["x"]}, "unknown key"),
                           ({"dims": DIMS, "embed": embed, "fields": "text"}, "list of JSON paths")]:
        with pytest.raises(Exception, match=message):
            MemfsStore(repo, index=index)  # type: ignore[arg-type]


def test_concurrent_aputs_are_one_commit_and_a_refused_one_sinks_no_other(repo: MemoryRepo) -> None:
    store = MemfsStore(repo, actor="agent:graph", index={"dims": DIMS, "embed": embed})
    start = commit_count(repo)

    async def main() -> list[BaseException | None]:
        puts = [store.aput(("g", f"u{i % 3}"), f"k{i}", {"text": f"item {i}"}) for i in range(30)]
        return await asyncio.gather(*puts, return_exceptions=True)

    assert asyncio.run(main()) == [None] * 30
    assert commit_count(repo) == start + 1
    assert len(store.search(("g",), limit=100)) == 30

    async def with_a_secret() -> list[BaseException | None]:
        puts = [store.aput(("g",), f"s{i}", {"text": "ghp_" + "a" * 36 if i == 4 else f"fine {i}"})
                for i in range(10)]
        return await asyncio.gather(*puts, return_exceptions=True)

    outcomes = asyncio.run(with_a_secret())
    assert [type(o) for o in outcomes] == [type(None)] * 4 + [WriteRefused] + [type(None)] * 5
    assert store.get(("g",), "s4") is None and all(store.get(("g",), f"s{i}") for i in range(10) if i != 4)
    assert commit_count(repo) - start - 1 <= 6, "split in halves, not one commit a write"


def test_the_repositorys_semantic_setting_serves_a_plain_store_and_leaves_a_hybrid_one_as_it_was(
        repo: MemoryRepo) -> None:
    hybrid = MemfsStore(repo, index={"dims": DIMS, "embed": embed})
    hybrid.batch(PREFS)
    before = [(i.key, i.score) for i in hybrid.search(("prefs",), query="dietary preferences")]
    assert MemfsStore(repo).search(("prefs",), query="dietary preferences") == [], "words only: no word in common"
    toml = repo.root / ".memfs.toml"
    toml.write_text(toml.read_text() + '\n[semantic]\nembed = "tests.semantic_embed:embed"\ndims = 1024\n')
    assert MemfsStore(repo).search(("prefs",), query="dietary preferences")[0].key in {"veg", "dairy"}
    assert [(i.key, i.score) for i in hybrid.search(("prefs",), query="dietary preferences")] == before
