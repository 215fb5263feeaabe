"""The probable-conflict rule (memfs.policy.conflicts): the labelled pair set, the issue's own
pairs, and how memories are paired (scope, type, version, keys, newer second)."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import pytest

from memfs.policy import conflict_pairs, conflicts
from tests.helpers import PROJECT

PAIRS = [json.loads(line) for line in
         (PROJECT / "tests" / "fixtures" / "conflicts" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_pair_set_is_labelled_and_balanced() -> None:
    labels = {row["label"] for row in PAIRS}
    assert labels == {"conflict", "duplicate", "different"}
    assert {row["lang"] for row in PAIRS if row["label"] == "conflict"} == {"en", "zh"}
    assert all(set(row) == {"id", "label", "type", "lang", "old", "new"} for row in PAIRS)


def test_precision_and_recall_on_the_pair_set() -> None:
    """The floor bench/bench_conflicts.py reports above: a rule change that loses it fails here."""
    got = [(row["label"] == "conflict", conflicts.compare(row["old"], row["new"]).conflict) for row in PAIRS]
    tp = sum(want and have for want, have in got)
    precision = tp / sum(have for _, have in got)
    recall = tp / sum(want for want, _ in got)
    assert precision >= 0.95 and recall >= 0.9, (precision, recall)


@pytest.mark.parametrize(("old", "new"), [
    ("Always answer me in Portuguese.", "From now on answer me in Spanish, not Portuguese."),
    ("Kai works in Berlin.", "Kai works in Paris now."),
    ("以后P8的发布说明请用中文", "P8 release notes in English from now on"),
])
def test_the_issues_pairs_conflict(old: str, new: str) -> None:
    verdict = conflicts.compare(old, new)
    assert verdict.conflict, verdict
    assert verdict.old_values and verdict.new_values


@pytest.mark.parametrize(("old", "new", "kind"), [
    ("Always answer me in Portuguese.", "Please reply to me in Portuguese.", "duplicate"),
    ("Kai works in Berlin.", "Kai works in Berlin.", "duplicate"),
    ("Kai works in Berlin.", "Mia works in Paris.", "different"),
    ("Kai speaks German.", "Kai also speaks French.", "different"),
    ("Kai works in Berlin.", "Kai works at Acme.", "different"),
    ("Write the P8 release notes in English.", "Write the P9 release notes in Chinese.", "different"),
])
def test_near_misses_are_not_conflicts(old: str, new: str, kind: str) -> None:
    assert conflicts.compare(old, new).kind == kind


def test_a_rejected_value_is_not_held() -> None:
    held = [t.form for t in conflicts.tokens("Answer in Spanish, not Portuguese.") if not t.rejected]
    assert "language:spanish" in held and "language:portuguese" not in held


@dataclass(frozen=True)
class M:
    path: str
    body: str
    scope: str = "user:kai"
    type: str = "fact"
    version: str | None = None
    key: str | None = None
    status: str = "active"
    revision: int = 1
    updated: dt.datetime | None = None
    created: dt.datetime | None = None
    is_system: bool = False


def _at(day: int) -> dt.datetime:
    return dt.datetime(2026, 1, day, tzinfo=dt.UTC)


@pytest.mark.parametrize(("change", "paired"), [
    ({}, True),
    ({"scope": "user:mia"}, False),
    ({"type": "preference"}, False),
    ({"version": "2"}, False),
    ({"status": "superseded"}, False),
    ({"key": "kai_city"}, True),
])
def test_memories_pair_within_scope_type_and_version(change: dict[str, object], paired: bool) -> None:
    """One side keyed still pairs (the key names the subject of one of them only)."""
    old = M("facts/a.md", "Kai works in Berlin.", updated=_at(1))
    new = M("facts/b.md", "Kai works in Paris now.", updated=_at(2), **change)  # type: ignore[arg-type]
    found = conflict_pairs.pairs([new, old])
    assert bool(found) is paired
    if paired:
        assert (found[0].older, found[0].newer) == ("facts/a.md", "facts/b.md")
    if "status" not in change:
        assert [m.path for m, _ in conflicts.against(new, [old])] == (["facts/a.md"] if paired else [])


def test_two_declared_keys_are_never_a_probable_conflict() -> None:
    old = M("facts/a.md", "Kai works in Berlin.", key="kai_city", updated=_at(1))
    new = M("facts/b.md", "Kai works in Paris now.", key="kai_office", updated=_at(2))
    assert conflict_pairs.pairs([old, new]) == []


def test_the_newer_is_second_whatever_the_order() -> None:
    old = M("facts/z.md", "Kai works in Berlin.", updated=_at(1))
    new = M("facts/a.md", "Kai works in Paris now.", updated=_at(3))
    assert [(p.older, p.newer) for p in conflict_pairs.pairs([new, old])] == [("facts/z.md", "facts/a.md")]


def test_pairs_finds_what_compare_finds() -> None:
    """pairs() skips pairs by a set sketch before comparing: the sketch may never hide a conflict."""
    texts = sorted({text for row in PAIRS for text in (row["old"], row["new"])})
    for first in texts:
        for second in texts:
            old = M("notes/old.md", first, updated=_at(1))
            new = M("notes/new.md", second, updated=_at(2))
            assert bool(conflict_pairs.pairs([old, new])) is conflicts.compare(first, second).conflict, (first, second)
