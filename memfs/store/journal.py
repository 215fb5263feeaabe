"""A write-ahead note that lets the next memfs command finish a write a crash interrupted.

Before touching any memory file, a write records the full new content of every file, a hash of
what each file held before, and the commit message in ``<git-dir>/memfs-journal.json``. After the
commit the journal is removed. If a process dies in between, the next memfs command (holding the
write lock, so the writer is certainly gone) re-applies the recorded contents and commits them,
leaving a ``Memfs-Recovered`` trailer. A file edited by someone else since the crash is left
alone and reported.

Each file also names the hidden temporary its new bytes are staged in (``temp``), chosen before
the journal is saved, so recovery removes every temporary a kill left behind; recovery stages its
own writes under the same names, so a crash of the recovering command leaves nothing new.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from memfs.store import atomic


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class PendingFile:
    """``content`` None means delete. Paths are work-tree-relative; ``temp`` is the temporary the
    content is staged in (``None`` for a deletion or a journal from before temporaries were kept)."""

    path: str
    content: str | None
    before: str | None
    temp: str | None = None


@dataclass(frozen=True)
class Journal:
    message: str
    actor: str
    files: tuple[PendingFile, ...]

    def save(self, where: Path) -> None:
        data = {"message": self.message, "actor": self.actor, "files": [asdict(f) for f in self.files]}
        atomic.write_bytes(where, json.dumps(data, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def load(cls, where: Path) -> Journal | None:
        try:
            data = json.loads(where.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, OSError):
            return cls("", "", ())
        try:
            files = tuple(PendingFile(**f) for f in data.get("files", []))
        except TypeError:
            return cls("", "", ())
        return cls(data.get("message", ""), data.get("actor", ""), files)


def remove_temporaries(journal: Journal, workdir: Path) -> int:
    """Delete the temporaries ``journal`` names that exist; how many there were."""
    removed = 0
    for pending in journal.files:
        if pending.temp and pending.temp.endswith(atomic.TEMP_SUFFIX):
            tmp = workdir / pending.temp
            if tmp.is_file() and not tmp.is_symlink():
                atomic.remove(tmp)
                removed += 1
    return removed


def replay(journal: Journal, workdir: Path) -> tuple[list[str], list[str]]:
    """Re-apply the journal's contents; return (paths now as intended, paths skipped as edited)."""
    ready: list[str] = []
    skipped: list[str] = []
    writes: dict[Path, bytes | None] = {}
    temps: dict[Path, Path] = {}
    for pending in journal.files:
        target = workdir / pending.path
        current = target.read_bytes() if target.is_file() else None
        wanted = None if pending.content is None else pending.content.encode("utf-8")
        if digest(current) == digest(wanted):
            ready.append(pending.path)
        elif digest(current) == pending.before:
            writes[target] = wanted
            if pending.temp and pending.temp.endswith(atomic.TEMP_SUFFIX):
                temps[target] = workdir / pending.temp
            ready.append(pending.path)
        else:
            skipped.append(pending.path)
    atomic.write_many(writes, temps)
    return ready, skipped
