"""Re-indexing exactly the paths a caller names, for a process told what changed (the live index).

:func:`memfs.index.catchup.sync` finds what changed itself: one ``git status`` and, when that
differs, a stat of every memory file. A long-running process that watches the files already
knows which paths an event touched; :func:`apply_paths` indexes only those, with the same
per-file step (:func:`~memfs.index.catchup._index_one`), the same lock and the same state file,
so the index it leaves is the one a ``sync`` would leave for those changes. It never decides
that nothing else changed: a caller that may have missed events runs ``sync``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from memfs.index import state as index_state
from memfs.index.catchup import SIGN_EACH, SYNC_WAIT, _probe, index_paths
from memfs.index.reader import open_dir
from memfs.index.results import SyncReport, Uncommitted
from memfs.index.state import LOCK_FILE, BadState, State
from memfs.store import locking, paths
from memfs.store.repo import Store


class NeedsSync(Exception):
    """The index cannot be updated path by path (none yet, another format, unopenable); the caller
    runs :func:`memfs.index.catchup.sync`, which rebuilds."""


class Kept:
    """A long-running caller's parsed state, reused while the files on disk are the version it
    read or wrote last (parsing them costs ~0.5 s at 100,000 memories). The caller serialises
    updates and searches: the same object is what this process's searcher reads."""

    def __init__(self) -> None:
        self.state: State | None = None

    def load(self, cache: Any) -> State:
        try:
            current = index_state.key(cache)
        except FileNotFoundError:
            raise BadState("there is none yet") from None
        if self.state is None or current != self.state.disk.key:
            self.state = index_state.private(cache)
        return self.state


def apply_paths(repo: Store, rels: Iterable[str], *, wait: float = SYNC_WAIT, kept: Kept | None = None) -> SyncReport:
    """Index the current state of ``rels`` (changed, new or gone files), with a few memories
    indexed earlier too soon to be signed that can be now (as a catch-up does), and record the
    current ``git status`` probe. Raises :class:`NeedsSync` when only a full catch-up can help and
    :class:`~memfs.errors.LockTimeout` when another process holds the index lock too long."""
    cache = repo.cache_dir
    report = SyncReport()
    wanted = sorted(set(rels))
    kept = kept or Kept()
    with locking.exclusive(cache / LOCK_FILE, timeout=wait):
        try:
            state = kept.load(cache)
        except BadState as why:
            kept.state = None
            raise NeedsSync(str(why)) from None
        if not (cache / state.index_dir).is_dir():
            raise NeedsSync("its directory is missing")
        signable = state.signable(time.time_ns() - paths.RACY_NS, SIGN_EACH)
        try:
            _write(repo, state, sorted({*wanted, *signable}), report)
            probe = _probe(repo)  # after the indexing, which a caller's git refresh may overlap
        except BaseException:
            kept.state = None  # half-applied to the parsed copy: parse the file again next time
            raise
        report.uncommitted = None if probe is None else Uncommitted(tuple(probe[1]))
        state.probe = probe
        state.serial += 1
        index_state.write(cache, state)
    return report


def _write(repo: Store, state: State, rels: list[str], report: SyncReport) -> None:
    try:
        ix = open_dir(repo.cache_dir / state.index_dir)
    except Exception as exc:
        raise NeedsSync(f"it could not be opened ({type(exc).__name__})") from None
    index_paths(repo, state, ix, rels, report, SYNC_WAIT)
