"""Evidence is counted once: a REINFORCE raises confidence only for a source independent of the
ones already counted, and the memory keeps those sources in ``evidence``."""

from __future__ import annotations

from memfs import MemoryRepo
from memfs.policy.reconcile import Op
from tests.helpers import add

SUMMARY = {"scope": "project:P8", "key": "b17-summary", "type": "note", "source_kind": "agent",
           "body": "B17 is fixed and ships in 2.4.0."}


def test_agent_restatements_of_one_root_are_one_observation(repo: MemoryRepo) -> None:
    add(repo, "facts/b17.md", source="tracker:P8/issues/B17#comment-9", source_kind="tool", scope="project:P8")
    first = repo.remember({**SUMMARY, "source": "agent:summarizer#run-1", "depends_on": ["facts/b17.md"]})
    assert first.op is Op.INSERT
    rel = first.paths[0]
    assert repo.store.read(rel).meta["evidence"] == ["tracker:P8/issues/B17#comment-9"]
    for run in (2, 3, 4):  # the issue: these raised 0.8 to 0.975
        again = repo.remember({**SUMMARY, "source": f"agent:summarizer#run-{run}", "depends_on": ["facts/b17.md"]})
        assert again.op is Op.NOOP and again.commit is None, again.reason
        assert "repeating a claim is not new evidence" in again.reason
    assert repo.store.read(rel).confidence == 0.8
    bare = repo.remember({**SUMMARY, "source": "agent:other-bot"})  # an agent alone observes nothing
    assert bare.op is Op.NOOP and repo.store.read(rel).confidence == 0.8
    person = repo.remember({**SUMMARY, "source": "conversation:C4#msg-2", "source_kind": "user"},
                           actor="user:U5")
    assert person.op is Op.REINFORCE and "conversation:C4#msg-2" in person.reason
    memory = repo.store.read(rel)
    assert memory.confidence == 0.9 and memory.revision == 1
    assert memory.meta["evidence"] == ["conversation:C4#msg-2", "tracker:P8/issues/B17#comment-9"]
    add(repo, "facts/release-log.md", source="ci:P8/releases/2.4.0", source_kind="tool", scope="project:P8")
    other = repo.remember({**SUMMARY, "source": "agent:summarizer#run-5", "depends_on": ["facts/release-log.md"]})
    assert other.op is Op.REINFORCE and repo.store.read(rel).confidence == 0.95
    assert repo.validate() == []


def test_derived_memories_count_through_their_roots(repo: MemoryRepo) -> None:
    add(repo, "facts/root.md", source="tracker:T1", source_kind="tool")
    add(repo, "notes/digest.md", "facts/root.md", source="agent:digest", source_kind="agent")
    base = {"scope": "user:U5", "key": "k", "type": "fact", "body": "K holds."}
    first = repo.remember({**base, "source": "agent:a", "source_kind": "agent", "depends_on": ["notes/digest.md"]})
    assert repo.store.read(first.paths[0]).meta["evidence"] == ["tracker:T1"]
    via_root = repo.remember({**base, "source": "agent:b", "source_kind": "agent", "depends_on": ["facts/root.md"]})
    assert via_root.op is Op.NOOP  # the digest and the root are the same observation


def test_a_file_without_evidence_counts_its_own_source(repo: MemoryRepo) -> None:
    add(repo, "facts/old.md", key="old", source="conversation:C1", source_kind="user", body="Old claim.\n",
        confidence=0.8)
    base = {"scope": "user:U5", "key": "old", "type": "fact", "body": "Old claim.", "source_kind": "user"}
    assert repo.remember({**base, "source": "conversation:C1"}).op is Op.NOOP  # same source: a replay
    assert repo.remember({**base, "source": "conversation:C2"}).op is Op.REINFORCE
    memory = repo.store.read("facts/old.md")
    assert memory.confidence == 0.9 and memory.meta["evidence"] == ["conversation:C1", "conversation:C2"]
