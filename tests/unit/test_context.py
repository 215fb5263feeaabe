"""Cutting text to a token budget (pure)."""

from __future__ import annotations

from memfs.agents.context import cut
from memfs.policy.tokens import estimate_tokens


def test_cut_is_deterministic_and_within_budget():
    text = "\n".join(f"line {i} with some words" for i in range(100))
    out = cut(text, 50, estimate_tokens)
    assert estimate_tokens(out) <= 50 and text.startswith(out) and cut(text, 50, estimate_tokens) == out
