"""The memory record and the vocabulary of its frontmatter.

A :class:`Memory` is what one ``.md`` file says, typed. It is built by :mod:`memfs.format.parse` and
checked by :mod:`memfs.format.validate`; nothing here touches the disk.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal

from memfs.format.names import shown

TYPES = ("preference", "fact", "episode", "procedure", "summary", "note")
STATUSES = ("active", "superseded", "retracted", "needs_review", "expired")
SOURCE_KINDS = ("user", "tool", "agent", "document", "system")

#: Known keys in the canonical writer's order. Other keys are kept and reported as warnings.
FIELDS = (
    "id",
    "type",
    "scope",
    "key",
    "source",
    "source_kind",
    "source_primary",
    "version",
    "revision",
    "created",
    "updated",
    "expires",
    "trigger",
    "depends_on",
    "distinct_from",
    "status",
    "invalidated_by",
    "reinstated",
    "gate",
    "confidence",
    "evidence",
    "description",
    "tags",
    "limit",
    "read_only",
    "file_name",
    "agent_fields",
)
TIME_FIELDS = ("created", "updated", "expires")
#: The fields recall decides on. A memory with one of them present but unreadable is never
#: recalled or injected: reading it as absent would lift its restriction (fail open).
ELIGIBILITY_FIELDS = ("scope", "version", "status", "source", "expires")
SYSTEM_DIR = "system"

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One validation finding: which file, which field, what is wrong and how to fix it."""

    path: str
    field: str | None
    message: str
    fix: str = ""
    severity: Severity = "error"
    line: int | None = None

    def __str__(self) -> str:
        where = shown(self.path) + (f":{self.line}" if self.line else "")
        what = f"{self.field}: " if self.field else ""
        fix = f" ({self.fix})" if self.fix else ""
        return f"{where}: {self.severity}: {what}{self.message}{fix}"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "field": self.field,
            "severity": self.severity,
            "message": self.message,
            "fix": self.fix,
            "line": self.line,
        }


@dataclass(frozen=True)
class Memory:
    """One memory file, typed. ``meta`` is the frontmatter exactly as parsed (unknown keys too).

    Typed attributes are ``None`` when a field is absent *or invalid*; validation says which.
    ``unreadable`` names the fields validation rejects (:func:`memfs.format.validate.rejected`:
    every error, and the :data:`ELIGIBILITY_FIELDS` present but invalid), so recall refuses the
    memory instead of taking a field as absent. ``id`` is the path without
    ``.md`` when the file names none. ``path`` is relative to the memory root, with ``/``
    separators.
    """

    path: str
    meta: dict[str, Any]
    body: str
    id: str | None = None
    type: str | None = None
    scope: str | None = None
    key: str | None = None
    source: str | None = None
    source_kind: str | None = None
    version: str | None = None
    revision: int = 1
    created: dt.datetime | None = None
    updated: dt.datetime | None = None
    expires: dt.datetime | None = None
    depends_on: tuple[str, ...] = ()
    distinct_from: tuple[str, ...] = ()
    status: str | None = None
    confidence: float = 1.0
    description: str | None = None
    tags: tuple[str, ...] = ()
    limit: int | None = None
    read_only: bool = False
    unreadable: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = field(default=(), compare=False)

    @property
    def is_system(self) -> bool:
        return self.path.startswith(SYSTEM_DIR + "/")

    @property
    def unknown_fields(self) -> list[str]:
        return [k for k in self.meta if k not in FIELDS]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        """Frontmatter as JSON-safe values (times as ISO strings), plus path and body."""
        out: dict[str, Any] = {"path": self.path}
        out.update({k: jsonable(v) for k, v in self.meta.items()})
        if body:
            out["body"] = self.body
        return out


def jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    return value


def utcnow() -> dt.datetime:
    """Now, zoned, to whole seconds: what memfs writes into ``created``/``updated``."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0)
