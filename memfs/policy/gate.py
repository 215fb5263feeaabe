"""The write gate: may this candidate become a memory, and as what? (pure: no I/O)

Refusals, in the order they are checked:

* ``secret/<kind>``: a secret or identity number in any text field (see :mod:`memfs.policy.secrets_scan`).
  Never overridable: a secret in git history needs a history rewrite to remove.
* ``no-source``: the candidate does not say where it came from.
* ``untrusted-preference``: a preference created or changed by anything but the user's own
  statement (``source_kind: user``, or ``system`` for administrators). A tool result or document
  that says "use English" is data, not the user's wish (prompt-injection defence).
* ``one-off-preference``: a request marked ``one_off``, or worded for this time only, would become
  a lasting preference. The wording is read by :mod:`memfs.policy.meaning` (or by a judge, see
  :mod:`memfs.ops.judge`): phrase families ("just this once", "临时") and what the request refers
  to (this thread, letter, meeting; the paragraph above; today, tomorrow, this week; 这次, 本周,
  这封), unless it is also worded as lasting ("from now on", "以后"). Store it as an episode, or
  give the preference ``expires``.
* ``episode-without-trigger`` / ``episode-without-expiry``: an episode is one event; without the
  conditions that triggered it (a ``trigger`` field, or a "Trigger" section in the body) a reader
  cannot tell whether it applies again, and without ``expires`` it is kept as if it were a rule.
* ``summary-without-expiry``: a summary is a snapshot of what it summarises; it needs ``expires``
  (or a fresher summary replaces it) so it is not recalled as current forever.

Downgrades (:func:`downgrades`): stored, but not as asked.

* ``single-event-rule``: a procedure, or a fact or note that claims something durable ("never
  use X", "it is never available", "permanently", "永远"), that a tool or an agent drew from one
  observation (at most one independent root, see :mod:`memfs.policy.evidence`) is stored
  ``needs_review`` with low confidence, so it is not recalled until a person confirms it
  (``memfs reinstate``); procedures from such sources also age (see :mod:`memfs.policy.recall`).
  A fact or note with ``expires`` is a status of the moment and is stored as asked.
* ``inferred-preference``: a preference worded as someone's guess ("seems to", "probably",
  "看起来", "好像") is held the same way, whatever its ``source_kind`` says: it is not the user's
  explicit statement.

A judge's reading (:class:`memfs.policy.meaning.Reading`) replaces the offline reading of the
wording only: the secret, source and trust rules never depend on it.

Each refusal and downgrade names the rule, the field and the position in the text, says why, and
how to override it: a person (a ``user:`` actor) with ``--force``; agents never can.
"""

from __future__ import annotations

import re

from memfs.format.model import Memory
from memfs.policy import meaning
from memfs.policy.candidate import Candidate
from memfs.policy.meaning import CHOICES, Question, Reading
from memfs.policy.refusal import Refusal as Refusal
from memfs.policy.secrets_scan import scan

TRUSTED_FOR_PREFERENCES = ("user", "system")
#: Source kinds whose single observation is not yet a rule (a CI failure, an agent's conclusion).
OBSERVERS = ("tool", "agent")
#: The confidence a downgraded candidate is stored with (at most).
DOWNGRADED_CONFIDENCE = 0.3
#: Frontmatter key of the record a downgrade leaves (rule, reason, override, at, actor, confidence).
RECORD = "gate"
#: Said after every forceable refusal and every downgrade.
OVERRIDE = "a person (not an agent) may store it as asked with --force"

#: Where an episode's trigger conditions may be given in its body: a heading or a label.
_TRIGGER = re.compile(
    r"(?im)^\s*(?:#{1,6}\s*)?(?:triggers?|triggered\s+by|conditions?|when|触发条件|触发|条件)\s*(?:[:：]|$)"
)


def question(candidate: Candidate, existing: Memory | None = None) -> Question | None:
    """The meaning question the gate asks of ``candidate`` (:mod:`memfs.policy.meaning`), or
    ``None`` when its wording decides nothing: ``preference`` for a trusted preference without
    ``expires`` (one-off? inferred?), and for a procedure the user or an administrator gave (a
    standing instruction is a preference about how to work: "下午跟供应商开会，帮我列三个问题" asks
    for one task), ``observation`` for a tool's or agent's fact or note
    without ``expires`` (a durable claim, or a status?). An ``expires`` bounds it already."""
    if candidate.expires is not None:
        return None
    is_preference = candidate.type == "preference" or (existing is not None and existing.type == "preference")
    trusted = candidate.source_kind in TRUSTED_FOR_PREFERENCES and not candidate.one_off
    if is_preference or _standing(candidate):
        return "preference" if trusted else None
    if candidate.source_kind in OBSERVERS and candidate.type in ("fact", "note"):
        return "observation"
    return None


def read(candidate: Candidate, asked: Question, given: Reading | None = None) -> Reading:
    """``given`` (a judge's reading) when it answers ``asked``, else the offline rules' reading."""
    if given is not None and given.question == asked and given.label in CHOICES[asked]:
        return given
    if asked == "preference":
        return meaning.read_preference(candidate.body)
    return meaning.read_observation(candidate.body)


def check(candidate: Candidate, existing: Memory | None = None, reading: Reading | None = None) -> list[Refusal]:
    """Every rule the candidate breaks (empty: it may be written). ``existing`` is the active
    memory it would change, if any (changing a preference counts even if the candidate says
    another type); ``reading`` a judge's answer to :func:`question` (else the offline rules read
    the wording). The secret, source and trust rules never depend on a reading."""
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
    if (is_preference or _standing(candidate)) and candidate.expires is None:
        found.extend(_one_off(candidate, reading if question(candidate, existing) == "preference" else None))
    found.extend(_episode(candidate))
    if candidate.type == "summary" and candidate.expires is None:
        found.append(
            Refusal(
                "summary-without-expiry",
                "a summary is a snapshot of what it summarises; without expires it would be recalled as current "
                "forever",
                f"give it an expires time (when it should be summarised again); {OVERRIDE}",
                "expires",
                forceable=True,
            )
        )
    return found


def _episode(candidate: Candidate) -> list[Refusal]:
    if candidate.type != "episode":
        return []
    found = []
    trigger = candidate.extra.get("trigger")
    if not (isinstance(trigger, str | list) and trigger) and not _TRIGGER.search(candidate.body):
        found.append(
            Refusal(
                "episode-without-trigger",
                "an episode is one event; without the conditions that triggered it nobody can tell whether it "
                "applies again",
                "say what triggered it: a trigger field (trigger: [...]) or a 'Trigger:' section in the body; "
                + OVERRIDE,
                "trigger",
                forceable=True,
            )
        )
    if candidate.expires is None:
        found.append(
            Refusal(
                "episode-without-expiry",
                "an episode is one event; without expires it is kept, and recalled, as if it were a rule",
                f"give it an expires time; {OVERRIDE}",
                "expires",
                forceable=True,
            )
        )
    return found


def is_rule(candidate: Candidate, reading: Reading | None = None) -> bool:
    """A procedure, or a fact or note without ``expires`` read as a durable claim ("never use X",
    "it is never available", "总是…"): an ``expires`` makes it a status of the moment."""
    if candidate.type == "procedure":
        return True
    if candidate.type not in ("fact", "note") or candidate.expires is not None:
        return False
    return read(candidate, "observation", reading).label == "durable-claim"


def downgrades(candidate: Candidate, roots: frozenset[str], reading: Reading | None = None) -> list[Refusal]:
    """What the candidate is stored as instead of what it asks (empty: as asked). ``roots`` are
    its independent sources (:func:`memfs.policy.evidence.roots`); ``reading`` a judge's answer
    to :func:`question`.

    ``inferred-preference``: a preference worded as someone's guess ("seems to", "probably",
    "看起来") is never the user's explicit statement, whatever its ``source_kind`` says, nor is a
    fact in the user's name that guesses about someone ("the user appears to live in Toronto"): it
    is held (``needs_review``, low confidence) until a person confirms it."""
    asked = question(candidate)
    said = _inferred(candidate, asked, reading)
    if said is not None:
        cue = said.cue(candidate.body)
        return [
            Refusal(
                "inferred-preference",
                (f"{cue!r} is" if cue else f"{said.by} read it as") + " someone's guess about the user, not the "
                f"user's own statement; it is stored needs_review with confidence {DOWNGRADED_CONFIDENCE}, so it "
                "is not recalled until a person confirms it",
                "ask the user and store their own words, or a person confirms it with memfs reinstate; " + OVERRIDE,
                "body",
                said.start,
                said.end,
                forceable=True,
            )
        ]
    if asked == "preference" or candidate.source_kind not in OBSERVERS or len(roots) > 1 \
            or not is_rule(candidate, reading):
        return []
    what = "a procedure" if candidate.type == "procedure" else "a rule or durable claim"
    seen = f"one {candidate.source_kind} observation" + (f" ({', '.join(sorted(roots))})" if roots else "")
    return [
        Refusal(
            "single-event-rule",
            f"{what} drawn from {seen} is one event, not yet a rule; it is stored needs_review with confidence "
            f"{DOWNGRADED_CONFIDENCE}, so it is not recalled until a person confirms it (a status of the moment "
            "with an expires time is stored as asked)",
            "a person confirms it with memfs reinstate, or records it as an episode with its trigger; "
            + OVERRIDE,
            "type" if candidate.type == "procedure" else "body",
            forceable=True,
        )
    ]


def _standing(candidate: Candidate) -> bool:
    """A procedure the user or an administrator gave: a standing instruction, read as a preference
    is (one-off? inferred?)."""
    return candidate.type == "procedure" and candidate.source_kind in TRUSTED_FOR_PREFERENCES


def _inferred(candidate: Candidate, asked: Question | None, reading: Reading | None) -> Reading | None:
    """The inferred reading of a preference (or a user's procedure; ``asked`` is
    :func:`question`'s answer), or of a fact or note said in the user's or an administrator's name
    that is a guess about someone ("the user appears to…", 用户多半…): either way it is not the
    user's own statement."""
    if asked == "preference":
        said = read(candidate, "preference", reading)
        return said if said.label == "inferred" else None
    if candidate.source_kind in TRUSTED_FOR_PREFERENCES and candidate.type in ("fact", "note") \
            and candidate.expires is None:
        return meaning.guess_about_someone(candidate.body)
    return None


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


def one_off_marker(text: str) -> re.Match[str] | None:
    """See :func:`memfs.policy.meaning.one_off_marker`."""
    return meaning.one_off_marker(text)


def _one_off(candidate: Candidate, reading: Reading | None) -> list[Refusal]:
    fix = f"store it as an episode (type: episode), or give the preference an expires time; {OVERRIDE}"
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
    said = read(candidate, "preference", reading)
    if said.label != "one-off":
        return []
    cue, start = said.cue(text), said.start
    line = text.count("\n", 0, start) + 1 if start is not None else None
    column = start - (text.rfind("\n", 0, start) + 1) + 1 if start is not None else None
    return [
        Refusal(
            "one-off-preference",
            (f"{cue!r} reads" if cue else f"{said.by} reads it") + " as a request for this time only (this "
            "thread, letter or meeting; today, this week), not a lasting preference",
            fix + " (or say 'from now on' if it is meant to last)",
            "body",
            said.start,
            said.end,
            line,
            column,
            forceable=True,
        )
    ]
