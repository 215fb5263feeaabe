"""What changed in the work tree since the last ``git status``, kept between queries, so a
long-lived repository object (the library, MCP, the adapters) asks git about the changed paths
alone instead of running a whole-tree ``git status`` (an lstat of every tracked file: 29 of
30 ms of a search at 10k memories) on every query.

:class:`TreeWatch` is an inotify instance (Linux, through :mod:`ctypes`) with a watch on every
folder of the work tree. The kernel queues an event as the change is made, before the writing
call returns, so reading the queue at query time sees every change made before the query: no
thread, no delay, no race. Any event it cannot turn into a list of changed files makes it
answer "unknown" (``None``), and the caller runs the whole-tree ``git status`` again: a queue
overflow, a folder created, deleted or moved (its files are not watched yet), a ``.gitignore``
or ``.gitattributes`` changed, a watched folder gone. What git itself reads besides the work tree (HEAD, the branch,
``packed-refs``, the index, ``info/exclude``, the configuration and the global ignore file) is
compared by file identity (:func:`git_identity`) instead: git replaces these files by renaming
a new one over the old, so their identity changes with every update.

Nothing done inside a folder git ignores changes what git says: ``git status --ignored=matching``
lists such a folder (``drafts/``) whole, empty or not, and its removal is an event on its parent. Used only on file
systems whose events are local (:data:`LOCAL_FILE_SYSTEMS`); elsewhere, and without inotify,
there is no watch and every probe is whole.
"""

from __future__ import annotations

import errno
import functools
import os
import struct
import sys
import weakref
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000
MASK = (IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
        | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)
#: events that mean this watch no longer sees everything
_LOST = IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF
_EVENT = struct.Struct("iIII")
#: ``statfs`` magic numbers of file systems whose every change raises an inotify event here
#: (ext2-4, xfs, btrfs, tmpfs, overlayfs, zfs, f2fs): not NFS, SMB, FUSE or 9p, where a change
#: made by another machine or by the host raises none.
LOCAL_FILE_SYSTEMS = frozenset({0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0x794C7630, 0x2FC12FC1, 0xF2F52010})
#: the most watches one repository takes (one per folder); more and every probe is whole
MAX_FOLDERS = 20_000
#: open watches in this process at most (the user's limit is often 128 instances, shared)
MAX_OPEN = 8
_open_count = 0
#: the watches open in this process, for :func:`close_all`
_opened: weakref.WeakSet[TreeWatch] = weakref.WeakSet()


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library with inotify, loaded when a watch is first opened. ``libc.so.6`` (glibc) is
    tried first: :func:`ctypes.util.find_library` runs ``ldconfig -p``, a process of its own, which
    every memfs command paid at import when it was asked first; :mod:`ctypes` itself is imported
    here too, so a command that opens no watch (a CLI ``sync``) does not load it."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import ctypes.util

    for name in ("libc.so.6", None):
        try:
            libc = ctypes.CDLL(name or ctypes.util.find_library("c"), use_errno=True)
            libc.inotify_init1, libc.inotify_add_watch, libc.statfs  # noqa: B018
        except (OSError, AttributeError, TypeError):
            continue
        return libc
    return None


def _local(path: Path) -> bool:
    """Whether ``path`` lies on a file system in :data:`LOCAL_FILE_SYSTEMS`."""
    libc = _libc()
    assert libc is not None
    import ctypes

    buf = ctypes.create_string_buffer(256)
    if libc.statfs(os.fsencode(path), buf) != 0:
        return False
    return struct.unpack_from("l", buf.raw)[0] & 0xFFFFFFFF in LOCAL_FILE_SYSTEMS


class TreeWatch:
    """Watches on every folder of a work tree (``.git`` aside); :meth:`changes` says which paths
    changed since the last call, or ``None`` when it cannot tell (then close it and open anew)."""

    def __init__(self, fd: int, workdir: Path) -> None:
        self.fd = fd
        self.workdir = workdir
        self.folders: dict[int, str] = {}
        self.lost = False

    @classmethod
    def open(cls, workdir: Path) -> TreeWatch | None:
        """A watch on every folder under ``workdir``, or ``None`` when there is no inotify, the
        file system's events may be missed, or the folders are too many."""
        global _open_count
        libc = _libc()
        if libc is None or _open_count >= MAX_OPEN or not _local(workdir):
            return None
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None
        watch = cls(fd, workdir)
        _open_count += 1
        _opened.add(watch)
        if not watch._add_all():
            watch.close()
            return None
        return watch

    def _add_all(self) -> bool:
        libc = _libc()
        assert libc is not None
        top = os.fsencode(self.workdir)
        unreadable: list[OSError] = []
        for folder, dirs, _files in os.walk(top, onerror=unreadable.append):
            dirs[:] = [d for d in dirs if not (folder == top and d == b".git")]
            wd = libc.inotify_add_watch(self.fd, folder, MASK)
            if wd < 0 or len(self.folders) >= MAX_FOLDERS:
                return False
            rel = os.fsdecode(os.path.relpath(folder, top))
            self.folders[wd] = "" if rel == "." else rel + "/"
        return not unreadable

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        global _open_count
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            _open_count -= 1

    def changes(self, ignored: Iterable[str]) -> set[str] | None:
        """Work-tree paths (git paths) changed since the last call, or ``None`` when some change
        may be missed or is not a file's. ``ignored``: the folders ``git status`` last listed as
        ignored (``drafts/``); changes inside them change nothing git says and are not reported."""
        if self.fd < 0 or self.lost:
            return None
        folders = tuple(f for f in ignored if f.endswith("/"))
        changed: set[str] = set()
        for wd, mask, name in self._events():
            folder = self.folders.get(wd)
            if mask & IN_Q_OVERFLOW or folder is None:
                self.lost = True
                return None
            path = folder + name
            if folders and path.startswith(folders):
                continue
            if mask & (_LOST | IN_ISDIR) or name in (".gitignore", ".gitattributes"):
                self.lost = True
                return None
            changed.add(path)
        return changed

    def _events(self) -> list[tuple[int, int, str]]:
        data = b""
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                self.lost = True
                break
            if not chunk:
                break
            data += chunk
        events = []
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size
            name = data[offset : offset + length].rstrip(b"\0")
            offset += length
            events.append((wd, mask, os.fsdecode(name)))
        return events


def close_all() -> None:
    """Close every watch open in this process. A watch is closed when its repository object is
    collected, which for an object caught in a reference cycle waits for the garbage collector:
    until then it counts against :data:`MAX_OPEN`, and a repository opened meanwhile gets no
    watch (every probe whole). A caller that is done with its repositories (a test, after it)
    closes them here; a repository still in use probes the whole tree once and watches anew."""
    for watch in list(_opened):
        watch.close()


_CONFIG_VARIABLES = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_PARAMETERS",
                     "GIT_CONFIG_COUNT")


def git_identity(git_dir: Path) -> tuple[object, ...] | None:
    """The identity of everything besides the work tree that decides what ``git status`` says:
    HEAD, the branch it names, ``packed-refs``, the index, ``info/exclude``, the repository's
    and the user's configuration and global ignore file. ``None`` for a linked work tree (its
    refs live elsewhere), where the caller keeps nothing."""
    if (git_dir / "commondir").exists():
        return None
    try:
        head = (git_dir / "HEAD").read_bytes()
    except OSError:
        return None
    names = [*_identity_files(str(git_dir), os.environ.get("HOME"), os.environ.get("XDG_CONFIG_HOME"))]
    if head.startswith(b"ref: "):
        names.append(os.path.join(git_dir, os.fsdecode(head[5:].strip())))
    env = [os.environ.get(name) for name in _CONFIG_VARIABLES]
    if env[-1]:
        count = int(env[-1]) if env[-1].isdigit() else 0
        env += [os.environ.get(f"GIT_CONFIG_{kind}_{i}") for i in range(count) for kind in ("KEY", "VALUE")]
    return (head, *env, *(_identity(name) for name in names))


#: files :func:`git_identity` compares besides the branch's ref (the index first)
_NAMES = 10


@functools.lru_cache(maxsize=64)
def _identity_files(git_dir: str, home_var: str | None, xdg_var: str | None) -> tuple[str, ...]:
    """The files of :func:`git_identity` besides the branch's ref, for a git directory and the
    ``HOME`` and ``XDG_CONFIG_HOME`` in force (joined once, not at every probe)."""
    home = home_var if home_var is not None else "/nonexistent"
    xdg = xdg_var or os.path.join(home, ".config")
    join = os.path.join
    names = (join(git_dir, "index"), join(git_dir, "packed-refs"), join(git_dir, "info", "exclude"),
             join(git_dir, "info", "attributes"), join(git_dir, "config"), join(home, ".gitconfig"),
             join(xdg, "git", "config"), join(xdg, "git", "ignore"), join(xdg, "git", "attributes"), "/etc/gitconfig")
    assert len(names) == _NAMES
    return names


def committed_over(before: tuple[object, ...], after: tuple[object, ...], index: tuple[int, int, int, int]) -> bool:
    """Whether ``after`` differs from ``before`` (both :func:`git_identity` of a repository on a
    branch) only as a commit on that branch changes them: the branch's ref file, and the index
    file, which must be the very file ``index`` describes (device, inode, size, mtime: the one the
    committer installed; any later rewrite is a new inode). Everything else must be identical."""
    if len(before) != len(after) or not (isinstance(before[0], bytes) and before[0].startswith(b"ref: ")):
        return False
    at = len(after) - _NAMES - 1
    found = after[at]
    if not isinstance(found, tuple) or found[:4] != index:
        return False
    return before[:at] == after[:at] and before[at + 1 : -1] == after[at + 1 : -1]


def _identity(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
