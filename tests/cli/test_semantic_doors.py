"""``[semantic] embed`` in ``.memfs.toml`` at the doors derived from ``search`` and ``context``
(the library and the command line): off by default; on, the vectors fill only the places BM25
leaves empty; an embedder that fails names the memory, stores nothing for it, and leaves the
words' results; a cache of another embedder or format is rebuilt. The fusion's guarantee itself
is a property test (tests/unit/test_hybrid.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.index import vectors
from tests import semantic_embed
from tests.helpers import cli, commit_all, put

SPEC = "tests.semantic_embed:{}"
NOTES = {"prefs/veg.md": "U5 is vegetarian and never eats meat.",
         "prefs/hotel.md": "U5 books a hotel near the station.",
         "notes/poison.md": "Poison ivy grows by the shed; wear gloves."}


@pytest.fixture
def notes(repo: MemoryRepo) -> MemoryRepo:
    for rel, body in NOTES.items():
        put(repo, rel, body, scope="user:U5", source=f"test:{rel}")
    commit_all(repo.root, "notes")
    return repo


def _configure(repo: MemoryRepo, name: str | None, dims: int = semantic_embed.DIMS) -> None:
    path = repo.root / ".memfs.toml"
    kept = path.read_text(encoding="utf-8").split("\n[semantic]")[0]
    table = "" if name is None else f'\n[semantic]\nembed = "{SPEC.format(name)}"\ndims = {dims}\n'
    path.write_text(kept + table, encoding="utf-8")


def _library(repo: MemoryRepo, query: str, limit: int) -> tuple[list[str], list[str]]:
    found = repo.search(query, scope="user:U5", limit=limit)
    return [h.path for h in found.hits], found.notices


def _cli(repo: MemoryRepo, query: str, limit: int) -> tuple[list[str], list[str]]:
    done = cli(repo, "search", "--json", "--scope", "user:U5", "--limit", str(limit), query)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    return [h["path"] for h in found["hits"]], found["notices"]


def _context(repo: MemoryRepo, query: str, limit: int) -> tuple[list[str], list[str]]:
    built = repo.context(query, scope="user:U5")
    return [b.path for b in built.blocks if b.kind == "recalled"], built.warnings


def _cli_context(repo: MemoryRepo, query: str, limit: int) -> tuple[list[str], list[str]]:
    done = cli(repo, "context", "--format", "json", "--scope", "user:U5", query)
    assert done.returncode == 0, done.stderr
    built = json.loads(done.stdout)
    return [m["path"] for m in built["memories"] if not m["path"].startswith("system/")], built["warnings"]


DOORS: dict[str, Callable[[MemoryRepo, str, int], tuple[list[str], list[str]]]] = {
    "library search": _library, "memfs search": _cli, "library context": _context, "memfs context": _cli_context}


@pytest.mark.parametrize("door", DOORS)
def test_off_by_default_and_on_the_vectors_find_by_meaning(notes: MemoryRepo, door: str) -> None:
    ask = DOORS[door]
    assert ask(notes, "dietary preferences", 5)[0] == [], "no word in common, no embedder: nothing"
    _configure(notes, "embed")
    found, _ = ask(notes, "dietary preferences", 5)
    assert found[0] == "prefs/veg.md"


def test_a_page_bm25_fills_is_bm25s_and_the_embedder_is_not_asked(notes: MemoryRepo) -> None:
    before = _library(notes, "U5 hotel station", 2)[0]
    _configure(notes, "embed")
    semantic_embed.calls.clear()
    assert _library(notes, "U5 hotel station", 2)[0] == before and len(before) == 2
    assert semantic_embed.calls == []
    hits = notes.search("vegetarian meal", scope="user:U5", limit=3).hits
    assert hits[0].path == "prefs/veg.md" and hits[0].similarity is None, "BM25's hit first, as BM25 ranked it"
    assert all(h.similarity is not None and h.score == 0 for h in hits[1:])


@pytest.mark.parametrize(("door", "embedder", "message"), [
    ("library search", "raises", "raised ConnectionError: model unreachable"),
    ("memfs search", "dims", "1023 dimension"),
    ("library context", "nan", "not a finite number"),
])
def test_an_embedder_failing_on_a_memory_names_it_stores_nothing_and_words_still_find(
        notes: MemoryRepo, door: str, embedder: str, message: str) -> None:
    _configure(notes, embedder)
    found, said = DOORS[door](notes, "dietary preferences", 5)
    assert found[0] == "prefs/veg.md" and "notes/poison.md" not in found
    assert any("notes/poison.md: the embedder" in s and message in s for s in said), said
    assert _library(notes, "poison ivy", 5)[0] == ["notes/poison.md"], "words still find it"
    cached = next((notes.root / ".memfs" / vectors.FOLDER).iterdir())
    kept = _cache_of(notes, embedder)
    assert len(kept) == 2 and cached.exists(), "the other two memories' vectors, not the failed one"


def _cache_of(repo: MemoryRepo, name: str) -> vectors.VectorCache:
    return vectors.VectorCache(repo.root / ".memfs", SPEC.format(name), semantic_embed.DIMS,
                               getattr(semantic_embed, name))


@pytest.mark.parametrize("door", ["library search", "memfs search"])
def test_a_query_the_embedder_fails_on_or_a_missing_embedder_leaves_the_words(notes: MemoryRepo, door: str) -> None:
    _configure(notes, "raises")
    found, said = DOORS[door](notes, "poison", 5)
    assert found == ["notes/poison.md"] and any("the query: the embedder raised" in s for s in said)
    _configure(notes, "no_such_function")
    found, said = DOORS[door](notes, "poison", 5)
    assert found == ["notes/poison.md"] and any("[semantic] embed" in s and "no_such_function" in s for s in said)


def test_a_cache_of_another_embedder_or_format_is_rebuilt_never_mixed(notes: MemoryRepo,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _configure(notes, "embed")
    assert _library(notes, "dietary preferences", 5)[0][0] == "prefs/veg.md"
    path: Path = _cache_of(notes, "embed").path
    monkeypatch.setattr(semantic_embed, "CONCEPTS", {})  # another model behind the same name
    monkeypatch.setattr("memfs.ops.semantic._caches", {})  # a new process
    assert _library(notes, "dietary preferences", 5)[0] == [], "the old vectors would have found it"
    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    assert header["probe"] == pytest.approx(semantic_embed.embed([vectors.PROBE_TEXT])[0]), "for the new model"
    path.write_bytes(path.read_bytes().replace(b'"format":1', b'"format":0', 1))
    monkeypatch.setattr("memfs.ops.semantic._caches", {})
    _library(notes, "dietary preferences", 5)
    assert json.loads(path.read_bytes().split(b"\n", 1)[0])["format"] == vectors.FORMAT
