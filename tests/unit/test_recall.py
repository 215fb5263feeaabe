"""The recall policy (pure): scope rules, freshness and confidence factors, eligibility that fails
closed on unreadable fields, and the natural forms of ``expires`` and ``version``."""

from __future__ import annotations

import datetime as dt

import pytest

from memfs.format.model import Memory
from memfs.format.parse import parse
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


def _memory(*lines: str) -> Memory:
    """A valid active fact of user U5, with ``lines`` replacing or adding fields."""
    fields = {"id": "a", "type": "fact", "scope": "user:U5", "source": "tool:ci", "status": "active"}
    fields.update(line.split(": ", 1) for line in lines)
    return parse("facts/a.md", ("---\n" + "".join(f"{k}: {v}\n" for k, v in fields.items()) + "---\nbody\n").encode())


@pytest.mark.parametrize(
    ("field", "line"),
    [
        ("scope", "scope: 5"),
        ("version", "version: 1.10"),
        ("status", "status: activ"),
        ("source", "source: [a, b]"),
        ("expires", "expires: next week"),
    ],
)
def test_an_unreadable_eligibility_field_fails_closed(field: str, line: str) -> None:
    memory = _memory(line)
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for scope, version in ((None, None), ("user:U5", None), (None, "1.10"), (recall.ScopeRule("user:U5", True), "v1")):
        why = recall.eligibility(memory, scope=scope, version=version, now=now)
        assert why == f"unreadable {field} (memfs validate says why)"


@pytest.mark.parametrize(
    ("line", "boundary"),
    [
        ("expires: 2025-10-17", dt.datetime(2025, 10, 17, tzinfo=dt.UTC)),
        ("expires: 2025-10-17T10:30:00", dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC)),
        ("expires: 2025-10-17T12:30:00+02:00", dt.datetime(2025, 10, 17, 10, 30, tzinfo=dt.UTC)),
    ],
)
def test_natural_expiry_forms_at_the_exact_boundary(line: str, boundary: dt.datetime) -> None:
    memory = _memory(line)
    assert recall.eligibility(memory, scope="user:U5", version=None, now=boundary).startswith("expired at")
    before = boundary - dt.timedelta(seconds=1)
    assert recall.eligibility(memory, scope="user:U5", version=None, now=before) is None


def test_an_integer_version_matches_its_decimal_string() -> None:
    memory = _memory("version: 1")
    now = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert recall.eligibility(memory, scope="user:U5", version="1", now=now) is None
    assert recall.eligibility(memory, scope="user:U5", version="2", now=now) == "wrong version (1)"
