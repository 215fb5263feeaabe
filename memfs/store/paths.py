"""Which files are memories, keeping every path inside the memory root, and reading them safely.

A memory is any ``*.md`` file under the root except ``README.md`` files, paths matched by
``.memfsignore`` (gitignore syntax), and anything under a dot-directory (``.git/``, ``.memfs/``,
``.github/``...) or named with a leading dot (editor and atomic-write temporaries).

A memory is also a *plain* file in *plain* folders: no symlink anywhere below the root, never a
FIFO, socket or device, and never a hard link (a file with more than one name: its other name
may be outside the root, so it is refused like a symlink). Git stores a symlink as a link (the
target's path), not what it points to, so a symlinked memory is never what git has: its history,
diffs and reverts would be about the link while memfs read and wrote the target, which may be ``.git/``, another user's
file, ``/dev/zero`` or a FIFO that blocks every reader. So :func:`confine` refuses a path with a
symlink anywhere below the root (the file itself included) or that resolves into ``.git/``,
``.memfs/`` or out of the root, and :func:`read_file`, the one function that reads a memory file
from the working tree, opens it without following any link and reads at most
:data:`MAX_READ_BYTES` of a regular file.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import posixpath
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from memfs.errors import PathError
from memfs.format import names
from memfs.format.model import Problem

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".memfsignore"
CACHE_DIR = ".memfs"
#: The most bytes memfs reads of one memory file. Memories are notes, not documents: the file
#: tools write at most 100 KB, and a 1 MB file is already far over any context budget. A bigger
#: file is reported as unreadable, like a file that does not parse, and never read whole (a
#: runaway or hostile file cannot exhaust memory or stall a search).
MAX_READ_BYTES = 1_000_000


def ignore_spec(root: Path) -> GitIgnoreSpec | None:
    """The compiled ``.memfsignore`` of ``root`` (``None`` without one); compiled once per version
    of the file, since every path check in a bulk operation asks for it."""
    ignore = root / IGNORE_FILE
    try:
        st = ignore.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return _compiled(str(ignore), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _compiled(path: str, mtime_ns: int, size: int) -> GitIgnoreSpec:
    import pathspec

    with open(path, encoding="utf-8") as handle:
        return pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines())


def is_memory_name(rel: str) -> bool:
    """Whether a root-relative path names a memory by its shape alone (no ignore file)."""
    parts = rel.split("/")
    return rel.endswith(".md") and parts[-1] != "README.md" and not any(p.startswith(".") for p in parts)


def iter_memory_paths(root: Path, linked_folders: list[str] | None = None, under: str = "") -> Iterator[str]:
    """Root-relative paths of every memory-named entry, sorted, following no symlinked folder.

    Memory-named entries that are not plain files (symlinks, FIFOs, sockets, devices) are listed
    too, so that the readers report them (:func:`read_file` refuses them) instead of skipping them
    silently. Symlinked folders are not entered; their paths are appended to ``linked_folders``
    when it is given, for readers that report them. ``under`` (a root-relative folder) walks only
    that folder; nothing when it is not a real folder of the root (a symlink on the way, a
    hidden folder, a file).
    """
    spec = ignore_spec(root)
    found: list[str] = []
    links: list[str] = []
    top = root
    for part in under.strip("/").split("/") if under.strip("/") else ():
        top = top / part
        if part.startswith(".") or part == ".." or top.is_symlink() or not top.is_dir():
            return
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for name in filenames:
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_memory_name(rel):
                found.append(rel)
        if linked_folders is not None:
            links.extend(
                d if rel_dir == "." else f"{rel_dir}/{d}" for d in dirnames if os.path.islink(os.path.join(dirpath, d))
            )
    if spec is not None:
        found = [p for p in found if not spec.match_file(p)]
        links = [p for p in links if not spec.match_file(p + "/")]
    if linked_folders is not None:
        linked_folders.extend(sorted(links))
    yield from sorted(found, key=sort_key)


def sort_key(rel: str) -> tuple[int, str]:
    """``system/`` first, then everything else, each by path."""
    return (0 if rel.startswith("system/") else 1, rel)


def is_ignored(root: Path, rel: str) -> bool:
    spec = ignore_spec(root)
    return spec is not None and spec.match_file(rel)


def _fully_unquoted(text: str) -> str:
    """``text`` URL-decoded until it stops changing, so double encoding (``%252e``) is seen too."""
    for _ in range(5):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text


@dataclass
class Checked:
    """What one operation (a transaction, under the write lock) already found by :func:`confine`,
    so a retraction of a thousand files in a few folders checks each folder once: the folders
    that are plain folders (not a symlink, not ``.git/`` or ``.memfs/`` by identity), the special
    folders' identities, and the spelling checks of the paths already named (NFC paths only: one
    that is not NFC is judged by what is on disk). The last entry of a path is looked at every
    time. Only for the span of one operation: a folder replaced by a symlink later is seen by the
    next one."""

    folders: set[str] = field(default_factory=set)
    special: dict[tuple[int, int], str] | None = None
    spelled: dict[tuple[str, bool], str] = field(default_factory=dict)


def confine(
    root: Path, path: str | os.PathLike[str], *, must_be_memory: bool = True, git_dir: Path | None = None,
    checked: Checked | None = None,
) -> str:
    """The root-relative POSIX form of ``path``, or :class:`PathError` if it is not a path memfs may
    read or write.

    Refused by spelling (:func:`lexical_rel`), then by what the path *is*: a symlink anywhere
    below the root (a folder or the file itself; see the module docstring), a path that resolves
    outside the root or into the root's ``.git/`` or ``.memfs/``, and a folder on the way that
    *is* the git directory (``git_dir``, wherever it lives) or one of those two (the same folder
    by device and inode, however it is spelled). What the final entry is (a FIFO, a device) is
    checked when it is read (:func:`read_file`), so every reader reports it the same way.
    """
    text = os.fspath(path)
    rel = None if checked is None else checked.spelled.get((text, must_be_memory))
    if rel is None:
        rel = lexical_rel(root, text, must_be_memory=must_be_memory)
        if checked is not None and names.nfc(text) == text:
            checked.spelled[(text, must_be_memory)] = rel
    _walk_checked(root, rel, text, git_dir, checked)
    return rel


def lexical_rel(root: Path, path: str | os.PathLike[str], *, must_be_memory: bool = True) -> str:
    """The root-relative POSIX form of ``path`` judged by its spelling alone, or :class:`PathError`.

    Relative paths are taken relative to the memory root. Refused: NUL bytes, URL-encoded
    traversal, ``..`` that escapes, absolute paths elsewhere, anything under ``.git/`` or
    ``.memfs/``, names :func:`memfs.format.names.path_problem` refuses, and (by default) names
    that are not memories. The path is taken in Unicode NFC, unless only the form as given exists
    on disk (a file named on a system that decomposes). Only for callers that go on to *report*
    what is there (validation of the files a hook names); everything else uses :func:`confine`.
    """
    text = _normal_form(root, os.fspath(path))
    if "\x00" in text:
        raise PathError(f"{text!r}: a path may not contain a NUL byte")
    decoded = _fully_unquoted(text)
    if decoded != text and (
        ".." in decoded.replace("\\", "/").split("/") or "\x00" in decoded or decoded.startswith("/")
    ):
        raise PathError(f"{text}: URL-encoded traversal is not accepted; write the path plainly")
    candidate = Path(text) if os.path.isabs(text) else root / text
    lexical = os.path.normpath(os.path.abspath(candidate))
    rel_lexical = os.path.relpath(lexical, os.path.abspath(root))
    if rel_lexical == ".." or rel_lexical.startswith(".." + os.sep) or os.path.isabs(rel_lexical):
        raise PathError(f"{text}: is outside the memory root")
    rel = posixpath.normpath(rel_lexical.replace(os.sep, "/"))
    _refuse_special_name(rel, text)
    if must_be_memory and not is_memory_name(rel):
        raise PathError(f"{text}: is not a memory file (memories are *.md files, not README.md, not hidden)")
    why = None if rel == "." else names.path_problem(rel)
    if why:
        raise PathError(f"{text!r}: {why}")
    return rel


def _normal_form(root: Path, text: str) -> str:
    """``text`` in NFC, so one name typed two ways is one file; as given if only that exists."""
    normal = names.nfc(text)
    if normal != text and not os.path.lexists(root / normal) and os.path.lexists(root / text):
        return text
    return normal


def _refuse_special_name(rel: str, text: str) -> None:
    first = rel.split("/")[0]
    if first in (".git", CACHE_DIR):
        raise PathError(f"{text}: files under {first}/ are not memories and may not be touched")


LINK_FIX = (
    "replace the link with the real file or folder: git keeps a symlink as a link, not what it points "
    "to, so memfs reads and writes only plain files and folders"
)


def _walk_checked(root: Path, rel: str, text: str, git_dir: Path | None, checked: Checked | None = None) -> None:
    """One ``lstat`` per existing entry of ``rel`` below ``root``: :class:`PathError` if one is a
    symlink (so nothing below the root can lead out of it: with the spelling checked, the path
    then resolves where it is written) or is the git directory or the cache folder by identity
    (device and inode), whatever its name: a case-insensitive file system's ``.GIT``, a bind
    mount, a git directory kept inside the root under another name."""
    if rel == ".":
        return
    if checked is None or checked.special is None:
        special = _special_folders(root, git_dir)
        if checked is not None:
            checked.special = special
    else:
        special = checked.special
    here = str(root)
    parts = rel.split("/")
    last = len(parts) - 1
    for i, part in enumerate(parts):
        here = os.path.join(here, part)
        if checked is not None and i < last and here in checked.folders:
            continue
        try:
            st = os.lstat(here)
        except (FileNotFoundError, NotADirectoryError):
            return
        if stat.S_ISLNK(st.st_mode):
            shown = "/".join(parts[: i + 1])
            what = "is a symlink" if shown == rel else f"goes through the symlink {shown}"
            raise PathError(f"{text}: {what}; {LINK_FIX}")
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            raise PathError(f"{text}: {_hard_link(rel, st.st_nlink)}")
        found = special.get((st.st_dev, st.st_ino))
        if found is not None:
            raise PathError(f"{text}: is inside {found}, which holds no memories and may not be touched")
        if not stat.S_ISDIR(st.st_mode):
            return
        if checked is not None and i < last:
            checked.folders.add(here)


def _hard_link(rel: str, count: int) -> Unreadable:
    fix = ("replace it with a copy of its own (cp it, remove it, rename the copy): a hard link shares its "
           "content with a file memfs does not see, perhaps outside the memory root")
    return Unreadable(rel, f"is a hard link ({count} names share its content)", fix)


def _special_folders(root: Path, git_dir: Path | None) -> dict[tuple[int, int], str]:
    special: dict[tuple[int, int], str] = {}
    for folder, name in ((root / ".git", ".git/"), (root / CACHE_DIR, CACHE_DIR + "/"), (git_dir, "the git directory")):
        if folder is None:
            continue
        try:
            st = os.stat(folder)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            special.setdefault((st.st_dev, st.st_ino), name)
    return special


@dataclass(frozen=True)
class Unreadable:
    """Why an entry with a memory's name cannot be read as one: what it is, and what to do."""

    rel: str
    what: str
    fix: str

    def __str__(self) -> str:
        return f"{self.what}; {self.fix}"

    def error(self) -> PathError:
        return PathError(f"{self.rel}: {self}")

    def problem(self) -> Problem:
        return Problem(self.rel, None, self.what, self.fix)


_OPEN_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused after fstat, unread).
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def read_file(root: Path, rel: str, *, limit: int | None = MAX_READ_BYTES) -> bytes | Unreadable | None:
    """The bytes of the memory file at root-relative ``rel``: ``None`` if nothing (or a folder) is
    there, :class:`Unreadable` if something is there that memfs does not read.

    Every folder is opened relative to the one before it and the file relative to its folder,
    none of them following a symlink, and the opened file is checked with ``fstat`` before a
    byte is read: what was checked is what is read, even if the tree changes meanwhile. Refused:
    a symlink at any level, anything but a regular file (FIFOs are opened without blocking and
    never read), and files over ``limit`` bytes (read no further than that; ``None`` reads a
    regular file whole, for the few readers that must see every byte of any file).
    """
    return _read(root, rel, limit)[0]


#: what a memory file's ``fstat`` said when its bytes were read: (device, inode, mode, size,
#: mtime_ns, ctime_ns). Any write, rename onto the path, ``chmod`` or ``touch`` changes the ctime
#: (which no program can set back), a replacement file has another inode: an equal signature
#: means the same bytes, provided the times were not too recent to tell (:func:`read_signed`).
Signature = tuple[int, int, int, int, int, int]
#: a file changed less than this before a look at its stat is not known by that stat: a write in
#: the same timestamp tick would not show in its times (git's "racy" entries). One margin for every
#: stat-keyed cache: signatures here, the catalog (:mod:`memfs.store.catalog`) and the index's
#: catch-up (:mod:`memfs.index.catchup`).
RACY_NS = 2_000_000_000


def read_signed(root: Path, rel: str) -> tuple[bytes | Unreadable | None, Signature | None]:
    """:func:`read_file`, and the :data:`Signature` of the bytes read when it can tell a later
    change (:func:`signed_unchanged`): taken by the ``fstat`` before the first byte is read, so a
    write while reading changes the ctime after it and shows; ``None`` for a file whose mtime or
    ctime is within :data:`RACY_NS` of the clock read before that ``fstat`` (after
    the read, a slow one would widen the margin by its length), and for anything that is not read."""
    before = time.time_ns()
    found, st = _read(root, rel, MAX_READ_BYTES)
    if not isinstance(found, bytes) or st is None:
        return found, None
    return found, _signature(st, before)


def _signature(st: os.stat_result, before: int) -> Signature | None:
    if max(st.st_mtime_ns, st.st_ctime_ns) >= before - RACY_NS:
        return None
    return (st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def signed_unchanged(root: Path, rel: str, signature: Signature) -> bool:
    """Whether the file at root-relative ``rel`` is still the one :func:`read_signed` read with
    ``signature``, by ``lstat`` alone (no byte read): every folder on the way is a folder (no
    symlink) that this process may open and enter as :func:`read_file` does (a ``chmod`` of a
    folder moves its ctime, not the file's), the file a regular file with one link, within
    :data:`MAX_READ_BYTES`, whose device, inode, mode, size, mtime and ctime are the signed ones.
    So :func:`read_file` would read those same bytes now: a reader may use what it derived from
    them instead."""
    here = str(root)
    parts = rel.split("/")
    try:
        if not os.access(here, os.R_OK | os.X_OK):
            return False
        for part in parts[:-1]:
            here = os.path.join(here, part)
            if not stat.S_ISDIR(os.lstat(here).st_mode) or not os.access(here, os.R_OK | os.X_OK):
                return False
        st = os.lstat(os.path.join(here, parts[-1]))
    except OSError:
        return False
    return (stat.S_ISREG(st.st_mode) and st.st_nlink == 1 and st.st_size <= MAX_READ_BYTES
            and (st.st_dev, st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns) == signature)


def _read(root: Path, rel: str, limit: int | None) -> tuple[bytes | Unreadable | None, os.stat_result | None]:
    """:func:`read_file`, and the ``fstat`` of the file read (``None`` when none was)."""
    if not names.is_utf8(rel):
        return Unreadable(names.shown(rel), "has a name that is not valid UTF-8, so memfs cannot index or show it",
                          "rename the file to a UTF-8 name"), None
    looks = names.look_alike(rel)
    if looks is not None:
        return Unreadable(rel, looks.removesuffix("; pick another name"), "rename the file or its folder"), None
    parts = rel.split("/")
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            try:
                child = os.open(part, _OPEN_FILE if last else _OPEN_FOLDER, dir_fd=fd)
            except FileNotFoundError:
                return None, None
            except OSError as exc:
                return _why_not(fd, part, rel, "/".join(parts[: i + 1]), exc), None
            os.close(fd)
            fd = child
        st = os.fstat(fd)
        return _read_regular(fd, st, rel, limit), st
    finally:
        os.close(fd)


def _why_not(folder: int, name: str, rel: str, shown: str, exc: OSError) -> Unreadable | None:
    """What an entry that could not be opened is (a symlink, a socket...), or ``None`` if it is a
    plain file in the way of a folder (nothing with that path exists)."""
    try:
        mode = os.lstat(name, dir_fd=folder).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        what = "is a symlink" if shown == rel else f"is under the symlink {shown}"
        return Unreadable(rel, what, LINK_FIX)
    if shown != rel and not stat.S_ISDIR(mode):
        return None
    kind = next((label for test, label in _KINDS if test(mode)), None)
    if kind is not None:
        return _special(rel, kind)
    if exc.errno in (errno.EACCES, errno.EPERM):
        return Unreadable(rel, "cannot be read (permission denied)", "let the user running memfs read it")
    return Unreadable(rel, f"cannot be opened ({exc.strerror})", "check the file and its folders")


def _special(rel: str, kind: str) -> Unreadable:
    fix = "remove it or move it out of the memory root: memories are plain files"
    return Unreadable(rel, f"is {kind}, not a regular file", fix)


def _read_regular(fd: int, st: os.stat_result, rel: str, limit: int | None) -> bytes | Unreadable | None:
    if stat.S_ISDIR(st.st_mode):
        return None
    if not stat.S_ISREG(st.st_mode):
        kind = next((label for test, label in _KINDS if test(st.st_mode)), "not a regular file")
        return _special(rel, kind)
    if st.st_nlink > 1:
        return _hard_link(rel, st.st_nlink)
    if limit is None:
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    if st.st_size > limit:
        return _too_big(rel, st.st_size, limit)
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, limit + 1 - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        return _too_big(rel, size, limit, grew=True)
    return b"".join(chunks)


def _too_big(rel: str, size: int, limit: int, *, grew: bool = False) -> Unreadable:
    shown = f"more than {limit:,}" if grew else f"{size:,}"
    return Unreadable(
        rel,
        f"is {shown} bytes, over the {limit:,}-byte limit for a memory file, so it is not read",
        "split it into smaller memories or move it out of the memory root",
    )


def is_plain_file(root: Path, rel: str) -> bool:
    """Whether a regular file is at root-relative ``rel`` with no symlink on the way (by ``lstat``;
    for existence checks: reading it may still refuse it, e.g. for its size)."""
    modes = _modes_on_the_way(root, rel)
    return modes is not None and stat.S_ISREG(modes[-1])


def is_plain_folder(root: Path, rel: str) -> bool:
    """Whether a folder is at root-relative ``rel`` with no symlink on the way (by ``lstat``)."""
    modes = _modes_on_the_way(root, rel)
    return modes is not None and all(stat.S_ISDIR(mode) for mode in modes)


def _modes_on_the_way(root: Path, rel: str) -> list[int] | None:
    """The ``lstat`` modes of each part of root-relative ``rel``, down to it; ``None`` when a
    part is missing, unreadable or a symlink."""
    here = str(root)
    modes = []
    for part in rel.split("/"):
        here = os.path.join(here, part)
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return None
        if stat.S_ISLNK(mode):
            return None
        modes.append(mode)
    return modes


def stat_memory_files(root: Path) -> dict[str, tuple[int, int]]:
    """``rel -> (mtime_ns, size)`` of every memory file (the rules of :func:`iter_memory_paths`), by
    one ``scandir`` walk: what the search index compares with its snapshot to find changed files.
    A symlink's own stats are taken, never its target's (it is not read: :func:`read_file`)."""
    found: dict[str, tuple[int, int]] = {}
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, prefix + name + "/"))
                    elif name.endswith(".md") and name != "README.md":
                        st = entry.stat(follow_symlinks=False)
                        found[prefix + name] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue
    spec = ignore_spec(root)
    if spec is not None:
        found = {rel: st for rel, st in found.items() if not spec.match_file(rel)}
    return found


def file_identity(path: Path) -> tuple[int, int, int]:
    """(inode, mtime, size) of ``path``: what tells one version of a cache file from the next, so
    its parsed copy can be kept in memory while the file is unchanged. Raises :class:`OSError`."""
    st = path.stat()
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def ensure_cache(cache: Path) -> None:
    """Create the ``.memfs`` cache folder, with a ``.gitignore`` that keeps it out of git."""
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        with contextlib.suppress(OSError):
            ignore.write_text("# memfs caches (search index, write-path catalog): rebuilt from the files at will\n*\n")
