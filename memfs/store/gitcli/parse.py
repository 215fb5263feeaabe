"""Git's output read, and paths written as git should read them: no process is started here.

Paths git lists are read NUL-separated, never C-quoted; paths given to git are ``:(literal)``
pathspecs (:func:`literal`). The records memfs keeps of git's answers (:class:`Commit`,
:class:`Committed`, :class:`Probe`) are defined here with their parsers.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str
    email: str
    time: str
    subject: str
    body: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Committed:
    """A commit memfs made: its id, its parents, and the paths it may have changed against them
    (``None``: git committed the whole index, so other staged paths may be in it too)."""

    sha: str
    parents: tuple[str, ...]
    paths: tuple[str, ...] | None


@dataclass(frozen=True)
class Probe:
    """What one ``git status`` says about a path: HEAD, and every changed, untracked or ignored
    path under it (``ignored``: those git ignores, also in ``listed``). Equal probes plus equal
    file stats mean nothing changed in between."""

    head: str | None
    listed: tuple[str, ...]
    ignored: tuple[str, ...] = ()
    #: Whether the index differs from HEAD for some path under it (staged or unmerged).
    staged: bool = False


Untracked = Literal["no", "all"]


def blob_id(data: bytes, like: str) -> str:
    """The id git gives a blob of ``data``, in the hash of the id ``like`` (SHA-1, or SHA-256 in a
    repository made with ``--object-format=sha256``)."""
    digest = hashlib.sha256() if len(like) == 64 else hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def nul_list(out: str) -> list[str]:
    return [entry for entry in out.split("\0") if entry]


def literal(*paths: str) -> list[str]:
    """Paths as pathspecs that match exactly those paths: without ``:(literal)`` git reads
    ``notes/a[1].md`` as a pattern that also matches ``notes/a1.md``, and ``:x.md`` as ``x.md``."""
    return [f":(literal){path}" for path in paths]


def blobs(keys: Sequence[str], out: bytes) -> dict[str, bytes]:
    """``git cat-file --batch`` output for the requests ``keys``, in order: the blobs' contents by
    key. Every object's content is stepped over, whatever its type (a tree or commit answering a
    request is skipped, not read as the next header); missing objects have no content."""
    found: dict[str, bytes] = {}
    pos = 0
    for key in keys:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if header[1] == b"blob":
                found[key] = out[pos : pos + size]
            pos += size + 1
    return found


def commit_parents(raw: bytes) -> tuple[str, ...]:
    """The parents named by a loose commit object (header, NUL, then ``tree``/``parent`` lines);
    :class:`ValueError` if it is not a commit."""
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit "):
        raise ValueError("not a commit")
    parents = []
    for line in body.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[len(b"parent "):].decode("ascii"))
        elif not line.startswith(b"tree "):
            break
    if not all(is_sha(p) for p in parents):
        raise ValueError("bad parent")
    return tuple(parents)


def is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def porcelain_paths(out: str) -> list[str]:
    entries = out.split("\0")
    paths: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        if len(entry) > 3:
            paths.append(entry[3:])
            if entry[0] in "RC":
                paths.append(entries[i + 1])
                i += 1
        i += 1
    return paths


def probe(out: str) -> Probe:
    head = None
    listed: list[str] = []
    ignored: list[str] = []
    staged = False
    records = out.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if record.startswith("# branch.oid "):
            oid = record[len("# branch.oid ") :]
            head = None if oid == "(initial)" else oid
        elif record[:2] in ("? ", "! "):
            listed.append(record[2:])
            if record[0] == "!":
                ignored.append(record[2:])
        elif record.startswith("1 "):
            listed.append(record.split(" ", 8)[8])
            staged = staged or record[2] != "."
        elif record.startswith("2 "):
            listed.append(record.split(" ", 9)[9])
            listed.append(records[i])
            staged = staged or record[2] != "."
            i += 1
        elif record.startswith("u "):
            listed.append(record.split(" ", 10)[10])
            staged = True
    return Probe(head, tuple(listed), tuple(ignored), staged)


def file_identity(path: Path) -> tuple[int, ...] | None:
    """What changes whenever git rewrites a file (it writes a new one and renames it over the old):
    device, inode, size, mtime and ctime; ``None`` when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def log(out: str) -> list[Commit]:
    commits = []
    for record in out.split("\x1e")[1:]:
        sha, author, email, time, subject, body, files = record.split("\x1f", 6)
        names = tuple(f for f in files.strip("\n\0").split("\0") if f.strip("\n"))
        commits.append(Commit(sha, author, email, time, subject, body.strip(), tuple(n.strip("\n") for n in names)))
    return commits
