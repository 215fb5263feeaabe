"""How long a writer waits before trying again after losing a race for a shared ref.

Exponential backoff with full jitter: before attempt ``n + 1`` (``n`` >= 1) the writer sleeps a
uniformly random time in ``[0, min(cap, base * 2 ** (n - 1))]``. Writers that lost the same race
then spread out instead of arriving together again, and the expected wait grows with the
contention each one has seen. A fixed number of attempts alone, with no wait, lets every writer
retry in lock step. Pure: the caller brings the random source and does the sleeping.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """``attempts`` tries at most, and no new try once ``budget`` seconds have passed since the
    first; waits from ``base`` seconds, doubling up to ``cap``."""

    attempts: int = 5
    budget: float = 60.0
    base: float = 0.1
    cap: float = 5.0

    def delay(self, failed: int, rng: random.Random) -> float:
        """The wait after the ``failed``-th failed attempt (1 for the first)."""
        return rng.uniform(0.0, min(self.cap, self.base * 2 ** (failed - 1)))

    def another(self, failed: int, elapsed: float, wait: float) -> bool:
        """Whether to try again after ``failed`` failed attempts, ``elapsed`` seconds in, if the
        next try would start after ``wait`` more seconds."""
        return failed < self.attempts and elapsed + wait <= self.budget
