"""On import: the test suite's temporary folders on a RAM file system when there is one with room
(:func:`_ram_temp`). Imported first by ``tests/conftest.py``, before anything asks
:mod:`tempfile` where they go; standard library only."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

#: what the suite's temporary folders need free on a RAM file system to be put there
_RAM_NEEDED = 8 << 30


def _ram_temp() -> None:
    """Temporary folders (every test's repositories, clones and remotes, and the temporary files
    of the git and Python processes tests start) on ``/dev/shm`` when the caller set no
    ``TMPDIR`` and it is a tmpfs mounted with exec, writable, with 8 GiB free. The suite creates
    and deletes some hundred thousand small files; on this machine's ext4 disk that was ~100 s of
    the kernel's CPU time in a run, and the whole suite took 192-234 s there against 200-276 s
    (median 249) on disk (``bench/README.md``). ``MEMFS_TESTS_TMP=disk`` keeps the disk."""
    if os.environ.get("TMPDIR") or os.environ.get("MEMFS_TESTS_TMP") == "disk":
        return
    shm = "/dev/shm"
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            options = next((f[3].split(",") for line in mounts if (f := line.split())[1:3] == [shm, "tmpfs"]), None)
        free = os.statvfs(shm)
    except OSError:
        return
    if options is None or "noexec" in options or free.f_bavail * free.f_frsize < _RAM_NEEDED:
        return
    folder = Path(shm) / f"memfs-tests-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
    except OSError:
        return
    if folder.is_symlink() or folder.stat().st_uid != os.getuid() or not os.access(folder, os.W_OK | os.X_OK):
        return
    os.environ["TMPDIR"] = tempfile.tempdir = str(folder)



_ram_temp()
