"""A test hook: die on purpose at a named step of the commit path, to prove recovery.

The write path calls :func:`reached` at each step where a crash leaves a distinct state on disk
(``journal-saved``, ``temp-written``, ``renamed``, ``git-add``, ``git-added``, ``git-committed``,
``journal-removing``). With ``MEMFS_CRASH_AT=STEP:N`` in the environment the process exits at once
(``os._exit(9)``: no cleanup, no ``finally``, like a kill) the N-th time it reaches STEP (N
defaults to 1). ``MEMFS_CRASH_TRACE=FILE`` appends each step reached to FILE, so a test can list
every step of an operation and crash at each in turn. Without either variable it does nothing.
"""

from __future__ import annotations

import os

_counts: dict[str, int] = {}


def reached(step: str) -> None:
    trace = os.environ.get("MEMFS_CRASH_TRACE")
    if trace:
        with open(trace, "a", encoding="utf-8") as handle:
            handle.write(step + "\n")
    target = os.environ.get("MEMFS_CRASH_AT")
    if not target:
        return
    name, _, nth = target.partition(":")
    if name != step:
        return
    _counts[step] = _counts.get(step, 0) + 1
    if _counts[step] == int(nth or "1"):
        os._exit(9)
