"""A candidate memory: what a caller proposes to remember, before the gate and reconcile see it.

Built from CLI options or one JSON object (``memfs remember --json -``); :func:`from_mapping`
checks types and says which field is wrong. Nothing here touches the disk.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from memfs.errors import UsageError
from memfs.format import names
from memfs.format.declare import CLI, param, record
from memfs.format.limits import Limits
from memfs.format.model import SOURCE_KINDS, TYPES
from memfs.format.validate import coerce_fields

_ALIASES = {"value": "body", "text": "body", "idempotency": "idempotency_key", "expect_revision": "expected_revision"}


@record
class Candidate:
    """One proposed memory. ``body`` is its value; ``retract`` marks an explicit correction that
    withdraws the memory at (scope, key) instead of replacing it; ``one_off`` marks a request
    meant for this time only. The fields say how the doors offer them (:mod:`memfs.format.declare`):
    ``memfs remember`` and MCP's ``memory_remember`` take them one by one."""

    scope: str = param(help="Whose memory, e.g. user:U5/project:P8 (a model's is its session's).", doors={CLI},
                       kw_only=False)
    body: str = param(help="The memory itself, in a sentence or a few (Markdown).", flags=("--body", "--value"),
                      file_flag="--body-file", kw_only=False)
    type: str = param(default="note", help="What kind of memory it is.", choices=TYPES)
    key: str | None = param(default=None, help="The subject inside the scope (e.g. release_note_language): one "
                                               "active memory per key, so a new value supersedes the old one.")
    source: str | None = param(default=None, help="Where it came from, e.g. conversation:C1#msg-12 or tool:tracker.",
                               model_required=True)
    source_kind: str | None = param(default=None, help="Who asserted it: the user, a tool, an agent, a document or "
                                                       "the system.", choices=SOURCE_KINDS)
    version: str | None = param(default=None, help="The world version it applies to (product, API, config).")
    expires: dt.datetime | None = param(default=None, help="When it stops being valid: ISO 8601 with a zone, or a "
                                                           "date.", wire="time")
    depends_on: tuple[str, ...] = param(default=(), help="Paths of the memories it was derived from.",
                                        complete="memory_paths")
    confidence: float | None = param(default=None, help="How sure, from 0 to 1.", minimum=0, maximum=1)
    description: str | None = param(default=None, help="One line shown in listings and in the system tree.")
    tags: tuple[str, ...] = param(default=(), help="Tags for finding it again.", flags=("--tag",))
    path: str | None = param(default=None, help="File for a new memory (default: <type dir>/<key>.md).", doors={CLI})
    idempotency_key: str | None = param(default=None, help="A key for this statement: replaying it changes nothing "
                                                           "(kept in the commit).")
    expected_revision: int | None = param(default=None, help="Fail with a conflict unless the memory is at this "
                                                             "revision.", doors={CLI},
                                            flags=("--expect-revision",))
    one_off: bool = param(default=False, help="A request for this time only: never becomes a preference.",
                          doors={CLI})
    retract: bool = param(default=False, help="An explicit correction: withdraw the memory at (scope, key).",
                          doors={CLI})
    keep_both: bool = param(default=False, help="Keep it beside an active memory that looks like another value "
                                                "for the same subject (a probable conflict) instead of replacing it; "
                                                "the new file names that memory in distinct_from, so both are "
                                                "recalled.")
    supersedes: str | None = param(default=None, help="Path of the active memory of the same scope this one "
                                                      "replaces (the decision for a probable conflict, like "
                                                      "keep_both): its file gets the new value.",
                                   complete="memory_paths", metavar="PATH")
    reason: str | None = param(default=None, help="Why this change is made; it goes into the git commit message.")
    extra: Mapping[str, Any] = param(default_factory=dict, help="Any other frontmatter field (repeatable).",
                                     doors={CLI}, flags=("--set",), metavar="FIELD=YAML", wire="assignments")

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
#: Candidate fields that become frontmatter: checked by the same rules as a file's.
_FRONTMATTER = ("type", "scope", "key", "source", "source_kind", "version", "expires", "depends_on", "confidence",
                "description", "tags")
_LISTS = ("tags", "depends_on")


def _bad(name: str, message: str) -> UsageError:
    return UsageError(f"candidate field {name!r}: {message}")


def from_mapping(data: Mapping[str, Any]) -> Candidate:
    """A :class:`Candidate` from a JSON object or CLI fields; unknown keys go to ``extra`` (kept
    in the file like any unknown frontmatter key).

    The fields that become frontmatter are checked by :func:`memfs.format.validate.coerce_fields`,
    the rules every memory file is held to, so a candidate and a file can never disagree on what
    a valid ``expires`` or ``scope`` is; a single string is accepted for ``tags``/``depends_on``.
    ``key`` and ``path`` are taken in Unicode NFC, so a key typed two ways is one subject.
    """
    if not isinstance(data, Mapping):
        raise UsageError('a candidate must be a JSON object, e.g. {"scope": "user:U5", "body": "..."}')
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
    most = Limits().file_bytes
    if len(values["body"]) > most or len(values["body"].encode("utf-8", "surrogatepass")) > most:
        raise _bad("body", f"is over the {most}-byte limit for one memory; split it into several")
    for name in ("key", "path", "supersedes"):
        if isinstance(values.get(name), str):
            values[name] = names.nfc(values[name])
    values.update(_frontmatter(values))
    _check_own_fields(values)
    return Candidate(**values, extra=extra)


def _frontmatter(values: Mapping[str, Any]) -> dict[str, Any]:
    """The typed frontmatter fields of a candidate, or :class:`UsageError` naming the first bad one."""
    meta = {name: values[name] for name in _FRONTMATTER if name in values}
    for name in _LISTS:
        if isinstance(meta.get(name), str):
            meta[name] = [meta[name]]
        elif isinstance(meta.get(name), tuple):
            meta[name] = list(meta[name])
    typed, problems = coerce_fields(values.get("path") or "", meta)
    for problem in problems:
        if problem.severity == "error" and problem.field in meta:
            fix = f" ({problem.fix})" if problem.fix else ""
            raise _bad(problem.field, f"{problem.message}{fix}")
    return {name: typed[name] for name in meta if name in typed}


def _check_own_fields(values: Mapping[str, Any]) -> None:
    """The fields of a request that never reach the file: a path, the idempotency key..."""
    for name in ("path", "idempotency_key", "reason", "supersedes"):
        if name in values and not isinstance(values[name], str):
            raise _bad(name, f"must be text, got {type(values[name]).__name__}")
    if "expected_revision" in values:
        value = values["expected_revision"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise _bad("expected_revision", "must be a whole number >= 0 (0: the memory must not exist yet)")
    for name in ("one_off", "retract", "keep_both"):
        if name in values and not isinstance(values[name], bool):
            raise _bad(name, "must be true or false")
    if values.get("supersedes"):
        for other in ("keep_both", "retract"):
            if values.get(other):
                raise _bad("supersedes", f"cannot be given with {other}: choose one decision")
