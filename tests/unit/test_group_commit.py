"""Group commits (``memfs.integrations.langgraph_commits``) with a stand-in ``apply``: writes that
arrive together are applied together, and a write at fault is split out without sinking the rest."""

from __future__ import annotations

import asyncio
import threading

import pytest

from memfs.errors import GitError, WriteRefused
from memfs.integrations.langgraph_commits import AsyncGroups, GroupCommit
from memfs.policy.gate import Refusal


class Ledger:
    """An ``apply`` that refuses any group holding a write named ``bad*`` (as the guard refuses a
    whole transaction) and records the groups it committed."""

    def __init__(self, failure: type[Exception] = WriteRefused) -> None:
        self.committed: list[list[str]] = []
        self.failure = failure

    def __call__(self, works: list[str]) -> None:
        if any(w.startswith("bad") for w in works):
            if self.failure is WriteRefused:
                raise WriteRefused([Refusal("secret/test", "a secret", "remove it")])
            raise self.failure("git failed")
        self.committed.append(list(works))


def test_concurrent_async_writes_are_one_group() -> None:
    ledger = Ledger()
    groups = AsyncGroups(GroupCommit(ledger))

    async def main() -> None:
        await asyncio.gather(*(groups.submit(f"w{i}") for i in range(50)))

    asyncio.run(main())
    assert ledger.committed == [[f"w{i}" for i in range(50)]]


@pytest.mark.parametrize("bad", [0, 7, 49])
def test_a_refused_write_gets_its_own_error_and_the_others_commit(bad: int) -> None:
    ledger = Ledger()
    groups = AsyncGroups(GroupCommit(ledger))
    works = [f"bad{i}" if i == bad else f"w{i}" for i in range(50)]

    async def main() -> list[BaseException | None]:
        return await asyncio.gather(*(groups.submit(w) for w in works), return_exceptions=True)

    outcomes = asyncio.run(main())
    assert [i for i, o in enumerate(outcomes) if o is not None] == [bad]
    assert isinstance(outcomes[bad], WriteRefused)
    committed = [w for group in ledger.committed for w in group]
    assert committed == [w for w in works if not w.startswith("bad")], "every other write, once, in order"
    assert len(ledger.committed) <= 2 * 6, "split in halves: a few commits, not one per write"


def test_a_failure_that_is_no_writes_fault_is_everyones() -> None:
    ledger = Ledger(GitError)
    commits = GroupCommit(ledger)
    errors = commits.submit_many(["w1", "bad", "w2"])
    assert all(isinstance(e, GitError) for e in errors) and ledger.committed == []
    assert commits.groups == 1, "not retried write by write"


def test_threads_queue_behind_the_commit_under_way() -> None:
    started, release = threading.Event(), threading.Event()
    committed: list[list[str]] = []

    def apply(works: list[str]) -> None:
        if works == ["first"]:
            started.set()
            release.wait(5)
        committed.append(works)

    commits = GroupCommit(apply)
    first = threading.Thread(target=commits.submit, args=("first",))
    first.start()
    started.wait(5)
    others = [threading.Thread(target=commits.submit, args=(f"t{i}",)) for i in range(5)]
    for thread in others:
        thread.start()
    for _ in range(5000):
        if len(commits._pending) == 5:
            break
        threading.Event().wait(0.001)
    release.set()
    for thread in [first, *others]:
        thread.join(5)
    assert committed[0] == ["first"] and sorted(committed[1]) == [f"t{i}" for i in range(5)]
    assert len(committed) == 2
