"""``memfs watch``: commit direct edits to memory files (by editors, agents, scripts) as they happen.

Facts this is built on (measured with watchdog 7.1 on Linux; the README's dependency section):
an atomic save (temp file + rename, what most editors and libraries do) produces no modified
event, only a move onto the target; vim's default save briefly moves the file away and creates it
again; one ``git commit`` fires 100+ events inside ``.git/``. So the watcher

* subscribes only to created / closed-after-write / moved / deleted events, and treats both ends
  of a move as "this path may have changed";
* ignores ``.git/``, ``.memfs/``, dotfiles, editor temporaries (``4913``, ``*~``, ``*.swp``,
  ``.*.tmp``, memfs's own ``.*.memfs-tmp``) and anything that is not a memory file;
* debounces per path (default 250 ms), then re-reads the file from disk: the event type does not
  matter, only what the file is now (gone = deleted);
* skips a file whose content matches HEAD (memfs's own writes are committed already, so they
  cannot loop) or that a host registered with :meth:`Watcher.expect` before writing it;
* commits through the one commit path (:meth:`memfs.store.repo.Transaction.adopt`), so the
  same rules hold as for every other write: a valid change is committed (one commit per debounce
  batch, author = the actor, ``Memfs-Op: watch``); an invalid file, a deletion others depend on,
  or a change to a ``read_only: true`` file is **not** committed, is reported with the reason and
  is left on disk untouched (a person commits a read-only change with git);
* on start, reconciles with ``git status`` (changes made while nobody was watching) instead of
  trusting that no event was missed; :meth:`Watcher.stop` flushes pending changes first.
"""

from __future__ import annotations

import hashlib
import posixpath
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from memfs import index
from memfs.errors import InvalidConfig, InvalidMemory, MemfsError, PathError, Refused
from memfs.format.config import AdoptConfig
from memfs.format.interop.adopt import NO_SCOPE_FIX, adopt_note, is_plain
from memfs.format.interop.common import NO_SCOPE
from memfs.format.model import SYSTEM_DIR, Problem
from memfs.store import paths
from memfs.store.repo import Store, Transaction

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver

DEBOUNCE_SECONDS = 0.25
OP = "watch"
_TEMP_NAMES = ("4913",)
_TEMP_SUFFIXES = ("~", ".swp", ".swx", ".swo", ".tmp", ".memfs-tmp", ".part", ".crdownload")

Outcome = Literal["committed", "invalid", "unchanged", "failed"]
Action = Literal["update", "delete"]


@dataclass(frozen=True)
class WatchEvent:
    """What the watcher did about one path."""

    path: str
    outcome: Outcome
    action: Action = "update"
    commit: str | None = None
    problems: tuple[Problem, ...] = ()
    message: str = ""

    def __str__(self) -> str:
        if self.outcome == "committed":
            verb = "deleted" if self.action == "delete" else "committed"
            return f"{verb} {self.path} ({(self.commit or '')[:10]})"
        if self.outcome == "invalid":
            why = "; ".join(str(p) for p in self.problems[:3]) or self.message
            return f"NOT committed {self.path}: {why} (the file was left as it is; fix it and save again)"
        if self.outcome == "failed":
            return f"NOT committed {self.path}: {self.message}"
        return f"unchanged {self.path}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "outcome": self.outcome,
            "action": self.action,
            "commit": self.commit,
            "message": str(self),
            "problems": [p.to_json() for p in self.problems],
        }


def is_temporary(name: str) -> bool:
    """Editor and atomic-write temporaries, by file name."""
    return name in _TEMP_NAMES or name.startswith(".") or name.endswith(_TEMP_SUFFIXES)


def watched_path(repo: Store, absolute: str) -> str | None:
    """The memory-root-relative path of an event's file if it is a memory file, else ``None``."""
    try:
        rel = posixpath.normpath(str(absolute)[len(str(repo.root)) + 1 :].replace("\\", "/"))
    except (TypeError, ValueError):
        return None
    if not str(absolute).startswith(str(repo.root) + "/") or rel.startswith(".."):
        return None
    parts = rel.split("/")
    if parts[0] in (".git", paths.CACHE_DIR) or any(is_temporary(p) for p in parts):
        return None
    if not paths.is_memory_name(rel) or paths.is_ignored(repo.root, rel):
        return None
    return rel


def event_paths(event: FileSystemEvent) -> list[str]:
    """Both ends of a watchdog event (a move's source and destination), as text."""
    found = []
    for raw in (event.src_path, getattr(event, "dest_path", "")):
        if raw:
            found.append(raw if isinstance(raw, str) else raw.decode())
    return found


def stop_observing(observer: BaseObserver | None) -> None:
    """Stop an observer :func:`observe` started and wait (at most 10 s) for its thread."""
    if observer is not None:
        observer.stop()
        observer.join(timeout=10)


def observe(paths: Iterable[str], on_event: Callable[[FileSystemEvent], None], *, polling: bool = False,
            folders: bool = False) -> BaseObserver:
    """A started watchdog observer of ``paths`` (recursive) that calls ``on_event`` from its
    thread, for the events the facts above call for: created, closed-after-write, moved and
    deleted files (``folders`` adds created, moved and deleted folders). Shared by the watcher
    and the live index (:mod:`memfs.agents.live.server`)."""
    from watchdog.events import (
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileClosedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileMovedEvent,
        FileSystemEventHandler,
    )

    ObserverClass: Callable[[], BaseObserver]
    if polling:
        from watchdog.observers.polling import PollingObserver as ObserverClass
    else:
        from watchdog.observers import Observer as ObserverClass

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            on_event(event)

    # watchdog 7.1 may warn "Callback with id ... already exists" while directories are being
    # created in the tree; it is harmless, but under ``-W error`` it would kill the observer.
    warnings.filterwarnings("ignore", message="Callback with id", category=RuntimeWarning)
    kinds: list[type[FileSystemEvent]] = [FileCreatedEvent, FileClosedEvent, FileMovedEvent, FileDeletedEvent]
    if folders:
        kinds += [DirCreatedEvent, DirDeletedEvent, DirMovedEvent]
    observer = ObserverClass()
    for path in paths:
        observer.schedule(Handler(), path, recursive=True, event_filter=kinds)
    observer.start()
    return observer


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class Watcher:
    """Watch one memory repository; call :meth:`start`, later :meth:`stop`.

    ``report`` is called (from the watcher's worker thread) with every :class:`WatchEvent`.
    ``index`` keeps the search index caught up after each commit.
    """

    def __init__(
        self,
        repo: Store,
        *,
        actor: str | None = None,
        debounce: float = DEBOUNCE_SECONDS,
        report: Callable[[WatchEvent], None] | None = None,
        index: bool = True,
        polling: bool = False,
    ) -> None:
        self.repo = repo
        self.actor = actor or repo.actor
        self.debounce = debounce
        self.report = report or (lambda event: None)
        self.index = index
        self.polling = polling
        self._pending: dict[str, float] = {}
        self._expected: dict[str, str | None] = {}
        self._cond = threading.Condition()
        self._stopping = False
        self._worker: threading.Thread | None = None
        self._observer: BaseObserver | None = None
        self.events: list[WatchEvent] = []

    # --- lifecycle -------------------------------------------------------------------------
    def start(self) -> list[WatchEvent]:
        """Start observing, then reconcile with ``git status``; returns what reconciling did.

        Observing starts first so that nothing saved while reconciling is missed.
        """
        self._start_observer()
        self._worker = threading.Thread(target=self._run, name="memfs-watch", daemon=True)
        self._worker.start()
        done = self.reconcile()
        self._sync_index()
        return done

    def stop(self) -> None:
        """Stop observing, then commit whatever is still pending (no debounce wait)."""
        stop_observing(self._observer)
        self._observer = None
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._worker is not None:
            self._worker.join()
            self._worker = None
        with self._cond:
            rest = list(self._pending)
            self._pending.clear()
        if rest:
            self.process(rest)

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start_observer(self) -> None:
        def on_event(event: FileSystemEvent) -> None:
            if event.is_directory:
                return
            for raw in event_paths(event):
                rel = watched_path(self.repo, raw)
                if rel is not None:
                    self.touch(rel)

        self._observer = observe([str(self.repo.root)], on_event, polling=self.polling)

    # --- events ----------------------------------------------------------------------------
    def touch(self, rel: str) -> None:
        """Note that ``rel`` may have changed; it is processed ``debounce`` seconds after the last touch."""
        with self._cond:
            self._pending[rel] = time.monotonic() + self.debounce
            self._cond.notify_all()

    def expect(self, rel: str, content: bytes | None) -> None:
        """A host is about to write ``content`` to ``rel`` itself: do not commit that content."""
        with self._cond:
            self._expected[rel] = _digest(content)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopping:
                    now = time.monotonic()
                    due = [rel for rel, when in self._pending.items() if when <= now]
                    if due:
                        for rel in due:
                            del self._pending[rel]
                        break
                    wait = min(self._pending.values(), default=now + 3600) - now
                    self._cond.wait(timeout=max(wait, 0.01))
                if self._stopping:
                    return
            try:
                self.process(due)
            except Exception as exc:  # keep watching; say what happened
                for rel in due:
                    self._emit(WatchEvent(rel, "failed", message=f"{type(exc).__name__}: {exc}"))

    # --- processing ------------------------------------------------------------------------
    def reconcile(self) -> list[WatchEvent]:
        """Process every memory file that differs from HEAD right now (edits made while not
        watching), and every plain note ``[adopt]`` gives a scope to, committed or not: a vault
        whose notes were committed without frontmatter (by obsidian-git, say) is adopted when
        watching starts, not only as each note is next saved."""
        repo = self.repo
        rels = [rel for name in repo.git.status_paths(repo.pathspec) if (rel := repo.from_git_path(name))]
        rels += self._adoptable_plain_notes()
        return self.process(rel for rel in rels if watched_path(repo, str(repo.root / rel)) is not None)

    def _adoptable_plain_notes(self) -> list[str]:
        """The memory files without frontmatter that ``[adopt]`` gives a scope (or that lie under
        ``system/``); none when ``[adopt]`` sets nothing, so a repository without plain notes pays
        no read of its files."""
        try:
            adopt = self.repo.config().adopt
        except InvalidConfig:
            return []
        if adopt == AdoptConfig():
            return []
        return [rel for rel in self.repo.memory_paths() if self._adoptable(rel, adopt)
                and (data := self.repo.peek(rel)) is not None and is_plain(data)]

    @staticmethod
    def _adoptable(rel: str, adopt: AdoptConfig) -> bool:
        return rel.startswith(SYSTEM_DIR + "/") or adopt.rule_for(rel).scope is not None

    def process(self, rels: Iterable[str]) -> list[WatchEvent]:
        """Validate the current state of ``rels`` and commit the valid changes together, through
        the one commit path (:meth:`~memfs.store.repo.Transaction.adopt`): invalid files are
        reported and left on disk as they are."""
        results: list[WatchEvent] = []
        ready: list[str] = []
        with self.repo.transaction(OP, reason="direct edit picked up by memfs watch", actor=self.actor) as tx:
            for rel in sorted(set(rels), key=paths.sort_key):
                event = self._adopt(tx, rel)
                if event is None:
                    ready.append(rel)
                else:
                    results.append(event)
        commit = tx.result.commit
        actions = {c.path: c.action for c in tx.result.changes}
        for rel in ready:
            action: Action = "delete" if actions.get(rel) == "delete" else "update"
            results.append(WatchEvent(rel, "committed" if commit else "unchanged", action, commit))
        if ready:
            self._sync_index()
        for event in results:
            self._emit(event)
        return results

    def _adopt(self, tx: Transaction, rel: str) -> WatchEvent | None:
        """Stage ``rel`` as it is on disk; ``None`` if staged, else the event saying why not."""
        repo = self.repo
        with self._cond:
            expected = self._expected.pop(rel, "absent")
        try:
            data = repo.read_bytes(rel)
        except PathError as exc:
            problem = Problem(rel, None, exc.message.removeprefix(f"{rel}: "))
            return WatchEvent(rel, "invalid", problems=(problem,), message=str(exc))
        committed = repo.git.head_file(repo.git_path(rel))
        plain = data is not None and is_plain(data)
        if (data == committed and not plain) or (expected != "absent" and expected == _digest(data)):
            return WatchEvent(rel, "unchanged")
        try:
            if data is not None and plain:
                return self._adopt_plain(tx, rel, data, committed)
            tx.adopt(rel, at_head=(committed,))
        except InvalidMemory as exc:
            return WatchEvent(rel, "invalid", problems=tuple(exc.problems), message=str(exc))
        except Refused as exc:
            action: Action = "delete" if data is None else "update"
            problem = Problem(rel, None, str(exc), _restore_hint(repo, rel) if data is None else "")
            return WatchEvent(rel, "invalid", action, problems=(problem,))
        return None

    def _adopt_plain(self, tx: Transaction, rel: str, data: bytes, committed: bytes | None) -> WatchEvent | None:
        """Stage a plain note (no frontmatter) with the frontmatter ``[adopt]`` gives it; the event
        saying why not (the file is then left as it is) when no scope can be derived for it. A
        plain note in HEAD was no memory, so the guard judges the adopted one as a new memory."""
        try:
            config = self.repo.config().adopt
        except InvalidConfig as exc:
            problem = Problem(rel, None, f"a plain note that cannot be adopted: {exc}", "fix .memfs.toml")
            return WatchEvent(rel, "invalid", problems=(problem,), message=str(problem))
        adopted = adopt_note(config, rel, data, self.actor)
        if adopted.content is None and data == committed:
            return WatchEvent(rel, "unchanged")
        if adopted.content is None:
            why = NO_SCOPE_FIX if adopted.problem == NO_SCOPE else ""
            problem = Problem(rel, None, f"a plain note that cannot be adopted: it {adopted.problem}", why)
            return WatchEvent(rel, "invalid", problems=(problem,), message=str(problem))
        tx.admit(rel, adopted.content, None if committed is not None and is_plain(committed) else committed)
        return None

    def _emit(self, event: WatchEvent) -> None:
        self.events.append(event)
        self.report(event)

    def _sync_index(self) -> None:
        if not self.index:
            return
        try:
            index.sync(self.repo)
        except MemfsError as exc:
            self._emit(WatchEvent("", "failed", message=f"search index not updated: {exc}"))


def _restore_hint(repo: Store, rel: str) -> str:
    return f"restore it with 'git checkout -- {repo.git_path(rel)}' or remove those depends_on entries"


def watch_forever(watcher: Watcher, stop: threading.Event) -> None:
    """Run ``watcher`` until ``stop`` is set (the CLI sets it on SIGINT/SIGTERM), then flush."""
    watcher.start()
    try:
        while not stop.wait(0.5):
            pass
    finally:
        watcher.stop()
