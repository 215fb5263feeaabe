"""What the index knows about the files: ``.memfs/state.json``.

The state file records, for every memory file, the stat and digest it was indexed at and the
token count of each text field (exact BM25F average lengths), plus the index format, the
directory of the live index and the last ``git status`` probe. A reader takes it as the truth
about the index; a writer replaces it atomically, after the index it points to is committed.
"""

from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.format.model import Problem
from memfs.index.analysis import ANALYZER_VERSION
from memfs.index.documents import TEXT_FIELDS
from memfs.store import atomic, paths

SCHEMA_VERSION = 4
INDEX_FORMAT = f"schema{SCHEMA_VERSION}-analyzer{ANALYZER_VERSION}"
STATE_FILE = "state.json"
LOCK_FILE = "index.lock"


@dataclass(frozen=True)
class Entry:
    """One file as it was indexed. Never changed in place (a change is a new entry), so its
    encoded form can be kept (:meth:`State.encode`)."""

    mtime_ns: int
    size: int
    digest: str
    lengths: list[int] | None
    broken: str | None = None

    def to_json(self) -> list[Any]:
        return [self.mtime_ns, self.size, self.digest, self.lengths, self.broken]


@dataclass
class State:
    index_dir: str
    serial: int = 0
    snapshot_ns: int = 0
    files: dict[str, Entry] = field(default_factory=dict)
    probe: list[Any] | None = None
    _encoded: dict[str, tuple[Entry, str]] = field(default_factory=dict, repr=False, compare=False)
    _counted: dict[str, Entry] = field(default_factory=dict, repr=False, compare=False)
    #: guards the kept sums: one parsed state is shared by every thread's reader (:func:`cached`)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _sums: tuple[list[int], list[int]] = field(
        default_factory=lambda: ([0] * len(TEXT_FIELDS), [0] * len(TEXT_FIELDS)), repr=False, compare=False)

    def encode(self) -> bytes:
        """The state file's bytes (compact JSON). Each file's ``"path":[...]`` is kept with the
        entry it encodes and reused while that entry is the one recorded: a write re-encodes only
        the files it changed (at 50k files, a whole re-encode is ~170 ms)."""
        head = json.dumps({"format": INDEX_FORMAT, "index_dir": self.index_dir, "serial": self.serial,
                           "snapshot_ns": self.snapshot_ns, "probe": self.probe}, separators=(",", ":"))
        kept = self._encoded
        parts = []
        for rel, entry in self.files.items():
            found = kept.get(rel)
            if found is None or found[0] is not entry:
                found = kept[rel] = (entry, json.dumps(rel) + ":" + json.dumps(entry.to_json(), separators=(",", ":")))
            parts.append(found[1])
        if len(kept) > len(self.files):
            self._encoded = {rel: kept[rel] for rel in self.files}
        return f'{head[:-1]},"files":{{{",".join(parts)}}}}}'.encode()

    @property
    def indexed(self) -> int:
        return sum(1 for e in self.files.values() if e.lengths is not None)

    def average_lengths(self) -> dict[str, float]:
        """Mean token count of each text field over the memories that have it (as Lucene does).
        The sums are kept with the entries they count and brought up to date from the entries
        that changed, so an index reopened after each write does not re-add 50k files' counts."""
        with self._lock:
            return self._averages()

    def _averages(self) -> dict[str, float]:
        counted = self._counted
        for rel, entry in self.files.items():
            old = counted.get(rel)
            if old is not entry:
                if old is not None:
                    self._count(old, -1)
                self._count(entry, 1)
                counted[rel] = entry
        if len(counted) > len(self.files):
            for rel in [rel for rel in counted if rel not in self.files]:
                self._count(counted.pop(rel), -1)
        totals, having = self._sums
        return {name: (totals[i] / having[i] if having[i] else 1.0) for i, name in enumerate(TEXT_FIELDS)}

    def snapshot(self) -> State:
        """A copy that shares no mutable part with this state, its kept sums brought along
        (entries are frozen, so the copies of the two dicts are all it takes: ~4 ms at 50k)."""
        with self._lock:
            self._averages()
            probe = None if self.probe is None else [list(p) if isinstance(p, list) else p for p in self.probe]
            copy = State(self.index_dir, self.serial, self.snapshot_ns, dict(self.files), probe)
            copy._counted = dict(self._counted)
            copy._sums = (list(self._sums[0]), list(self._sums[1]))
        return copy

    def _count(self, entry: Entry, sign: int) -> None:
        if entry.lengths is not None:
            totals, having = self._sums
            for i, n in enumerate(entry.lengths):
                if n:
                    totals[i] += sign * n
                    having[i] += sign

    def broken(self) -> list[Problem]:
        found = [(rel, e.broken) for rel, e in self.files.items() if e.broken is not None]
        return [Problem(rel, None, why, "fix the file; search skips it until it parses") for rel, why in sorted(found)]


class BadState(Exception):
    """The state file is missing, unreadable or from another index format; the message says which."""


def read(cache: Path) -> State:
    """A private, freshly parsed copy of the state file."""
    try:
        raw = json.loads((cache / STATE_FILE).read_bytes())
        if raw.get("format") != INDEX_FORMAT:
            raise BadState(f"it was built by another memfs version ({raw.get('format')})")
        files = {rel: Entry(*values) for rel, values in raw["files"].items()}
        return State(raw["index_dir"], raw["serial"], raw["snapshot_ns"], files, raw.get("probe"))
    except FileNotFoundError:
        raise BadState("there is none yet") from None
    except BadState:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BadState(f"its state file is unreadable ({type(exc).__name__})") from None


def write(cache: Path, state: State) -> None:
    """Replace the state file; this process's readers get a copy of ``state`` (:func:`cached`),
    so a writer that goes on changing its own (the live index's next update, or one that fails
    half-way) never changes what a reader holds."""
    atomic.write_bytes(cache / STATE_FILE, state.encode())
    with contextlib.suppress(OSError):
        _parsed[str(cache)] = (key(cache), state.snapshot())


def key(cache: Path) -> tuple[int, int, int]:
    """What identifies one version of the state file (inode, mtime, size)."""
    return paths.file_identity(cache / STATE_FILE)


_parsed: dict[str, tuple[tuple[int, int, int], State]] = {}


def cached(cache: Path) -> State:
    """The state file, parsed once per change of the file (it is large: one entry per memory).
    Callers must not mutate it; :func:`read` gives a private copy."""
    try:
        current = key(cache)
    except FileNotFoundError:
        raise BadState("there is none yet") from None
    found = _parsed.get(str(cache))
    if found is not None and found[0] == current:
        return found[1]
    state = read(cache)
    _parsed[str(cache)] = (current, state)
    return state


ensure_cache = paths.ensure_cache
