"""``memfs serve``: keep the search index current from file-system events, answer over a socket.

What it keeps open: the :class:`~memfs.store.repo.Store`, this process's Whoosh searcher (reopened
only when the index changes) and the last ``git status`` probe, so a search it answers runs
:func:`memfs.index.query.search` with ``catch_up=False`` and asks git nothing.

How it stays current (the bound: a save is searchable once its event is processed, that is
the debounce, :data:`DEBOUNCE_SECONDS`, plus the time to re-index the changed files):

* watchdog events on memory files (the filter of :func:`memfs.agents.watch.watched_path`) are
  debounced per path, then exactly those paths are re-indexed
  (:func:`memfs.index.incremental.apply_paths`, no stat of every file);
* events on ``.git/HEAD``, ``refs/``, ``packed-refs`` and ``.git/index`` (a commit, a reset, a
  ``git add``) refresh the cached probe, which says which hits are uncommitted;
* anything that may mean missed events runs the full check (:func:`memfs.index.catchup.sync`):
  an inotify queue overflow, a jump between the monotonic and the wall or boot clock (sleep and
  resume), a change of branch (``.git/HEAD`` names another ref), a folder moved or deleted,
  ``.memfsignore`` or ``.memfs.toml`` changed, and a ``.memfs/`` that disappeared.

Every search and every index update hold one lock, so a search never sees a half-applied
update; a search that cannot get it within :data:`QUERY_WAIT` seconds (a long rebuild) gets
a ``busy`` reply and the client searches itself. The same eligibility and session binding
apply as in the direct path: the server opens the session the client asks for and calls the
same search.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from memfs import index
from memfs.agents.live.probe import CachedProbeGit
from memfs.agents.live.view import search_view
from memfs.agents.verbs import Context
from memfs.agents.watch import event_paths, observe, stop_observing, watched_path
from memfs.errors import MemfsError, UsageError
from memfs.format.declare import CLI, from_wire
from memfs.index import incremental
from memfs.index import reader as index_reader
from memfs.index.catchup import REBUILD_WAIT
from memfs.index.state import ensure_cache
from memfs.ops.verbs.declare import Request
from memfs.ops.verbs.recall import Search
from memfs.store.repo import Store

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver


DEBOUNCE_SECONDS = 0.05
QUERY_WAIT = 10.0
TICK_SECONDS = 0.5
CLOCK_JUMP_SECONDS = 2.0
REQUEST_TIMEOUT = 5.0
#: the most parsed memory files the server keeps for its requests (the hits of the last few
#: hundred searches, ~7 MB): a search re-reads each hit's file and parses it only when its bytes
#: are new (:meth:`~memfs.store.upkeep.Repository.for_request`)
PARSED_KEPT = 2_000
GIT_NAMES = ("HEAD", "index", "packed-refs", "config", "info/exclude")
BARRIER = "live-barrier-"
#: files whose change may change what every path means to memfs or git (its ignore rules)
FULL_NAMES = (".memfsignore", ".memfs.toml", ".gitignore")
log = logging.getLogger("memfs.live")
Recall = tuple[Store, list[str], dt.datetime]
Answer = tuple[dict[str, Any], Recall | None]
T = TypeVar("T")
Q = TypeVar("Q", bound=Request[Any])


class AlreadyRunning(MemfsError):
    """Another live index already serves this memory root."""


class Busy(Exception):
    """An update holds the live index longer than a reader waits."""


@dataclass(frozen=True)
class Batch:
    """One round of index work, numbered: what tests and ``--status`` wait on."""

    number: int
    paths: frozenset[str]
    git: bool
    full: str | None
    barrier: int = 0


@dataclass
class _Pending:
    paths: dict[str, float] = field(default_factory=dict)
    git: float | None = None
    full: str | None = None
    barrier: tuple[int, float] | None = None


class LiveIndex:
    """The index of one memory root, kept current; :meth:`start`, :meth:`search`, :meth:`stop`."""

    def __init__(self, repo: Store, *, debounce: float = DEBOUNCE_SECONDS, polling: bool = False) -> None:
        git = CachedProbeGit(repo.git.workdir, repo.git.git_dir, shared=repo.git)
        self.repo = type(repo)(repo.root, git, repo.actor)
        self.repo.parsed_kept = PARSED_KEPT
        #: the store writes go through: its own git, whose kept probe is exact at every call
        #: (:mod:`memfs.store.gitcli.watch`), where :attr:`repo`'s lags the debounce; :attr:`repo`'s
        #: git takes its whole-tree probes from it, so the two share one ``git status``
        self.writer = repo
        #: held by a write of this server (:func:`memfs.agents.live.answers.remember`) and by each
        #: index update: an update never probes in the middle of the write's commit (the kept
        #: probe would be dropped for a whole-tree ``git status``), and searches do not wait
        self.writing = threading.Lock()
        self.git = git
        self.debounce = debounce
        self.polling = polling
        self.lock = threading.RLock()
        self._cond = threading.Condition()
        self._pending = _Pending()
        self._stopping = False
        self._threads: list[threading.Thread] = []
        self._observer: BaseObserver | None = None
        self.batches: list[Batch] = []
        self.processed = 0
        self.head = self._read_head()
        self.started = time.time()
        self.errors: list[str] = []
        self._overflow = _Overflow(self)
        self._barriers = 0
        self.query_wait = QUERY_WAIT
        self.answered = 0
        #: the open index every reader uses, whatever its thread (:meth:`read` lets one in at a time)
        self._handles: dict[str, index_reader.Handle] = {}
        self._recalls: list[Recall] = []
        self._kept = incremental.Kept()

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        """Observe first, then the full check, so nothing saved meanwhile is missed."""
        self._start_observer()
        with self.lock:
            self._full("start")
        for target, name in ((self._run, "memfs-live-index"), (self._tick, "memfs-live-clock")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        stop_observing(self._observer)
        self._observer = None
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=30)
        self._threads.clear()
        self.record_recalls()
        for name in WATCHDOG_LOGGERS:
            logging.getLogger(name).removeHandler(self._overflow)
        with self.lock, index_reader.shared(self._handles):
            index.close(self.repo)

    def _start_observer(self) -> None:
        for name in WATCHDOG_LOGGERS:
            logging.getLogger(name).addHandler(self._overflow)
        roots = [str(self.repo.root)]
        git_dir = str(self.repo.git.git_dir)
        if not git_dir.startswith(roots[0] + os.sep):
            roots.append(git_dir)
        self._observer = observe(roots, self.event, polling=self.polling, folders=True)

    # --- events ----------------------------------------------------------------------------
    def event(self, event: FileSystemEvent) -> None:
        """Classify one watchdog event: a memory path, a git change, or a reason for the full check."""
        git_dir, cache = str(self.repo.git.git_dir), str(self.repo.cache_dir)
        for absolute in event_paths(event):
            if absolute == git_dir or absolute.startswith(git_dir + os.sep):
                rel_git = absolute[len(git_dir) + 1:].removesuffix(".lock")
                if rel_git in GIT_NAMES or rel_git.startswith("refs/"):
                    self.touch_git()
                continue
            if absolute == cache or absolute.startswith(cache + os.sep):
                name = os.path.basename(absolute)
                if name.startswith(BARRIER) and name[len(BARRIER):].isdigit():
                    self._barrier_seen(int(name[len(BARRIER):]))
                continue
            if event.is_directory and event.event_type == "created":
                self._new_folder(absolute)
            elif event.is_directory:
                self.missed(f"folder {absolute} moved or deleted")
            elif os.path.basename(absolute) in FULL_NAMES:
                self.missed(f"{os.path.basename(absolute)} changed")
            elif (rel := watched_path(self.repo, absolute)) is not None:
                self.touch(rel)

    def _new_folder(self, absolute: str) -> None:
        """A new folder's files may be written before its watch exists: take them from a walk."""
        for folder, _dirs, files in os.walk(absolute):
            for name in files:
                if (rel := watched_path(self.repo, os.path.join(folder, name))) is not None:
                    self.touch(rel)

    def touch(self, rel: str) -> None:
        with self._cond:
            self._pending.paths[rel] = time.monotonic() + self.debounce
            self._cond.notify_all()

    def touch_git(self) -> None:
        with self._cond:
            self._pending.git = time.monotonic() + self.debounce
            self._cond.notify_all()

    def barrier(self) -> int:
        """Write a marker file and return its number: once a batch with that barrier number is
        processed (:meth:`wait_barrier`), every event delivered before the marker's is too (one
        observer delivers events in order, and the barrier is due last)."""
        with self._cond:
            self._barriers += 1
            number = self._barriers
        marker = self.repo.cache_dir / f"{BARRIER}{number}"
        ensure_cache(self.repo.cache_dir)
        marker.write_bytes(b"")
        marker.unlink()
        return number

    def _barrier_seen(self, number: int) -> None:
        with self._cond:
            self._pending.barrier = (max(number, (self._pending.barrier or (0, 0.0))[0]),
                                     time.monotonic() + self.debounce)
            self._cond.notify_all()

    def wait_barrier(self, number: int, timeout: float = 60.0) -> Batch | None:
        return self.wait_for(lambda b: b.barrier >= number, 0, timeout)

    def missed(self, why: str) -> None:
        """Events may have been lost: run the full check next."""
        with self._cond:
            self._pending.full = self._pending.full or why
            self._cond.notify_all()

    def _due(self) -> tuple[list[str], bool, str | None, int] | None:
        """Take what is due, or ``None`` to stop; waits under ``self._cond``."""
        while not self._stopping:
            now = time.monotonic()
            pending = self._pending
            due = [rel for rel, when in pending.paths.items() if when <= now]
            git = pending.git is not None and pending.git <= now
            barrier = pending.barrier is not None and pending.barrier[1] <= now
            if due or git or pending.full or barrier:
                for rel in due:
                    del pending.paths[rel]
                full, pending.full = pending.full, None
                if git:
                    pending.git = None
                number = 0
                if barrier and pending.barrier is not None:
                    number, pending.barrier = pending.barrier[0], None
                return due, git, full, number
            later = [*pending.paths.values(), *([pending.git] if pending.git is not None else []),
                     *([pending.barrier[1]] if pending.barrier is not None else [])]
            self._cond.wait(timeout=max(min(later, default=now + 3600) - now, 0.005))
        return None

    def _run(self) -> None:
        while True:
            with self._cond:
                taken = self._due()
            if taken is None:
                return
            rels, git, full, barrier = taken
            try:
                self._apply(rels, git, full, barrier)
            except Exception as exc:  # keep serving; the next event or tick retries
                self.errors = [*self.errors[-9:], f"{type(exc).__name__}: {exc}"]
                log.warning("memfs serve: index not updated (%s: %s); running the full check next",
                            type(exc).__name__, exc)
                self.missed("the last update failed")
                time.sleep(TICK_SECONDS)

    def _apply(self, rels: list[str], git: bool, full: str | None, barrier: int = 0) -> None:
        with self.writing, self.lock:
            head = self._read_head()
            if head != self.head and full is None:
                full = "HEAD names another branch or commit"
            self.head = head
            if full is not None:
                self._full(full)
            else:
                if git:
                    self.git.forget_probe()
                else:
                    self.git.refresh_probe(self.repo.pathspec, [self.repo.git_path(rel) for rel in rels])
                try:
                    incremental.apply_paths(self.repo, rels, kept=self._kept)
                except incremental.NeedsSync as why:
                    self._full(str(why))
            self._done(rels, git, full, barrier)

    def _full(self, why: str) -> None:
        log.info("memfs serve: full check (%s)", why)
        self.git.forget_probe()
        index_report = index.sync(self.repo, wait=REBUILD_WAIT)
        for text in index_report.notices:
            log.info("%s", text)
        self._publish()

    def _done(self, rels: list[str], git: bool, full: str | None, barrier: int = 0) -> None:
        with self._cond:
            self.processed += 1
            self.batches.append(Batch(self.processed, frozenset(rels), git, full, barrier))
            del self.batches[:-1000]
            self._cond.notify_all()

    def _read_head(self) -> str | None:
        """What ``.git/HEAD`` says (``ref: refs/heads/main``): a change is a checkout of another branch."""
        try:
            return (self.repo.git.git_dir / "HEAD").read_text()
        except OSError:
            return None

    def _tick(self) -> None:
        """Every :data:`TICK_SECONDS`: notice sleep/resume and a deleted ``.memfs/`` or record, and
        record the recalls answered since the last tick."""
        last = _clocks()
        while True:
            with self._cond:
                if self._cond.wait_for(lambda: self._stopping, timeout=TICK_SECONDS):
                    return
            now = _clocks()
            if _jumped(last, now):
                self.missed("the clock jumped (sleep and resume?)")
            last = now
            if not (self.repo.cache_dir / index.STATE_FILE).exists():
                self.missed(".memfs/ or its state file was deleted")
            elif self.record_missing():
                self._publish()
            self._flush_recalls()

    def _flush_recalls(self) -> None:
        try:
            self.record_recalls()
        except Exception as exc:  # statistics only: say so, keep serving
            log.warning("memfs serve: recall statistics not recorded (%s: %s)", type(exc).__name__, exc)

    # --- waiting (tests, --status) ---------------------------------------------------------
    def wait_for(self, test: Callable[[Batch], bool], after: int, timeout: float = 60.0) -> Batch | None:
        """The first batch numbered above ``after`` that passes ``test``, waiting for it up to
        ``timeout`` seconds (``None`` if none came: the caller's failure, not a timing)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for batch in self.batches:
                    if batch.number > after and test(batch):
                        return batch
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(timeout=left)

    # --- the record --------------------------------------------------------------------------
    def _publish(self) -> None:
        """Hook for the socket server to (re)write ``.memfs/live.json``."""

    def record_missing(self) -> bool:
        return False

    # --- answering ---------------------------------------------------------------------------
    def search(self, args: dict[str, Any]) -> dict[str, Any]:
        """The reply to a search request: what the direct path would print, as data; ``busy`` if
        an update (a rebuild) holds the index longer than ``query_wait`` seconds."""
        return self._answer(_search, args)

    def context(self, args: dict[str, Any]) -> dict[str, Any]:
        """The reply to a context request (``memfs context``), like :meth:`search`."""
        return self._answer(_context, args)

    def read(self, work: Callable[[Store], T]) -> T:
        """``work`` on this index's store (its ``git status`` kept, so a search or a context asks
        git nothing) under the lock, so it never sees half of an update. Raises :class:`Busy` if
        an update (a rebuild) holds the index longer than ``query_wait`` seconds: the caller then
        reads directly."""
        if not self.lock.acquire(timeout=self.query_wait):
            raise Busy("the live index is being rebuilt")
        try:
            if not (self.repo.cache_dir / index.STATE_FILE).exists():
                self._full(".memfs/ or its state file was deleted")
            with index_reader.shared(self._handles):
                found = work(self.repo)
            self.answered += 1
            return found
        finally:
            self.lock.release()

    def settle(self) -> None:
        """Wait until every change made so far (a write of this process included) is applied:
        after it, a :meth:`read` sees them."""
        self.wait_barrier(self.barrier())

    def _answer(self, work: Callable[[Store, dict[str, Any]], Answer], args: dict[str, Any]) -> dict[str, Any]:
        try:
            reply, recall = self.read(lambda store: work(store, args))
        except Busy as exc:
            return {"ok": False, "busy": True, "error": str(exc)}
        if recall is not None:
            with self._cond:
                self._recalls.append(recall)
        return {"ok": True, **reply}

    def note_recalls(self, view: Store, rels: list[str], when: dt.datetime) -> None:
        """Count ``rels`` as recalled at ``when`` with the next flush (:meth:`record_recalls`):
        for a reader in this process (``memfs mcp``) that answers first and counts after."""
        if rels:
            with self._cond:
                self._recalls.append((view, rels, when))

    def record_recalls(self) -> None:
        """Count the hits of the answers given so far as recalled (``memfs search`` does). The
        clock thread calls it every :data:`TICK_SECONDS` and :meth:`stop` once more, never a
        request's thread: statistics no answer depends on, so no request waits for them (one
        read-modify-write of ``.memfs/usage.json`` under its lock per tick, not per search)."""
        from memfs.store import usage

        with self._cond:
            recalls, self._recalls = self._recalls, []
        for view, rels, when in recalls:
            usage.record_recall(view, rels, when)

    def status(self) -> dict[str, Any]:
        with self._cond:
            pending = len(self._pending.paths) + (self._pending.git is not None) + bool(self._pending.full)
        return {
            "ok": True,
            "pid": os.getpid(),
            "root": str(self.repo.root),
            "processed": self.processed,
            "answered": self.answered,
            "pending": pending,
            "started": dt.datetime.fromtimestamp(self.started, dt.UTC).isoformat(),
            "errors": self.errors[-5:],
        }


def _clocks() -> tuple[float, float, float]:
    boot = time.clock_gettime(time.CLOCK_BOOTTIME) if hasattr(time, "CLOCK_BOOTTIME") else time.monotonic()
    return (time.monotonic(), time.time(), boot)


def _jumped(before: tuple[float, float, float], after: tuple[float, float, float]) -> bool:
    """Whether the wall or boot clock moved :data:`CLOCK_JUMP_SECONDS` more than the monotonic
    one (which stops during suspend on Linux)."""
    mono = after[0] - before[0]
    return abs((after[1] - before[1]) - mono) > CLOCK_JUMP_SECONDS or (after[2] - before[2]) - mono > CLOCK_JUMP_SECONDS


class _Overflow(logging.Handler):
    """watchdog reports a kernel queue overflow only in its log; this turns it into a full check."""

    def __init__(self, live: LiveIndex) -> None:
        super().__init__(logging.WARNING)
        self.live = live

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.live.missed("the inotify queue overflowed")


WATCHDOG_LOGGERS = ("watchdog.observers.inotify_c", "watchdog.observers.inotify")


# --- the search itself ---------------------------------------------------------------------------
def _search(repo: Store, args: dict[str, Any]) -> Answer:
    """Open the session the client asked for, search without the git scan; the data the CLI
    prints, and the recall to record (as ``memfs search`` does, on the clock thread here).
    ``args`` is the request as the CLI sends it (:func:`call_args`)."""
    from memfs.format.model import utcnow
    from memfs.ops.search import search

    op, actor, as_json = call_args(Search, args)
    store = repo.for_request(actor)
    view = store if op.scope is None else store.session(op.scope, inherit=bool(op.inherit))
    result = search(view, dataclasses.replace(op, catch_up=False, record=False))
    recall = (view, [hit.path for hit in result.hits], utcnow()) if result.hits else None
    return {"notices": store.notices, "view": search_view(result, as_json=as_json)}, recall


def _context(repo: Store, args: dict[str, Any]) -> Answer:
    """``memfs context`` as the CLI runs it: the session of a single ``--scope``, every scope's
    repository for several; the rendered text and what the CLI prints to stderr."""
    from memfs.agents import run

    op, actor, _ = call_args(Context, args)
    store = repo.for_request(actor)
    view = store.session(op.scope, inherit=bool(op.inherit)) if isinstance(op.scope, str) else store
    built = run.context(view, op)
    return {"notices": store.notices, "warnings": built.warnings, "uncommitted_notice": built.uncommitted_notice,
            "text": built.render()}, None


def call_args(cls: type[Q], args: Any) -> tuple[Q, str | None, bool]:
    """(the request, the actor, whether JSON is wanted) from a client's arguments: the request's
    CLI fields as :func:`~memfs.format.declare.to_wire` sent them under ``request``, or
    :class:`UsageError` naming what is wrong."""
    if not isinstance(args, dict) or set(args) != {"request", "actor", "json"}:
        raise UsageError("arguments must be exactly ['actor', 'json', 'request']")
    if not isinstance(args["actor"], str | None) or not isinstance(args["json"], bool):
        raise UsageError("argument 'actor' or 'json' has the wrong type")
    return from_wire(cls, args["request"], CLI), args["actor"], args["json"]
