"""Packed posting files (memfs.index.packed) against whoosh's own blocks they are made from.

A seeded random corpus indexed in several commits (a rebuild, then edits and deletions caught up
incrementally, so the index has several segments, deleted documents and, after enough commits,
merged segments), with CJK text and words common enough to span many blocks. The packed postings
must be exactly what the blocks decode to, and every search the same with or without them.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memfs import MemoryRepo, index
from memfs.index import packed
from memfs.index.documents import FIELD_BOOSTS, TEXT_FIELDS
from memfs.index.postings import TermScores, read_postings
from memfs.index.reader import Handle, _segment_id, handle
from tests.helpers import commit_all, new_repo, put, segmented

WORDS = (*(f"w{i:02d}" for i in range(50)), "東京", "京都", "大阪", "release", "notes")
NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def _text(rng: random.Random, k: int) -> str:
    return " ".join(WORDS[min(int(rng.expovariate(0.12)), len(WORDS) - 1)] for _ in range(k))


def _put(mem: MemoryRepo, rng: random.Random, i: int) -> None:
    put(mem, f"notes/n{i:03d}.md", _text(rng, rng.randint(1, 80)) + "\n", description=_text(rng, 3),
        tags=[WORDS[rng.randrange(len(WORDS))]])


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> MemoryRepo:
    rng = random.Random(11)
    mem = new_repo(tmp_path_factory.mktemp("packed"))
    for i in range(300):
        _put(mem, rng, i)
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    for round_ in range(4):
        for i in rng.sample(range(300), 25):
            _put(mem, rng, i)
        for i in rng.sample(range(300), 5):
            next(iter((mem.root / "notes").glob(f"n{i:03d}.md")), Path("/nonexistent")).unlink(missing_ok=True)
        for i in range(300 + 10 * round_, 310 + 10 * round_):
            _put(mem, rng, i)
        commit_all(mem.root, f"round {round_}")
        index.sync(mem.store)
    return mem


@pytest.fixture
def opened(repo: MemoryRepo) -> Handle:
    return segmented(repo)


def _index_dir(repo: MemoryRepo, opened: Handle) -> Path:
    return Path(repo.store.cache_dir) / opened.state.index_dir


def test_every_segment_is_packed_and_only_the_current_ones(repo: MemoryRepo, opened: Handle) -> None:
    names = {_segment_id(leaf) for leaf, _offset in opened.stats.reader.leaf_readers()}
    files = {p.name[: -len(packed.SUFFIX)] for p in _index_dir(repo, opened).glob(f"*{packed.SUFFIX}")}
    assert files == names


def test_packed_postings_are_the_blocks_decoded(repo: MemoryRepo, opened: Handle) -> None:
    compared = 0
    for leaf, _offset in opened.stats.reader.leaf_readers():
        found = packed.load(packed.path_for(_index_dir(repo, opened), str(_segment_id(leaf))), leaf.doc_count_all())
        assert found is not None and found.fields == set(TEXT_FIELDS)
        assert len(found.key_starts) - 1 == sum(1 for field in TEXT_FIELDS for _w in leaf.lexicon(field))
        for field in TEXT_FIELDS:
            for btext in leaf.lexicon(field):
                ids, weights = found.postings(field, btext)
                want_ids, want_weights = read_postings(leaf, field, btext)
                assert ids.dtype == want_ids.dtype and weights.dtype == want_weights.dtype
                assert np.array_equal(ids, want_ids) and np.array_equal(weights, want_weights), (field, btext)
                compared += len(ids)
        assert found.postings("body", b"absent") == (packed._NONE_I, packed._NONE_F)
    assert compared > 10_000


def _answers(repo: MemoryRepo, queries: list[str]) -> list[list[tuple[Any, ...]]]:
    return [[(h.path, h.score, h.relevance, h.freshness, h.confidence)
             for h in index.search(repo.store, q, catch_up=False, at=NOW, limit=15).hits] for q in queries]


def test_search_is_the_same_with_or_without_the_packed_files(repo: MemoryRepo, opened: Handle,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    queries = [" ".join(rng.sample(WORDS, rng.randint(1, 5))) for _ in range(60)] + ["東", "京", "w00 東 zzz"]
    fresh = TermScores(opened.stats.reader, opened.stats.idf, opened.stats.avgfl, FIELD_BOOSTS)
    with_packed = _answers(repo, queries)
    monkeypatch.setattr(opened, "terms", fresh)
    assert _answers(repo, queries) == with_packed
    assert sum(map(len, with_packed)) > 300


def test_a_missing_bad_or_foreign_file_falls_back_to_the_blocks(repo: MemoryRepo, opened: Handle,
                                                                 tmp_path: Path) -> None:
    leaf, _offset = opened.stats.reader.leaf_readers()[0]
    source = packed.path_for(_index_dir(repo, opened), str(_segment_id(leaf)))
    data = source.read_bytes()
    for name, content in [("truncated", data[:-1]), ("magic", b"x" + data[1:]), ("short", data[:20])]:
        (tmp_path / name).write_bytes(content)
        assert packed.load(tmp_path / name, leaf.doc_count_all()) is None, name
    assert packed.load(tmp_path / "absent", leaf.doc_count_all()) is None
    assert packed.load(source, leaf.doc_count_all() + 1) is None
    assert packed.load(source, leaf.doc_count_all()) is not None


def test_weights_that_a_float32_would_round_are_kept_whole(repo: MemoryRepo, opened: Handle,
                                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def thirds(leaf: Any, field: str, btext: bytes) -> tuple[Any, Any]:
        ids, weights = read_postings(leaf, field, btext)
        return ids, weights / 3

    leaf, _offset = opened.stats.reader.leaf_readers()[0]
    monkeypatch.setattr(packed, "read_postings", thirds)
    (tmp_path / "p").write_bytes(b"".join(packed.pack(leaf, ["body"])))
    found = packed.load(tmp_path / "p", leaf.doc_count_all())
    assert found is not None and found.weights.dtype == np.float64 and found.fields == {"body"}
    btext = next(iter(leaf.lexicon("body")))
    assert np.array_equal(found.postings("body", btext)[1], thirds(leaf, "body", btext)[1])


def test_an_index_without_packed_files_searches_the_same(repo: MemoryRepo, opened: Handle) -> None:
    queries = ["w00 w03", "w10 release", "東京 notes", "w41"]
    before = _answers(repo, queries)
    folder = _index_dir(repo, opened)
    kept = {p: p.read_bytes() for p in folder.glob(f"*{packed.SUFFIX}")}
    try:
        for p in kept:
            p.unlink()
        index.close(repo.store)
        assert _answers(repo, queries) == before and all(before)
    finally:
        for p, data in kept.items():
            p.write_bytes(data)
        index.close(repo.store)


def test_document_frequencies_from_the_packed_files_are_whooshs(opened: Handle) -> None:
    stats = opened.stats
    words = {w.decode() if isinstance(w, bytes) else w for field in TEXT_FIELDS
             for w in stats.reader.lexicon(field)} | {"absent"}
    compared = 0
    for field in TEXT_FIELDS:
        for word in sorted(words):
            whooshs = stats.reader.doc_frequency(field, word) - stats._deleted_with(field, word)
            assert opened.counted(field, word) == whooshs, (field, word)
            compared += whooshs
    assert compared > 5_000
    assert opened.counted("path", "notes/n001.md") is None


@pytest.mark.parametrize("spread", [False, True])
def test_words_whose_hashes_collide_are_each_found(repo: MemoryRepo, opened: Handle, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path, spread: bool) -> None:
    real = packed._hash
    monkeypatch.setattr(packed, "_hash", (lambda key: real(key) % 5) if spread else (lambda key: 12345))
    leaf, _offset = opened.stats.reader.leaf_readers()[-1]
    (tmp_path / "p").write_bytes(b"".join(packed.pack(leaf, ["tags", "description"])))
    found = packed.load(tmp_path / "p", leaf.doc_count_all())
    assert found is not None
    words = 0
    for field in ("tags", "description"):
        for btext in leaf.lexicon(field):
            ids, weights = found.postings(field, btext)
            want_ids, want_weights = read_postings(leaf, field, btext)
            assert np.array_equal(ids, want_ids) and np.array_equal(weights, want_weights)
            words += 1
        assert len(found.postings(field, b"zz-absent")[0]) == 0
    assert words > 20


def test_a_packed_file_that_cannot_be_written_leaves_the_commit_and_the_search_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    mem = new_repo(tmp_path / "m")
    for i in range(40):
        _put(mem, rng, i)
    commit_all(mem.root, "memories")
    index.rebuild(mem.store)
    queries = ["w00 w02", "w05", "東京 release"]
    expected = _answers(mem, queries)

    def full(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(packed.os, "replace", full)
    put(mem, "notes/n040.md", "zebra w00 w05\n")
    commit_all(mem.root, "one more")
    index.sync(mem.store)
    monkeypatch.undo()
    opened = handle(mem.store)
    folder = _index_dir(mem, opened)
    names = {_segment_id(leaf) for leaf, _offset in opened.stats.reader.leaf_readers()}
    assert len(names) == 2 and len(list(folder.glob(f"*{packed.SUFFIX}"))) == 1
    assert not list(folder.glob(".*.tmp"))
    assert [p for p, *_rest in _answers(mem, ["zebra"])[0]] == ["notes/n040.md"]
    assert len(expected[0]) > 3
    fresh = TermScores(opened.stats.reader, opened.stats.idf, opened.stats.avgfl, FIELD_BOOSTS)
    with_mixed = _answers(mem, queries)
    monkeypatch.setattr(opened, "terms", fresh)
    assert _answers(mem, queries) == with_mixed
