"""A namespace-prefix read (``ScopeRule(descendants=True)``) sees the scopes below, by whole segments."""

from __future__ import annotations

import pytest

from memfs.policy.recall import ScopeRule


@pytest.mark.parametrize(
    ("scope", "seen"),
    [
        ("memories", True),
        ("memories/u5", True),
        ("memories/u5/prefs", True),
        ("memories2", False),
        ("memories-old/u5", False),
        ("other/memories", False),
        (None, False),
    ],
)
def test_descendants_by_whole_segments(scope: str | None, seen: bool) -> None:
    assert ScopeRule("memories", descendants=True).allows(scope) is seen


def test_without_descendants_the_rule_is_unchanged() -> None:
    assert not ScopeRule("memories").allows("memories/u5")
    assert ScopeRule("memories/u5", inherit=True).allows("memories")
    assert ScopeRule(None, descendants=True).allows("anything")
