"""The findings cache: what ``memfs validate`` found in each file, by its content (``.memfs/findings.json``).

A whole-repository validate parses every file and runs the secret scan on it; at 30k memories
that is most of half a minute of CPU. A file's own findings (its field problems, its secrets, why
it does not parse) and what the cross-file checks need of it (its :class:`Summary`) depend only on
its path, its exact bytes and the rules. So they are kept per path with the file's git blob id
(:func:`blob_id`, computed from the bytes read now, as ``git hash-object`` would: a file edited
in the working tree is keyed by what it holds, never by what was committed), and an entry is used
only when the id of the bytes read now is the recorded one. The probable-conflict warnings, a
function of every summary, are kept with a digest of every (path, blob id) they were computed from.

The whole cache is tied to a :func:`fingerprint` of everything else a finding can depend on: this
format, the memory root, the size limits, ``.memfs.toml`` (the ``[adopt]`` rules name the fix of a
plain note), the detect-secrets version and the source of the rules themselves (every module of
:mod:`memfs.format` and :mod:`memfs.policy`, the secret scanner's patterns included, and the
module that composes them). A cache that is missing, corrupt, from another format or fingerprint is
ignored and rebuilt; an entry that does not decode is a miss. The cache can only save work: what
it yields is what computing the findings again would yield.

Written whole (:func:`memfs.store.atomic.replace_cache`, under ``findings.lock`` like the catalog's
saves), only when something changed. Deleting ``.memfs/`` is always safe.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
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
from memfs.policy.conflicts import MAX_CHARS
from memfs.store import atomic, locking, paths

FORMAT = "findings1"
CACHE_FILE = "findings.json"
LOCK_FILE = "findings.lock"
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


def fingerprint(repo: Store) -> str:
    """A digest of everything besides a file's path and bytes that its findings depend on."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{FORMAT}\0{repo.prefix}\0{repo.limits()!r}\0".encode())
    digest.update(f"{secrets_library.installed_version()}\0".encode())
    try:
        digest.update((repo.root / CONFIG_FILE).read_bytes())
    except OSError:
        digest.update(b"\0no config")
    for source in _sources():
        digest.update(source.read_bytes())
    return digest.hexdigest()


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

    @classmethod
    def of(cls, memory: Memory) -> Summary:
        return cls(memory.id, memory.type, memory.scope, memory.key, memory.version, memory.status,
                   memory.revision, memory.created, memory.updated, memory.depends_on,
                   memory.body if len(memory.body) <= MAX_CHARS else "")

    def memory(self, rel: str) -> Memory:
        """A :class:`Memory` carrying just these fields, for the cross-file checks."""
        return Memory(rel, {}, self.body, id=self.id, type=self.type, scope=self.scope, key=self.key,
                      version=self.version, status=self.status, revision=self.revision,
                      created=self.created, updated=self.updated, depends_on=self.depends_on)

    def to_json(self) -> list[Any]:
        when = [None if t is None else t.isoformat() for t in (self.created, self.updated)]
        return [self.id, self.type, self.scope, self.key, self.version, self.status, self.revision,
                *when, list(self.depends_on), self.body]

    @classmethod
    def from_json(cls, raw: Any) -> Summary:
        """Decoded strictly: :class:`ValueError` for anything not written by :meth:`to_json`."""
        if not isinstance(raw, list) or len(raw) != 11:
            raise ValueError("summary")
        ident, kind, scope, key, version, status, revision, created, updated, deps, body = raw
        if not all(t is None or isinstance(t, str) for t in (ident, kind, scope, key, version, status)):
            raise ValueError("summary")
        if type(revision) is not int or not isinstance(body, str):
            raise ValueError("summary")
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            raise ValueError("summary")
        return cls(ident, kind, scope, key, version, status, revision, _time(created), _time(updated),
                   tuple(deps), body)


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


@dataclass(frozen=True)
class Entry:
    """One file's own findings, and its summary (``None`` for a file that does not parse)."""

    problems: tuple[Problem, ...]
    summary: Summary | None

    def to_json(self, blob: str) -> list[Any]:
        return [blob, [p.to_json() for p in self.problems], None if self.summary is None else self.summary.to_json()]

    @classmethod
    def from_json(cls, raw: list[Any]) -> Entry:
        summary = None if raw[2] is None else Summary.from_json(raw[2])
        if not isinstance(raw[1], list):
            raise ValueError("problems")
        return cls(tuple(problem_from_json(p) for p in raw[1]), summary)


@dataclass
class Cache:
    """The findings kept on disk for ``fingerprint``; what this run used or computed is ``seen``."""

    fingerprint: str
    stored: dict[str, Any] = field(default_factory=dict)
    seen: dict[str, list[Any]] = field(default_factory=dict)
    conflicts: list[Any] | None = None
    changed: bool = False

    def entry(self, rel: str, blob: str) -> Entry | None:
        """The entry of ``rel`` if it was computed from the content whose id is ``blob``."""
        raw = self.stored.get(rel)
        if not isinstance(raw, list) or len(raw) != 3 or raw[0] != blob:
            return None
        try:
            found = Entry.from_json(raw)
        except (ValueError, TypeError):
            return None
        if any(p.path != rel for p in found.problems):
            return None
        self.seen[rel] = raw
        return found

    def put(self, rel: str, blob: str, entry: Entry) -> None:
        self.seen[rel] = entry.to_json(blob)
        self.changed = True

    def conflict_problems(self, digest: str) -> list[Problem] | None:
        """The probable-conflict warnings kept for the files whose (path, blob id) list has ``digest``."""
        kept = self.conflicts
        if not isinstance(kept, list) or len(kept) != 2 or kept[0] != digest or not isinstance(kept[1], list):
            return None
        try:
            return [problem_from_json(p) for p in kept[1]]
        except (ValueError, TypeError):
            return None

    def keep_conflicts(self, digest: str, found: list[Problem]) -> None:
        self.conflicts = [digest, [p.to_json() for p in found]]
        self.changed = True


def files_digest(files: Iterable[tuple[str, str]]) -> str:
    """A digest of (path, blob id) pairs, in the order given."""
    digest = hashlib.blake2b(digest_size=16)
    for rel, blob in files:
        digest.update(f"{rel}\0{blob}\0".encode())
    return digest.hexdigest()


def load(repo: Store) -> Cache:
    """The cache on disk if it is for this :func:`fingerprint`, else an empty one (rebuilt on save)."""
    cache = Cache(fingerprint(repo))
    try:
        raw = json.loads((repo.cache_dir / CACHE_FILE).read_bytes())
    except (OSError, ValueError):
        return cache
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("fingerprint") != cache.fingerprint:
        return cache
    files = raw.get("files")
    if isinstance(files, dict):
        cache.stored = files
        cache.conflicts = raw.get("conflicts")
    return cache


def save(repo: Store, cache: Cache) -> None:
    """Write what this run saw (entries of files gone are dropped) when anything changed; skipped
    when the cache folder cannot be written or another process holds the lock too long."""
    if not cache.changed and cache.seen.keys() == cache.stored.keys():
        return
    path = repo.cache_dir / CACHE_FILE
    data = json.dumps({"format": FORMAT, "fingerprint": cache.fingerprint, "files": cache.seen,
                       "conflicts": cache.conflicts}, separators=(",", ":")).encode()
    try:
        paths.ensure_cache(path.parent)
        with locking.exclusive(path.parent / LOCK_FILE, timeout=LOCK_WAIT):
            atomic.replace_cache(path, data)
    except (OSError, LockTimeout):
        return
