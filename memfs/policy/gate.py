"""The write gate: may this candidate become a memory, and as what? (pure: no I/O)

Refusals, in the order they are checked:

* ``secret/<kind>``: a secret or identity number in any text field (see :mod:`memfs.policy.secrets_scan`).
  Never overridable: a secret in git history needs a history rewrite to remove.
* ``no-source``: the candidate does not say where it came from.
* ``untrusted-preference``: a preference created or changed by anything but the user's own
  statement (``source_kind: user``, or ``system`` for administrators). A tool result or document
  that says "use English" is data, not the user's wish (prompt-injection defence).
* ``one-off-preference``: a request marked ``one_off``, or worded for this time only ("just this
  once", "for the next email", "这次", "临时"...) and not as lasting ("from now on", "以后"...),
  would become a lasting preference. Store it as an episode, or give the preference ``expires``.
* ``episode-without-trigger`` / ``episode-without-expiry``: an episode is one event; without the
  conditions that triggered it (a ``trigger`` field, or a "Trigger" section in the body) a reader
  cannot tell whether it applies again, and without ``expires`` it is kept as if it were a rule.
* ``summary-without-expiry``: a summary is a snapshot of what it summarises; it needs ``expires``
  (or a fresher summary replaces it) so it is not recalled as current forever.

Downgrades (:func:`downgrades`): stored, but not as asked.

* ``single-event-rule``: a procedure, or a rule ("never use X", "always ..."), that a tool or an
  agent drew from one observation (at most one independent root, see
  :mod:`memfs.policy.evidence`) is stored ``needs_review`` with low confidence, so it is not
  recalled until a person confirms it (``memfs reinstate``); procedures from such sources also
  age (see :mod:`memfs.policy.recall`).

Each refusal and downgrade names the rule, the field and the position in the text, says why, and
how to override it: a person (a ``user:`` actor) with ``--force``; agents never can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfs.format.model import Memory
from memfs.policy.candidate import Candidate
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

#: Requests for this time only, English. Each alternative is one phrasing family; the tests hold
#: a phrase for each and near-misses that must pass (tests/unit/gate_phrases.py).
ONE_OFF_EN = (
    r"just\s+(?:this\s+once|once|for\s+(?:now|today|this))",
    r"(?:only|just)\s+this\s+(?:once|time)",
    r"this\s+(?:once|one\s+time)\b",
    r"this\s+time\b(?!\s*(?:zone|of\b|frame))",
    r"one[- ](?:off|time)\b(?!\s+(?:password|code|token|setup|fee|payment))",
    r"for\s+now\b",
    r"for\s+the\s+(?:time\s+being|moment)",
    r"right\s+now\b",
    r"(?:today|tonight)\s+only|only\s+(?:today|tonight)|just\s+(?:today|tonight)",
    r"for\s+(?:today|tonight|this\s+(?:morning|afternoon|evening|week|weekend))\b",
    r"temporar(?:il)?y\s+(?:switch|change|use|reply|answer|write)|temporarily",
    r"as\s+an?\s+exception|exceptionally",
    r"(?:for|in|on|to|with)\s+(?:this|that|the\s+next|my\s+next|your\s+next|the\s+following)\s+"
    r"(?:one|message|e-?mails?|mails?|reply|replies|response|answer|document|doc|file|draft|request|task|"
    r"ticket|meeting|call|chat|conversation|report|letter|memo|slide\s+deck|deck|pr|pull\s+request|commit|"
    r"session|question|post|tweet|summary|invoice)\b",
    r"(?:reply|respond|answer|write)\s+(?:to\s+)?(?:the|my|your)\s+next\s+(?:e-?mail|message|one|letter)",
    r"the\s+next\s+(?:e-?mail|message|reply|response|letter)\b",
    r"until\s+(?:tomorrow|tonight|the\s+end\s+of\s+(?:the\s+)?(?:day|week|month|sprint)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|next\s+week|the\s+release|i\s+say\s+otherwise)\b",
    r"translate\s+(?:this|that|it)\b",
)
#: Requests for this time only, Chinese.
ONE_OFF_ZH = (
    r"这次|这一次|这回|这一回|本次|此次|这趟",
    r"只此一次|仅此一次|就这一次|就这一回|下不为例|一次性",
    r"暂时|暂且|姑且|目前先|先这样",
    r"临时(?!文件|目录|变量|表|工|存储|缓存)",
    r"今天先|今天就|今晚先|今天用|今天请",
    r"下一封|下封|这封|这条(?:消息|回复|邮件)|这份|这篇",
    r"翻译一下|把这[个段句篇封份条]",
    r"破例|例外地?",
)
#: Wording that makes a request lasting; with it, a one-off marker is not a refusal.
LASTING_EN = (
    r"from\s+(?:now|here|today)\s+on(?:wards?)?|from\s+now\b|going\s+forward|henceforth|hereafter",
    r"\balways\b|every\s+time|each\s+time|whenever|all\s+future|in\s+(?:the\s+)?future",
    r"by\s+default|permanently|as\s+a\s+rule|from\s+this\s+point|for\s+good|no\s+matter\s+what",
)
LASTING_ZH = (
    r"以后|今后|往后|日后|从现在起|从现在开始|从今以后|从今往后|从此",
    r"一直|每次|每一次|总是|永远|始终|一律|默认|长期|以后都|都要",
)
_ONE_OFF = re.compile("(?i)" + "|".join(f"\\b(?:{p})" for p in ONE_OFF_EN) + "|" + "|".join(ONE_OFF_ZH))
_LASTING = re.compile("(?i)" + "|".join(f"\\b(?:{p})" for p in LASTING_EN) + "|" + "|".join(LASTING_ZH))
#: A rule: an instruction to always or never do something, at the start of a line or sentence.
_RULE = re.compile(
    r"(?im)(?:^|[.!?;:。！？；：]\s*)(?:[-*•]\s*)?(?:"
    r"never(?!\s+(?:mind|been|had|saw|thought|knew|seen|heard)\b)"
    r"|always(?!\s+(?:here|good|happy|been|nice|great|fun|glad|a|an|the|so|up)\b)"
    r"|(?:do\s+not|don['’]t)(?!\s+(?:worry|know|think|mind|get|be\s+sorry|you|we|they)\b)"
    r"|must(?!['’]ve|\s+(?:have|be|feel)\b)(?:\s+not)?"
    r"|avoid|stop\s+using|only\s+use|make\s+sure\s+to|should\s+(?:never|always))\b"
    r"|不要|别再|禁止|永远不要|切勿|必须|务必|一定要|总是|避免"
)
#: Where an episode's trigger conditions may be given in its body: a heading or a label.
_TRIGGER = re.compile(
    r"(?im)^\s*(?:#{1,6}\s*)?(?:triggers?|triggered\s+by|conditions?|when|触发条件|触发|条件)\s*(?:[:：]|$)"
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


def is_rule(candidate: Candidate) -> bool:
    """A procedure, or a fact or note worded as a rule ("never use X", "总是…")."""
    if candidate.type == "procedure":
        return True
    return candidate.type in ("fact", "note") and _RULE.search(candidate.body) is not None


def downgrades(candidate: Candidate, roots: frozenset[str]) -> list[Refusal]:
    """What the candidate is stored as instead of what it asks (empty: as asked). ``roots`` are
    its independent sources (:func:`memfs.policy.evidence.roots`)."""
    if candidate.source_kind not in OBSERVERS or len(roots) > 1 or not is_rule(candidate):
        return []
    what = "a procedure" if candidate.type == "procedure" else "a rule"
    seen = f"one {candidate.source_kind} observation" + (f" ({', '.join(sorted(roots))})" if roots else "")
    return [
        Refusal(
            "single-event-rule",
            f"{what} drawn from {seen} is one event, not yet a rule; it is stored needs_review with confidence "
            f"{DOWNGRADED_CONFIDENCE}, so it is not recalled until a person confirms it",
            "a person confirms it with memfs reinstate, or records it as an episode with its trigger; "
            + OVERRIDE,
            "type" if candidate.type == "procedure" else "body",
            forceable=True,
        )
    ]


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
    """The first wording of ``text`` that asks for this time only, unless ``text`` also says the
    request is lasting ("from now on", "以后"); ``None`` otherwise."""
    marker = _ONE_OFF.search(text)
    if marker is None or _LASTING.search(text):
        return None
    return marker


def _one_off(candidate: Candidate) -> list[Refusal]:
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
    marker = one_off_marker(text)
    if marker is None:
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
