"""One writer at a time per repository, across threads and processes.

git itself refuses a second concurrent commit (``index.lock``), and two read-check-write cycles
could otherwise interleave and lose an update, so every memfs write holds an exclusive
``flock`` on ``<git-dir>/memfs.lock`` from reading the current revision until the commit exists.
The lock dies with its process, so a crash never leaves a stale lock behind. git processes
started while it is held inherit its descriptor (:func:`held_fds`), so the lock outlives a killed
memfs for as long as a git it started still runs: when the lock is free, neither is alive, and an
``index.lock`` left with a journal is certainly stale (see ``Store._recover``).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memfs.errors import LockTimeout

_local = threading.local()


@contextmanager
def exclusive(lock_path: Path, timeout: float = 60.0) -> Iterator[None]:
    """Hold the write lock; re-entrant within a thread; :class:`LockTimeout` after ``timeout`` s."""
    held = _held()
    key = str(lock_path)
    if key in held:
        held[key][1] += 1
        try:
            yield
        finally:
            held[key][1] -= 1
        return
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, lock_path, timeout)
        held[key] = [fd, 1]
        try:
            yield
        finally:
            del held[key]
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _held() -> dict[str, list[int]]:
    held: dict[str, list[int]] | None = getattr(_local, "held", None)
    if held is None:
        held = _local.held = {}
    return held


def held_fds() -> tuple[int, ...]:
    """The descriptors of the locks this thread holds, for child processes to inherit."""
    return tuple(fd for fd, _ in _held().values())


def _acquire(fd: int, lock_path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"another memfs process has held {lock_path} for {timeout:.0f}s; "
                    "wait for it to finish, or check for a hung memfs process"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def is_free(lock_path: Path) -> bool:
    """Whether no process holds the lock right now (used to detect an abandoned journal)."""
    if not lock_path.exists():
        return True
    fd = os.open(lock_path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)
