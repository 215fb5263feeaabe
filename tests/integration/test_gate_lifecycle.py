"""The gate on a repository: a rule drawn from one tool or agent observation is stored
``needs_review`` with low confidence and is never recalled until a person confirms it; procedures
from such sources age; only a person overrides the gate."""

from __future__ import annotations

import datetime as dt

import pytest

from memfs import MemoryRepo
from memfs.errors import Refused, WriteRefused
from memfs.format.parse import parse
from memfs.policy import recall
from memfs.policy.reconcile import Op
from tests.helpers import add, hit_paths, memory_text

NOW = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
RULE = {"scope": "project:P8", "type": "procedure", "key": "pdf-export", "source": "ci:P8/pipelines/4821",
        "source_kind": "tool", "body": "Never use pdf-export on CI runners; it times out."}


def test_a_procedure_from_one_ci_failure_is_held_for_review(repo: MemoryRepo) -> None:
    out = repo.remember(RULE, actor="tool:ci")
    assert out.op is Op.INSERT and [r.rule for r in out.downgraded] == ["single-event-rule"]
    memory = repo.store.read(out.paths[0])
    assert memory.status == "needs_review" and memory.confidence == 0.3
    record = memory.meta["gate"]
    assert record["rule"] == "single-event-rule" and record["confidence"] == 0.8 and record["actor"] == "tool:ci"
    assert "--force" in record["override"] and repo.validate() == []
    assert hit_paths(repo.search("pdf-export runners", scope="project:P8", at=NOW)) == []
    [group] = repo.review_queue()
    assert group.items[0].path == out.paths[0] and "write gate" in group.items[0].eligibility.why
    with pytest.raises(Refused, match="a person confirms it"):
        repo.reinstate(out.paths[0], reason="looks right", actor="agent:reviewer")
    done = repo.reinstate(out.paths[0], reason="checked the runner logs", actor="user:U5")
    assert done.eligibility.basis == ("confirmed:user:U5",)
    memory = repo.store.read(out.paths[0])
    assert (memory.status, memory.confidence) == ("active", 0.8) and "gate" not in memory.meta
    assert memory.meta["reinstated"]["basis"] == ["confirmed:user:U5"] and repo.validate() == []
    assert hit_paths(repo.search("pdf-export runners", scope="project:P8", at=NOW)) == [out.paths[0]]


def test_two_independent_observations_make_a_rule(repo: MemoryRepo) -> None:
    add(repo, "episodes/a.md", scope="project:P8", source="ci:P8/pipelines/4821", source_kind="tool")
    add(repo, "episodes/b.md", scope="project:P8", source="ci:P8/pipelines/4907", source_kind="tool")
    out = repo.remember({**RULE, "source": "agent:ops-bot", "source_kind": "agent",
                         "depends_on": ["episodes/a.md", "episodes/b.md"]}, actor="agent:ops-bot")
    assert out.downgraded == () and repo.store.read(out.paths[0]).status == "active"


def test_only_a_person_overrides_the_gate(repo: MemoryRepo) -> None:
    held = repo.remember(RULE, force=True, actor="agent:ops-bot")  # an agent's force counts for nothing
    assert held.downgraded and held.forced == () and repo.store.read(held.paths[0]).status == "needs_review"
    with pytest.raises(WriteRefused):
        repo.remember({"scope": "user:U5", "type": "episode", "source": "ci:1", "source_kind": "tool",
                       "body": "The export timed out."}, force=True, actor="agent:ops-bot")
    forced = repo.remember({**RULE, "key": "other", "body": "Always warm the font cache first."}, force=True)
    assert forced.forced == ("single-event-rule",) and forced.downgraded == ()
    assert repo.store.read(forced.paths[0]).status == "active"


def test_procedures_a_tool_observed_age() -> None:
    year = NOW + dt.timedelta(days=365)
    policy = recall.RankPolicy()
    stamp = "2026-10-01T00:00:00Z"
    observed = parse("procedures/o.md", memory_text(type="procedure", source="ci:1", source_kind="tool",
                                                    created=stamp, updated=stamp).encode())
    taught = parse("procedures/t.md", memory_text(type="procedure", source="conversation:C1", source_kind="user",
                                                  created=stamp, updated=stamp).encode())
    assert recall.freshness(taught, year, policy) == 1.0
    assert recall.freshness(observed, NOW + dt.timedelta(days=90), policy) == pytest.approx(0.5)
    assert recall.freshness(observed, year, policy) < 0.1
