"""A candidate memory: what a caller proposes to remember, before the gate and reconcile see it.

Built from CLI options or one JSON object (``memfs remember --json -``); :func:`from_mapping`
checks types and says which field is wrong. Nothing here touches the disk.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from memfs.errors import MemfsError
from memfs.format.model import SOURCE_KINDS, TYPES
from memfs.format.validate import dependency_problem, parse_time, scope_problem

_ALIASES = {"value": "body", "text": "body", "idempotency": "idempotency_key", "expect_revision": "expected_revision"}


@dataclass(frozen=True)
class Candidate:
    """One proposed memory. ``body`` is its value; ``retract`` marks an explicit correction that
    withdraws the memory at (scope, key) instead of replacing it; ``one_off`` marks a request
    meant for this time only."""

    scope: str
    body: str
    type: str = "note"
    key: str | None = None
    source: str | None = None
    source_kind: str | None = None
    version: str | None = None
    expires: dt.datetime | None = None
    depends_on: tuple[str, ...] = ()
    confidence: float | None = None
    description: str | None = None
    tags: tuple[str, ...] = ()
    path: str | None = None
    idempotency_key: str | None = None
    expected_revision: int | None = None
    one_off: bool = False
    retract: bool = False
    reason: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def texts(self) -> dict[str, str]:
        """Every free-text field the gate scans for secrets, by field name."""
        out = {"body": self.body}
        for name in ("key", "source", "description", "scope", "version", "reason", "path"):
            value = getattr(self, name)
            if value:
                out[name] = value
        if self.tags:
            out["tags"] = ", ".join(self.tags)
        for name, value in self.extra.items():
            if isinstance(value, str):
                out[name] = value
        return out


_NAMES = {f.name for f in fields(Candidate)}


def _bad(name: str, message: str) -> MemfsError:
    return MemfsError(f"candidate field {name!r}: {message}")


def from_mapping(data: Mapping[str, Any]) -> Candidate:
    """A :class:`Candidate` from a JSON object or CLI fields; unknown keys go to ``extra`` (kept
    in the file like any unknown frontmatter key)."""
    if not isinstance(data, Mapping):
        raise MemfsError('a candidate must be a JSON object, e.g. {"scope": "user:U5", "body": "..."}')
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for raw_name, value in data.items():
        name = _ALIASES.get(raw_name, raw_name)
        if name in values:
            raise _bad(raw_name, f"given twice (as {name!r} too)")
        if value is None:
            continue
        if name in _NAMES and name != "extra":
            values[name] = value
        else:
            extra[str(raw_name)] = value
    for name in ("scope", "body"):
        if not isinstance(values.get(name), str) or not values[name].strip():
            raise _bad(name, "is required and must be non-empty text")
    why = scope_problem(values["scope"])
    if why:
        raise _bad("scope", f"{why}; write it like user:U5/project:P8")
    for name in ("type", "key", "source", "source_kind", "version", "description", "path", "idempotency_key", "reason"):
        if name in values and not isinstance(values[name], str):
            raise _bad(name, f"must be text, got {type(values[name]).__name__}")
    if values.get("type", "note") not in TYPES:
        raise _bad("type", f"unknown value {values['type']!r}; use one of: {', '.join(TYPES)}")
    if "source_kind" in values and values["source_kind"] not in SOURCE_KINDS:
        raise _bad("source_kind", f"unknown value {values['source_kind']!r}; use one of: {', '.join(SOURCE_KINDS)}")
    if "expires" in values:
        when = values["expires"] if isinstance(values["expires"], dt.datetime) else parse_time(values["expires"])
        if when is None or when.tzinfo is None:
            raise _bad("expires", "must be an ISO 8601 time with a zone, e.g. 2026-12-31T00:00:00Z")
        values["expires"] = when
    if "confidence" in values:
        value = values["confidence"]
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise _bad("confidence", "must be a number from 0 to 1")
        if not 0 <= value <= 1:
            raise _bad("confidence", f"{value} is outside 0..1")
        values["confidence"] = float(value)
    if "expected_revision" in values:
        value = values["expected_revision"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _bad("expected_revision", "must be a whole number >= 0 (0: the memory must not exist yet)")
    for name in ("one_off", "retract"):
        if name in values and not isinstance(values[name], bool):
            raise _bad(name, "must be true or false")
    for name in ("tags", "depends_on"):
        if name in values:
            value = values[name]
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise _bad(name, "must be a list of strings")
            values[name] = tuple(value)
    for dep in values.get("depends_on", ()):
        why = dependency_problem(values.get("path") or "", dep)
        if why:
            raise _bad("depends_on", why)
    return Candidate(**values, extra=extra)
