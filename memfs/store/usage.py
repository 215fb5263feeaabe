"""Usage statistics: how often each memory was recalled and when last, kept in ``.memfs/usage.json``.

They live outside git on purpose: reading memory must never create commits, and counts are
per-checkout observations, not shared truth. Writers take a small lock of their own (not the
repository's write lock), so recording a recall never waits for a commit.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from memfs.format.model import utcnow
from memfs.store import atomic, locking
from memfs.store.repo import Store

USAGE_FILE = "usage.json"


@dataclass(frozen=True)
class Usage:
    recalls: int = 0
    last_recall: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"recalls": self.recalls, "last_recall": self.last_recall}


def _path(repo: Store) -> Path:
    return repo.cache_dir / USAGE_FILE


def load(repo: Store) -> dict[str, Usage]:
    """Per memory path; a missing or damaged file is an empty record (it is only statistics)."""
    try:
        raw = json.loads(_path(repo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    for path, entry in raw.items() if isinstance(raw, dict) else ():
        if isinstance(entry, dict) and isinstance(entry.get("recalls"), int):
            last = entry.get("last_recall")
            out[str(path)] = Usage(entry["recalls"], last if isinstance(last, str) else None)
    return out


def _save(repo: Store, data: dict[str, Usage]) -> None:
    """Replaced by rename, without a disk flush: statistics lost in a crash are not worth two
    fsyncs on every search and context that records a recall."""
    text = json.dumps({p: u.to_json() for p, u in sorted(data.items())}, ensure_ascii=False, separators=(",", ":"))
    atomic.replace_cache(_path(repo), text.encode("utf-8"))


def record_recall(repo: Store, paths: Iterable[str], when: dt.datetime | None = None) -> None:
    """Count one recall of each path (call it with the memories a search or context returned)."""
    stamp = (when or utcnow()).isoformat().replace("+00:00", "Z")
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return
    repo.cache_dir.mkdir(parents=True, exist_ok=True)
    with locking.exclusive(repo.cache_dir / "usage.lock", timeout=10.0):
        data = load(repo)
        for path in wanted:
            old = data.get(path, Usage())
            data[path] = Usage(old.recalls + 1, stamp)
        _save(repo, data)


def forget_paths(repo: Store, paths: Iterable[str]) -> None:
    """Drop the statistics of ``paths`` (after a purge: even usage should not outlive the memory)."""
    drop = set(paths)
    if not _path(repo).exists():
        return
    with locking.exclusive(repo.cache_dir / "usage.lock", timeout=10.0):
        data = load(repo)
        if drop & data.keys():
            _save(repo, {p: u for p, u in data.items() if p not in drop})
