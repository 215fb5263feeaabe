"""Repository upkeep: where a memory root is, how its paths map to git's, its configuration and
caches, the write lock, and finishing what a crashed memfs left (:meth:`Repository.open`).

:class:`Repository` is the base of :class:`memfs.store.repo.Store`; reading and validation
(:mod:`memfs.store.reading`) and the commit protocol (:mod:`memfs.store.transaction`) build on
what it holds: the root, the :class:`~memfs.store.gitcli.Git` of its work tree and the actor.
"""

from __future__ import annotations

import copy
import getpass
import os
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from memfs.errors import InvalidMemory, MemfsError, PathError, WriteRefused
from memfs.format.config import CONFIG_FILE, Config, parse_config
from memfs.format.limits import DEFAULT as DEFAULT_LIMITS
from memfs.format.limits import Limits
from memfs.format.model import Memory
from memfs.policy import guard
from memfs.policy.recall import ScopeRule
from memfs.store import atomic, catalog, crashpoint, gitcli, journal, locking, paths, progress, refusal_log
from memfs.store.catalog import Catalog

R = TypeVar("R", bound="Repository")

#: the most files at HEAD's commit one repository object keeps (:meth:`Reader._commit_memo`)
COMMIT_MEMO_ENTRIES = 20_000


@dataclass
class AtCommit:
    """What was read at one commit: its trees' file lists, ``git grep`` answers, files and logs."""

    commit: str
    trees: dict[str, list[str]] = field(default_factory=dict)
    greps: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    blobs: dict[str, bytes | None] = field(default_factory=dict)
    logs: dict[tuple[str, str | None, int | None, bool], list[gitcli.Commit]] = field(default_factory=dict)


def default_actor() -> str:
    """``$MEMFS_ACTOR``, else ``user:<login name>``."""
    actor = os.environ.get("MEMFS_ACTOR", "").strip()
    if actor:
        return actor
    try:
        return f"user:{getpass.getuser()}"
    except (KeyError, OSError):
        return "user:unknown"


class Repository:
    """A memory root inside a git work tree. Paths in the API are relative to the memory root."""

    #: Whether lookups by id, key, scope and ``depends_on`` use the validated cache in ``.memfs/``
    #: (:mod:`memfs.store.catalog`) instead of ``git grep``; off only to compare the two.
    use_catalog = True
    #: The most files :attr:`parsed_files` keeps (emptied when full); a long-running reader that
    #: shares it across requests (:meth:`for_request`) sets fewer, to bound its memory (~3.5 KB a file).
    parsed_kept = COMMIT_MEMO_ENTRIES

    def __init__(self, root: Path, git: gitcli.Git, actor: str | None = None) -> None:
        self.root = root
        self.git = git
        self.actor = actor or default_actor()
        rel = os.path.relpath(root, git.workdir)
        self.prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        #: The git pathspec of the whole memory root.
        self.pathspec = self.prefix.rstrip("/") or "."
        #: The caches' folder (search index, catalog, usage): rebuilt from the files at will.
        self.cache_dir = root / paths.CACHE_DIR
        #: The write lock (:mod:`memfs.store.locking`) and the journal of the write in progress.
        self.lock_path = git.git_dir / "memfs.lock"
        self.journal_path = git.git_dir / "memfs-journal.json"
        self.notices: list[str] = []
        self.binding: ScopeRule | None = None
        self.grants = guard.Grants()
        self.progress: progress.Progress = progress.silent
        #: ``.memfs.toml`` parsed, with the stat it was parsed at (mtime, size, inode, ctime): one
        #: slot shared with the sessions and request views made from this object (:meth:`for_request`)
        self._config: list[tuple[tuple[int, ...] | None, Config]] = []
        #: Commits (or attempts, rolled back) this object's transactions made: what invalidates
        #: a transaction's validated write-path cache (:meth:`Transaction.catalog`).
        self.commits_made = 0
        #: What the running transaction's path confinement already checked (:class:`paths.Checked`).
        self.checked: paths.Checked | None = None
        #: What was read at HEAD's commit (by commit id, at most one): shared with the sessions
        #: made from this object, which copy the reference (:meth:`Reader._commit_memo`).
        self.at_head: dict[str, AtCommit] = {}
        #: Files parsed, by (path, bytes, limits): the memory, or why it does not parse; shared
        #: with the sessions like :attr:`at_head` (:meth:`Reader.parsed`).
        self.parsed_files: dict[tuple[str, bytes, Limits], Memory | InvalidMemory] = {}
        self._recover()

    # --- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls: type[R], start: str | os.PathLike[str] = ".", actor: str | None = None) -> R:
        """The memory repository containing ``start``: the nearest folder with a ``.memfs.toml``
        up to the git top level, else the top level itself."""
        start_path = Path(os.path.abspath(start))
        top, git_dir = gitcli.discover(start_path)
        root = top
        here = Path(os.path.realpath(start_path))
        top_real = Path(os.path.realpath(top))
        for candidate in (here, *here.parents):
            if (candidate / CONFIG_FILE).is_file():
                root = top / os.path.relpath(candidate, top_real)
                break
            if candidate == top_real:
                break
        return cls(Path(os.path.normpath(root)), gitcli.Git(top, git_dir), actor)

    def for_request(self: R, actor: str | None) -> R:
        """This repository as a new object opened on it is (acting as ``actor``, else
        :func:`default_actor`; unbound; no notices yet; a write a crash left unfinished finished),
        for one request to a long-running process, sharing what is kept by content: files parsed
        (by their bytes), what was read at HEAD's commit (by commit id), and ``.memfs.toml`` (by its
        stat). A new object per request parsed every hit's file and the settings again: a search
        asked again of the live server cost 3.2 ms CPU at 3,000 memories, 1.3 ms now."""
        fresh = copy.copy(self)
        fresh.actor = actor or default_actor()
        fresh.notices = []
        fresh.binding = None
        fresh.grants = guard.Grants()
        fresh.progress = progress.silent
        fresh.commits_made = 0
        fresh.checked = None
        fresh._recover()
        return fresh

    # --- paths ---------------------------------------------------------------------------
    def refuse_secrets(self, message: str, *, verb: str, actor: str | None = None) -> None:
        """Refuse (:class:`WriteRefused`) a commit message or reason carrying a secret, before a
        verb that commits outside a :class:`Transaction` (revert, purge); the refusal is counted
        in the refusal log like the Transaction's own."""
        try:
            gitcli.refuse_secrets(message)
        except WriteRefused as refused:
            refusal_log.record(self.cache_dir, [refused.refusals], op=verb, actor=actor or self.actor,
                               head=self.git.head())
            raise

    def locked(self) -> AbstractContextManager[None]:
        """The repository's write lock, for operations that change git state without a
        transaction (revert, sync, purge); re-entrant within a thread."""
        return locking.exclusive(self.lock_path, fair=True)

    def rel(self, path: str | os.PathLike[str]) -> str:
        """The memory-root-relative form of ``path``; :class:`PathError` if it is not a memory path."""
        rel = paths.confine(self.root, path, git_dir=self.git.git_dir, checked=self.checked)
        if paths.is_ignored(self.root, rel):
            raise PathError(f"{rel}: is excluded by {paths.IGNORE_FILE}, so it is not a memory")
        return rel

    def abspath(self, rel: str) -> Path:
        return self.root / rel

    def git_path(self, rel: str) -> str:
        return self.prefix + rel

    def from_git_path(self, name: str) -> str | None:
        """The root-relative form of a work-tree path, or ``None`` if it lies outside the root."""
        return name[len(self.prefix) :] if name.startswith(self.prefix) else None

    def exists(self, rel: str) -> bool:
        """Whether a plain file is at ``rel`` (a symlink, even to a file, is not one)."""
        return paths.is_plain_file(self.root, rel)

    # --- configuration -------------------------------------------------------------------
    def config(self) -> Config:
        """``.memfs.toml`` parsed (defaults without one), re-read when the file changes."""
        path = self.root / CONFIG_FILE
        try:
            st = path.stat()
            key: tuple[int, ...] | None = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        except FileNotFoundError:
            key = None
        kept = self._config[0] if self._config else None
        if kept is not None and kept[0] == key:
            return kept[1]
        config = Config() if key is None else parse_config(self._config_text(path), str(path))
        self._config[:] = [(key, config)]
        return config

    def limits(self) -> Limits:
        """``[limits]`` of ``.memfs.toml``; the defaults when the file cannot be read (that is
        reported by whatever reads the settings it is for)."""
        try:
            return self.config().limits
        except MemfsError:
            return DEFAULT_LIMITS

    def _config_text(self, path: Path) -> str:
        """The text of ``.memfs.toml``, read like a memory file (a plain file, no symlink, capped)."""
        from memfs.errors import InvalidConfig

        try:
            data = paths.read_file(self.root, CONFIG_FILE)
            if isinstance(data, paths.Unreadable):
                raise InvalidConfig(f"{path}: {data}")
            return (data or b"").decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidConfig(f"{path}: cannot be read ({exc}); fix or remove it") from None

    # --- caches ------------------------------------------------------------------------
    def catalog(self) -> Catalog | None:
        """What each memory file says about itself (id, scope, key, version, ``depends_on``), from
        the cache in ``.memfs/`` validated against the working tree now; ``None`` when the cache is
        off or git cannot say what changed (callers then ``git grep``)."""
        return catalog.current(self) if self.use_catalog else None

    # --- crash recovery ------------------------------------------------------------------
    def _recover(self) -> None:
        """Finish what a killed memfs left (see :mod:`memfs.store.journal`): the temporaries its
        journal lists, a stale ``index.lock``, the journal's own temporaries and the write itself;
        and a ``.memfs`` cache folder replaced by a plain file. Safe to be killed at any point:
        every step is redone by the next command until the journal is gone."""
        self._repair_cache()
        debris = self._journal_debris()
        if not (debris or self.journal_path.exists()) or not locking.is_free(self.lock_path):
            return
        with self.locked():
            for tmp in debris:
                atomic.remove(tmp)
            pending = journal.Journal.load(self.journal_path)
            if pending is None:
                return
            removed = journal.remove_temporaries(pending, self.git.workdir)
            if removed:
                self.notices.append(f"memfs: removed {removed} temporary file(s) a crashed write left behind")
            self._remove_stale_index_lock()
            ready, skipped = journal.replay(pending, self.git.workdir)
            message = pending.message.rstrip("\n") + "\nMemfs-Recovered: yes\n"
            commit = None
            if ready and pending.message:
                identity = gitcli.Identity.for_actor(pending.actor or self.actor)
                try:
                    commit = self.git.commit_paths(ready, message, identity)
                except MemfsError as exc:
                    self.notices.append(
                        f"memfs: could not finish a write interrupted by a crash ({exc}); the files are in "
                        f"place but uncommitted. Fix the cause and run memfs again, or delete {self.journal_path}"
                    )
                    return
            crashpoint.reached("journal-removing")
            atomic.remove(self.journal_path)
        note = f"memfs: finished a write interrupted by a crash ({len(ready)} file(s)"
        note += f", commit {commit[:10]})" if commit else ", nothing left to commit)"
        if skipped:
            note += "; left alone because they were edited since: " + ", ".join(skipped)
        self.notices.append(note)

    def _journal_debris(self) -> list[Path]:
        """The journal's temporaries (``.memfs-journal.json.*.memfs-tmp``) in the git directory:
        the names of one listing matched as strings (a ``Path.glob`` cost more than the rest of
        a live search's recovery check)."""
        head, tail = f".{self.journal_path.name}.", atomic.TEMP_SUFFIX
        try:
            names = os.listdir(self.git.git_dir)
        except FileNotFoundError:
            return []
        return [self.git.git_dir / name for name in sorted(names)
                if name.startswith(head) and name.endswith(tail) and len(name) >= len(head) + len(tail)]

    def _remove_stale_index_lock(self) -> None:
        """Remove ``index.lock`` left by a killed memfs commit. Called with the write lock held and
        a journal present: the memfs process that was committing is dead, and so is every git it
        started (they inherit the write lock, see :mod:`memfs.store.locking`). A lock some other
        live process still has open (a git run by hand) is left alone."""
        lock = self.git.git_dir / "index.lock"
        if not lock.is_file() or lock.is_symlink() or _held_open(lock):
            return
        atomic.remove(lock)
        self.notices.append(f"memfs: removed {lock}, left by a memfs commit that was killed")

    def _repair_cache(self) -> None:
        """``.memfs`` must be the cache folder; a plain file there (a cache is never committed and
        never edited by hand) is removed so the cache and search index are rebuilt."""
        cache = self.cache_dir
        if cache.is_symlink() or not cache.is_file():
            return
        try:
            cache.unlink()
        except OSError as exc:
            self.notices.append(f"memfs: {cache} is a file, not the cache folder, and cannot be removed ({exc})")
            return
        self.notices.append(f"memfs: {cache} was a file, not the cache folder; removed it, the cache is rebuilt")



def _held_open(path: Path) -> bool:
    """Whether some live process has ``path`` open (Linux ``/proc``; elsewhere, ``False``)."""
    proc = Path("/proc")
    if not (proc / "self/fd").is_dir():
        return False
    target = os.path.realpath(path)
    for pid in proc.iterdir():
        if not pid.name.isdigit():
            continue
        try:
            fds = list((pid / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    return True
            except OSError:
                continue
    return False
