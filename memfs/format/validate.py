"""Validation rules, as pure functions.

:func:`coerce_fields` checks one file's frontmatter and returns typed values plus findings;
:func:`check_repo` adds the checks that need the whole repository (duplicate ids, ``depends_on``
targets). Every finding names the file, the field, the problem and the fix. Unknown keys are
warnings, never errors.

The natural forms people and editors write are read, not refused: a date without a time
(``expires: 2025-10-17``) is 00:00 UTC that day; a date-time without a zone is UTC (with a
warning); an integer ``version`` is its decimal string. A value YAML re-types (``version: 1.10``
is the float 1.1) stays an error whose fix quotes the text as written. An eligibility field
(:data:`~memfs.format.model.ELIGIBILITY_FIELDS`) that is present but unreadable is listed in
``unreadable``, so recall refuses the memory instead of treating the field as absent.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from memfs.format import names, wikilinks, yamlio
from memfs.format.model import (
    ELIGIBILITY_FIELDS,
    FIELDS,
    SOURCE_KINDS,
    STATUSES,
    SYSTEM_DIR,
    TIME_FIELDS,
    TYPES,
    Memory,
    Problem,
    Severity,
)
from memfs.format.times import is_naive, parse_time

_SCOPE_SEGMENT = re.compile(r"[A-Za-z0-9_.:@+=-]+")
_STRING_FIELDS = ("id", "type", "scope", "key", "source", "source_kind", "version", "status", "description")


def scope_problem(scope: str) -> str | None:
    """Why ``scope`` is malformed, or ``None``. Segments are joined by ``/``, e.g. ``user:U5/project:P8``."""
    if not scope:
        return "is empty"
    for segment in scope.split("/"):
        if segment in ("", ".", ".."):
            return f"has an empty or relative segment in {scope!r}"
        if not _SCOPE_SEGMENT.fullmatch(segment):
            return f"segment {segment!r} may only use letters, digits and _ . : @ + = -"
    return None


def coerce_fields(
    path: str, meta: dict[str, Any], frontmatter: str | None = None
) -> tuple[dict[str, Any], list[Problem]]:
    """Typed values for the known fields of ``meta`` and every problem found in them.

    ``frontmatter``, the text ``meta`` was parsed from, lets a fix quote a value as it was
    written. ``typed["unreadable"]`` names the eligibility fields that are present but invalid.
    """
    found: list[Problem] = []

    def bad(name: str | None, message: str, fix: str, severity: Severity = "error") -> None:
        found.append(Problem(path, name, message, fix, severity))

    written = _Written(frontmatter)
    typed: dict[str, Any] = {}
    for name in _STRING_FIELDS:
        if name in meta and meta[name] is not None:
            value = meta[name]
            if isinstance(value, str):
                typed[name] = value
            elif name == "version" and _is_decimal(value, written.get(name)):
                typed[name] = str(value)
            else:
                bad(name, f"must be a string, got {_shown(value)}", _quote_fix(name, value, written.get(name)))
    _check_enums(typed, bad)
    _check_names(path, typed, meta, bad)
    _check_identity(path, typed, meta, bad)
    typed.update(_times(meta, bad))
    typed.update(_numbers(meta, bad))
    typed.update(_lists(path, meta, bad))
    _lineage_records(path, meta, bad)
    for name in meta:
        if name not in FIELDS:
            bad(name, "is not a memfs field; it is kept as written", "remove it or ignore this", "warning")
    unreadable = rejected(meta, typed, found)
    if unreadable:
        typed["unreadable"] = unreadable
        found = [_never_recalled(p) if p.severity == "error" else p for p in found]
    return typed, found


def rejected(meta: Mapping[str, Any], typed: Mapping[str, Any], found: Iterable[Problem]) -> tuple[str, ...]:
    """The fields of one memory that validation rejects: what recall refuses it for (fail closed).

    One rule for both: every error :func:`coerce_fields` reports (a confidence of 7 or NaN, a
    malformed ``invalidated_by``, a missing type, a name memfs refuses: ``file name``) and every
    eligibility field present but unreadable. ``memfs validate`` reports these problems; the
    parsed memory lists their fields in ``unreadable``, which :func:`memfs.policy.recall.eligibility`
    and the index's query refuse, so a memory validation rejects is never recalled or injected."""
    fields = [name for name in ELIGIBILITY_FIELDS if meta.get(name) is not None and name not in typed]
    for problem in found:
        name = problem.field or "file name"
        if name == "source" and _blank(meta.get("source")):
            continue  # recall refuses it as "no source", the clearer reason
        if problem.severity == "error" and name not in fields:
            fields.append(name)
    return tuple(fields)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


class _Written:
    """The written text of single-line values, read from the frontmatter only if a fix needs it."""

    def __init__(self, frontmatter: str | None) -> None:
        self._frontmatter = frontmatter

    @functools.cached_property
    def _values(self) -> Mapping[str, str]:
        return yamlio.written_values(self._frontmatter) if self._frontmatter is not None else {}

    def get(self, name: str) -> str | None:
        return self._values.get(name)


def _is_decimal(value: Any, written: str | None) -> bool:
    """An integer written as its plain decimal digits (``1``, not ``010``, ``0x1F`` or ``1_000``,
    which YAML 1.1 reads as other numbers than they look like)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return written is None or written == str(value)


def _never_recalled(problem: Problem) -> Problem:
    message = f"{problem.message}; until it is fixed the memory is never recalled"
    return Problem(problem.path, problem.field, message, problem.fix, problem.severity, problem.line)


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _check_enums(typed: dict[str, Any], bad: Callable[..., None]) -> None:
    for name, allowed in (("type", TYPES), ("status", STATUSES), ("source_kind", SOURCE_KINDS)):
        if name in typed and typed[name] not in allowed:
            bad(name, f"unknown value {typed.pop(name)!r}", "use one of: " + ", ".join(allowed))


def _check_names(path: str, typed: dict[str, Any], meta: dict[str, Any], bad: Callable[..., None]) -> None:
    """The file's own name and its id (see :mod:`memfs.format.names`)."""
    if path:
        why = names.path_problem(path)
        if why:
            bad(None, f"the file name {why}", "rename the file")
        elif not names.is_nfc(path):
            bad(None, "the file name is not in Unicode NFC form, so the same name typed elsewhere may not find it",
                f"rename it to {names.nfc(path)}", "warning")
    if meta.get("id") is None:
        if path:
            typed["id"] = names.default_id(path)
    elif "id" in typed:
        why = names.id_problem(typed["id"])
        if why:
            bad("id", f"{typed.pop('id')!r} {why}", "use the path without .md, or any one-line text")
        elif not names.is_nfc(typed["id"]):
            bad("id", "is not in Unicode NFC form, so the same id typed elsewhere will not match it",
                f"write it as {names.nfc(typed['id'])}", "warning")


def _check_identity(path: str, typed: dict[str, Any], meta: dict[str, Any], bad: Callable[..., None]) -> None:
    if "type" not in meta:
        bad("type", "is missing", "add 'type: ' with one of: " + ", ".join(TYPES))
    if "status" not in meta:
        bad("status", "is missing", "add 'status: active'")
    in_system = path.startswith(SYSTEM_DIR + "/")
    if "scope" in typed:
        why = scope_problem(typed["scope"])
        if why:
            typed.pop("scope")
            bad("scope", why, "write it like user:U5/project:P8")
    elif not in_system and meta.get("scope") is None:
        bad("scope", "is missing", "add 'scope: ' naming whose memory this is, e.g. user:U5")
    source = meta.get("source")
    unsourced = source is None or (isinstance(source, str) and not source.strip())
    if typed.get("status", meta.get("status")) == "active" and unsourced:
        bad(
            "source",
            "an active memory has no source, so it can never be recalled",
            "add 'source: ' saying where it came from",
        )


def _quote_fix(name: str, value: Any, written: str | None) -> str:
    if isinstance(value, bool | int | float | dt.date):
        text = written if written and written[0] not in "!&*\"'[{|>" else str(value)
        quoted = json.dumps(text, ensure_ascii=False)
        return f"YAML read it as the {type(value).__name__} {value!s}; quote it as written: {name}: {quoted}"
    return f'write it as a quoted string: {name}: "..."'


def _times(meta: dict[str, Any], bad: Callable[..., None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in TIME_FIELDS:
        if name not in meta or meta[name] is None:
            continue
        raw = meta[name]
        value = parse_time(raw)
        if value is None:
            bad(name, f"is not an ISO 8601 time: {raw!s}", f"write it like {name}: 2026-09-20T10:00:00Z")
            continue
        if is_naive(raw):
            zoned = yamlio.format_time(value)
            bad(name, f"has no time zone: {raw!s}; it is read as UTC ({zoned})", f"write it like {name}: {zoned}",
                "warning")
        out[name] = value
    if "created" in out and "updated" in out and out["updated"] < out["created"]:
        bad("updated", "is earlier than created", "set updated to the time of the last change", "warning")
    return out


def _numbers(meta: dict[str, Any], bad: Callable[..., None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "confidence" in meta:
        value = meta["confidence"]
        if isinstance(value, bool) or not isinstance(value, int | float):
            bad("confidence", f"must be a number, got {_shown(value)}", "use a number from 0 to 1")
        elif not math.isfinite(value) or not 0 <= value <= 1:
            bad("confidence", f"{value} is outside 0..1", "use a number from 0 to 1")
        else:
            out["confidence"] = float(value)
    for name, minimum in (("revision", 1), ("limit", 1)):
        if name in meta:
            value = meta[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
                bad(name, f"must be a whole number >= {minimum}, got {_shown(value)}", f"write {name}: {minimum}")
            else:
                out[name] = value
    if "read_only" in meta:
        if isinstance(meta["read_only"], bool):
            out["read_only"] = meta["read_only"]
        else:
            bad("read_only", f"must be true or false, got {_shown(meta['read_only'])}", "write read_only: true")
    return out


def _lists(path: str, meta: dict[str, Any], bad: Callable[..., None]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "tags" in meta and meta["tags"] is not None:
        tags = meta["tags"]
        if isinstance(tags, list) and all(isinstance(t, str) for t in tags):
            out["tags"] = tuple(tags)
        else:
            bad("tags", f"must be a list of strings, got {_shown(tags)}", "write tags: [a, b]")
    if "evidence" in meta and meta["evidence"] is not None:
        evidence = meta["evidence"]
        if not isinstance(evidence, list) or not all(isinstance(e, str) and e.strip() for e in evidence):
            bad("evidence", f"must be a list of sources, got {_shown(evidence)}",
                "write evidence: [conversation:C1#msg-12, tracker:P8/issues/B17]")
    if "trigger" in meta and meta["trigger"] is not None:
        trigger = meta["trigger"]
        texts = trigger if isinstance(trigger, list) else [trigger]
        if not texts or not all(isinstance(t, str) and t.strip() for t in texts):
            bad("trigger", f"must be text or a list of texts, got {_shown(trigger)}",
                "write trigger: [CI job release-notes-pdf on a freshly imaged runner]")
    for name in ("depends_on", "distinct_from"):
        if name in meta and meta[name] is not None:
            paths = _paths(path, name, meta[name], bad)
            if paths is not None:
                out[name] = paths
    return out


def _paths(path: str, name: str, value: Any, bad: Callable[..., None]) -> tuple[str, ...] | None:
    """A field that names other memories by path (``depends_on``, ``distinct_from``): the usable
    entries, normalised (a wikilink names its path), each unusable one reported; ``None`` when the
    value is not a list of texts at all."""
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        bad(name, f"must be a list of paths, got {_shown(value)}", f"write {name}: [facts/x.md]")
        return None
    clean = []
    for dep in map(wikilinks.dependency_path, value):
        why = dependency_problem(path, dep)
        if why:
            bad(name, why, "use a path relative to the memory root, e.g. facts/x.md")
        else:
            clean.append(posixpath.normpath(dep))
    return tuple(clean)


def _lineage_records(path: str, meta: dict[str, Any], bad: Callable[..., None]) -> None:
    """Shapes of the fields retraction and review write (``source_primary``, ``invalidated_by``,
    ``reinstated``); see :mod:`memfs.policy.lineage`."""
    if "source_primary" in meta and not isinstance(meta["source_primary"], bool):
        got = _shown(meta["source_primary"])
        bad("source_primary", f"must be true or false, got {got}", "write source_primary: true")
    if "invalidated_by" in meta and meta["invalidated_by"] is not None:
        records = meta["invalidated_by"]
        example = "write invalidated_by: [{root: facts/x.md, reason: why, at: 2026-09-20T10:00:00Z, actor: user:me}]"
        if not isinstance(records, list) or not records:
            bad("invalidated_by", f"must be a non-empty list of records, got {_shown(records)}", example)
        else:
            for i, record in enumerate(records):
                why = _record_problem(record, ("root",), ("reason", "actor"))
                root_why = None if why else dependency_problem(path, record["root"])
                if root_why:
                    why = f"root {root_why}"
                if why:
                    bad("invalidated_by", f"entry {i + 1} {why}", example)
        if meta.get("status") == "active":
            bad(
                "invalidated_by",
                "is still present although the memory is active",
                "remove it ('memfs reinstate' does this and records the review)",
                "warning",
            )
    if "reinstated" in meta and meta["reinstated"] is not None:
        why = _record_problem(meta["reinstated"], (), ("reason", "actor"), ("basis", "roots"))
        if why:
            bad("reinstated", why, "write reinstated: {at: 2026-09-20T10:00:00Z, actor: user:me, reason: why}")
    if "gate" in meta and meta["gate"] is not None:
        why = _record_problem(meta["gate"], (), ("rule", "reason", "override", "actor"))
        if why is None and not (isinstance(meta["gate"].get("rule"), str) and meta["gate"]["rule"]):
            why = "needs a 'rule'"
        if why:
            bad("gate", why, "write gate: {rule: single-event-rule, reason: why, at: 2026-09-20T10:00:00Z}")


def _record_problem(
    record: Any, required: tuple[str, ...], strings: tuple[str, ...], lists: tuple[str, ...] = ()
) -> str | None:
    if not isinstance(record, dict):
        return f"must be a mapping, got {_shown(record)}"
    for key in required:
        if not isinstance(record.get(key), str) or not record[key]:
            return f"needs a '{key}' path"
    for key in strings:
        if key in record and not isinstance(record[key], str):
            return f"'{key}' must be a string, got {_shown(record[key])}"
    for key in lists:
        if key in record and not (isinstance(record[key], list) and all(isinstance(v, str) for v in record[key])):
            return f"'{key}' must be a list of strings, got {_shown(record[key])}"
    if "at" in record and parse_time(record["at"]) is None:
        return f"'at' must be an ISO 8601 time, got {record['at']!s}"
    return None


def dependency_problem(path: str, dep: str) -> str | None:
    """Why a ``depends_on`` or ``distinct_from`` entry is unusable on its own (whether a
    ``depends_on`` target exists is checked repo-wide; a ``distinct_from`` one may be gone)."""
    if not dep or "\x00" in dep:
        return "has an empty entry"
    if dep.startswith("/") or re.match(r"[A-Za-z]:[\\/]", dep) or "://" in dep:
        return f"{dep!r} is absolute; it must be relative to the memory root"
    norm = posixpath.normpath(dep)
    if norm == ".." or norm.startswith("../"):
        return f"{dep!r} points outside the memory repository"
    if norm == path:
        return f"{dep!r} is this memory itself"
    return None


def check_repo(memories: Iterable[Memory], exists: Callable[[str], bool]) -> list[Problem]:
    """Problems only visible across files: duplicate ids, two active memories with the same
    ``(scope, key, version)`` (context injects only the highest revision) and missing
    ``depends_on`` targets."""
    found: list[Problem] = []
    by_id: dict[str, list[str]] = defaultdict(list)
    by_identity: dict[tuple[str | None, str, str | None], list[str]] = defaultdict(list)
    for memory in memories:
        if memory.id:
            by_id[memory.id].append(memory.path)
        identity = identity_of(memory)
        if identity is not None and memory.status == "active":
            by_identity[identity].append(memory.path)
        for dep in memory.depends_on:
            if not exists(dep):
                found.append(
                    Problem(memory.path, "depends_on", f"{dep!r} does not exist", "fix the path or remove the entry")
                )
    for memory_id, paths in by_id.items():
        if len(paths) > 1:
            for path in paths:
                others = ", ".join(p for p in paths if p != path)
                found.append(
                    Problem(path, "id", f"{memory_id!r} is also used by {others}", "give each memory its own id")
                )
    for (scope, key, version), paths in by_identity.items():
        if len(paths) > 1:
            what = f"scope {scope or 'none'}, key {key!r}, version {version or 'any'}"
            for path in paths:
                others = ", ".join(p for p in paths if p != path)
                found.append(
                    Problem(path, "key", f"active with the same {what} as {others}",
                            "keep one active memory per scope, key and version: supersede, retract or "
                            "forget the others (memfs context injects only the highest revision)")
                )
    return found


def identity_of(memory: Any) -> tuple[str | None, str, str | None] | None:
    """A memory's ``(scope, key, version)``, or ``None`` without a ``key`` (no identity to share)."""
    key = getattr(memory, "key", None)
    if not isinstance(key, str) or not key.strip():
        return None
    return (memory.scope, key, memory.version)
