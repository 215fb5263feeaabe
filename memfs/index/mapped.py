"""Whoosh's segment files read in place from their memory map, not copied into the process.

whoosh3 opens every file of a compound segment (``*.seg``: postings, terms, stored records,
length columns) as a ``BufferFile`` over a slice of the segment's memory map, and that
``BufferFile`` wraps the slice in an ``io.BytesIO``, which copies it. So every open index held a
private copy of the whole index (39 MB at 30,000 memories, ~130 MB at 100,000: a third of the
live server's memory), made again at every reopen after a write and by every writer's commit,
and the copy touched every page of the map too. :class:`MappedFile` reads the slice where it is:
the pages a search touches are the only ones resident, and they are the page cache's, shared and
reclaimable. whoosh3 is pinned exactly; a test checks that an opened segment file is a
:class:`MappedFile` and that reads through it equal reads of the file's bytes.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from whoosh.filedb.structfile import BufferFile

#: the most bytes :meth:`Window.peek` returns (the unpickler asks for 128 KB; a posting block's
#: header pickle is tens of bytes, and a longer pickle is read on with ``read``)
PEEK_BYTES = 512


class Window:
    """A read-only, seekable file over a ``memoryview``: what ``BytesIO`` offers whoosh's readers
    (``read``, ``readline``, ``seek``, ``tell``), without the copy."""

    __slots__ = ("_buf", "_pos")

    def __init__(self, buf: memoryview) -> None:
        self._buf: memoryview | None = buf
        self._pos = 0

    def _view(self) -> memoryview:
        if self._buf is None:
            raise ValueError("I/O operation on closed file")
        return self._buf

    def read(self, size: int | None = -1) -> bytes:
        buf = self._view()
        start = self._pos
        end = len(buf) if size is None or size < 0 else min(start + size, len(buf))
        if end <= start:
            return b""
        self._pos = end
        return buf[start:end].tobytes()

    def peek(self, size: int = 0) -> bytes:
        """Bytes from the position on, at least one unless at the end, without moving: what
        ``BufferedReader.peek`` offers. The C unpickler reads a pickle from a file with ``peek``
        in two calls (the bytes ahead, then a read of what it used) where it otherwise calls
        ``read`` once per opcode (~20 a posting block's header)."""
        buf = self._view()
        return buf[self._pos:self._pos + min(max(size, 1), PEEK_BYTES)].tobytes()

    def readline(self, size: int | None = -1) -> bytes:
        buf = self._view()
        start = self._pos
        limit = len(buf) if size is None or size < 0 else min(start + size, len(buf))
        end = start
        while end < limit:
            chunk = buf[end:min(end + 4096, limit)].tobytes()
            found = chunk.find(b"\n")
            if found >= 0:
                end += found + 1
                break
            end += len(chunk)
        self._pos = end
        return buf[start:end].tobytes()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: len(self._view())}[whence]
        if base + offset < 0:
            raise ValueError(f"negative seek position {base + offset}")
        self._pos = base + offset
        return self._pos

    def tell(self) -> int:
        self._view()
        return self._pos

    def close(self) -> None:
        self._buf = None


class MappedFile(BufferFile):
    """whoosh's ``BufferFile`` reading its buffer in place (:class:`Window`) instead of a copy."""

    def __init__(self, buf: Any, name: str | None = None, onclose: Any = None) -> None:
        self._buf = buf
        self._name = name
        window: Any = Window(buf if isinstance(buf, memoryview) else memoryview(buf))
        self.file = window
        self.onclose = onclose
        self.is_real = False
        self.is_closed = False


@functools.cache
def read_in_place() -> None:
    """Make whoosh's compound storage open its files as :class:`MappedFile` (once per process,
    by the first index opened or written)."""
    from whoosh.filedb import compound

    storage: Any = compound  # whoosh3 does not export the name it looks up
    storage.BufferFile = MappedFile
