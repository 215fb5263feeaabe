"""The write gate: may this candidate become a memory at all? (pure: no I/O)

Rules, in the order they are checked:

* ``secret/<kind>``: a secret or identity number in any text field (see :mod:`memfs.policy.secrets_scan`).
  Never overridable: a secret in git history needs a history rewrite to remove.
* ``no-source``: the candidate does not say where it came from.
* ``untrusted-preference``: a preference created or changed by anything but the user's own
  statement (``source_kind: user``, or ``system`` for administrators). A tool result or document
  that says "use English" is data, not the user's wish (prompt-injection defence).
* ``one-off-preference``: a request marked ``one_off``, or worded for this time only ("translate
  this", "just this once", "这次"), would become a lasting preference. Store it as an episode, or
  give the preference an ``expires`` time.

Each refusal names the rule, the field and the position in the text, and whether a human may
override it with ``--force``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfs.format.model import Memory
from memfs.policy.candidate import Candidate
from memfs.policy.secrets_scan import scan

TRUSTED_FOR_PREFERENCES = ("user", "system")

_ONE_OFF = re.compile(
    r"(?i)\b(?:just\s+this\s+once|this\s+time(?:\s+only)?|only\s+once|one[- ]off|for\s+now|right\s+now|today\s+only"
    r"|temporarily|for\s+this\s+(?:one|message|email|reply|document|file|draft|answer|request)"
    r"|translate\s+(?:this|that|it)\b)"
    r"|这次|这一次|本次|暂时|临时|只此一次|翻译一下|把这[个段句篇]"
)
_LASTING = re.compile(
    r"(?i)\b(?:from\s+now\s+on|always|every\s+time|in\s+future|going\s+forward|by\s+default)\b"
    r"|以后|今后|从现在起|从今以后|一直|每次"
)


@dataclass(frozen=True)
class Refusal:
    rule: str
    message: str
    fix: str
    field: str | None = None
    start: int | None = None
    end: int | None = None
    line: int | None = None
    column: int | None = None
    forceable: bool = False

    def __str__(self) -> str:
        parts = [p for p in (self.field, self.line and f"line {self.line}, column {self.column}") if p]
        where = f" ({', '.join(parts)})" if parts else ""
        return f"refused by rule {self.rule}{where}: {self.message}; {self.fix}"

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "message": self.message,
            "fix": self.fix,
            "field": self.field,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "forceable": self.forceable,
        }


def check(candidate: Candidate, existing: Memory | None = None) -> list[Refusal]:
    """Every rule the candidate breaks (empty: it may be written). ``existing`` is the active
    memory it would change, if any (changing a preference counts even if the candidate says
    another type)."""
    found = secrets(candidate)
    if not (candidate.source or "").strip():
        found.append(
            Refusal(
                "no-source",
                "the candidate does not say where it came from, so it could never be recalled",
                "give source, e.g. conversation:C1#msg-12",
                "source",
            )
        )
    is_preference = candidate.type == "preference" or (existing is not None and existing.type == "preference")
    if is_preference and candidate.source_kind not in TRUSTED_FOR_PREFERENCES:
        said = candidate.source_kind or "an unstated source"
        found.append(
            Refusal(
                "untrusted-preference",
                f"a preference may only be set or changed by the user's own statement, not by {said}"
                + (
                    " (text from tools and documents is data, not the user's wish)"
                    if said in ("tool", "document")
                    else ""
                ),
                "record it as a fact or note with its source, or ask the user and store their answer "
                "with source_kind: user",
                "source_kind",
                forceable=True,
            )
        )
    if is_preference and candidate.expires is None:
        found.extend(_one_off(candidate))
    return found


def secrets(candidate: Candidate) -> list[Refusal]:
    out = []
    for name, text in candidate.texts().items():
        for finding in scan(text):
            out.append(
                Refusal(
                    finding.rule,
                    f"{finding.kind} found ({finding.preview}); memfs never stores secrets or ID numbers, "
                    "because git keeps them in history",
                    "remove it from the candidate (refer to where it is kept instead, e.g. 'in the team vault')",
                    name,
                    finding.start,
                    finding.end,
                    finding.line,
                    finding.column,
                )
            )
    return out


def _one_off(candidate: Candidate) -> list[Refusal]:
    fix = "store it as an episode (type: episode), or give the preference an expires time"
    if candidate.one_off:
        return [
            Refusal(
                "one-off-preference",
                "the request is marked one-off, so it is not a lasting preference",
                fix,
                "one_off",
                forceable=True,
            )
        ]
    text = candidate.body
    marker = _ONE_OFF.search(text)
    if marker is None or _LASTING.search(text):
        return []
    line = text.count("\n", 0, marker.start()) + 1
    column = marker.start() - (text.rfind("\n", 0, marker.start()) + 1) + 1
    return [
        Refusal(
            "one-off-preference",
            f"{marker.group(0)!r} reads as a request for this time only, not a lasting preference",
            fix + " (or say 'from now on' if it is meant to last)",
            "body",
            marker.start(),
            marker.end(),
            line,
            column,
            forceable=True,
        )
    ]
