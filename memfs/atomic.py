"""Crash-safe file writes: a reader or a crash sees the old file or the new one, never half.

The new bytes go to a hidden temporary in the same directory (hidden, so scans and the watcher
ignore it), are fsynced, renamed over the target, and the directory is fsynced.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_bytes(path: Path, data: bytes) -> None:
    """Atomically replace (or create) ``path`` with ``data``, keeping an existing file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{secrets.token_hex(4)}.memfs-tmp"
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def remove(path: Path) -> None:
    """Delete ``path`` if it exists, and make the deletion durable."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        _fsync_dir(path.parent)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
