"""Counts the processes a Python child of the test suite starts (``subprocess``), for
``bench/suite_waits.py``: on exit, one line with the count is appended to ``$SUITE_SPAWNS``.
Only on ``PYTHONPATH`` when that plugin puts it there for the children of a measured run."""

from __future__ import annotations

import atexit
import os
import subprocess
from typing import Any

_started = [0]
_real = subprocess.Popen._execute_child  # type: ignore[attr-defined]


def _counting(self: Any, *args: Any, **kwargs: Any) -> Any:
    _started[0] += 1
    return _real(self, *args, **kwargs)


def _report() -> None:
    if _started[0]:
        with open(os.environ["SUITE_SPAWNS"], "a") as handle:
            handle.write(f"{_started[0]}\n")


if os.environ.get("SUITE_SPAWNS"):
    subprocess.Popen._execute_child = _counting  # type: ignore[attr-defined]
    atexit.register(_report)
