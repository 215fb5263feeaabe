"""A pytest plugin that makes memfs's clock tick: every read of ``memfs.format.model.utcnow``
returns the real time plus one more second than the read before it (counted from 0 at each
test's start). Run the suite under it to find tests that compare two stamps taken at different
reads, which on the real clock fail only when a second boundary falls between the reads::

    PYTHONPATH=bench .venv/bin/pytest -p ticking_clock -q -n 1 tests/cli

``MEMFS_TICK_DAYS=400`` also moves the clock that many days ahead: a test that fails only then
depends on today's date (a date written into it that the calendar will pass).

Not a test and not part of the suite: a test that fails only under it either compares stamps
it should hold (the ``clock`` fixture of ``tests/conftest.py``, which replaces this clock for
the test that asks for it) or is about time and says why it cannot flake. Processes a test
starts (``python -m memfs``, the fork server) read the real clock: a stamp one of them writes
may then be earlier than one this process wrote before, which the real clock never does.

The clock is swapped in every memfs module imported so far (their by-name imports, ``from
memfs.format.model import utcnow``) and in ``model``, which modules imported later read;
the ``clock`` fixture swaps whatever it finds for its held clock, as on the real one."""

from __future__ import annotations

import datetime as dt
import os
import sys

import pytest

from memfs.format import model

_real = model.utcnow
_ahead = dt.timedelta(days=int(os.environ.get("MEMFS_TICK_DAYS", "0")))
_reads = [0]


def ticking() -> dt.datetime:
    """Now, to whole seconds, plus the number of reads before this one in the current test."""
    _reads[0] += 1
    return _real() + _ahead + dt.timedelta(seconds=_reads[0] - 1)


for _name, _module in list(sys.modules.items()):
    if (_name == "memfs" or _name.startswith("memfs.")) and vars(_module).get("utcnow") is _real:
        vars(_module)["utcnow"] = ticking


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _reads[0] = 0
