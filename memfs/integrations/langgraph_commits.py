"""Group commits for :class:`memfs.integrations.langgraph.MemfsStore`: writes that arrive together
in one process become one commit.

A graph's nodes call ``aput`` concurrently; one commit each costs a git process each and
serialises on the repository's lock. Here every write (one caller's puts and deletes) joins a
queue; whoever finds no commit under way leads: it takes everything queued and applies it as one
transaction, while writes arriving meanwhile queue for the next. Async callers queue on the event
loop first, so all the ``aput``\\ s of one tick reach the queue together.

Nothing per-memory is weakened: the group's transaction runs every file through the core guard
as a single write would. When the group fails for a reason that belongs to one caller's write (a
refused secret, an invalid value, an embedder failing on its text), the group is split in halves
and each half tried again, down to the write at fault: that caller gets its own error, every
other caller's write is committed (in a few commits instead of one). One caller's write is never
split: it is committed whole or not at all. A failure that belongs to no write (git, the disk)
is every caller's error.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from memfs.errors import GitError

__all__ = ["AsyncGroups", "GroupCommit"]

W = TypeVar("W")


def attributable(exc: BaseException) -> bool:
    """Whether a failed group's error may belong to one write only (then the group is split):
    memfs's refusals and validation errors, and the caller's own code (the embedder, LangGraph's
    checks); git and the disk fail every write alike."""
    return isinstance(exc, Exception) and not isinstance(exc, GitError | OSError)


@dataclass
class _Slot(Generic[W]):
    work: W
    done: bool = False
    error: BaseException | None = None


class GroupCommit(Generic[W]):
    """Writes queued from any thread, applied a group at a time by ``apply`` (one transaction)."""

    def __init__(self, apply: Callable[[list[W]], None]) -> None:
        self.apply = apply
        self._cond = threading.Condition()
        self._pending: list[_Slot[W]] = []
        self._leading = False
        #: groups applied (commits attempted), for tests and benchmarks
        self.groups = 0

    def submit(self, work: W) -> None:
        """Apply ``work`` with whatever else is queued; raise its own error, if any."""
        error = self.submit_many([work])[0]
        if error is not None:
            raise error

    def submit_many(self, works: Sequence[W]) -> list[BaseException | None]:
        """Queue several writes at once (each still its own unit); each one's error or ``None``."""
        slots = [_Slot(w) for w in works]
        with self._cond:
            self._pending.extend(slots)
            while not all(s.done for s in slots):
                if self._leading:
                    self._cond.wait()
                    continue
                self._leading = True
                group, self._pending = self._pending, []
                self._cond.release()
                try:
                    self._run(group)
                finally:
                    self._cond.acquire()
                    self._leading = False
                    self._cond.notify_all()
        return [s.error for s in slots]

    def _run(self, group: list[_Slot[W]]) -> None:
        self.groups += 1
        try:
            self.apply([s.work for s in group])
        except BaseException as exc:
            if len(group) == 1 or not attributable(exc):
                for slot in group:
                    slot.error = exc
                    slot.done = True
                if not isinstance(exc, Exception):
                    raise
                return
            half = len(group) // 2
            self._run(group[:half])
            self._run(group[half:])
            return
        for slot in group:
            slot.done = True


class AsyncGroups(Generic[W]):
    """Async writers of one event loop gathered a tick at a time, then queued together on a
    :class:`GroupCommit` from a worker thread."""

    def __init__(self, commits: GroupCommit[W]) -> None:
        self.commits = commits
        self._lock = threading.Lock()
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[W, asyncio.Future[None]]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def submit(self, work: W) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            queue = self._pending.setdefault(loop, [])
            queue.append((work, future))
            first = len(queue) == 1
        if first:
            task = loop.create_task(self._flush(loop))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        await future

    async def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        await asyncio.sleep(0)
        with self._lock:
            group = self._pending.pop(loop, [])
        if not group:
            return
        try:
            errors = await asyncio.to_thread(self.commits.submit_many, [w for w, _ in group])
        except BaseException as exc:
            errors = [exc] * len(group)
        for (_, future), error in zip(group, errors, strict=True):
            if future.done():
                continue
            if error is None:
                future.set_result(None)
            else:
                future.set_exception(error)
