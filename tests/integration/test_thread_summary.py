"""The summary record of a thread, stored as a memory with versions."""

from __future__ import annotations

import datetime as dt

import pytest

from memfs import MemoryRepo
from memfs.errors import ConflictError, WriteRefused
from memfs.ops.thread_summary import load_summary, save_summary, summary_path
from memfs.policy.transcript import next_summary
from tests.helpers import first_summary

UNTIL = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def test_summary_stored_as_memory_with_versions(repo: MemoryRepo):
    one = first_summary()
    save_summary(repo.store, one, scope="user:U5", expires=UNTIL, reason="first summary")
    memory = repo.store.read(summary_path("T1"))
    assert memory.type == "summary" and memory.source == "thread:T1#m3" and not memory.errors
    assert memory.expires == UNTIL
    assert load_summary(repo.store, "T1") == one
    with pytest.raises(ConflictError, match="must be version 2"):
        save_summary(repo.store, one, scope="user:U5", expires=UNTIL)
    two = next_summary(one, covered_until_message_id="m4", source_message_ids=["m4"])
    result = save_summary(repo.store, two, scope="user:U5", expires=UNTIL)
    assert result.commit and load_summary(repo.store, "T1") == two
    assert repo.store.read(summary_path("T1")).revision == 2
    assert load_summary(repo.store, "T2") is None


def test_a_summary_needs_expires_unless_a_person_forces_it(repo: MemoryRepo):
    with pytest.raises(WriteRefused) as refused:
        save_summary(repo.store, first_summary(), scope="user:U5", actor="agent:summarizer", force=True)
    [rule] = refused.value.refusals
    assert rule.rule == "summary-without-expiry" and rule.forceable and "--force" in rule.fix
    assert save_summary(repo.store, first_summary(), scope="user:U5", force=True).commit  # the person's call
    assert repo.store.read(summary_path("T1")).expires is None
