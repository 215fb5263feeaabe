"""The merge of several repositories' rankings (:mod:`memfs.policy.fusion`), as pure functions."""

from __future__ import annotations

import itertools
import random

import pytest

from memfs.policy.fusion import fuse, labels


def _ranked(rng: random.Random) -> list[float]:
    """A root's hit scores, best first, as a search returns them: coverage + a fraction."""
    return sorted((rng.randint(0, 3) + rng.random() * 0.99 for _ in range(rng.randint(0, 6))), reverse=True)


@pytest.mark.parametrize("seed", range(30))
def test_coverage_first_then_rank_within_the_root_and_each_roots_order_kept(seed: int) -> None:
    rng = random.Random(seed)
    lists = [_ranked(rng) for _ in range(rng.randint(1, 4))]
    merged = fuse(lists)
    assert sorted(merged) == [(r, i) for r, ranked in enumerate(lists) for i in range(len(ranked))]
    coverages = [int(lists[r][i]) for r, i in merged]
    assert coverages == sorted(coverages, reverse=True)
    for root in range(len(lists)):
        assert [i for r, i in merged if r == root] == list(range(len(lists[root])))
    tier_rank = {(r, i): sum(1 for j in range(i) if int(lists[r][j]) == int(lists[r][i])) for r, i in merged}
    for (a, b) in itertools.pairwise(merged):
        if int(lists[a[0]][a[1]]) == int(lists[b[0]][b[1]]):
            assert (tier_rank[a], a[0]) < (tier_rank[b], b[0])


@pytest.mark.parametrize("seed", range(10))
def test_one_list_is_its_own_order_and_the_limit_is_a_prefix(seed: int) -> None:
    rng = random.Random(seed)
    ranked = _ranked(rng)
    assert fuse([ranked]) == [(0, i) for i in range(len(ranked))]
    lists = [_ranked(rng) for _ in range(3)]
    assert fuse(lists, 2) == fuse(lists)[:2]


def test_scales_do_not_matter_within_a_coverage_only_positions() -> None:
    small_index, large_index = [2.9, 2.8, 1.5], [2.1, 2.05, 2.01]
    assert fuse([small_index, large_index]) == [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (0, 2)]


def test_no_hit_is_merged_with_another_even_with_equal_scores() -> None:
    assert fuse([[1.5], [1.5]]) == [(0, 0), (1, 0)]


@pytest.mark.parametrize(("roots", "expected"), [
    (["/home/ana/memory", "/srv/team", "/srv/org"], ["memory", "team", "org"]),
    (["/a/memory", "/b/memory"], ["a/memory", "b/memory"]),
    (["/x/a/memory", "/y/a/memory", "/z"], ["x/a/memory", "y/a/memory", "z"]),
    (["/memory", "/b/memory"], ["memory", "b/memory"]),
])
def test_labels_are_short_and_distinct(roots: list[str], expected: list[str]) -> None:
    assert labels(roots) == expected
