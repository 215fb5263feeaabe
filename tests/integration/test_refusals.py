"""Refused writes are counted where they happen (#13, item 5): a refused ``remember``, a batch
that skips a candidate, a revert whose reason holds a secret; ``memfs eval``'s write figures
read them. (Every door's refusals are checked by the guard matrix, tests/guard_matrix.py.)"""

from __future__ import annotations

import pytest

from memfs import MemoryRepo
from memfs.agents.evaluate import write_counts
from memfs.errors import WriteRefused
from memfs.store import refusal_log
from tests.helpers import add, candidate

SECRET = "ghp_aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"


def test_a_refused_remember_is_logged_and_counted_by_eval(repo: MemoryRepo) -> None:
    add(repo, "facts/a.md")
    with pytest.raises(WriteRefused):
        repo.remember(candidate(body=f"The token is {SECRET}", source_kind="agent"), actor="agent:bot")
    [entry] = refusal_log.load(repo.store.cache_dir)
    assert (entry.op, entry.actor_kind) == ("remember", "agent") and entry.rules[0].startswith("secret/")
    counts = write_counts(repo.store)
    assert counts["refused"] == 1 and counts["refused_by_op"] == {"remember": 1}
    assert counts["refusal_rate"] == 1.0  # no write was accepted since the first refusal


def test_a_batch_logs_each_skipped_candidate_and_commits_the_rest(repo: MemoryRepo) -> None:
    batch = [candidate(), candidate(body=f"key {SECRET}", key="other_key"), candidate(body=f"again {SECRET}",
                                                                                      key="third_key")]
    result = repo.remember_batch(batch)
    assert result.commit is not None and sorted(result.refused) == [1, 2]
    assert [e.op for e in refusal_log.load(repo.store.cache_dir)] == ["remember", "remember"]
    counts = write_counts(repo.store)
    assert counts["refused"] == 2 and counts["refusal_rate"] == pytest.approx(2 / 3, abs=1e-4)


def test_a_revert_refused_for_its_reason_is_logged(repo: MemoryRepo) -> None:
    done = add(repo, "facts/a.md")
    assert done.commit is not None
    with pytest.raises(WriteRefused):
        repo.revert(done.commit, reason=f"leaked {SECRET}")
    [entry] = refusal_log.load(repo.store.cache_dir)
    assert entry.op == "revert" and SECRET not in (repo.store.cache_dir / refusal_log.LOG_FILE).read_text()
