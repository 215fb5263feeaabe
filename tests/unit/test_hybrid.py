"""BM25 and vectors as one ranking (``memfs.policy.hybrid``): the fused ranking never has a lower
recall than BM25's, at any cutoff, for any set of relevant items (a property test), and the
vectors fill what BM25 leaves empty; the ``[semantic]`` settings that turn it on."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfs.errors import InvalidConfig
from memfs.format.config import SemanticConfig, parse_config
from memfs.policy.hybrid import guarded, recall_at

items = st.lists(st.integers(0, 12), max_size=10)


@given(words=items, near=items, relevant=st.sets(st.integers(0, 12)), limit=st.integers(1, 15))
def test_the_fused_ranking_never_lowers_bm25s_recall_at_any_cutoff(
        words: list[int], near: list[int], relevant: set[int], limit: int) -> None:
    bm25 = list(dict.fromkeys(words))
    fused = guarded(words, near, limit)
    assert len(fused) == len(set(fused)) == min(limit, len(set(words) | set(near)))
    assert set(fused) <= set(words) | set(near)
    for k in range(1, limit + 1):
        assert set(bm25[:k]) <= set(fused[:k])
        assert recall_at(fused, relevant, k) >= recall_at(bm25, relevant, k)


@given(words=st.lists(st.integers(0, 12), unique=True, max_size=10), near=items,
       data=st.data())
def test_ties_are_broken_by_the_vectors_and_nothing_else_moves(words: list[int], near: list[int],
                                                             data: st.DataObject) -> None:
    scores = sorted(data.draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=len(words),
                                       max_size=len(words))), reverse=True)
    fused = guarded(words, near, scores=scores)
    score_of = dict(zip(words, scores, strict=True))
    assert [score_of[w] for w in fused[:len(words)]] == scores, "an item moves only among its equals"
    place = {item: n for n, item in reversed(list(enumerate(near)))}
    for a, b in itertools.pairwise(fused[:len(words)]):
        if score_of[a] == score_of[b] and b in place:
            assert a in place and place[a] < place[b]


def test_vectors_fill_only_the_places_bm25_leaves_empty() -> None:
    assert guarded(["a", "b"], ["c", "a", "d"], 3) == ["a", "b", "c"]
    assert guarded(["a", "b", "c"], ["d"], 3) == ["a", "b", "c"], "a page BM25 fills is BM25's"
    assert guarded([], ["d", "e"], 5) == ["d", "e"], "no word in common: the vectors still find"
    assert guarded(["x", "y", "z"], ["z", "y"], scores=[2.0, 1.0, 1.0]) == ["x", "z", "y"]


def test_reciprocal_rank_fusion_would_lower_recall_where_this_cannot() -> None:
    """Why not RRF: a weak vector ranking lifts BM25's 3rd over its 1st and 2nd, so recall@2 of
    the relevant {a} falls from 1 to 0; the guarded ranking keeps it."""
    words, near = ["a", "b", "c"], ["c", "b", "x"]
    rrf = {i: sum(1 / (60 + r.index(i) + 1) for r in (words, near) if i in r) for i in {*words, *near}}
    fused_rrf = sorted(rrf, key=lambda i: -rrf[i])
    assert recall_at(fused_rrf, {"a"}, 2) == 0.0
    assert recall_at(guarded(words, near), {"a"}, 2) == recall_at(words, {"a"}, 2) == 1.0


@pytest.mark.parametrize(("table", "message"), [
    ('embed = "m:f"', r"\[semantic\] dims = None"),
    ('embed = "m:f"\ndims = 0', r"\[semantic\] dims = 0"),
    ('embed = "m:f"\ndims = true', r"\[semantic\] dims = True"),
    ('embed = "nofunction"\ndims = 4', r"\[semantic\] embed = 'nofunction': give \"MODULE:FUNCTION\""),
])
def test_semantic_settings_mistakes_are_named(table: str, message: str) -> None:
    with pytest.raises(InvalidConfig, match=message):
        parse_config(f"[semantic]\n{table}\n")


def test_semantic_is_off_by_default() -> None:
    assert parse_config("").semantic == SemanticConfig() and SemanticConfig().embed is None
    assert parse_config('[semantic]\nembed = "m:f"\ndims = 8\n').semantic == SemanticConfig("m:f", 8)
