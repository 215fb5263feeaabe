"""Each segment's scored posting lists in a file numpy reads in place, written once per segment.

Why: whoosh3 stores a posting list as blocks of zlib-compressed pickles, read through a matcher
object a term lookup and a block at a time; a query new to the server spent ~half its CPU there
(#28). A segment never changes once written (a deletion only marks documents), so its posting
lists are decoded once, by the process that committed it, into ``<segment id>.postings`` beside
the segment: per (text field, word), its local document numbers (int32) and weights (float32,
or float64 if any weight does not survive the round trip) in two flat arrays, and the words in a
hash table. A reader maps the file; one term is a hash, a probe or two and two array slices.

The contract: :meth:`Packed.postings` gives exactly what :func:`memfs.index.postings.read_postings`
decodes from the segment itself (the file is made by calling it for every word of every packed
field), so scores and ranking are unchanged. A segment without its file (an index written before
this, or a writer that stopped between its commit and :func:`prepare`), one whose file does not
match it, or a field not packed, is read from whoosh's own blocks as before. Files of segments
no longer in the index are removed by whoosh with the segment's own (see :func:`prepare`).
"""

from __future__ import annotations

import hashlib
import mmap
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memfs.index.postings import read_postings

#: the first bytes of a packed postings file (the format's version is its last byte)
MAGIC = b"memfs-postings\x00\x02"
SUFFIX = ".postings"
_HEAD = 7  # int64s after the magic: documents, words, postings, weight bytes, table places, keys' and fields' length
_NONE_I = np.zeros(0, np.int64)
_NONE_F = np.zeros(0, np.float64)


@dataclass(frozen=True, eq=False)
class Packed:
    """One segment's packed posting lists (see the module docstring). Words are found through an
    open-addressing table in the file (a word's slot at the first free place from its hash), so
    nothing is unpickled or held per word in the process: the file's pages are the page cache's."""

    docs: int
    fields: frozenset[str]
    table: memoryview
    key_starts: memoryview
    keys: memoryview
    starts: npt.NDArray[np.int64]
    ids: npt.NDArray[np.int32]
    weights: npt.NDArray[np.floating[Any]]

    def _slot(self, field: str, btext: bytes) -> int | None:
        key = _key(field, btext)
        table, key_starts = self.table, self.key_starts
        mask = len(table) - 1
        at = _hash(key) & mask
        while True:
            slot = table[at] - 1
            if slot < 0:
                return None
            if self.keys[key_starts[slot]:key_starts[slot + 1]] == key:
                return slot
            at = (at + 1) & mask

    def postings(self, field: str, btext: bytes) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The local document numbers (deleted ones included) and weights of ``btext`` in
        ``field``, as :func:`read_postings` gives them; ``field`` must be one of :attr:`fields`."""
        slot = self._slot(field, btext)
        if slot is None:
            return _NONE_I, _NONE_F
        start, end = int(self.starts[slot]), int(self.starts[slot + 1])
        return self.ids[start:end].astype(np.int64), self.weights[start:end].astype(np.float64)

    def count(self, field: str, btext: bytes, live: npt.NDArray[np.bool_] | None) -> int:
        """How many documents hold ``btext`` in ``field``; with ``live`` (a flag per local
        document), only those flagged."""
        slot = self._slot(field, btext)
        if slot is None:
            return 0
        start, end = int(self.starts[slot]), int(self.starts[slot + 1])
        return end - start if live is None else int(np.count_nonzero(live[self.ids[start:end]]))


def _key(field: str, btext: bytes) -> bytes:
    return field.encode() + b"\x00" + btext


def _hash(key: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def _table(keys: list[bytes]) -> npt.NDArray[np.int64]:
    """The open-addressing table of ``keys``: a power of two of at least twice their number of
    places, each 0 (free) or a word's slot + 1."""
    size = 1 << max(3, (2 * len(keys)).bit_length())
    mask = size - 1
    table = [0] * size
    for slot, key in enumerate(keys):
        at = _hash(key) & mask
        while table[at]:
            at = (at + 1) & mask
        table[at] = slot + 1
    return np.array(table, np.int64)


def path_for(index_dir: Path, segment_id: str) -> Path:
    return index_dir / f"{segment_id}{SUFFIX}"


def pack(leaf: Any, fields: Iterable[str]) -> list[bytes | memoryview]:
    """The packed file of one segment's ``fields`` (those in its schema), in pieces to write one
    after the other (the arrays' own memory, not copies)."""
    packed = sorted(f for f in fields if f in leaf.schema)
    keys: list[bytes] = []
    counts: list[int] = []
    ids, weights = bytearray(), bytearray()
    for field in packed:
        for btext in leaf.lexicon(field):
            local, found = read_postings(leaf, field, btext)
            keys.append(_key(field, btext))
            counts.append(len(local))
            ids += local.astype(np.int32).tobytes()
            weights += found.tobytes()
    every_id = np.frombuffer(ids, np.int32)
    every_weight = np.frombuffer(weights, np.float64)
    narrow = every_weight.astype(np.float32)
    if np.array_equal(narrow.astype(np.float64), every_weight):
        every_weight = narrow  # type: ignore[assignment]
    starts = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=starts[1:])
    key_starts = np.zeros(len(keys) + 1, np.int64)
    np.cumsum([len(k) for k in keys], out=key_starts[1:])
    table = _table(keys)
    key_blob = b"".join(keys)
    field_blob = "\x00".join(packed).encode()
    head = np.array([leaf.doc_count_all(), len(keys), len(every_id), every_weight.itemsize, len(table),
                     len(key_blob), len(field_blob)], np.int64)
    return [MAGIC, head.data, table.data, key_starts.data, starts.data, every_id.data,
            bytes(_aligned(every_id.nbytes) - every_id.nbytes), every_weight.data, key_blob, field_blob]


def _aligned(size: int) -> int:
    return size + (-size % 8)


def load(path: Path, docs: int) -> Packed | None:
    """The packed file at ``path`` mapped in place, or ``None`` if there is none, it is not one,
    or it was made for a segment of another size than ``docs`` documents."""
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size < len(MAGIC) + 8 * _HEAD:
                return None
            view = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError:
        return None
    if view[:len(MAGIC)] != MAGIC:
        return None
    at = len(MAGIC)
    count, words, total, width, places, keys_len, fields_len = (
        int(x) for x in np.frombuffer(view, np.int64, _HEAD, at))
    at += 8 * _HEAD
    need = at + 8 * (places + 2 * (words + 1)) + _aligned(4 * total) + width * total + keys_len + fields_len
    if count != docs or width not in (4, 8) or places < 1 or places & (places - 1) or len(view) != need:
        return None
    whole = memoryview(view)
    table = whole[at:at + 8 * places].cast("q")
    at += 8 * places
    key_starts = whole[at:at + 8 * (words + 1)].cast("q")
    at += 8 * (words + 1)
    starts = np.frombuffer(view, np.int64, words + 1, at)
    at += 8 * (words + 1)
    ids = np.frombuffer(view, np.int32, total, at)
    at += _aligned(4 * total)
    weights: npt.NDArray[np.floating[Any]] = np.frombuffer(view, np.float32 if width == 4 else np.float64, total, at)
    at += width * total
    keys = whole[at:at + keys_len]
    fields = bytes(whole[at + keys_len:at + keys_len + fields_len]).decode()
    return Packed(docs, frozenset(fields.split("\x00")) if fields else frozenset(), table, key_starts, keys,
                  starts, ids, weights)


def prepare(ix: Any, fields: Iterable[str]) -> None:
    """Write the packed file of every segment of the whoosh index ``ix`` that has none (called
    after each commit). Written whole to a temporary name (a leading dot: whoosh leaves it
    alone), then renamed: a reader sees a complete file or none. The name is the segment's name
    and a suffix, which whoosh's clean-up of a new generation takes for one of that segment's
    files: it is removed with its segment (a reader still holding its map keeps it). A file that
    cannot be written (a full disk) leaves its segment unpacked: the commit stands, and readers
    decode that segment's blocks as before."""
    wanted = tuple(fields)
    index_dir = Path(ix.storage.folder)
    reader = ix.reader()
    try:
        for leaf, _offset in reader.leaf_readers():
            segment = leaf.segment()
            if segment is None:
                continue
            name = str(segment.segment_id())
            target = path_for(index_dir, name)
            if target.exists():
                continue
            temporary = index_dir / f".{name}.{secrets.token_hex(4)}.tmp"
            try:
                with open(temporary, "wb") as out:
                    out.writelines(pack(leaf, wanted))
                os.replace(temporary, target)
            except OSError:
                temporary.unlink(missing_ok=True)
    finally:
        reader.close()
