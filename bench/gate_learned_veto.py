"""Would a model learned from the labelled utterance sets lift the write gate's precision on
wording nobody fitted? (issue #27; an experiment, nothing of it is shipped)

Each sealed set so far found the offline rules at ~0.75–0.88 precision on its first run, and each
round of structural rules fixed the set it was written against. This asks whether a plain learned
model generalises better: a logistic regression on word unigrams and bigrams (English) and
character 1–3-grams (Chinese), plus the source kind and type, trained on "store" against the
rest, used as a **veto** only: what the rules store, the model may hold back when its
probability of "store" is under a threshold. Nothing the rules refuse is ever stored by it.

Measured two ways, both on data the model did not train on:

* **leave one set out** over the development sets in ``bench/`` (the rules themselves were fitted
  on all of them, so this measures the veto's own generalisation on top of fitted rules);
* **the sealed set**: the model trained on every other development set, applied to the rules'
  outcomes on a set first run sealed (``--sealed PATH``, left out of the training even when a
  copy is in ``bench/``; the rules had never seen it either).

    .venv/bin/python bench/gate_learned_veto.py [--sealed PATH] (needs numpy)
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memfs.agents.gate_eval import load_utterances, outcome  # noqa: E402

Row = tuple[str, str, str, str, str]  # text, source kind, type, label, the rules' outcome
DEVELOPMENT = sorted((ROOT / "bench").glob("gate_*.jsonl"))
#: The sets with both languages and ≥ 100 utterances: the ones a held-out figure means something on.
HELD_OUT = ("gate_blind4", "gate_blind5", "gate_blind6", "gate_blind7")


def features(text: str, kind: str, type_: str) -> set[str]:
    lower = text.lower()
    found = {f"kind={kind}", f"type={type_}", f"kind/type={kind}/{type_}"}
    words = re.findall(r"[a-z0-9']+", lower)
    found |= {"w:" + w for w in words} | {f"b:{a}_{b}" for a, b in itertools.pairwise(words)}
    han = "".join(re.findall(r"[\u4e00-\u9fff]", lower))
    for n in (1, 2, 3):
        found |= {f"c{n}:" + han[i:i + n] for i in range(len(han) - n + 1)}
    return found


def rows(path: Path) -> list[Row]:
    found = []
    for item in load_utterances(path):
        c = item.candidate
        found.append((item.text, c.source_kind or "user", c.type or "", item.label, outcome(c)))
    return found


class Veto:
    """Logistic regression by full-batch gradient descent (L2), over the rows' features."""

    def __init__(self, train: list[Row], l2: float = 1.0, steps: int = 300) -> None:
        self.vocab: dict[str, int] = {}
        index = [[self.vocab.setdefault(f, len(self.vocab)) for f in features(*r[:3])] for r in train]
        x = np.zeros((len(train), len(self.vocab)), dtype=np.float32)
        for i, cols in enumerate(index):
            x[i, cols] = 1.0
        y = np.array([r[3] == "store" for r in train], dtype=np.float32)
        self.w = np.zeros(len(self.vocab), dtype=np.float32)
        self.b = 0.0
        for _ in range(steps):
            p = 1 / (1 + np.exp(-(x @ self.w + self.b)))
            self.w -= 0.5 * (x.T @ (p - y) + l2 * self.w) / len(train)
            self.b -= 0.5 * float(np.mean(p - y))

    def store(self, row: Row) -> float:
        z = self.b + sum(float(self.w[self.vocab[f]]) for f in features(*row[:3]) if f in self.vocab)
        return 1 / (1 + math.exp(-z))


def rates(data: list[Row], veto: Veto | None, threshold: float) -> tuple[float, float]:
    tp = fp = fn = 0
    for row in data:
        stored = row[4] == "store" and (veto is None or veto.store(row) >= threshold)
        tp += stored and row[3] == "store"
        fp += stored and row[3] != "store"
        fn += not stored and row[3] == "store"
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sealed", type=Path, action="append", default=[])
    args = parser.parse_args()
    sealed = {path.stem: rows(path) for path in args.sealed}
    sets = {path.stem: rows(path) for path in DEVELOPMENT if path.stem not in sealed}
    print(f"{sum(map(len, sets.values()))} development utterances in {len(sets)} sets; "
          f"load average {os.getloadavg()[0]:.1f}")
    for threshold in (0.3, 0.5):
        cells = []
        for name in HELD_OUT:
            veto = Veto([r for other, part in sets.items() if other != name for r in part])
            (p0, r0), (p1, r1) = rates(sets[name], None, threshold), rates(sets[name], veto, threshold)
            cells.append(f"{name[5:]} {p0:.2f}/{r0:.2f} -> {p1:.2f}/{r1:.2f}")
        everything = Veto([r for part in sets.values() for r in part])
        for name, part in sealed.items():
            (p0, r0), (p1, r1) = rates(part, None, threshold), rates(part, everything, threshold)
            cells.append(f"SEALED {name} {p0:.3f}/{r0:.3f} -> {p1:.3f}/{r1:.3f}")
        print(f"veto under {threshold}: rules P/R -> rules + veto P/R: " + " | ".join(cells))


if __name__ == "__main__":
    main()
