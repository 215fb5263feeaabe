"""The catalog: what every memory file says about itself that writes look up (``.memfs/catalog.json``).

``remember`` needs the memories with a key (or in a scope), a new memory needs an id nobody
uses, a retraction needs the ``depends_on`` graph. Without this cache each is a ``git grep`` over
the whole tree, or a read of every file that mentions ``depends_on``. The cache holds, per memory
file, its stat (``mtime_ns``, size) when read and what it says: id, scope, key, version (as
:func:`memfs.format.parse.parse` types them; ``None`` for a file that does not parse, and the id
``None`` unless the frontmatter names one, as the ``id:`` lines ``git grep`` finds) and
``depends_on`` (as :func:`memfs.format.parse.read_depends_on` reads it, for a file that
mentions it; ``None`` when that key cannot be read).

On disk it is the whole file and a journal beside it (``catalog.journal``): a save appends one
line, the header (HEAD, the listed paths, the snapshot time) and the entries that changed since
the last save, instead of rewriting every entry (~0.2 s at 100k memories); the journal is folded
into a new whole file once it outgrows a quarter of it. A line names the whole file it follows
(a random ``token``), is appended only under ``catalog.lock`` by a process whose copy is the one
on disk (so the lines replay to exactly its state), and replay stops at the first line that does
not parse or follows another whole file: what it yields is then an older, consistent copy, which
validation brings up to date as it would any older copy.

It is trusted only after validation, every time it is used, against one ``git status`` (HEAD and
the changed, untracked and ignored paths): a file git calls clean at both the recorded and the
current HEAD, and that the two HEADs do not differ in, has the content the cache read. Everything
else (paths listed by either status, paths changed between the two HEADs, and files read within
:data:`~memfs.store.paths.RACY_NS` of their mtime) is stat-compared and re-read if its stat
moved. The cache is rebuilt from every file when it is missing, corrupt, from another format, written for another
``.memfsignore`` or size limits, or when either HEAD is unknown to git (a reset or purge). When
git cannot answer at all, :func:`current` returns ``None`` and callers fall back to ``git grep``.

The universe is what ``git grep --untracked`` searches: tracked files plus untracked files git
does not ignore, named like memories and not excluded by ``.memfsignore``; a file memfs does not
read (a symlink, a FIFO, one over the size limit) is left out, as the readers skip it. Deleting
``.memfs/`` is always safe: the next write rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from memfs.errors import GitError, InvalidMemory, LockTimeout
from memfs.format.limits import Limits
from memfs.format.parse import parse, read_depends_on
from memfs.store import atomic, epoch, gitcli, locking, paths


class Store(Protocol):
    """What the cache needs of :class:`memfs.store.repo.Store` (which uses this module)."""

    root: Path
    prefix: str
    git: gitcli.Git
    pathspec: str
    cache_dir: Path

    def limits(self) -> Limits: ...

    def from_git_path(self, name: str) -> str | None: ...

FORMAT = "catalog1"
CACHE_FILE = "catalog.json"
JOURNAL_FILE = "catalog.journal"
LOCK_FILE = "catalog.lock"
#: seconds a save waits for another process's; then it is skipped (the cache is rebuilt when lost)
LOCK_WAIT = 2.0
#: the journal is folded into a new whole file once it is larger than this share of it (or 1 MB)
COMPACT_SHARE = 0.25
COMPACT_MIN = 1 << 20
SAVE_EVERY = 16
#: a refresh that re-checks at least this many files is saved at once: the next process would
#: re-check (and re-parse) them all again from the older copy on disk
SAVE_AFTER_RECHECKS = 64


@dataclass
class Entry:
    mtime_ns: int
    size: int
    id: str | None
    scope: str | None
    key: str | None
    version: str | None
    deps: tuple[str, ...] | None
    #: A digest of the bytes this process read them from (``None`` when loaded from the file): a
    #: racy file read again with the same bytes keeps its entry instead of being parsed again.
    digest: bytes | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> list[Any]:
        return [self.mtime_ns, self.size, self.id, self.scope, self.key, self.version,
                None if self.deps is None else list(self.deps)]

    @classmethod
    def from_json(cls, raw: list[Any]) -> Entry:
        mtime, size, mid, scope, key, version, deps = raw
        if not isinstance(mtime, int) or not isinstance(size, int):
            raise TypeError("stat")
        for value in (mid, scope, key, version):
            if value is not None and not isinstance(value, str):
                raise TypeError("field")
        if deps is not None and not (isinstance(deps, list) and all(isinstance(d, str) for d in deps)):
            raise TypeError("deps")
        return cls(mtime, size, mid, scope, key, version, None if deps is None else tuple(deps))


@dataclass
class Catalog:
    """The validated cache: ``files`` maps each memory path to its :class:`Entry`."""

    config: str
    head: str | None
    listed: list[str]
    snapshot_ns: int
    files: dict[str, Entry] = field(default_factory=dict)
    #: Refreshes since the copy on disk (not saved).
    unsaved: int = 0
    #: Paths by id, scope and key, built on first lookup and kept up to date by :meth:`put`
    #: (shared, like ``files``, with the refreshed copies made from this one).
    index: Index | None = field(default=None, repr=False, compare=False)
    #: What is on disk: the whole file's token ("": none, the next save writes a whole file),
    #: the paths put since the last save (shared like ``files``), the whole file's and the journal's size.
    disk: Disk = field(default_factory=lambda: Disk(), repr=False, compare=False)

    def put(self, rel: str, entry: Entry | None) -> None:
        """Record ``rel``'s entry (``None``: no memory file there any more)."""
        old = self.files.pop(rel, None) if entry is None else self.files.get(rel)
        if entry is not None:
            self.files[rel] = entry
        self.disk.dirty.add(rel)
        if self.index is not None:
            self.index.move(rel, old, entry)

    def _lookup(self) -> Index:
        if self.index is None:
            self.index = Index()
            for rel, entry in self.files.items():
                self.index.move(rel, None, entry)
        return self.index

    def racy(self, before: int) -> list[str]:
        """Paths whose entry was read from a file with an mtime at or after ``before`` (the ones a
        stat comparison cannot vouch for), from the index's set of recent files: a full scan only
        the first time, or if ``before`` went back (a clock set back)."""
        index = self._lookup()
        if index.recent_since is None or before < index.recent_since:
            index.recent = {rel: f.mtime_ns for rel, f in self.files.items() if f.mtime_ns >= before}
        else:
            index.recent = {rel: mtime for rel, mtime in index.recent.items() if mtime >= before}
        index.recent_since = before
        return list(index.recent)

    def with_key(self, key: str) -> list[str]:
        return sorted(self._lookup().key.get(key, ()))

    def in_scope(self, scope: str) -> list[str]:
        return sorted(self._lookup().scope.get(scope, ()))

    def ids(self, only: Iterable[str] | None = None) -> dict[str, list[str]]:
        """{id: [paths]} of the ids the frontmatter names (all, or just ``only``): a prefilter with
        the contract of :meth:`memfs.store.repo.Store.ids_in_use` (callers confirm by parsing)."""
        by_id = self._lookup().id
        wanted = by_id if only is None else [mid for mid in set(only) if by_id.get(mid)]
        return {mid: sorted(by_id[mid]) for mid in wanted if by_id[mid]}

    def depends_on(self) -> dict[str, tuple[str, ...]]:
        """Each file's non-empty ``depends_on`` (files that mention it and whose key reads)."""
        return {rel: entry.deps for rel, entry in sorted(self.files.items()) if entry.deps}

    def unreadable_depends_on(self) -> list[str]:
        """Files that mention ``depends_on`` but whose key cannot be read (the graph reports them)."""
        return sorted(rel for rel, f in self.files.items() if f.deps is None)

    def to_json(self, token: str) -> dict[str, Any]:
        return {
            "format": FORMAT, "config": self.config, "token": token, "head": self.head, "listed": self.listed,
            "snapshot_ns": self.snapshot_ns, "files": {rel: f.to_json() for rel, f in self.files.items()},
        }

    def journal_line(self) -> bytes:
        """The header and the entries put since the last save, as one journal line."""
        files = {rel: (None if (f := self.files.get(rel)) is None else f.to_json()) for rel in sorted(self.disk.dirty)}
        line = {"base": self.disk.token, "head": self.head, "listed": self.listed, "snapshot_ns": self.snapshot_ns,
                "files": files}
        return json.dumps(line, separators=(",", ":")).encode() + b"\n"

    def replay(self, line: bytes) -> bool:
        """Apply one journal line; ``False`` (nothing applied) when it does not parse or follows
        another whole file."""
        try:
            raw = json.loads(line)
            head, listed = raw["head"], raw["listed"]
            if raw["base"] != self.disk.token or not (head is None or isinstance(head, str)):
                return False
            if not all(isinstance(p, str) for p in listed):
                return False
            files = {str(rel): None if v is None else Entry.from_json(v) for rel, v in raw["files"].items()}
            snapshot = int(raw["snapshot_ns"])
        except (ValueError, KeyError, TypeError, AttributeError):
            return False
        for rel, entry in files.items():
            if entry is None:
                self.files.pop(rel, None)
            else:
                self.files[rel] = entry
        self.head, self.listed, self.snapshot_ns = head, list(listed), snapshot
        return True


@dataclass
class Disk:
    """How a :class:`Catalog` stands to its files on disk (see the module docstring)."""

    token: str = ""
    dirty: set[str] = field(default_factory=set)
    base_bytes: int = 0
    journal_bytes: int = 0


class Index:
    """Paths by the id, scope and key their entries say (so a lookup need not scan every entry)."""

    def __init__(self) -> None:
        self.id: dict[str, set[str]] = {}
        self.scope: dict[str, set[str]] = {}
        self.key: dict[str, set[str]] = {}
        #: Paths whose entry's mtime is at or after ``recent_since`` (``None``: not kept yet).
        self.recent: dict[str, int] = {}
        self.recent_since: int | None = None

    def move(self, rel: str, old: Entry | None, new: Entry | None) -> None:
        if self.recent_since is not None:
            if new is not None and new.mtime_ns >= self.recent_since:
                self.recent[rel] = new.mtime_ns
            else:
                self.recent.pop(rel, None)
        for table, name in ((self.id, "id"), (self.scope, "scope"), (self.key, "key")):
            before = None if old is None else getattr(old, name)
            after = None if new is None else getattr(new, name)
            if before == after:
                continue
            if before is not None:
                table.get(before, set()).discard(rel)
            if after is not None:
                table.setdefault(after, set()).add(rel)


_lock = threading.Lock()
_memo: dict[str, tuple[tuple[int, ...], Catalog]] = {}


def current(repo: Store) -> Catalog | None:
    """The cache, validated against the working tree now (refreshed or rebuilt as needed);
    ``None`` when git cannot say what changed (callers then grep).

    Every change is saved, a rebuild as a whole file, a refresh as a line of the journal (so a
    loop of writes does not rewrite every entry, and the next process, one CLI command, does not
    re-check what this one did)."""
    snapshot = time.time_ns()
    read_in = epoch.read(repo.cache_dir)
    probe = repo.git.probe(repo.pathspec)
    if probe is None:
        return None
    config = _config(repo)
    path = repo.cache_dir / CACHE_FILE
    with _lock:
        ident, cached = _load(path)
        catalog = None if cached is None or cached.config != config else _refreshed(repo, cached, probe, snapshot)
        if catalog is not None and catalog is cached:
            return catalog
        if catalog is None:
            catalog = _rebuilt(repo, config, probe, snapshot)
        _save(path, catalog, ident, read_in)
        return catalog


def note(repo: Store, parent: str, commit: str, names: Iterable[str]) -> None:
    """Move the validated cache held in memory from ``parent`` to ``commit``, its only child,
    which changed no paths but ``names`` (work-tree paths): they join the paths the next
    validation re-checks, as the diff between the two HEADs would have named them, so that
    validation needs no ``git diff``. Nothing happens unless the cache in memory is at ``parent``."""
    path = str(repo.cache_dir / CACHE_FILE)
    with _lock:
        found = _memo.get(path)
        if found is None or found[1].head != parent:
            return
        catalog = found[1]
        catalog.head = commit
        catalog.listed = sorted(set(catalog.listed).union(names))


def drop(repo: Store) -> None:
    """Forget the cache (the next use rebuilds it)."""
    with _lock:
        _memo.pop(str(repo.cache_dir / CACHE_FILE), None)
        atomic.remove(repo.cache_dir / CACHE_FILE)
        atomic.remove(repo.cache_dir / JOURNAL_FILE)


def _config(repo: Store) -> str:
    """What the catalog depends on besides the files: ``.memfsignore``, the size limits, the root."""
    try:
        ignore = (repo.root / paths.IGNORE_FILE).read_bytes()
    except OSError:
        ignore = b""
    text = f"{FORMAT}\0{repo.prefix}\0{repo.limits()!r}\0".encode() + ignore
    return hashlib.blake2b(text, digest_size=12).hexdigest()


def _identity(path: Path) -> tuple[int, ...]:
    """The whole file's identity and the journal's size (appended to, never rewritten in place)."""
    try:
        journal = os.stat(path.with_name(JOURNAL_FILE)).st_size
    except FileNotFoundError:
        journal = 0
    return (*paths.file_identity(path), journal)


def _load(path: Path) -> tuple[tuple[int, ...] | None, Catalog | None]:
    """(identity of the files, the catalog in them): the parsed copy kept in memory while the files
    are the same, else the whole file parsed and the journal replayed; ``(None, None)`` when it is
    missing, ``(identity, None)`` when it is unusable."""
    try:
        ident = _identity(path)
    except OSError:
        return None, None
    found = _memo.get(str(path))
    if found is not None and found[0] == ident:
        return ident, found[1]
    try:
        data = path.read_bytes()
        raw = json.loads(data)
        if raw.get("format") != FORMAT:
            return ident, None
        head, listed = raw["head"], raw["listed"]
        if not (head is None or isinstance(head, str)) or not all(isinstance(p, str) for p in listed):
            return ident, None
        files = {str(rel): Entry.from_json(values) for rel, values in raw["files"].items()}
        catalog = Catalog(str(raw["config"]), head, list(listed), int(raw["snapshot_ns"]), files)
        catalog.disk = Disk(str(raw.get("token") or ""), set(), len(data))
        journal = _journal(path, ident[-1])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ident, None
    for line in journal.splitlines():
        if not catalog.replay(line):
            catalog.disk.token = ""  # the next save writes a whole file
            break
    catalog.disk.journal_bytes = len(journal)
    _memo[str(path)] = (ident, catalog)
    return ident, catalog


def _journal(path: Path, size: int) -> bytes:
    if not size:
        return b""
    with open(path.with_name(JOURNAL_FILE), "rb") as handle:
        return handle.read(size)


def _save(path: Path, catalog: Catalog, loaded: tuple[int, ...] | None, read_in: str) -> None:
    """Append the changes to the journal when this copy is the one on disk (``loaded``, unchanged
    since) and the journal is small enough; else write a whole file (a new token) and drop the
    journal. Skipped when another process holds the lock too long (the cache is then older on
    disk, which validation handles), and when a purge ran since the files were read (the epoch
    ``read_in`` is no longer current, :mod:`memfs.store.epoch`): nothing read before it is kept."""
    disk = catalog.disk
    try:
        paths.ensure_cache(path.parent)
        with locking.exclusive(path.parent / LOCK_FILE, timeout=LOCK_WAIT):
            if epoch.read(path.parent) != read_in:
                _memo.pop(str(path), None)
                return
            limit = max(COMPACT_MIN, COMPACT_SHARE * disk.base_bytes)
            if disk.token and loaded is not None and _identity(path) == loaded and disk.journal_bytes < limit:
                line = catalog.journal_line()
                with open(path.with_name(JOURNAL_FILE), "ab") as handle:
                    handle.write(line)
                disk.journal_bytes += len(line)
            else:
                token = secrets.token_hex(8)
                data = json.dumps(catalog.to_json(token), separators=(",", ":")).encode()
                atomic.replace_cache(path, data)
                path.with_name(JOURNAL_FILE).unlink(missing_ok=True)
                disk.token, disk.base_bytes, disk.journal_bytes = token, len(data), 0
            ident = _identity(path)
    except (OSError, LockTimeout):
        _memo.pop(str(path), None)
        return
    catalog.unsaved = 0
    disk.dirty.clear()
    _memo[str(path)] = (ident, catalog)


def _memory_rels(repo: Store, names: Iterable[str]) -> set[str]:
    """Root-relative memory paths among work-tree paths (memory-named, not in ``.memfsignore``)."""
    spec = paths.ignore_spec(repo.root)
    found = set()
    for name in names:
        rel = repo.from_git_path(name)
        if rel and paths.is_memory_name(rel) and not (spec is not None and spec.match_file(rel)):
            found.add(rel)
    return found


def _refreshed(repo: Store, catalog: Catalog, probe: Any, snapshot: int) -> Catalog | None:
    """``catalog`` brought up to date (the same object if nothing moved), or ``None`` to rebuild."""
    listed = sorted(probe.listed)
    recheck = set(catalog.listed) | set(listed)
    if probe.head != catalog.head:
        if catalog.head is None or probe.head is None:
            return None
        try:
            recheck.update(repo.git.diff_names(catalog.head, probe.head, repo.pathspec))
        except GitError:
            return None
    rels = _memory_rels(repo, recheck)
    racy_before = catalog.snapshot_ns - paths.RACY_NS
    rels.update(catalog.racy(racy_before))
    ignored = _ignored(repo, probe)
    changed = 0
    for rel in sorted(rels):
        entry = None if ignored(rel) else _read(repo, rel, catalog.files.get(rel), racy_before)
        if entry is None:
            changed += rel in catalog.files
            catalog.put(rel, None)
        elif entry is not catalog.files.get(rel):
            catalog.put(rel, entry)
            changed += 1
    if not changed and probe.head == catalog.head and listed == catalog.listed:
        return catalog
    unsaved = SAVE_EVERY if len(rels) >= SAVE_AFTER_RECHECKS else catalog.unsaved + 1
    return Catalog(catalog.config, probe.head, listed, snapshot, catalog.files, unsaved, catalog.index, catalog.disk)


def _ignored(repo: Store, probe: Any) -> Callable[[str], bool]:
    """A test for root-relative paths git ignores (so does not grep): listed as ignored, or inside
    an ignored folder."""
    names = [rel for name in probe.ignored if (rel := repo.from_git_path(name)) is not None]
    files = {name for name in names if not name.endswith("/")}
    folders = tuple(name for name in names if name.endswith("/"))
    if "" in names:
        folders = ("",)

    def test(rel: str) -> bool:
        return rel in files or rel.startswith(folders)

    return test


def _rebuilt(repo: Store, config: str, probe: Any, snapshot: int) -> Catalog:
    """Read every memory file git would search (tracked, or untracked and not ignored)."""
    catalog = Catalog(config, probe.head, sorted(probe.listed), snapshot)
    for rel in sorted(_memory_rels(repo, repo.git.listed_files())):
        entry = _read(repo, rel, None, 0)
        if entry is not None:
            catalog.files[rel] = entry
    return catalog


def _read(repo: Store, rel: str, old: Entry | None, racy_before: int) -> Entry | None:
    """The entry of ``rel`` now: ``old`` if its stat is unchanged and was not racy, else read
    again; ``None`` when there is no file memfs reads there."""
    try:
        st = os.lstat(repo.root / rel)
    except OSError:
        return None
    if old is not None and old.mtime_ns == st.st_mtime_ns and old.size == st.st_size and old.mtime_ns < racy_before:
        return old
    data = paths.read_file(repo.root, rel)
    if not isinstance(data, bytes):
        return None
    if old is not None and old.digest is not None and old.digest == _digest(data):
        same = old.mtime_ns == st.st_mtime_ns and old.size == st.st_size
        return old if same else replace(old, mtime_ns=st.st_mtime_ns, size=st.st_size)
    return entry_of(rel, data, st.st_mtime_ns, st.st_size, repo)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def entry_of(rel: str, data: bytes, mtime_ns: int, size: int, repo: Store) -> Entry:
    """What one file's bytes say (pure but for the repository's size limits)."""
    try:
        memory = parse(rel, data, repo.limits())
        mid = memory.id if "id" in memory.meta else None
        scope, key, version = memory.scope, memory.key, memory.version
    except InvalidMemory:
        mid = scope = key = version = None
    deps: tuple[str, ...] | None = ()
    if b"depends_on" in data:
        try:
            deps = read_depends_on(rel, data)
        except InvalidMemory:
            deps = None
    return Entry(mtime_ns, size, mid, scope, key, version, deps, _digest(data))
