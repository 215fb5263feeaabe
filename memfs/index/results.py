"""What searches, syncs and rebuilds return: typed records with ``to_json`` for the CLI."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memfs.format.model import Memory, Problem


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Uncommitted:
    """The memory paths whose working-tree state differs from HEAD (changed, staged, untracked,
    deleted, git-ignored), as one ``git status`` listed them. An entry ending in ``/`` is a folder
    git lists whole (a git-ignored one) and stands for every memory under it; ``""`` is the
    whole memory root."""

    listed: tuple[str, ...] = ()

    def __contains__(self, rel: object) -> bool:
        if not isinstance(rel, str):
            return False
        return any(rel == item or ((item == "" or item.endswith("/")) and rel.startswith(item)) for item in self.listed)

    def __bool__(self) -> bool:
        return bool(self.listed)

    def paths(self, memory_paths: Callable[[], list[str]]) -> list[str]:
        """The listed memory files, folders expanded (``memory_paths`` lists every memory file;
        it is called only when a folder is listed)."""
        files = [item for item in self.listed if item and not item.endswith("/")]
        if len(files) < len(self.listed):
            files.extend(rel for rel in memory_paths() if rel in self and rel not in files)
        return sorted(set(files))


@dataclass(frozen=True)
class Hit:
    """One recalled memory: the file as it is now, and the factors of its score. ``uncommitted``:
    the file differs from HEAD (an edit nobody committed yet). ``similarity``: set on a hit the
    vectors found in a place BM25 left empty (``[semantic]``; its score is 0, no term covered)."""

    memory: Memory
    score: float
    relevance: float
    freshness: float
    confidence: float
    uncommitted: bool = False
    similarity: float | None = None

    @property
    def path(self) -> str:
        return self.memory.path

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        m = self.memory
        out: dict[str, Any] = {
            "path": m.path,
            "id": m.id,
            "scope": m.scope,
            "source": m.source,
            "type": m.type,
            "status": m.status,
            "version": m.version,
            "score": round(self.score, 6),
            "relevance": round(self.relevance, 6),
            "freshness": round(self.freshness, 6),
            "confidence": round(self.confidence, 6),
            "created": _iso(m.created),
            "updated": _iso(m.updated),
            "expires": _iso(m.expires),
            "description": m.description,
            "tags": list(m.tags),
            "uncommitted": self.uncommitted,
        }
        if self.similarity is not None:
            out["similarity"] = round(self.similarity, 6)
        if body:
            out["body"] = m.body
        return out


@dataclass(frozen=True)
class Filtered:
    """A memory that matched the words but is not eligible, and why (for ``--explain``)."""

    path: str
    reason: str
    relevance: float

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "reason": self.reason, "relevance": round(self.relevance, 6)}


@dataclass
class SearchResult:
    query: str
    scope: str | None
    version: str | None
    at: dt.datetime
    inherit: bool
    terms: list[str]
    hits: list[Hit] = field(default_factory=list)
    filtered: list[Filtered] = field(default_factory=list)
    broken: list[Problem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    stale: bool = False
    uncommitted: Uncommitted | None = None

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        return {
            "query": self.query,
            "scope": self.scope,
            "inherit": self.inherit,
            "version": self.version,
            "at": _iso(self.at),
            "terms": self.terms,
            "hits": [h.to_json(body=body) for h in self.hits],
            "filtered": [f.to_json() for f in self.filtered],
            "unreadable": [p.to_json() for p in self.broken],
            "notices": self.notices,
            "stale": self.stale,
        }


@dataclass
class SyncReport:
    """What one catch-up did. ``stale`` means another process held the index lock too long.
    ``signed``: documents indexed again only to keep their parse (same bytes, now old enough to
    sign: :meth:`~memfs.index.state.State.signable`)."""

    added: int = 0
    updated: int = 0
    removed: int = 0
    signed: int = 0
    rebuilt: bool = False
    stale: bool = False
    notices: list[str] = field(default_factory=list)
    uncommitted: Uncommitted | None = None

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.rebuilt)


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")




@dataclass(frozen=True)
class ReindexReport:
    indexed: int
    broken: list[Problem]
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "unreadable": [p.to_json() for p in self.broken],
            "seconds": round(self.seconds, 3),
        }
