"""Probable conflicts without a key (issue #27): precision and recall of
:func:`memfs.policy.conflicts.compare` on the labelled pair set, and how often it fires on
ordinary conversation.

1. ``tests/fixtures/conflicts/pairs.jsonl`` (the set the tests read): changed preferences and
   facts in English and Chinese (positives), and near-misses (duplicates worded differently,
   different subjects, additive facts). Printed: precision, recall and F1, overall and by language,
   the duplicate label's accuracy, and every miss. "Before" is the rule memfs had: only the same
   ``key`` or identical normalised text relates two keyless memories, so no conflict is found.
2. LoCoMo dev turns (read-only from /work/shared/bench/locomo, if present): consecutive turns of
   one speaker compared as if stored one after the other in one scope. Nearly all are unrelated,
   so the rate is an upper bound on false positives in conversation; the time per comparison is
   printed too (median of 5 runs).

    .venv/bin/python bench/bench_conflicts.py [--locomo PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memfs.policy.conflicts import compare, pairs, tokens  # noqa: E402

PAIRS = ROOT / "tests" / "fixtures" / "conflicts" / "pairs.jsonl"
LOCOMO = Path("/work/shared/bench/locomo/locomo10_dev.json")


def rates(rows: list[dict[str, str]]) -> tuple[float, float, int, int, int]:
    tp = sum(r["label"] == "conflict" and r["got"] == "conflict" for r in rows)
    fp = sum(r["label"] != "conflict" and r["got"] == "conflict" for r in rows)
    fn = sum(r["label"] == "conflict" and r["got"] != "conflict" for r in rows)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, tp, fp, fn


def labelled() -> None:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        row["got"] = compare(row["old"], row["new"]).kind
    print(f"pair set: {len(rows)} pairs ({sum(r['label'] == 'conflict' for r in rows)} conflicts)")
    print(f"{'':10} {'precision':>9} {'recall':>7} {'F1':>5}  tp fp fn   before (key/identical text only)")
    for name, part in (("all", rows), ("English", [r for r in rows if r["lang"] == "en"]),
                       ("Chinese", [r for r in rows if r["lang"] == "zh"])):
        p, r, tp, fp, fn = rates(part)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        print(f"{name:10} {p:9.2f} {r:7.2f} {f1:5.2f}  {tp:2} {fp:2} {fn:2}   recall 0.00 (0/{tp + fn})")
    dups = [r for r in rows if r["label"] == "duplicate"]
    print(f"duplicates called duplicate: {sum(r['got'] == 'duplicate' for r in dups)}/{len(dups)}"
          f" (called conflict: {sum(r['got'] == 'conflict' for r in dups)})")
    for row in rows:
        if (row["label"] == "conflict") != (row["got"] == "conflict"):
            print(f"  miss #{row['id']} {row['label']} -> {row['got']}: {row['old']!r} / {row['new']!r}")


def conversation(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    turn_pairs = []
    for conv in data:
        for name, session in conv["conversation"].items():
            if not (name.startswith("session_") and isinstance(session, list)):
                continue
            last: dict[str, str] = {}
            for turn in session:
                text, who = turn.get("text"), turn.get("speaker")
                if text and who:
                    if who in last:
                        turn_pairs.append((last[who], text))
                    last[who] = text
    times = []
    fired: list[tuple[str, str]] = []
    for _ in range(5):
        tokens.cache_clear()
        start = time.perf_counter()
        fired = [(a, b) for a, b in turn_pairs if compare(a, b).conflict]
        times.append(time.perf_counter() - start)
    per = statistics.median(times) / len(turn_pairs) * 1e6
    print(f"LoCoMo consecutive turns of one speaker: {len(fired)}/{len(turn_pairs)} called a conflict "
          f"({len(fired) / len(turn_pairs):.1%}, an upper bound on false positives); {per:.0f} µs per comparison, "
          f"both texts read (median of 5; load average {os.getloadavg()[0]:.1f})")
    for a, b in fired[:3]:
        print(f"  e.g. {a[:70]!r} / {b[:70]!r}")
    return [text for pair in turn_pairs for text in pair[:1]]


@dataclass(frozen=True)
class _Memory:
    path: str
    body: str
    scope: str
    type: str = "fact"
    version: str | None = None
    key: str | None = None
    status: str = "active"
    revision: int = 1
    updated: dt.datetime | None = None
    created: dt.datetime | None = None


def repository_scan(texts: list[str], scopes: int) -> None:
    """What ``memfs validate`` and ``memfs review`` add: :func:`pairs` over every memory, here
    LoCoMo turns as facts spread over ``scopes`` scopes (cold token cache each run)."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    memories = [_Memory(f"facts/t{i}.md", text, f"user:u{i % scopes}", updated=start + dt.timedelta(minutes=i))
                for i, text in enumerate(texts)]
    times = []
    found = 0
    for _ in range(3):
        tokens.cache_clear()
        began = time.perf_counter()
        found = len(pairs(memories))
        times.append(time.perf_counter() - began)
    print(f"pairs() over {len(memories)} memories in {scopes} scopes: {statistics.median(times) * 1000:.0f} ms "
          f"(median of 3), {found} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args()
    labelled()
    if args.locomo.exists():
        texts = conversation(args.locomo)
        repository_scan(texts, 10)
        repository_scan(texts, 1)
    else:
        print(f"{args.locomo}: not found, conversation rate skipped")


if __name__ == "__main__":
    main()
