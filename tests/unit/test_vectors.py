"""The vector cache (``memfs.index.vectors``): pure functions, and the cache file
against a temporary folder (no git)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from memfs.index.vectors import EmbeddingFailed, VectorCache, checked, cosine, embed_checked, similarities


def _embed(calls: list[list[str]], dims: int = 4, salt: int = 0):  # type: ignore[no-untyped-def]
    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return [[float((len(t) + i + salt) % 7) + 0.5 for i in range(dims)] for t in texts]

    return embed


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ([[1.0, 2.0]], "2 dimension"),
        ([[1.0, 2.0, 3.0]] * 2, "2 vector"),
        ([[1.0, math.nan, 3.0]], "not a finite number"),
        ([[1.0, math.inf, 3.0]], "not a finite number"),
        ([["a", "b", "c"]], "not a list of numbers"),
        (None, "not a list of vectors"),
    ],
)
def test_a_bad_answer_says_what_is_wrong(answer: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        checked(answer, 1, 3)


def test_a_failure_names_the_text_at_fault() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        if "bad" in texts:
            raise RuntimeError("model down")
        return [[1.0, 0.0]] * len(texts)

    owners = ["m/one.md", "m/bad.md", "m/three.md"]
    with pytest.raises(EmbeddingFailed, match=r"^m/bad\.md: the embedder raised RuntimeError: model down"):
        embed_checked(embed, ["one", "bad", "three"], 2, owners.__getitem__)
    assert embed_checked(embed, ["one"], 2, owners.__getitem__).shape == (1, 2)


def test_cosine_is_zero_for_a_zero_vector() -> None:
    rows = np.array([[2.0, 0.0], [0.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    got = cosine(np.array([1.0, 0.0], dtype=np.float32), rows)
    assert got.tolist() == [1.0, 0.0, 0.0]


def test_each_text_is_embedded_once_and_kept_across_opens(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    cache = VectorCache(tmp_path, "tests:embed", 4, _embed(calls))
    first = cache.vectors(["alpha", "beta", "alpha"], str)
    assert [c for c in calls[1:]] == [["alpha", "beta"]] and np.array_equal(first[0], first[2])
    cache.save()
    again = VectorCache(tmp_path, "tests:embed", 4, _embed(calls))
    assert np.array_equal(again.vectors(["beta"], str)[0], first[1])
    assert calls[-1] != ["beta"], "a kept vector is not embedded again (only the probe is)"


def test_another_embedder_behind_the_same_name_is_never_mixed_in(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    old = VectorCache(tmp_path, "tests:embed", 4, _embed(calls))
    old.vectors(["alpha"], str)
    old.save()
    changed = VectorCache(tmp_path, "tests:embed", 4, _embed(calls, salt=3))
    assert np.array_equal(changed.vectors(["alpha"], str)[0], checked(_embed([], salt=3)(["alpha"]), 1, 4)[0])
    assert calls[-1] == ["alpha"], "the changed model's vector, embedded anew"
    changed.save()
    assert len(VectorCache(tmp_path, "tests:embed", 4, _embed([], salt=3))) == 1


def test_a_torn_record_and_a_foreign_header_are_survived(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, "tests:embed", 4, _embed([]))
    cache.vectors(["alpha", "beta"], str)
    cache.save()
    data = cache.path.read_bytes()
    cache.path.write_bytes(data[:-5])
    assert len(VectorCache(tmp_path, "tests:embed", 4, _embed([]))) == 1
    cache.path.write_bytes(b"not a header\n" + data)
    fresh = VectorCache(tmp_path, "tests:embed", 4, _embed([]))
    assert len(fresh) == 0
    fresh.vectors(["gamma"], str)
    fresh.save()
    assert len(VectorCache(tmp_path, "tests:embed", 4, _embed([]))) == 1


def test_similarities_score_every_owner_and_name_the_one_the_embedder_fails_on(tmp_path: Path) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        if "bad" in texts:
            raise RuntimeError("model down")
        return [[1.0, float(len(t))] for t in texts]

    cache = VectorCache(tmp_path, "tests:embed", 2, embed)
    wanted = np.array([1.0, 0.0], dtype=np.float32)
    scores, failed = similarities(cache, wanted, {"a.md": ["x", "xyz"], "b.md": ["bad"], "c.md": []})
    assert set(scores) == {"a.md"} and scores["a.md"] == pytest.approx(1 / math.sqrt(2))
    assert list(failed) == ["b.md"] and "model down" in failed["b.md"].message
    cache.save()
    assert len(VectorCache(tmp_path, "tests:embed", 2, embed)) == 2, "the failed text's vector is not stored"
