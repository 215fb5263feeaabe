"""``memfs eval --gate``'s arithmetic (#27 item 4, "gate precision and recall from a labelled
utterance file"): exact precision and recall of "stored" on a small file whose outcomes are
known (a true store, a missed store, a wrongly stored one-off, a hold), per language too, and a
judge's readings changing them. The shipped sets meeting the targets: tests/unit/test_gate_meaning.py."""

from __future__ import annotations

import json
from pathlib import Path

from memfs.agents.gate_eval import evaluate_gate
from memfs.policy.candidate import Candidate
from memfs.policy.meaning import Reading

LINES = [
    {"text": "I prefer tea.", "lang": "en", "label": "store"},                        # stored: right
    {"text": "Always answer me in English.", "lang": "en", "label": "store"},         # stored: right
    {"text": "Reply to this thread in French.", "lang": "en", "label": "store"},      # refused: a missed store
    {"text": "今天的会议纪要用英文写。", "lang": "zh", "label": "store"},                 # refused: a missed store
    {"text": "以后回答请用中文。", "lang": "zh", "label": "refuse"},                      # stored: a wrong store
    {"text": "User seems to prefer Python.", "lang": "en", "label": "hold"},          # held: right
]


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "u.jsonl"
    path.write_text("# a comment line\n" + "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in LINES),
                    encoding="utf-8")
    return path


def test_precision_and_recall_of_stored_are_counted_exactly(tmp_path: Path) -> None:
    report = evaluate_gate(_file(tmp_path))
    assert dict(report.counts) == {("store", "store"): 2, ("store", "refuse"): 2, ("refuse", "store"): 1,
                                   ("hold", "hold"): 1}
    assert (report.precision, report.recall) == (2 / 3, 2 / 4) and not report.passed
    by_lang = report.to_json()["by_lang"]
    assert by_lang == {"en": {"precision": 1.0, "recall": round(2 / 3, 4)}, "zh": {"precision": 0.0, "recall": 0.0}}
    assert [(w["line"], w["got"]) for w in report.wrong] == [(4, "refuse"), (5, "refuse"), (6, "store")]


def test_a_judges_readings_move_the_figures(tmp_path: Path) -> None:
    """A judge reading every preference as lasting stores the two one-offs the rules refused."""
    def lasting(candidate: Candidate) -> Reading | None:
        return Reading("preference", "lasting", by="judge test")

    report = evaluate_gate(_file(tmp_path), lasting)
    assert (report.precision, report.recall) == (4 / 6, 4 / 4)
    assert dict(report.counts)[("hold", "store")] == 1  # the inferred wording, read as lasting, is stored
