"""The write gate measured on a labelled utterance file: precision and recall of "stored".

The file is JSONL, one utterance per line (blank lines and lines starting with ``#`` skipped)::

    {"text": "Reply to this thread in French.", "lang": "en", "label": "refuse"}
    {"text": "看起来用户喜欢简短的回答。", "lang": "zh", "label": "hold"}
    {"text": "Deploy freeze on Lumen until the audit closes; do not deploy.", "lang": "en",
     "label": "store", "source_kind": "tool", "type": "fact", "expires": "2026-12-31"}

Fields: ``text`` and ``lang`` (required strings), ``label`` (required: ``store``, it becomes an
active memory as asked; ``hold``, stored ``needs_review`` for a person; ``refuse``, not written;
also spelt ``stored``, ``held``, ``needs_review``, ``refused``...),
``source_kind`` (default ``user``), ``type`` (default ``preference`` for the user's and the
system's words, ``fact`` for the others'), ``expires`` (ISO 8601), ``note`` (free text, for the
reader). Any other field is an error naming the line and the field.

Each utterance becomes a candidate (scope ``user:eval``, source ``eval:line-N``, one independent
source) and goes through the same gate ``remember`` uses (:func:`memfs.policy.gate.check`, then
:func:`memfs.policy.gate.downgrades`), with the judge's reading when one is given. "Stored" is the
positive class: precision is the share of stored utterances labelled ``store``, recall the share
of ``store`` utterances stored.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.errors import MemfsError, UsageError
from memfs.policy import gate
from memfs.policy.candidate import Candidate, from_mapping
from memfs.policy.meaning import Reading

LABELS = ("store", "hold", "refuse")
#: Other spellings of the labels a hand-written file may use.
SYNONYMS = {"stored": "store", "keep": "store", "held": "hold", "review": "hold", "needs_review": "hold",
            "refused": "refuse", "reject": "refuse", "rejected": "refuse"}
FIELDS = ("text", "lang", "label", "source_kind", "type", "expires", "note")
#: Below these ``memfs eval`` exits 1 (the targets of issue #27).
MIN_PRECISION = 0.95
MIN_RECALL = 0.95


@dataclass(frozen=True)
class Utterance:
    line: int
    text: str
    lang: str
    label: str
    candidate: Candidate


@dataclass
class GateReport:
    """Counts by (label, outcome), and the utterances the gate got wrong."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    wrong: list[dict[str, Any]] = field(default_factory=list)
    by_lang: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)

    @staticmethod
    def _rates(counts: Counter[tuple[str, str]]) -> tuple[float, float]:
        stored = sum(n for (_, got), n in counts.items() if got == "store")
        wanted = sum(n for (label, _), n in counts.items() if label == "store")
        right = counts[("store", "store")]
        return (right / stored if stored else 1.0), (right / wanted if wanted else 1.0)

    @property
    def precision(self) -> float:
        return self._rates(self.counts)[0]

    @property
    def recall(self) -> float:
        return self._rates(self.counts)[1]

    @property
    def passed(self) -> bool:
        return self.precision >= MIN_PRECISION and self.recall >= MIN_RECALL

    def to_json(self) -> dict[str, Any]:
        return {
            "utterances": sum(self.counts.values()), "precision": round(self.precision, 4),
            "recall": round(self.recall, 4), "passed": self.passed,
            "by_lang": {lang: dict(zip(("precision", "recall"), (round(r, 4) for r in self._rates(c)), strict=True))
                        for lang, c in sorted(self.by_lang.items())},
            "outcomes": {f"{label} -> {got}": n for (label, got), n in sorted(self.counts.items())},
            "wrong": self.wrong,
        }

    def rows(self) -> list[tuple[str, str]]:
        total = sum(self.counts.values())
        out = [("gate utterances", str(total)),
               ("gate precision (stored)", f"{self.precision:.1%} (target {MIN_PRECISION:.0%})"),
               ("gate recall (stored)", f"{self.recall:.1%} (target {MIN_RECALL:.0%})")]
        for lang, counts in sorted(self.by_lang.items()):
            p, r = self._rates(counts)
            out.append((f"  {lang}", f"precision {p:.1%}, recall {r:.1%}"))
        out.extend((f"  wrong: line {w['line']}", f"{w['label']} -> {w['got']}: {w['text'][:60]}") for w in self.wrong)
        return out


def load_utterances(path: Path) -> list[Utterance]:
    """The utterances of a labelled file; :class:`UsageError` naming the line and the field."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the utterance file ({exc})", param="gate") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            out.append(_utterance(path, number, line))
    if not out:
        raise UsageError(f"{path}: no utterances (one JSON object a line)", param="gate")
    return out


def _utterance(path: Path, number: int, line: str) -> Utterance:
    def bad(name: str, message: str) -> UsageError:
        return UsageError(f"{path}: line {number}, field {name}: {message}", param="gate")

    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: line {number} is not JSON ({exc.msg})", param="gate") from None
    if not isinstance(item, dict):
        raise bad("-", "a line is one JSON object")
    for name in item:
        if name not in FIELDS:
            raise bad(name, f"unknown field (known: {', '.join(FIELDS)})")
    for name in ("text", "lang", "label"):
        if not isinstance(item.get(name), str) or not item[name].strip():
            raise bad(name, "missing (required, a non-empty string)")
    label = SYNONYMS.get(item["label"].strip().lower(), item["label"].strip().lower())
    if label not in LABELS:
        raise bad("label", f"{item['label']!r} is not one of {', '.join(LABELS)}")
    kind = item.get("source_kind", "user")
    fields = {"scope": "user:eval", "source": f"eval:line-{number}", "source_kind": kind, "body": item["text"],
              "type": item.get("type", "preference" if kind in gate.TRUSTED_FOR_PREFERENCES else "fact"),
              "expires": item.get("expires")}
    try:
        candidate = from_mapping(fields)
    except MemfsError as exc:
        raise bad(_named(str(exc)), str(exc)) from None
    return Utterance(number, item["text"], item["lang"], label, candidate)


def _named(message: str) -> str:
    for name in FIELDS:
        if f"'{name}'" in message:
            return name
    return "text" if "'body'" in message else "-"


def outcome(candidate: Candidate, reading: Reading | None = None) -> str:
    """What the gate does with ``candidate``: ``refuse``, ``hold`` (stored needs_review) or ``store``."""
    if gate.check(candidate, reading=reading):
        return "refuse"
    roots = frozenset({candidate.source}) if candidate.source else frozenset()
    return "hold" if gate.downgrades(candidate, roots, reading) else "store"


def evaluate_gate(path: Path, judge: Callable[[Candidate], Reading | None] | None = None) -> GateReport:
    """Run every utterance of ``path`` through the gate (asking ``judge`` first, if given)."""
    report = GateReport()
    for item in load_utterances(path):
        asked = judge is not None and not gate.secrets(item.candidate)  # a secret is never sent to a judge
        got = outcome(item.candidate, judge(item.candidate) if asked and judge is not None else None)
        report.counts[(item.label, got)] += 1
        report.by_lang.setdefault(item.lang, Counter())[(item.label, got)] += 1
        if got != item.label:
            report.wrong.append({"line": item.line, "text": item.text, "label": item.label, "got": got})
    return report
