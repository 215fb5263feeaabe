"""Purge's mark on the caches: what was computed from files read before a purge is never saved after it.

``memfs purge`` erases a memory from the working tree, from history and from the caches under
``.memfs/``. A process that read the memory a moment before (a ``validate`` keeping body
excerpts in ``findings.json``, a catalog refresh keeping its path and key) could otherwise save
its cache after purge emptied the folder, and the erased text would be back on disk. So purge
moves the epoch (a random token in ``.memfs/purge.epoch``, a file purge keeps) while holding the
caches' locks, and a cache writer that read its files under an older epoch skips its save: the
next run computes again. Deleting ``.memfs/`` by hand is still always safe.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from memfs.store import atomic, paths

EPOCH_FILE = "purge.epoch"


def read(cache_dir: Path) -> str:
    """The current epoch (``""`` before any purge or when unreadable)."""
    try:
        return (cache_dir / EPOCH_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def advance(cache_dir: Path) -> None:
    """Start a new epoch: savers that read under the old one will not save."""
    paths.ensure_cache(cache_dir)
    atomic.replace_cache(cache_dir / EPOCH_FILE, secrets.token_hex(8).encode("ascii"))
