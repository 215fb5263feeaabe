"""The recall policy (pure): scope rules, freshness and confidence factors."""

from __future__ import annotations

import datetime as dt

import pytest

from memfs.policy import recall


def test_recall_policy_units() -> None:
    assert recall.ScopeRule("user:U5/project:P8", inherit=True).scopes == ("user:U5/project:P8", "user:U5")
    assert not recall.ScopeRule("user:U5").allows("user:U50")
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)

    class M:
        type = "fact"
        created = now - dt.timedelta(days=365)
        updated = None
        confidence = 0.5

    policy = recall.RankPolicy({"fact": 365.0})
    assert recall.freshness(M, now, policy) == pytest.approx(0.5)
    M.type = "procedure"
    assert recall.freshness(M, now, policy) == 1.0
    assert recall.confidence_factor(M) == 0.5
