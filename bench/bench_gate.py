"""The write gate's detection rates on its phrase set, and its false-positive rate on ordinary text.

0. The labelled utterance sets (bench/gate_utterances.jsonl, gate_heldout.jsonl, gate_blind2.jsonl,
   gate_blind3.jsonl … gate_blind8.jsonl; issue #27):
   precision and recall of "stored", as ``memfs eval --gate`` reports them.
1. The phrase set (tests/unit/gate_phrases.py, the same the tests check): one-off requests in
   English and Chinese, each offered as the user's preference (must be refused), and near-misses
   (lasting requests, ordinary preferences sharing words; must pass).
2. LoCoMo dev conversation turns (read-only from /work/shared/bench/locomo, never copied), each
   offered three ways:
     * as the user's note: the whole gate (secrets, source, and every rule that applies to notes):
       anything refused is a false positive;
     * as the user's *preference*: how often the one-off rule fires on ordinary conversation (an
       upper bound: these turns are not requests, and many of them really are about one time);
     * as a note a tool observed: how often the single-event-rule downgrade fires.

    .venv/bin/python bench/bench_gate.py [--locomo PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memfs.agents.gate_eval import evaluate_gate  # noqa: E402
from memfs.policy import gate, meaning  # noqa: E402
from memfs.policy.candidate import from_mapping  # noqa: E402
from memfs.policy.secrets_scan import scan  # noqa: E402
from tests.unit import gate_phrases  # noqa: E402

LOCOMO = Path("/work/shared/bench/locomo/locomo10_dev.json")
UTTERANCES = [ROOT / "bench" / name
              for name in ("gate_utterances.jsonl", "gate_heldout.jsonl", "gate_blind2.jsonl", "gate_blind3.jsonl",
                           "gate_blind4.jsonl", "gate_blind5.jsonl", "gate_blind6.jsonl", "gate_blind7.jsonl",
                           "gate_blind8.jsonl")]
USER = {"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user"}


def rules(body: str, **fields: object) -> list[str]:
    candidate = from_mapping({**USER, "type": "note", **fields, "body": body})
    return [r.rule for r in gate.check(candidate)]


def turns(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for conv in data:
        for name, session in conv["conversation"].items():
            if name.startswith("session_") and isinstance(session, list):
                out += [t["text"] for t in session if t.get("text")]
    return out


def _scan_fresh(text: str) -> object:
    return scan(text + " ")  # a text not seen before: the scanner remembers short clean texts


def _median_us(texts: list[str], read: Callable[[str], object]) -> float:
    """CPU per text of ``read`` over ``texts``, the median of five passes after one to warm up."""
    read(texts[0])
    passes = []
    for _ in range(5):
        started = time.process_time()
        for text in texts:
            read(text)
        passes.append(time.process_time() - started)
    return statistics.median(passes) * 1e6 / len(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args()

    for name, phrases, refused in (
        ("one-off requests, English", gate_phrases.ONE_OFF_EN, True),
        ("one-off requests, Chinese", gate_phrases.ONE_OFF_ZH, True),
        ("near-misses, English", gate_phrases.NEAR_MISS_EN, False),
        ("near-misses, Chinese", gate_phrases.NEAR_MISS_ZH, False),
    ):
        hits = [p for p in phrases if ("one-off-preference" in rules(p, type="preference")) == refused]
        what = "refused" if refused else "passed"
        print(f"{name}: {len(hits)}/{len(phrases)} {what} ({len(hits) / len(phrases):.0%})")
        for miss in sorted(set(phrases) - set(hits)):
            print(f"    wrong: {miss!r}")

    for path in UTTERANCES:
        report = evaluate_gate(path)
        started = time.process_time()
        evaluate_gate(path)
        per = (time.process_time() - started) * 1e6 / sum(report.counts.values())
        print(f"labelled utterances ({path.name}): precision {report.precision:.1%}, recall {report.recall:.1%} "
              f"({sum(report.counts.values())} utterances, {per:.0f} µs CPU each)")
        for name, value in report.rows()[3:]:
            print(f"    {name}: {value}")

    if not args.locomo.is_file():
        print(f"LoCoMo not found at {args.locomo}; skipped")
        return
    texts = turns(args.locomo)
    started = time.process_time()
    as_note = [t for t in texts if rules(t)]
    spent = time.process_time() - started
    as_preference = [t for t in texts if "one-off-preference" in rules(t, type="preference")]
    observed = [t for t in texts
                if gate.downgrades(from_mapping({**USER, "type": "note", "source_kind": "tool", "body": t}),
                                   frozenset({"tool:x"}))]
    n = len(texts)
    print(f"LoCoMo dev turns: {n}")
    print(f"  refused as the user's note (false positives of the gate): {len(as_note)}/{n} "
          f"= {len(as_note) / n:.2%} ({spent * 1e6 / n:.0f} µs CPU per turn)")
    for text in as_note[:5]:
        print(f"    refused: {text[:90]!r} -> {rules(text)}")
    print(f"  one-off rule, had each turn been offered as a preference: {len(as_preference)}/{n} "
          f"= {len(as_preference) / n:.2%}")
    for text in as_preference[:8]:
        marker = gate.one_off_marker(text)
        print(f"    {marker.group(0) if marker else '?'!r}: {text[:90]!r}")
    print(f"  warm CPU per turn, median of 5 passes: secret scan {_median_us(texts, _scan_fresh):.1f} µs, "
          f"reading as a preference {_median_us(texts, meaning.read_preference):.1f} µs")
    print(f"  single-event-rule downgrade, had each turn been a tool's note: {len(observed)}/{n} "
          f"= {len(observed) / n:.2%}")
    for text in observed[:5]:
        print(f"    {text[:90]!r}")


if __name__ == "__main__":
    main()
