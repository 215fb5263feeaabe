"""``memfs stats``: counts by status and type, and how often each memory was recalled."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memfs.format.model import Memory
from memfs.store import usage
from memfs.store.repo import Store


@dataclass(frozen=True)
class Stats:
    by_status: dict[str, int]
    by_type: dict[str, int]
    broken: int
    usage: dict[str, usage.Usage]
    memories: dict[str, Memory] = field(repr=False, default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "memories": sum(self.by_status.values()),
            "broken": self.broken,
            "by_status": self.by_status,
            "by_type": self.by_type,
            "usage": {p: u.to_json() for p, u in sorted(self.usage.items(), key=lambda kv: -kv[1].recalls)},
        }


def stats(repo: Store) -> Stats:
    """Counts by status and type, and recall statistics from ``.memfs/usage.json``."""
    scan = repo.scan()
    by_status = Counter(m.status or "?" for m in scan.memories)
    by_type = Counter(m.type or "?" for m in scan.memories)
    return Stats(
        dict(by_status),
        dict(by_type),
        len({p.path for p in scan.broken}),
        usage.load(repo),
        {m.path: m for m in scan.memories},
    )
