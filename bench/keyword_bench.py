"""Keyword recall benchmark: does ``memfs search`` put a memory that holds every query word in its
top 10, on corpora like users' (``bench/corpus.py``), next to a bare Whoosh index (``bare_whoosh.py``)?

    .venv/bin/python bench/keyword_bench.py --sizes 1000,10000 [--per-kind 40] [--keep DIR] [--json OUT]

For each size: one seeded corpus, written as files plus one commit, indexed by memfs and by the bare
index; every query runs three times, alternating: ``MemoryRepo.search`` with default settings and no
scope, the same with the target's scope, and the bare index. Reported per query kind: recall@10 on
the queries whose target is eligible (active, not expired), and over every query the number of
ineligible memories memfs returned (a status or expiry other than active and current, or, in the
scoped run, another scope): it must be 0. "ambiguous" counts the eligible-target queries whose words
more than 10 eligible memories hold (title, body, tags): without a scope, no ranking can promise
their target a place in the top 10 (two common Chinese words are often such a query).
The bare index knows nothing of eligibility; its figure is an upper bound, not a competitor. "Now"
is the corpus's own date (``corpus.NOW``), so expiry and freshness do not drift with the day the
script runs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import corpus
from bare_whoosh import BareIndex

from memfs import MemoryRepo

RUNS = ("memfs", "memfs_scoped", "bare")


def measure(size: int, per_kind: int, seed: int, root: Path) -> dict[str, object]:
    docs = corpus.generate(size, seed=seed)
    by_path = {d.path: d for d in docs}
    repo_dir = root / f"repo-{size}"
    started = time.perf_counter()
    corpus.write(repo_dir, docs)
    repo = MemoryRepo.open(repo_dir)
    repo.reindex()
    built = time.perf_counter() - started
    bare = BareIndex.build(repo_dir, root / f"bare-{size}")
    held = {d.path: set(corpus._terms(f"{d.title} {d.body} {' '.join(d.tags)}")) for d in docs if d.eligible}
    ambiguous: dict[str, int] = defaultdict(int)
    found: dict[str, dict[str, list[bool]]] = {run: defaultdict(list) for run in (*RUNS, "memfs_unambiguous")}
    ineligible = {"memfs": 0, "memfs_scoped": 0}
    seconds: dict[str, list[float]] = {run: [] for run in RUNS}
    with bare.ix.searcher() as searcher:
        for query in corpus.queries(docs, per_kind, seed=seed + 1):
            words = set(corpus._terms(query.text))
            unclear = query.eligible and sum(words <= terms for terms in held.values()) > 10
            ambiguous[query.kind] += unclear
            for run in RUNS:
                t0 = time.perf_counter()
                if run == "bare":
                    paths = bare.search(query.text, limit=10, searcher=searcher)
                else:
                    scope = query.scope if run == "memfs_scoped" else None
                    hits = repo.search(query.text, scope=scope, at=corpus.NOW, limit=10).hits
                    paths = [h.path for h in hits]
                    ineligible[run] += sum(
                        1 for p in paths
                        if not by_path[p].eligible or (scope is not None and by_path[p].scope != scope)
                    )
                seconds[run].append(time.perf_counter() - t0)
                if query.eligible:
                    found[run][query.kind].append(query.target in paths)
                if query.eligible and run == "memfs" and not unclear:
                    found["memfs_unambiguous"][query.kind].append(query.target in paths)
    recall = {run: {kind: sum(v) / len(v) for kind, v in sorted(kinds.items())} for run, kinds in found.items()}
    return {
        "size": size,
        "corpus": corpus.describe(docs),
        "build_s": round(built, 1),
        "eligible_queries": {kind: len(v) for kind, v in sorted(found["memfs"].items())},
        "ambiguous": dict(ambiguous),
        "recall@10": recall,
        "ineligible_returned": ineligible,
        "median_ms": {run: round(1000 * sorted(s)[len(s) // 2], 1) for run, s in seconds.items()},
    }


def table(result: dict[str, object]) -> str:
    recall = result["recall@10"]
    assert isinstance(recall, dict)
    counts = result["eligible_queries"]
    assert isinstance(counts, dict)
    lines = [
        f"N={result['size']:,}: {result['corpus']}; build {result['build_s']} s; "
        f"ineligible returned {result['ineligible_returned']}; median ms {result['median_ms']}",
        "| kind | n | ambiguous | memfs no scope | memfs, target scope | bare Whoosh | memfs no scope, unambiguous |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in counts:
        ambiguous = result["ambiguous"]
        assert isinstance(ambiguous, dict)
        figures = " | ".join(f"{recall[run][kind]:.3f}" if kind in recall[run] else "-"
                             for run in (*RUNS, "memfs_unambiguous"))
        lines.append(f"| {kind} | {counts[kind]} | {ambiguous.get(kind, 0)} | {figures} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated corpus sizes")
    parser.add_argument("--per-kind", type=int, default=40, help="queries per kind")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", help="build the repos here and keep them (default: a temporary folder)")
    parser.add_argument("--json", help="also write the figures here as JSON")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memfs-keyword-"))
    root.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            result = measure(size, args.per_kind, args.seed, root)
            results.append(result)
            print(table(result), flush=True)
            print(f"load average: {Path('/proc/loadavg').read_text().split()[:3]}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
