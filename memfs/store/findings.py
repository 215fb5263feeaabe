"""The findings cache: what ``memfs validate`` found in each file, by its content (``.memfs/findings/``).

A whole-repository validate parses every file and runs the secret scan on it; at 30k memories
that is most of half a minute of CPU. A file's own findings (its field problems, its secrets, why
it does not parse) and what the cross-file checks need of it (its :class:`Summary`) depend only on
its path, its exact bytes and the rules. So they are kept per path with the file's git blob id
(:func:`blob_id`, computed from the bytes read now, as ``git hash-object`` would: a file edited
in the working tree is keyed by what it holds, never by what was committed), and an entry is used
only when the id of the bytes read now is the recorded one. The cross-file result (a function of
every summary: :mod:`memfs.store.crossfile`) is kept by path with a digest of every (path, blob
id) it was computed from; each entry keeps its body's :class:`~memfs.policy.conflict_pairs.Reading`
and, in a small index beside its shard, its few cross-file fields (:func:`xref`), so that after a
change only what it can have moved is computed again.

A file is not even read when its ``lstat`` (size, mtime, ctime, inode, device) is the one recorded
with its entry, as git's index does. Racy-stat safe: a stat is recorded only when the file's mtime
and ctime are before the moment the run began, taken on the file system's own clock (a stamp file's
mtime); a file changed after that moment gets a later mtime and ctime, so it cannot match. A file
written in the same clock tick as the run began is read and hashed again next time.

The whole cache is tied to a :func:`fingerprint` of everything else a finding can depend on: this
format, the memory root, the size limits, ``.memfs.toml`` (the ``[adopt]`` rules name the fix of a
plain note), the versions of detect-secrets, PyYAML, libyaml and Python, and the source of the
rules themselves (every module of :mod:`memfs.format` and :mod:`memfs.policy`, the secret
scanner's patterns included, the modules that compose them, and :mod:`memfs.store.paths`, whose
spelling rules judge a ``depends_on`` target). A cache that is missing, corrupt, from another
format or fingerprint is ignored and rebuilt; an entry that does not decode is a miss. The cache
can only save work: what it yields is what computing the findings again would yield.

Kept in :data:`SHARDS` files by a hash of the path, each with its stat index and its cross-file
index, each replaced whole (:func:`memfs.store.atomic.replace_cache`, under ``findings.lock`` like
the catalog's saves) only when one of its entries changed, then the kept result (``pairs.json``):
one edited memory rewrites 1/256 of the entries, not all. Deleting ``.memfs/`` is always safe.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import os
import stat
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import memfs.format
import memfs.policy
from memfs.errors import LockTimeout
from memfs.format.config import CONFIG_FILE
from memfs.format.limits import Limits
from memfs.format.model import Memory, Problem
from memfs.policy import secrets_library
from memfs.policy.conflict_delta import Member
from memfs.policy.conflict_pairs import Reading, reading
from memfs.policy.conflicts import MAX_CHARS, eligible
from memfs.store import atomic, epoch, locking, paths

FORMAT = "findings4"
#: the folder under ``.memfs/`` holding the shards, their indexes, the kept result and the stamp
CACHE_DIR = "findings"
PAIRS_FILE = "pairs.json"
STAMP_FILE = "stamp"
#: the single file of the first format, removed when the shards are written
LEGACY_FILE = "findings.json"
LOCK_FILE = "findings.lock"
SHARDS = 256
#: seconds a save waits for another process's; then it is skipped (the next run recomputes)
LOCK_WAIT = 2.0
_SEVERITIES = ("error", "warning")


class Store(Protocol):
    """What the cache needs of :class:`memfs.store.repo.Store`."""

    root: Path
    prefix: str
    cache_dir: Path

    def limits(self) -> Limits: ...


def blob_id(data: bytes) -> str:
    """The git blob id (SHA-1) of ``data``, as ``git hash-object`` computes it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _sources() -> Iterable[Path]:
    for package in (memfs.format, memfs.policy):
        yield from sorted(Path(package.__path__[0]).rglob("*.py"))
    yield Path(__file__)
    yield Path(__file__).with_name("reading.py")
    yield Path(__file__).with_name("validating.py")
    yield Path(__file__).with_name("crossfile.py")
    yield Path(__file__).with_name("paths.py")


def fingerprint(repo: Store) -> str:
    """A digest of everything besides a file's path and bytes that its findings depend on: the
    rules' sources and settings, and what runs them (the secret scanner's library, the YAML
    reader and the libyaml it loads with, the Python whose ``re`` and Unicode tables they use)."""
    import sys

    import yaml

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}\0{repo.prefix}\0{repo.limits()!r}\0".encode())
    digest.update(f"{secrets_library.installed_version()}\0{yaml.__version__}\0".encode())
    libyaml = getattr(yaml, "_yaml", None)
    digest.update(f"{sys.version}\0{libyaml.get_version_string() if libyaml is not None else 'no libyaml'}\0".encode())
    try:
        digest.update((repo.root / CONFIG_FILE).read_bytes())
    except OSError:
        digest.update(b"\0no config")
    digest.update(_rules_digest())
    return digest.hexdigest()


@functools.cache
def _rules_digest() -> bytes:
    """A digest of the rules' sources (:func:`_sources`), read once per process: the rules this
    process runs are the ones it imported, so a source edited on disk after that does not change
    what its findings were computed by (and ~60 files read and hashed per validate were most of
    the cost of a cached one)."""
    digest = hashlib.blake2b(digest_size=16)
    for source in _sources():
        digest.update(source.read_bytes())
    return digest.digest()


@dataclass(frozen=True)
class Summary:
    """What the cross-file checks (:func:`memfs.format.validate.check_repo`, probable conflicts)
    read of a parsed memory. The body is kept only up to the conflict check's
    :data:`~memfs.policy.conflicts.MAX_CHARS`: a longer one is never compared, exactly as an empty
    one is not."""

    id: str | None
    type: str | None
    scope: str | None
    key: str | None
    version: str | None
    status: str | None
    revision: int
    created: dt.datetime | None
    updated: dt.datetime | None
    depends_on: tuple[str, ...]
    body: str
    distinct_from: tuple[str, ...] = ()

    @classmethod
    def of(cls, memory: Memory) -> Summary:
        return cls(memory.id, memory.type, memory.scope, memory.key, memory.version, memory.status,
                   memory.revision, memory.created, memory.updated, memory.depends_on,
                   memory.body if len(memory.body) <= MAX_CHARS else "", memory.distinct_from)

    def memory(self, rel: str) -> Memory:
        """A :class:`Memory` carrying just these fields, for the cross-file checks."""
        return Memory(rel, {}, self.body, id=self.id, type=self.type, scope=self.scope, key=self.key,
                      version=self.version, status=self.status, revision=self.revision,
                      created=self.created, updated=self.updated, depends_on=self.depends_on,
                      distinct_from=self.distinct_from)

    def to_json(self) -> list[Any]:
        when = [None if t is None else t.isoformat() for t in (self.created, self.updated)]
        return [self.id, self.type, self.scope, self.key, self.version, self.status, self.revision,
                *when, list(self.depends_on), self.body, list(self.distinct_from)]

    @classmethod
    def from_json(cls, raw: Any) -> Summary:
        """Decoded strictly: :class:`ValueError` for anything not written by :meth:`to_json`."""
        if not isinstance(raw, list) or len(raw) != 12:
            raise ValueError("summary")
        ident, kind, scope, key, version, status, revision, created, updated, deps, body, apart = raw
        if not all(t is None or isinstance(t, str) for t in (ident, kind, scope, key, version, status)):
            raise ValueError("summary")
        if type(revision) is not int or not isinstance(body, str):
            raise ValueError("summary")
        if not all(isinstance(p, list) and all(isinstance(d, str) for d in p) for p in (deps, apart)):
            raise ValueError("summary")
        return cls(ident, kind, scope, key, version, status, revision, _time(created), _time(updated),
                   tuple(deps), body, tuple(apart))


def _time(raw: Any) -> dt.datetime | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise ValueError("time")
    return dt.datetime.fromisoformat(raw)


def problem_from_json(raw: Any) -> Problem:
    """A :class:`Problem` from :meth:`Problem.to_json`, strictly (:class:`ValueError` otherwise)."""
    if not isinstance(raw, dict) or set(raw) != {"path", "field", "severity", "message", "fix", "line"}:
        raise ValueError("problem")
    strings = (raw["path"], raw["message"], raw["fix"])
    if not all(isinstance(s, str) for s in strings) or raw["severity"] not in _SEVERITIES:
        raise ValueError("problem")
    if not (raw["field"] is None or isinstance(raw["field"], str)):
        raise ValueError("problem")
    if not (raw["line"] is None or type(raw["line"]) is int):
        raise ValueError("problem")
    return Problem(raw["path"], raw["field"], raw["message"], raw["fix"], raw["severity"], raw["line"])



def _reading_json(found: Reading | None) -> list[Any] | None:
    return None if found is None else [sorted(found.forms), found.short, found.speaker, found.announces]


def _reading(raw: Any) -> Reading | None:
    """Decoded strictly: :class:`ValueError` for anything :func:`_reading_json` did not write."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 4 or not isinstance(raw[0], list):
        raise ValueError("reading")
    if not all(isinstance(f, str) for f in raw[0]) or not all(type(b) is bool for b in raw[1:]):
        raise ValueError("reading")
    return Reading(frozenset(raw[0]), raw[1], raw[2], raw[3])


@dataclass(frozen=True)
class Entry:
    """One file's own findings, its summary (``None`` for a file that does not parse) and the
    :class:`Reading` of its body in its JSON form (``None`` unless it may take part in a probable
    conflict), decoded only when the conflicts are found again."""

    problems: tuple[Problem, ...]
    summary: Summary | None
    reading: Any = None

    @classmethod
    def of(cls, problems: Iterable[Problem], memory: Memory | None) -> Entry:
        if memory is None:
            return cls(tuple(problems), None)
        summary = Summary.of(memory)
        return cls(tuple(problems), summary, _reading_json(reading(summary.body)) if eligible(memory) else None)

    def member(self, rel: str, blob: str) -> Member | None:
        """This file as :func:`memfs.policy.conflict_delta.pairs_since` sees it (a kept reading
        that does not decode is read again from the summary's body: it is a function of it)."""
        if self.summary is None:
            return None
        try:
            found = _reading(self.reading)
        except ValueError:
            found = reading(self.summary.body)
        return Member(self.summary.memory(rel), blob, found or reading(""))

    def to_json(self, blob: str, seen: list[int] | None) -> list[Any]:
        return [blob, [p.to_json() for p in self.problems], None if self.summary is None else self.summary.to_json(),
                self.reading, seen]

    @classmethod
    def from_json(cls, raw: list[Any]) -> Entry:
        summary = None if raw[2] is None else Summary.from_json(raw[2])
        if not isinstance(raw[1], list):
            raise ValueError("problems")
        return cls(tuple(problem_from_json(p) for p in raw[1]), summary, raw[3])


def xref(summary: list[Any] | None) -> list[Any] | None:
    """What the cross-file checks read of a :meth:`Summary.to_json` (``None``: the file does not
    parse): its id, type, scope, key, version, status and ``depends_on``."""
    return None if summary is None else [*summary[:6], summary[9]]


def _xref_ok(fields: Any) -> bool:
    """Whether ``fields`` is what :func:`xref` gives."""
    if fields is None:
        return True
    if not isinstance(fields, list) or len(fields) != 7 or not all(f is None or isinstance(f, str) for f in fields[:6]):
        return False
    return isinstance(fields[6], list) and all(isinstance(d, str) for d in fields[6])


def stat_key(found: os.stat_result) -> list[int]:
    """What a file's ``lstat`` must still say for its entry to be used without reading it."""
    return [found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_dev]


def _valid(raw: Any, rel: str) -> Entry | None:
    if not isinstance(raw, list) or len(raw) != 5 or not isinstance(raw[0], str):
        return None
    try:
        found = Entry.from_json(raw)
    except (ValueError, TypeError):
        return None
    return None if any(p.path != rel for p in found.problems) else found


@dataclass
class Cache:
    """The findings kept on disk for ``fingerprint``; what this run used or computed is ``seen``,
    the files it took as unchanged from their stat alone ``unread``. ``stats`` is every kept
    entry's (blob id, stat), read from the small index beside each shard; a shard's entries are
    read only when asked for (:meth:`shard_files`). ``stamp`` is when this run began on the file
    system's clock (``None``: no stat is recorded)."""

    fingerprint: str
    stats: dict[str, Any] = field(default_factory=dict)
    seen: dict[str, list[Any]] = field(default_factory=dict)
    unread: set[str] = field(default_factory=set)
    #: the kept result of the cross-file checks (:mod:`memfs.store.crossfile`), as written
    result: Any = None
    stamp: int | None = None
    #: shards to write: an entry of theirs changed, or they are not of this fingerprint
    dirty: set[int] = field(default_factory=set)
    result_changed: bool = False
    shard_reader: Callable[[int], dict[str, Any] | None] = lambda number: None
    xref_reader: Callable[[int], tuple[dict[str, Any] | None, Any]] = lambda number: (None, None)
    #: the token of each shard's stat index as loaded, then as written: its cross-file index and
    #: the kept result are of that stat index only if they name the same token
    tokens: dict[int, str] = field(default_factory=dict)
    #: the tokens the kept result was written with
    kept_tokens: Any = None
    loaded: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the purge epoch (:mod:`memfs.store.epoch`) when the files were read: a save after a purge is skipped
    epoch: str = ""
    #: a file read again in this run held another content than the one its digest names: the
    #: result of this run is not kept
    result_stale: bool = False

    def shard_files(self, number: int) -> dict[str, Any]:
        """The kept entries of shard ``number`` (read once; a shard that does not read or is of
        another fingerprint holds none, and is rewritten)."""
        if number not in self.loaded:
            files = self.shard_reader(number)
            if files is None:
                self.dirty.add(number)
            self.loaded[number] = files or {}
        return self.loaded[number]

    def _raw(self, rel: str) -> Any:
        return self.shard_files(shard(rel)).get(rel)

    def unchanged(self, rel: str, found: os.stat_result) -> str | None:
        """The blob id of ``rel`` without reading it: its ``lstat`` ``found`` is the one recorded
        (a plain file with one link, as :func:`memfs.store.paths.read_file` requires). Its entry
        is read only if asked (:meth:`decoded`)."""
        kept = self.stats.get(rel)
        if not isinstance(kept, list) or len(kept) != 2 or kept[1] != stat_key(found) or not isinstance(kept[0], str):
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_nlink != 1:
            return None
        self.unread.add(rel)
        return kept[0]

    def decoded(self, rel: str, blob: str) -> Entry | None:
        """The kept entry of ``rel`` for content ``blob``, ``None`` if there is none that decodes."""
        raw = self._raw(rel)
        return _valid(raw, rel) if isinstance(raw, list) and raw and raw[0] == blob else None

    def entry(self, rel: str, blob: str, found: os.stat_result | None) -> Entry | None:
        """The entry of ``rel`` if it was computed from the content whose id is ``blob`` (its stat
        brought up to ``found``, as read now)."""
        raw = self._raw(rel)
        if not isinstance(raw, list) or len(raw) != 5 or raw[0] != blob:
            return None
        entry = _valid(raw, rel)
        if entry is None:
            return None
        seen = self._stat(found)
        if raw[4] != seen:
            raw = [*raw[:4], seen]
            self.dirty.add(shard(rel))
        self.seen[rel] = raw
        return entry

    def put(self, rel: str, blob: str, entry: Entry, found: os.stat_result | None) -> None:
        self.seen[rel] = entry.to_json(blob, self._stat(found))
        self.dirty.add(shard(rel))

    def _stat(self, found: os.stat_result | None) -> list[int] | None:
        """The stat to record: ``None`` when it could still change within the clock tick the run
        began in (mtime or ctime not before :attr:`stamp`: racily clean)."""
        if found is None or self.stamp is None or max(found.st_mtime_ns, found.st_ctime_ns) >= self.stamp:
            return None
        return stat_key(found)

    def consistent(self) -> bool:
        """Whether the kept result was written with the stat indexes loaded (no shard was written
        since, by this process or another, nor left half-written)."""
        return bool(self.kept_tokens == {f"{number:02x}": token for number, token in self.tokens.items()})

    def xrefs(self) -> dict[str, list[Any] | None]:
        """Every kept entry's cross-file fields (:func:`xref`), by path, from the small index beside
        each shard; a shard's are left out unless written with its stat index, a row that does not
        decode too."""
        rows: dict[str, list[Any] | None] = {}
        for number in range(SHARDS):
            if number not in self.tokens:  # no stat index loaded or written: its rows could not be used
                continue
            files, token = self.xref_reader(number)
            if files is not None and token is not None and token == self.tokens.get(number):
                rows.update((rel, fields) for rel, fields in files.items() if _xref_ok(fields))
        return rows

    def _xrefs(self, files: dict[str, list[Any]]) -> dict[str, list[Any] | None]:
        """The cross-file index of entries about to be written: of those used or computed in this
        run or that decode (any other is left out)."""
        return {rel: xref(raw[2]) for rel, raw in files.items() if rel in self.seen or _valid(raw, rel) is not None}


def shard(rel: str) -> int:
    return zlib.crc32(rel.encode("utf-8", "surrogateescape")) % SHARDS


def files_digest(files: Iterable[tuple[str, str]]) -> str:
    """A digest of (path, blob id) pairs, in the order given."""
    digest = hashlib.blake2b(digest_size=16)
    for rel, blob in files:
        digest.update(f"{rel}\0{blob}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _folder(repo: Store) -> Path:
    return repo.cache_dir / CACHE_DIR


def _shard_file(repo: Store, number: int) -> Path:
    return _folder(repo) / f"{number:02x}.json"


def _read(path: Path, fingerprint: str) -> dict[str, Any] | None:
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("fingerprint") != fingerprint:
        return None
    return raw


def _files(path: Path, fingerprint: str) -> dict[str, Any] | None:
    """The ``files`` of a shard or index of this ``fingerprint``, ``None`` if it does not read."""
    return _index(path, fingerprint)[0]


def _index(path: Path, fingerprint: str) -> tuple[dict[str, Any] | None, Any]:
    """:func:`_files` and the token it was written with."""
    raw = _read(path, fingerprint)
    files = None if raw is None else raw.get("files")
    return (files, raw.get("token")) if isinstance(files, dict) and raw is not None else (None, None)


def _stamp(repo: Store) -> int | None:
    """Now on the clock of the file system the memories are on (the stamp file's new mtime)."""
    path = _folder(repo) / STAMP_FILE
    try:
        paths.ensure_cache(repo.cache_dir)
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"")
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _stat_file(repo: Store, number: int) -> Path:
    return _folder(repo) / f"{number:02x}.stat.json"


def _xref_file(repo: Store, number: int) -> Path:
    return _folder(repo) / f"{number:02x}.xref.json"


def load(repo: Store) -> Cache:
    """The stat index of every shard of this :func:`fingerprint` (the others are ignored, and
    rewritten on save), the kept result, and the stamp of this run; the shards' entries
    are read when asked for."""
    cache = Cache(fingerprint(repo), stamp=_stamp(repo), epoch=epoch.read(repo.cache_dir))

    cache.shard_reader = lambda number: _files(_shard_file(repo, number), cache.fingerprint)
    cache.xref_reader = lambda number: _index(_xref_file(repo, number), cache.fingerprint)
    names = _names(_folder(repo))
    for number in range(SHARDS):
        if names is not None and f"{number:02x}.stat.json" not in names and f"{number:02x}.json" not in names:
            continue
        files, token = _index(_stat_file(repo, number), cache.fingerprint)
        if isinstance(token, str):
            cache.tokens[number] = token
        if files is not None:
            cache.stats.update(files)
        elif _stat_file(repo, number).exists() or _shard_file(repo, number).exists():
            cache.dirty.add(number)
    raw = _read(_folder(repo) / PAIRS_FILE, cache.fingerprint)
    if raw is not None:
        cache.result, cache.kept_tokens = raw.get("result"), raw.get("tokens")
    return cache


def _names(folder: Path) -> set[str] | None:
    """The names in the cache folder, listed once so that :func:`load` tries only the shards that
    are there instead of opening each of the :data:`SHARDS` (most are absent in a small
    repository); ``None`` when it cannot be listed (then every shard is tried, as it may still read)."""
    try:
        return set(os.listdir(folder))
    except FileNotFoundError:
        return set()
    except OSError:
        return None


def save(repo: Store, cache: Cache) -> None:
    """Write the shards whose entries changed (entries of files gone are dropped), each before its
    stat and cross-file indexes (under a new token), then the kept result with every shard's token;
    skipped when the cache folder cannot be written, another process holds the lock too long, or a
    purge ran since the files were read (:mod:`memfs.store.epoch`). The kept result is not written
    when a file this run took as unchanged by its stat has no entry of that content in its shard as
    read now (another process saved it since, for an edit made after this run's ``lstat``): the
    indexes written would not be what the result was computed from; nor when it is
    :attr:`Cache.result_stale`."""
    present = cache.seen.keys() | cache.unread
    dirty = cache.dirty | {shard(rel) for rel in cache.stats.keys() - present}
    if not dirty and not cache.result_changed:
        return
    by_shard: dict[int, dict[str, Any]] = {number: {} for number in dirty}
    whole = True
    for rel in present:
        number = shard(rel)
        if number in by_shard:
            raw = cache.seen.get(rel)
            if raw is None:
                raw, used = cache.shard_files(number).get(rel), cache.stats.get(rel)
                whole = (whole and isinstance(raw, list) and len(raw) == 5 and isinstance(used, list)
                         and raw[0] == used[0])
            if raw is not None:
                by_shard[number][rel] = raw
    folder = _folder(repo)
    try:
        paths.ensure_cache(repo.cache_dir)
        folder.mkdir(exist_ok=True)
        with locking.exclusive(repo.cache_dir / LOCK_FILE, timeout=LOCK_WAIT):
            if epoch.read(repo.cache_dir) != cache.epoch:
                return
            for number, files in sorted(by_shard.items()):
                head = {"format": FORMAT, "fingerprint": cache.fingerprint}
                _write(_shard_file(repo, number), {**head, "files": files})
                rows = {rel: raw for rel, raw in files.items() if isinstance(raw, list) and len(raw) == 5}
                head["token"] = cache.tokens[number] = os.urandom(8).hex()
                if not rows:
                    del cache.tokens[number]
                _write(_stat_file(repo, number), {**head, "files": {rel: [r[0], r[4]] for rel, r in rows.items()}})
                _write(_xref_file(repo, number), {**head, "files": cache._xrefs(rows)})
            tokens = {f"{number:02x}": token for number, token in sorted(cache.tokens.items())}
            if whole and not cache.result_stale:
                _write(folder / PAIRS_FILE, {"format": FORMAT, "fingerprint": cache.fingerprint,
                                             "result": cache.result, "tokens": tokens})
            (repo.cache_dir / LEGACY_FILE).unlink(missing_ok=True)
    except (OSError, LockTimeout):
        return


def _write(path: Path, data: dict[str, Any]) -> None:
    if data.get("files") == {}:
        path.unlink(missing_ok=True)
        return
    atomic.replace_cache(path, json.dumps(data, separators=(",", ":")).encode())
