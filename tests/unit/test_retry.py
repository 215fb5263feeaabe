"""The retry policy of a push that lost a race (:mod:`memfs.policy.retry`): full jitter under a
doubling cap, a number of tries and a time budget."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from memfs.policy.retry import Backoff


@given(failed=st.integers(1, 30), seed=st.integers(0, 2**32))
def test_a_wait_is_within_the_doubling_cap(failed: int, seed: int) -> None:
    policy = Backoff(base=0.1, cap=5.0)
    wait = policy.delay(failed, random.Random(seed))
    assert 0.0 <= wait <= min(5.0, 0.1 * 2 ** (failed - 1))


def test_writers_that_lost_the_same_race_spread_out() -> None:
    waits = [Backoff().delay(3, random.Random(seed)) for seed in range(200)]
    assert len({round(w, 6) for w in waits}) > 150 and max(waits) - min(waits) > 0.3


def test_the_tries_and_the_budget_both_end_the_retries() -> None:
    policy = Backoff(attempts=3, budget=10.0)
    assert policy.another(1, elapsed=0.0, wait=0.1) and policy.another(2, elapsed=9.0, wait=1.0)
    assert not policy.another(3, elapsed=0.0, wait=0.0)
    assert not policy.another(1, elapsed=9.5, wait=0.6)
    assert not Backoff(attempts=1).another(1, elapsed=0.0, wait=0.0)
