"""The evidence rule (pure): roots along depends_on and source; a REINFORCE counts new roots only."""

from __future__ import annotations

from typing import Any

from memfs.format.model import Memory
from memfs.policy import evidence
from memfs.policy.reconcile import Decision, Op

Record = tuple[dict[str, Any], str | None, str | None, tuple[str, ...]]
GRAPH: dict[str, Record] = {
    "root.md": ({}, "tracker:B17", "tool", ()),
    "digest.md": ({}, "agent:digest", "agent", ("root.md",)),
    "kept.md": ({"evidence": ["doc:spec", "tracker:B17"]}, "agent:x", "agent", ("root.md",)),
    "a.md": ({}, "agent:a", "agent", ("b.md",)),
    "b.md": ({}, "agent:b", "agent", ("a.md", "root.md")),
    "said.md": ({}, "agent:said", "agent", ()),
}


def roots(source: str | None, kind: str | None, *deps: str) -> frozenset[str]:
    return evidence.roots(source, kind, deps, GRAPH.get)


def test_roots_follow_depends_on_to_what_was_derived_from_nothing() -> None:
    assert roots("conversation:C1", "user") == {"conversation:C1"}
    assert roots("agent:s", "agent") == frozenset()  # a restatement adds no root of its own
    assert roots("agent:s", "agent", "digest.md") == {"tracker:B17"}
    assert roots("agent:s", "agent", "kept.md") == {"doc:spec", "tracker:B17"}  # a kept list is trusted
    assert roots("agent:s", "agent", "a.md") == {"tracker:B17"}  # a cycle ends
    assert roots("agent:s", "agent", "said.md") == frozenset()
    assert roots("doc:x", "document", "gone.md") == {"memory:gone.md"}


def test_recorded_needs_a_list_of_sources() -> None:
    assert evidence.recorded({"evidence": ["a", "b"]}) == {"a", "b"}
    for bad in ("a", [], [""], [1], None):
        assert evidence.recorded({"evidence": bad}) in (None, frozenset())


def test_count_turns_a_restatement_into_noop_and_counts_each_new_root_once() -> None:
    target = Memory("facts/x.md", {}, "x", confidence=0.8)
    reinforce = Decision(Op.REINFORCE, "same value", target)
    same, none = evidence.count(reinforce, frozenset({"t:1"}), frozenset({"t:1"}), 0.8, None)
    assert same.op is Op.NOOP and none is None and "not new evidence" in same.reason
    more, counted = evidence.count(reinforce, frozenset({"t:1"}), frozenset({"t:1", "u:2", "d:3"}), 0.8, None)
    assert more.op is Op.REINFORCE and counted is not None
    assert counted.new == ("d:3", "u:2") and counted.evidence == ("d:3", "t:1", "u:2")
    assert counted.confidence == 0.95  # 0.8 -> 0.9 -> 0.95: one step per independent root
    insert = Decision(Op.INSERT, "new")
    assert evidence.count(insert, frozenset(), frozenset({"a"}), 0.8, None) == (insert, None)
