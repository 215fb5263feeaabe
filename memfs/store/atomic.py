"""Crash-safe file writes: a reader or a crash sees the old file or the new one, never half.

The new bytes go to a hidden temporary in the same directory (hidden, so scans and the watcher
ignore it), are fsynced, renamed over the target, and the directory is fsynced.

``MEMFS_FSYNC=0`` in the environment leaves out the flushes (``fsync``, ``sync``) and nothing
else, as ``GIT_TEST_FSYNC=0`` does for git's own tests: a write is still atomic, and survives a
killed process, but not a power cut. The test suite sets it (its crash tests kill processes; the
flushes were a large part of its waiting); :func:`durable` says whether flushes are made.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from memfs.store import crashpoint


def durable() -> bool:
    """Whether writes are flushed to disk: unless ``MEMFS_FSYNC=0`` (read at each write)."""
    return os.environ.get("MEMFS_FSYNC") != "0"


def _sync_all() -> None:
    if durable():
        os.sync()


def _fsync_dir(directory: Path) -> None:
    if not durable():
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically replace (or create) ``path`` with ``data``, keeping an existing file's mode."""
    _install(_write_temp(path, data, sync=True), path)


def _install(tmp: Path, path: Path, *, sync: bool = True) -> None:
    """Rename the written temporary ``tmp`` over ``path`` and, with ``sync``, make the rename
    durable; on failure the temporary is removed, never left behind."""
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    if sync:
        _fsync_dir(path.parent)


#: How every temporary's name ends; recovery removes the ones a journal lists.
TEMP_SUFFIX = ".memfs-tmp"


def temp_name(path: Path) -> Path:
    """A fresh hidden temporary name beside ``path`` (``.NAME.RANDOM.memfs-tmp``)."""
    return path.parent / f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}"


def _write_temp(
    path: Path, data: bytes, *, sync: bool, tmp: Path | None = None, folders: set[Path] | None = None
) -> Path:
    """A hidden temporary beside ``path`` (named ``tmp`` if given) holding ``data``, with
    ``path``'s mode. ``folders`` holds the folders a batch already made sure of (each once)."""
    if folders is None or path.parent not in folders:
        path.parent.mkdir(parents=True, exist_ok=True)
        if folders is not None:
            folders.add(path.parent)
    tmp = tmp or temp_name(path)
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if sync and durable():
                handle.flush()
                os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    return tmp


#: Above this many files, one ``os.sync`` replaces per-file ``fsync`` calls (a 1,000-file
#: retraction otherwise spends most of its time in 2,000 fsyncs).
BATCH_SYNC_THRESHOLD = 8


def write_many(contents: Mapping[Path, bytes | None], temps: Mapping[Path, Path] | None = None) -> None:
    """Atomically replace (``None``: delete) several files; durable when it returns.

    Each file is still replaced by rename, so readers never see half a file. Small batches fsync
    every file; large ones write every temporary first, ``os.sync()`` once, rename them all and
    sync again. A crash in between is covered by the caller's journal, which holds the bytes and,
    when the caller passes ``temps`` (target -> temporary, from :func:`temp_name`), the names of
    the temporaries, so the next command can remove any a kill left behind.
    """
    temps = temps or {}
    if len(contents) <= BATCH_SYNC_THRESHOLD:
        for path, data in contents.items():
            if data is None:
                remove(path)
                continue
            tmp = _write_temp(path, data, sync=True, tmp=temps.get(path))
            crashpoint.reached("temp-written")
            _install(tmp, path)
        crashpoint.reached("renamed")
        return
    staged: list[tuple[Path, Path]] = []
    folders: set[Path] = set()
    try:
        for path, data in contents.items():
            if data is not None:
                staged.append((_write_temp(path, data, sync=False, tmp=temps.get(path), folders=folders), path))
                crashpoint.reached("temp-written")
        _sync_all()
        for tmp, path in staged:
            os.replace(tmp, path)
        staged.clear()
        for path, data in contents.items():
            if data is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
        _sync_all()
        crashpoint.reached("renamed")
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()


def replace_cache(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` by rename (readers never see half a file) without fsync: for
    caches, which are rebuilt when lost, so durability is not worth a disk flush per write."""
    _install(_write_temp(path, data, sync=False), path, sync=False)


def remove(path: Path) -> None:
    """Delete ``path`` if it exists, and make the deletion durable."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        _fsync_dir(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
