"""One writer at a time per repository, across threads and processes.

git itself refuses a second concurrent commit (``index.lock``), and two read-check-write cycles
could otherwise interleave and lose an update, so every memfs write holds an exclusive
``flock`` on ``<git-dir>/memfs.lock`` from reading the current revision until the commit exists.
The lock dies with its process, so a crash never leaves a stale lock behind. git processes
started while it is held inherit its descriptor (:func:`held_fds`), so the lock outlives a killed
memfs for as long as a git it started still runs: when the lock is free, neither is alive, and an
``index.lock`` left with a journal is certainly stale (see ``Store._recover``).

Writers wait their turn (``fair``): each takes a numbered ticket in ``<lock>.queue/`` and takes
the lock only when no live ticket with a lower number is left, so eight writers are served in the
order they came instead of racing for the lock after each commit (where the unlucky one gave up
after a fixed timeout). A ticket is a file its owner holds an ``flock`` on: one whose lock is free
belongs to a process that died, and is cleared by whoever finds it. The timeout counts only while
the queue does not move: a writer gives up when the same writers stay ahead of it that long (a
hung process), never for the length of the queue.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memfs.errors import LockTimeout

_local = threading.local()
#: The longest a queued writer sleeps between looks at the queue. A turn usually comes after one
#: write of the writer ahead (tens of ms); a longer sleep (it was 50 ms) left the lock free for
#: most of it: two processes writing in turn spent about half their time waiting on each other's
#: sleeps. A look costs a directory listing and one lock probe per ticket ahead.
TURN_POLL_MAX = 0.005


@contextmanager
def exclusive(lock_path: Path, timeout: float = 60.0, *, fair: bool = False) -> Iterator[None]:
    """Hold the write lock; re-entrant within a thread; :class:`LockTimeout` after ``timeout`` s
    (``fair``: in turn, after ``timeout`` s without the queue moving; see the module docstring)."""
    held = _held()
    key = str(lock_path)
    if key in held:
        held[key][1] += 1
        try:
            yield
        finally:
            held[key][1] -= 1
        return
    ticket = _wait_turn(lock_path, timeout) if fair else None
    try:
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
    finally:
        if ticket is not None:
            _leave(*ticket)


def _queue(lock_path: Path) -> Path:
    return lock_path.with_name(lock_path.name + ".queue")


def _tickets(queue: Path) -> list[int]:
    return sorted(int(name[1:]) for name in os.listdir(queue) if name.startswith("t") and name[1:].isdigit())


def _ticket_path(queue: Path, number: int) -> Path:
    return queue / f"t{number:012d}"


def _take_ticket(queue: Path) -> tuple[int, int]:
    """A ticket numbered after every one in the queue, held (``flock``) before anyone can see it:
    numbers are handed out under the queue's door lock, and a ticket is locked before the door
    opens again, so every ticket below one's own is either held or dead."""
    queue.mkdir(exist_ok=True)
    door = os.open(queue / "door", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(door, fcntl.LOCK_EX)
        number = max(_tickets(queue), default=0) + 1
        ticket = os.open(_ticket_path(queue, number), os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(ticket, fcntl.LOCK_EX)
        return ticket, number
    finally:
        os.close(door)


def _live_ahead(queue: Path, number: int) -> tuple[int, ...]:
    """The tickets before ``number`` whose owner is alive; a dead one is removed on the way."""
    alive = []
    for other in _tickets(queue):
        if other >= number:
            break
        path = _ticket_path(queue, other)
        try:
            probe = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            alive.append(other)
        else:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        finally:
            os.close(probe)
    return tuple(alive)


def _wait_turn(lock_path: Path, timeout: float) -> tuple[int, Path]:
    """Take a ticket and wait until no live ticket is ahead of it; (its descriptor, its path)."""
    queue = _queue(lock_path)
    ticket, number = _take_ticket(queue)
    try:
        seen: tuple[int, ...] = ()
        deadline = time.monotonic() + timeout
        delay = 0.002
        while ahead := _live_ahead(queue, number):
            if ahead != seen:
                seen, deadline, delay = ahead, time.monotonic() + timeout, 0.002
            elif time.monotonic() >= deadline:
                raise LockTimeout(
                    f"the memfs writer(s) ahead in the queue have not moved for {timeout:.0f}s; "
                    "check for a hung memfs process"
                )
            time.sleep(delay)
            delay = min(delay * 2, TURN_POLL_MAX)
    except BaseException:
        _leave(ticket, _ticket_path(queue, number))
        raise
    return ticket, _ticket_path(queue, number)


def _leave(ticket: int, path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    os.close(ticket)


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
                    f"another memfs process has held the repository's write lock ({lock_path.name}) "
                    f"for {timeout:.0f}s; "
                    "wait for it to finish, or check for a hung memfs process"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def try_hold(lock_path: Path) -> int | None:
    """The descriptor of ``lock_path`` (created if missing) with an exclusive ``flock`` this
    process now holds until it closes it, or ``None`` when another holder has it: for a claim
    that must not wait (one live index per memory root)."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


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
