"""The structured commit message: ``memfs: OP SUBJECT``, a reason, and queryable trailers.

Trailers (``Memfs-Op``, ``Memfs-Actor``, ``Memfs-Path``...) make history searchable with plain
``git log --grep`` and let ``memfs log --op`` filter without parsing diffs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Action = Literal["create", "update", "delete"]
MAX_PATH_TRAILERS = 50
_TRAILER = re.compile(r"^(Memfs-[A-Za-z-]+): ?(.*)$")


@dataclass(frozen=True)
class Message:
    op: str
    subject: str
    actor: str
    reason: str | None = None
    paths: tuple[str, ...] = ()
    trailers: Mapping[str, Iterable[str]] = field(default_factory=dict)
    #: A paragraph between the subject and the reason (git's "This reverts commit ...").
    note: str | None = None

    def render(self) -> str:
        lines = [f"memfs: {self.op} {self.subject}".rstrip(), ""]
        if self.note:
            lines += [self.note, ""]
        if self.reason:
            lines += [f"Reason: {_one_line(self.reason)}", ""]
        lines += [f"Memfs-Op: {self.op}", f"Memfs-Actor: {_one_line(self.actor)}"]
        for path in self.paths[:MAX_PATH_TRAILERS]:
            lines.append(f"Memfs-Path: {path}")
        if len(self.paths) > MAX_PATH_TRAILERS:
            lines.append(f"Memfs-Paths-Omitted: {len(self.paths) - MAX_PATH_TRAILERS}")
        for key, values in self.trailers.items():
            lines += [f"{key}: {_one_line(v)}" for v in values]
        return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def trailers(body: str) -> dict[str, list[str]]:
    """The ``Memfs-*`` trailers of a commit message body, in order, repeated keys kept."""
    found: dict[str, list[str]] = {}
    for line in body.splitlines():
        match = _TRAILER.match(line.strip())
        if match:
            found.setdefault(match.group(1), []).append(match.group(2).strip())
    return found


def reason(body: str) -> str | None:
    for line in body.splitlines():
        if line.startswith("Reason: "):
            return line[len("Reason: ") :]
    return None


def subject_for(paths: list[str]) -> str:
    """``facts/a.md`` for one path, ``3 memories`` for several."""
    if len(paths) == 1:
        return paths[0]
    return f"{len(paths)} memories"


@dataclass(frozen=True)
class Change:
    path: str
    action: Action
    revision: int | None = None


@dataclass(frozen=True)
class CommitResult:
    """What one operation did: its commit (``None`` if nothing changed) and the file changes."""

    commit: str | None
    changes: tuple[Change, ...] = ()
    op: str = ""
    #: The commit's parent when it has exactly one (what HEAD was just before it).
    parent: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "op": self.op,
            "changes": [{"path": c.path, "action": c.action, "revision": c.revision} for c in self.changes],
        }

