"""What the index knows about the files: ``.memfs/state.json`` and its journal.

The state records, for every memory file, the stat and digest it was indexed at and the token
count of each text field (exact BM25F average lengths), plus the index format, the directory of
the live index and the last ``git status`` probe. A reader takes it as the truth about the index;
a writer records it after the index it points to is committed.

On disk it is a whole file and a journal beside it (``state.journal``), as the catalog's: an
update appends one line, the header (serial, snapshot time, probe) and the entries that changed
since the last save, so a save costs what changed, not one entry per memory (the whole file is
~10 MB at 100,000 memories). The journal is folded into a new whole file once it outgrows a
quarter of it (or :data:`COMPACT_MIN`). A line names the whole file it follows (a random
``token``), is appended only under the index lock by the process whose copy is the one on disk,
and replay stops at the first line that does not parse or follows another whole file. What a
torn or lost line leaves is an older state than the index, which a catch-up treats as it treats
a crash between the index commit and the state write: the files whose stat moved are indexed
again. The writer that next finds such a line writes a whole file instead of appending after it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import os
import secrets
import struct
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.format.model import Problem
from memfs.index.analysis import ANALYZER_VERSION
from memfs.index.documents import TEXT_FIELDS
from memfs.store import atomic, paths

#: bumped whenever what a document holds changes, the memory it keeps as parsed included
#: (:func:`memfs.index.documents.kept_blob`): a change to what parsing returns needs a rebuild
SCHEMA_VERSION = 6
INDEX_FORMAT = f"schema{SCHEMA_VERSION}-analyzer{ANALYZER_VERSION}"
STATE_FILE = "state.json"
JOURNAL_FILE = "state.journal"
LOCK_FILE = "index.lock"
#: the journal is folded into the whole file once it is larger than this share of it, or than
#: :data:`COMPACT_MIN` bytes, whichever is more
COMPACT_SHARE = 0.25
COMPACT_MIN = 64 * 1024

#: what identifies one version of the state on disk: the whole file's (inode, mtime, size) and
#: the journal's size (appended to, never rewritten in place)
Key = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Entry:
    """One file as it was indexed. Never changed in place (a change is a new entry); slotted and
    with a tuple of lengths, as one is kept per memory. ``unsigned``: a memory read too soon after
    its last change to be signed, so its document keeps no parse and every search reads its file;
    the first index update after the racy margin that writes anyway indexes the same bytes again,
    signed (:meth:`State.signable`)."""

    mtime_ns: int
    size: int
    digest: str
    lengths: tuple[int, ...] | None
    broken: str | None = None
    unsigned: bool = False

    def to_json(self) -> list[Any]:
        return [self.mtime_ns, self.size, self.digest, None if self.lengths is None else list(self.lengths),
                self.broken, *([1] if self.unsigned else [])]

    @classmethod
    def from_json(cls, raw: list[Any]) -> Entry:
        if len(raw) == 6:
            if raw[5] != 1:
                raise TypeError("unsigned")
            return dataclasses.replace(cls.from_json(raw[:5]), unsigned=True)
        mtime, size, digest, lengths, broken = raw
        if not isinstance(mtime, int) or not isinstance(size, int) or not isinstance(digest, str):
            raise TypeError("entry")
        if lengths is not None:
            lengths = tuple(lengths)
            if len(lengths) != len(TEXT_FIELDS) or not all(isinstance(n, int) for n in lengths):
                raise TypeError("lengths")
        if broken is not None and not isinstance(broken, str):
            raise TypeError("broken")
        return cls(mtime, size, digest, lengths, broken)


#: one entry packed: mtime_ns, size, the 12-byte digest, whether it has lengths (bit 0) and is
#: unsigned (bit 1), the lengths
_PACKED = struct.Struct(f"<qq12sB{len(TEXT_FIELDS)}I")
_STAT = struct.Struct("<qq")
Packed = bytes | Entry


def _pack(entry: Entry) -> Packed:
    """``entry`` as 61 bytes when it is the common kind (a parsed file: a 24-hex-digit digest, no
    problem, numbers in range), else itself. A packed entry is one object of ~95 bytes where the
    entry, its lengths tuple, digest string and numbers are ~330: it is kept per memory."""
    lengths, digest = entry.lengths, entry.digest
    if (entry.broken is not None or len(digest) != 24 or not 0 <= entry.mtime_ns < 2**63
            or not 0 <= entry.size < 2**63 or (lengths is not None and not all(0 <= n < 2**32 for n in lengths))):
        return entry
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        return entry
    if raw.hex() != digest:
        return entry
    flags = (lengths is not None) | (entry.unsigned << 1)
    return _PACKED.pack(entry.mtime_ns, entry.size, raw, flags, *(lengths or (0,) * len(TEXT_FIELDS)))


def _unpack(kept: Packed) -> Entry:
    if isinstance(kept, Entry):
        return kept
    mtime, size, raw, flags, *lengths = _PACKED.unpack(kept)
    return Entry(mtime, size, raw.hex(), tuple(lengths) if flags & 1 else None, None, bool(flags & 2))


class Files(Mapping[str, Entry]):
    """A read-only view of a state's entries, unpacked as they are asked for."""

    __slots__ = ("_kept",)

    def __init__(self, kept: dict[str, Packed]) -> None:
        self._kept = kept

    def __getitem__(self, rel: str) -> Entry:
        return _unpack(self._kept[rel])

    def __iter__(self) -> Iterator[str]:
        return iter(self._kept)

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, rel: object) -> bool:
        return rel in self._kept


@dataclass
class Disk:
    """How a :class:`State` stands to the files on disk: the whole file's token ("": none yet or
    not to be appended to, the next save writes a whole file), the key of the version it was read
    from or last wrote, the paths changed since, and the two files' sizes."""

    token: str = ""
    key: Key | None = None
    dirty: set[str] = field(default_factory=set)
    base_bytes: int = 0
    journal_bytes: int = 0


class State:
    """The parsed state. ``files`` is read-only: a writer changes it with :meth:`put` and
    :meth:`drop`, which keep the field-length sums, the broken files and the changed paths up to
    date, so nothing a write or a reopened reader needs walks every entry."""

    def __init__(self, index_dir: str, serial: int = 0, snapshot_ns: int = 0,
                 files: Mapping[str, Entry] | None = None, probe: list[Any] | None = None) -> None:
        self.index_dir = index_dir
        self.serial = serial
        self.snapshot_ns = snapshot_ns
        self.probe = probe
        self._files: dict[str, Packed] = {}
        self._totals = [0] * len(TEXT_FIELDS)
        self._having = [0] * len(TEXT_FIELDS)
        self._broken: dict[str, str] = {}
        self._unsigned: dict[str, int] = {}
        self.disk = Disk()
        #: guards the kept sums against a writer in another thread of a process sharing this object
        self._lock = threading.Lock()
        for rel, entry in (files or {}).items():
            self.put(rel, entry)
        self.disk.dirty.clear()

    @property
    def files(self) -> Mapping[str, Entry]:
        return Files(self._files)

    def stat(self, rel: str) -> tuple[int, int] | None:
        """``rel``'s recorded ``(mtime_ns, size)``, or ``None``: what a stat walk compares, read
        without unpacking the whole entry."""
        kept = self._files.get(rel)
        if kept is None:
            return None
        if isinstance(kept, Entry):
            return (kept.mtime_ns, kept.size)
        found: tuple[int, int] = _STAT.unpack_from(kept)
        return found

    def put(self, rel: str, entry: Entry) -> None:
        with self._lock:
            old = self._files.get(rel)
            if old is not None:
                self._count(_unpack(old), -1)
            self._files[rel] = _pack(entry)
            self._count(entry, 1)
            if entry.broken is not None:
                self._broken[rel] = entry.broken
            else:
                self._broken.pop(rel, None)
            if entry.unsigned:
                self._unsigned[rel] = entry.mtime_ns
            else:
                self._unsigned.pop(rel, None)
            self.disk.dirty.add(rel)

    def drop(self, rel: str) -> Entry | None:
        with self._lock:
            kept = self._files.pop(rel, None)
            old = None if kept is None else _unpack(kept)
            if old is not None:
                self._count(old, -1)
                self._broken.pop(rel, None)
                self._unsigned.pop(rel, None)
                self.disk.dirty.add(rel)
            return old

    def signable(self, before_ns: int, limit: int | None = None) -> list[str]:
        """Up to ``limit`` of the unsigned memories (:attr:`Entry.unsigned`) last changed before
        ``before_ns``: old enough now to be signed by indexing them again. Kept beside the entries,
        so asking walks only the unsigned ones: usually a few, those saved within the racy margin
        of their indexing; after a rebuild of files just checked out, possibly many."""
        with self._lock:
            found = (rel for rel, mtime in self._unsigned.items() if mtime < before_ns)
            return sorted(itertools.islice(found, limit))

    def _count(self, entry: Entry, sign: int) -> None:
        if entry.lengths is not None:
            for i, n in enumerate(entry.lengths):
                if n:
                    self._totals[i] += sign * n
                    self._having[i] += sign

    @property
    def indexed(self) -> int:
        return sum(1 for kept in self._files.values() if _unpack(kept).lengths is not None)

    def average_lengths(self) -> dict[str, float]:
        """Mean token count of each text field over the memories that have it (as Lucene does),
        from sums kept up to date by every change."""
        with self._lock:
            totals, having = self._totals, self._having
            return {name: (totals[i] / having[i] if having[i] else 1.0) for i, name in enumerate(TEXT_FIELDS)}

    def broken(self) -> list[Problem]:
        with self._lock:
            found = sorted(self._broken.items())
        return [Problem(rel, None, why, "fix the file; search skips it until it parses") for rel, why in found]

    def snapshot(self) -> State:
        """A copy that shares no mutable part with this state (entries are frozen, so copying the
        dicts is all it takes: a few ms at 100k), standing as this one does to the files on disk
        (the changes not saved yet aside)."""
        with self._lock:
            probe = None if self.probe is None else [list(p) if isinstance(p, list) else p for p in self.probe]
            copy = State(self.index_dir, self.serial, self.snapshot_ns, None, probe)
            copy._files = dict(self._files)
            copy._totals, copy._having = list(self._totals), list(self._having)
            copy._broken = dict(self._broken)
            copy._unsigned = dict(self._unsigned)
            disk = self.disk
            copy.disk = Disk(disk.token if not disk.dirty else "", disk.key, set(), disk.base_bytes, disk.journal_bytes)
        return copy

    # --- encoding ---------------------------------------------------------------------------
    def _head(self) -> dict[str, Any]:
        return {"serial": self.serial, "snapshot_ns": self.snapshot_ns, "probe": self.probe}

    def encode(self, token: str) -> bytes:
        """The whole file's bytes (compact JSON)."""
        head = json.dumps({"format": INDEX_FORMAT, "index_dir": self.index_dir, "token": token, **self._head()},
                          separators=(",", ":"))
        files = json.dumps({rel: _unpack(e).to_json() for rel, e in self._files.items()}, separators=(",", ":"))
        return f'{head[:-1]},"files":{files}}}'.encode()

    def journal_line(self) -> bytes:
        """The header and the entries changed since the last save (``null``: gone), as one line."""
        files = {rel: None if (e := self._files.get(rel)) is None else _unpack(e).to_json()
                 for rel in sorted(self.disk.dirty)}
        line = {"base": self.disk.token, "index_dir": self.index_dir, **self._head(), "files": files}
        return json.dumps(line, separators=(",", ":")).encode() + b"\n"

    def replay(self, line: bytes) -> bool:
        """Apply one journal line; ``False`` (nothing applied) when it does not parse, follows
        another whole file or names another index directory."""
        try:
            raw = json.loads(line)
            if raw["base"] != self.disk.token or raw["index_dir"] != self.index_dir:
                return False
            files = {str(rel): None if v is None else Entry.from_json(v) for rel, v in raw["files"].items()}
            serial, snapshot, probe = int(raw["serial"]), int(raw["snapshot_ns"]), raw["probe"]
            if probe is not None and not isinstance(probe, list):
                return False
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
            return False
        for rel, entry in files.items():
            if entry is None:
                self.drop(rel)
            else:
                self.put(rel, entry)
        self.serial, self.snapshot_ns, self.probe = serial, snapshot, probe
        return True


class BadState(Exception):
    """The state file is missing, unreadable or from another index format; the message says which."""


def key(cache: Path) -> Key:
    """What identifies one version of the state on disk (the whole file's identity and the
    journal's size). Raises :class:`FileNotFoundError` when there is no whole file."""
    ident = paths.file_identity(cache / STATE_FILE)
    try:
        journal = os.stat(cache / JOURNAL_FILE).st_size
    except FileNotFoundError:
        journal = 0
    return (*ident, journal)


def read(cache: Path) -> State:
    """A private, freshly parsed copy of the state: the whole file, then the journal's lines up to
    the first that does not replay (the copy is then to be written whole next time).

    A reader holds no lock: when the files' key after reading is not the one taken before (a
    writer saved meanwhile), what was read may be no version the key names (a whole file saved
    after the key was taken, the journal removed before it was read), so the copy keeps no key
    (``disk.key`` ``None``: never kept by :func:`cached`, written whole)."""
    try:
        current = key(cache)
        data = (cache / STATE_FILE).read_bytes()
        text = data.decode()
        try:
            raw, state = _built(*_whole(text))
        except (ValueError, IndexError):  # not laid out as memfs writes it: parsed whole
            raw, state = _built(*_parsed_whole(text))
        state.disk = Disk(str(raw.get("token") or ""), current, set(), len(data))
        journal = _journal(cache, current[-1])
    except FileNotFoundError:
        raise BadState("there is none yet") from None
    except BadState:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
        raise BadState(f"its state file is unreadable ({type(exc).__name__})") from None
    for line in journal.splitlines(keepends=True):
        if not line.endswith(b"\n") or not state.replay(line):
            state.disk.token = ""
            break
    state.disk.journal_bytes = len(journal)
    state.disk.dirty.clear()
    try:
        settled = key(cache) == current
    except FileNotFoundError:
        settled = False
    if not settled:
        state.disk.key, state.disk.token = None, ""
    return state


_FILES_KEY = ',"files":{'


def _built(raw: dict[str, Any], entries: Iterator[tuple[str, Any]]) -> tuple[dict[str, Any], State]:
    if raw.get("format") != INDEX_FORMAT:
        raise BadState(f"it was built by another memfs version ({raw.get('format')})")
    state = State(str(raw["index_dir"]), int(raw["serial"]), int(raw["snapshot_ns"]), None, raw.get("probe"))
    for rel, values in entries:
        state.put(str(rel), Entry.from_json(values))
    return raw, state


def _whole(text: str) -> tuple[dict[str, Any], Iterator[tuple[str, Any]]]:
    """(the whole file's header, its entries one by one). The entries are read one at a time
    (json's own scanner, value by value) instead of as one parsed dictionary: at 100k memories
    that dictionary was ~40 MB of short-lived lists beside the state being built, a peak the
    process kept. A file not laid out as :meth:`State.encode` writes it (``"files"`` last, no
    spaces) is parsed whole."""
    at = text.find(_FILES_KEY)
    if at < 0 or not text.endswith("}}"):
        return _parsed_whole(text)
    head = json.loads(text[:at] + "}")
    if not isinstance(head, dict) or "files" in head:
        return _parsed_whole(text)
    return head, _entries(text, at + len(_FILES_KEY))


def _parsed_whole(text: str) -> tuple[dict[str, Any], Iterator[tuple[str, Any]]]:
    raw = json.loads(text)
    return raw, iter(raw.pop("files").items())


def _entries(text: str, at: int) -> Iterator[tuple[str, Any]]:
    """The ``"path":[...]`` pairs of a JSON object starting at ``at`` (just after its ``{``),
    to the object's end, which must close the text; :class:`ValueError` on anything else."""
    from json.scanner import make_scanner

    context: Any = json.JSONDecoder()  # typeshed types make_scanner's context as itself
    scan = make_scanner(context)
    end = len(text) - 1
    if text[at] == "}":
        at += 1
    else:
        while True:
            try:
                rel, at = scan(text, at)
                if text[at] != ":":
                    raise ValueError(f"expected ':' at {at}")
                values, at = scan(text, at + 1)
            except StopIteration as stop:
                raise ValueError(f"expected a value at {stop.value}") from None
            if not isinstance(rel, str):
                raise ValueError(f"expected a path at {at}")
            yield rel, values
            if text[at] == ",":
                at += 1
            elif text[at] == "}":
                at += 1
                break
            else:
                raise ValueError(f"expected ',' or '}}' at {at}")
    if at != end:
        raise ValueError(f"unexpected text at {at}")


def private(cache: Path) -> State:
    """A private copy of the state for a writer (callers hold the index lock): a copy of the one
    this process parsed or wrote last when the files are still that version (no second parse of
    ~10 MB at 100k: a catch-up parsed them to decide, the live index at its start), else
    :func:`read`."""
    found = _kept(cache)
    return read(cache) if found is None else found.snapshot()


def _kept(cache: Path) -> State | None:
    """The state this process parsed or wrote last, if the files are still that version."""
    try:
        current = key(cache)
    except FileNotFoundError:
        raise BadState("there is none yet") from None
    found = _parsed.get(str(cache))
    return found[1] if found is not None and found[0] == current else None


def _journal(cache: Path, size: int) -> bytes:
    if not size:
        return b""
    try:
        with open(cache / JOURNAL_FILE, "rb") as handle:
            return handle.read(size)
    except FileNotFoundError:
        return b""


def write(cache: Path, state: State) -> None:
    """Record ``state`` (callers hold the index lock): one journal line when ``state`` is the copy
    on disk (read from or last written to the files as they are now) and the journal is small
    enough, else a whole file (a new token) and no journal. This process's readers get a copy of
    ``state`` (:func:`cached`), so a writer that goes on changing its own (the live index's next
    update, or one that fails half-way) never changes what a reader holds."""
    disk = state.disk
    try:
        on_disk: Key | None = key(cache)
    except FileNotFoundError:
        on_disk = None
    limit = max(COMPACT_MIN, COMPACT_SHARE * disk.base_bytes)
    if disk.token and on_disk is not None and on_disk == disk.key and disk.journal_bytes < limit:
        line = state.journal_line()
        with open(cache / JOURNAL_FILE, "ab") as handle:
            handle.write(line)
        disk.journal_bytes += len(line)
    else:
        token = secrets.token_hex(8)
        data = state.encode(token)
        atomic.write_bytes(cache / STATE_FILE, data)
        atomic.remove(cache / JOURNAL_FILE)
        disk.token, disk.base_bytes, disk.journal_bytes = token, len(data), 0
    disk.dirty.clear()
    with contextlib.suppress(OSError):
        disk.key = key(cache)
        _parsed[str(cache)] = (disk.key, state.snapshot())


_parsed: dict[str, tuple[Key, State]] = {}


def cached(cache: Path) -> State:
    """The state, parsed once per change of its files (they are large: one entry per memory).
    Callers must not change it; :func:`read` gives a private copy."""
    found = _kept(cache)
    if found is not None:
        return found
    state = read(cache)
    if state.disk.key is not None:
        _parsed[str(cache)] = (state.disk.key, state)
    return state


ensure_cache = paths.ensure_cache
