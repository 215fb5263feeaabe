"""Probable conflicts without a key (issue #27): precision and recall of
:func:`memfs.policy.conflicts.compare` on the labelled pair set, and how often it fires on
ordinary conversation.

1. ``tests/fixtures/conflicts/pairs.jsonl`` (the set the tests read): changed preferences and
   facts in English and Chinese (positives), and near-misses (duplicates worded differently,
   different subjects, additive facts). Printed: precision, recall and F1, overall and by language,
   the duplicate label's accuracy, and every miss. "Before" is the rule memfs had: only the same
   ``key`` or identical normalised text relates two keyless memories, so no conflict is found.
   Then ``bench/conflicts_heldout.jsonl``, 40 pairs written after the rules (since used to find
   the structures: fitted now), and ``bench/conflicts_blind.jsonl``, 80 pairs written by someone
   who never read the code and run once, sealed, after the rules were merged, the same way, and
   ``bench/conflicts_blind2.jsonl`` (120 pairs, en + zh), written and run once the same way a
   session later (its first run is in bench/README.md; a development set since), and
   ``bench/conflicts_blind3.jsonl`` (120 pairs) the session after.
2. The judge path (``[judge] conflict``, :mod:`memfs.ops.judge`) on both sets: the rules find
   the pairs, the judge rules on each through the same ``judge.rule`` remember uses; a pair counts
   as a conflict when the new memory replaces the old (``replace``, or no usable answer: the
   rules' SUPERSEDE). Judges: ``rules only`` (none), ``always replace`` and ``raises`` (must equal
   the rules: the mechanics and the fallback), ``oracle`` (answers from the labels: the ceiling,
   since a judge only rules on pairs the rules found), and with ``--anthropic`` the shipped
   Anthropic judge (needs ``ANTHROPIC_API_KEY`` and the network). The CPU one ruling costs with
   an instant judge (a thread per question) is printed too.
3. LoCoMo dev turns (read-only from /work/shared/bench/locomo, if present): consecutive turns of
   one speaker compared as if stored one after the other in one scope. Nearly all are unrelated,
   so the rate is an upper bound on false positives in conversation; the time per comparison is
   printed too (median of 5 runs). Then the cost on every write (:func:`per_write`): one new
   memory against 50, 200 and 1,000 memories of its scope, CPU time cold and warm, and how many
   of them a wider net for a judge would weigh.

4. With ``--semantic``: the wider net by meaning (``[semantic] embed``,
   :func:`memfs.policy.conflict_net.by_meaning`) with the real all-MiniLM-L6-v2
   (``bench/minilm_numpy.py``, ``MEMFS_BENCH_MINILM``), on the development sets (``conflicts_heldout``
   and ``conflicts_blind``) or the ``--pairs`` files: on the pairs the rules do not call a conflict,
   how many the net names and how many of those are conflicts, words only and words + vectors,
   and the recall an oracle judge reaches with each, by language (the model is English-only). On
   the development sets, also the recall and the pairs named at other thresholds (how
   :data:`~memfs.policy.conflict_net.MEANING_MIN` was chosen).

    .venv/bin/python bench/bench_conflicts.py [--locomo PATH] [--anthropic]
    .venv/bin/python bench/bench_conflicts.py --semantic [--pairs FILE ...]
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

from memfs.ops import judge  # noqa: E402
from memfs.policy import conflict_net, conflict_slots  # noqa: E402
from memfs.policy.conflict_pairs import pairs  # noqa: E402
from memfs.policy.conflicts import _compare, against, compare, forget_readings, tokens  # noqa: E402

PAIRS = ROOT / "tests" / "fixtures" / "conflicts" / "pairs.jsonl"
HELDOUT = ROOT / "bench" / "conflicts_heldout.jsonl"
BLIND = ROOT / "bench" / "conflicts_blind.jsonl"
BLIND2 = ROOT / "bench" / "conflicts_blind2.jsonl"
BLIND3 = ROOT / "bench" / "conflicts_blind3.jsonl"
LOCOMO = Path("/work/shared/bench/locomo/locomo10_dev.json")


def rates(rows: list[dict[str, str]]) -> tuple[float, float, int, int, int]:
    tp = sum(r["label"] == "conflict" and r["got"] == "conflict" for r in rows)
    fp = sum(r["label"] != "conflict" and r["got"] == "conflict" for r in rows)
    fn = sum(r["label"] == "conflict" and r["got"] != "conflict" for r in rows)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, tp, fp, fn


def read_rows(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def structural(old: str, new: str) -> str:
    """What the structural rules alone say (the rules before the subject/value model, which the
    model neither changes nor vetoes here)."""
    return _compare(tokens(old), tokens(new), new).kind


def labelled(path: Path) -> None:
    rows = read_rows(path)
    before = [{**row, "got": structural(row["old"], row["new"])} for row in rows]
    for row in rows:
        row["got"] = compare(row["old"], row["new"]).kind
    print(f"pair set {path.name}: {len(rows)} pairs ({sum(r['label'] == 'conflict' for r in rows)} conflicts)")
    print(f"{'':10} {'precision':>9} {'recall':>7} {'F1':>5}  tp fp fn   structural rules alone: P / R (tp fp fn)")
    for name, lang in (("all", None), ("English", "en"), ("Chinese", "zh")):
        part = [r for r in rows if lang in (None, r["lang"])]
        p, r, tp, fp, fn = rates(part)
        bp, br, btp, bfp, bfn = rates([r for r in before if lang in (None, r["lang"])])
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        print(f"{name:10} {p:9.2f} {r:7.2f} {f1:5.2f}  {tp:2} {fp:2} {fn:2}   {bp:.2f} / {br:.2f} ({btp} {bfp} {bfn})")
    dups = [r for r in rows if r["label"] == "duplicate"]
    print(f"duplicates called duplicate: {sum(r['got'] == 'duplicate' for r in dups)}/{len(dups)}"
          f" (called conflict: {sum(r['got'] == 'conflict' for r in dups)})")
    for row in rows:
        if (row["label"] == "conflict") != (row["got"] == "conflict"):
            print(f"  miss #{row['id']} {row['label']} -> {row['got']}: {row['old']!r} / {row['new']!r}")


Decide = judge.Decide


def _side(text: str, type_: str, path: str | None) -> judge.Side:
    return judge.Side(text, type_, "user:bench", "user", path)


def judged(rows: list[dict[str, str]], decide: Decide | None, name: str) -> list[dict[str, str]]:
    """Each pair through the judge path: the rules' pairs (:func:`against`, as remember finds
    them), each ruled on by ``decide``; ``got`` is ``conflict`` when the new memory replaces the old."""
    out = []
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    for row in rows:
        old = _Memory("facts/old.md", row["old"], "user:bench", row["type"], updated=start)
        new = _Memory("facts/new.md", row["new"], "user:bench", row["type"], updated=start + dt.timedelta(days=1))
        rivals = against(new, [old])
        got = "different"
        if rivals:
            question = judge.ConflictQuestion(judge.CONFLICT_ASKS, _side(row["new"], row["type"], None),
                                              _side(row["old"], row["type"], old.path), rivals[0][1].why)
            ruling = judge.rule(decide, name, question, 30.0) if decide is not None else None
            got = "conflict" if ruling is None or ruling.answer == "replace" else ruling.answer
        out.append({**row, "got": got})
    return out


def judge_path(paths: list[Path], anthropic: bool) -> None:
    import warnings

    rows = {path.name: read_rows(path) for path in paths}
    truth = {(r["old"], r["new"]): r["label"] for part in rows.values() for r in part}

    def oracle(question: judge.ConflictQuestion) -> str:
        return "replace" if truth[(question.old.text, question.new.text)] == "conflict" else "unrelated"

    def raises(question: judge.ConflictQuestion) -> str:
        raise RuntimeError("the judge is down")

    judges: dict[str, Decide | None] = {"rules only": None, "always replace": lambda q: "replace", "raises": raises,
                                        "oracle": oracle}
    if anthropic:
        from memfs.integrations import anthropic_judge

        judges["anthropic"] = anthropic_judge.conflict
    print(f"judge path ([judge] conflict over the rules' pairs; load average {os.getloadavg()[0]:.1f})")
    print(f"{'judge':15} " + " ".join(f"{name + ' P / R':>26}" for name in rows))
    for name, decide in judges.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", judge.JudgeFallback)
            cells = []
            for part in rows.values():
                p, r, tp, fp, fn = rates(judged(part, decide, f"bench:{name}"))
                cells.append(f"{p:.2f} / {r:.2f} ({tp}/{fp}/{fn})")
        said = len(judge.drain())
        print(f"{name:15} " + " ".join(f"{cell:>26}" for cell in cells) + (f"   fallback said {said}x" if said else ""))
    for name, part in rows.items():
        net(name, part)
        in_repository(name, part)
    question = judge.ConflictQuestion(judge.CONFLICT_ASKS, _side("Kai works in Paris now.", "fact", None),
                                      _side("Kai works in Berlin.", "fact", "facts/old.md"), "bench")
    times = []
    for _ in range(5):
        began = time.process_time()
        for _ in range(200):
            judge.rule(lambda q: "replace", "bench:instant", question, 30.0)
        times.append((time.process_time() - began) / 200)
    print(f"one ruling with an instant judge: {statistics.median(times) * 1e6:.0f} µs CPU (median of 5 x 200)")


def net(name: str, part: list[dict[str, str]]) -> None:
    """The wider net (:func:`memfs.policy.conflict_net.near`) on each pair the rules do not call a
    conflict: how many it names for the model or a judge, how many of those are conflicts, and
    the recall an oracle judge would reach with it."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    named = conflicts_named = 0
    for row in part:
        if compare(row["old"], row["new"]).conflict:
            continue
        old = _Memory("facts/old.md", row["old"], "user:bench", row["type"], updated=start)
        new = _Memory("facts/new.md", row["new"], "user:bench", row["type"], updated=start + dt.timedelta(days=1))
        if conflict_net.near(new, [old]):
            named += 1
            conflicts_named += row["label"] == "conflict"
    total = sum(r["label"] == "conflict" for r in part)
    found = sum(r["label"] == "conflict" and compare(r["old"], r["new"]).conflict for r in part)
    print(f"the wider net, {name}: names {named} near misses the rules do not pair, {conflicts_named} of them "
          f"conflicts; recall with an oracle judge {(found + conflicts_named) / total:.2f} "
          f"(rules {found / total:.2f}), precision of what it names {conflicts_named / named if named else 0:.2f}")


def in_repository(name: str, part: list[dict[str, str]]) -> None:
    """The wider net as a write meets it: every old side of the set's pairs of one language and
    type stored in one scope (a user's memory of ~20–60 comparable memories), then each new side
    written against all of them. How often it names the conflict's own old side among its
    :data:`~memfs.policy.conflict_net.NEAR_MAX` (the recall an oracle judge reaches with the rules'
    own pairs added), how many it names per write, and how many of those are the pair's own
    (conflict or duplicate): the noise the model or the judge is handed."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    hits = total = named = own = 0
    for row in part:
        stored = [_Memory(f"facts/{other['id']}.md", other["old"], "user:bench", other["type"], updated=start)
                  for other in part if other["lang"] == row["lang"] and other["type"] == row["type"]]
        new = _Memory("facts/new.md", row["new"], "user:bench", row["type"], updated=start + dt.timedelta(days=1))
        found = {memory.path for memory, _ in conflict_net.near(new, stored)}
        mine = f"facts/{row['id']}.md" in found
        named += len(found)
        own += mine and row["label"] in ("conflict", "duplicate")
        if row["label"] == "conflict":
            total += 1
            hits += mine or compare(row["old"], row["new"]).conflict
    print(f"  in one repository, {name}: the conflict's old side named or paired {hits}/{total} "
          f"({hits / total:.2f}); {named / len(part):.2f} named per write, {own / named if named else 0:.2f} "
          "of them the pair's own")


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
        forget_readings()
        start = time.perf_counter()
        fired = [(a, b) for a, b in turn_pairs if compare(a, b).conflict]
        times.append(time.perf_counter() - start)
    per = statistics.median(times) / len(turn_pairs) * 1e6
    print(f"LoCoMo consecutive turns of one speaker: {len(fired)}/{len(turn_pairs)} called a conflict "
          f"({len(fired) / len(turn_pairs):.1%}, an upper bound on false positives); {per:.0f} µs per comparison, "
          f"both texts read (median of 5; load average {os.getloadavg()[0]:.1f})")
    for a, b in fired[:3]:
        print(f"  e.g. {a[:70]!r} / {b[:70]!r}")
    nearby(data)
    return [text for pair in turn_pairs for text in pair[:1]]


def nearby(data: list[dict[str, object]], window: int = 5) -> None:
    """Harder negatives: each turn against the next ``window`` turns of its session, any speaker
    (nearby turns share a topic, and often a number or a value class): how many pairs are called a
    conflict, how many by the subject/value model alone, and the share the model read at all."""
    texts_by_session = []
    for conv in data:
        sessions = conv["conversation"]  # type: ignore[index]
        for name, session in sessions.items():
            if name.startswith("session_") and isinstance(session, list):
                texts_by_session.append([t["text"] for t in session if t.get("text")])
    pairs_ = [(s[i], s[j]) for s in texts_by_session for i in range(len(s))
              for j in range(i + 1, min(len(s), i + 1 + window))]
    fired = [(a, b) for a, b in pairs_ if compare(a, b).conflict]
    by_model = [(a, b) for a, b in fired if not _compare(tokens(a), tokens(b), b).conflict]
    read = sum(conflict_slots.may_pair(a, b) for a, b in pairs_)
    print(f"LoCoMo nearby turns (each against the next {window} of its session): {len(fired)}/{len(pairs_)} called a "
          f"conflict ({len(fired) / len(pairs_):.2%}), {len(by_model)} of them by the subject/value model alone; "
          f"{read} pairs ({read / len(pairs_):.1%}) both hold a value it reads")
    for a, b in by_model[:5]:
        print(f"  model e.g. {a[:70]!r} / {b[:70]!r}")


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
        forget_readings()
        began = time.perf_counter()
        found = len(pairs(memories))
        times.append(time.perf_counter() - began)
    print(f"pairs() over {len(memories)} memories in {scopes} scopes: {statistics.median(times) * 1000:.0f} ms "
          f"(median of 3), {found} pairs")


def per_write(texts: list[str], sizes: tuple[int, ...] = (50, 200, 1000)) -> None:
    """What the rules cost on every keyless write: :func:`against` (what ``remember`` and the file
    tools run) of one new memory against ``n`` active memories of its scope and type, cold (each
    text read for the first time, as in a fresh CLI process) and warm (the token cache holds the
    scope, as in a long-lived MCP server); CPU time, median of 5 writes. Also how many of the
    ``n`` a wider net for a judge would weigh (sharing a content token) and how often the top 3 of
    them by overlap would be asked about."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    news = texts[-5:]
    for n in sizes:
        memories = [_Memory(f"facts/t{i}.md", text, "user:bench", updated=start + dt.timedelta(minutes=i))
                    for i, text in enumerate(texts[:n])]
        cold, warm, netted = [], [], []
        sharing: list[int] = []
        for k, text in enumerate(news):
            new = _Memory("facts/new.md", text, "user:bench", updated=start + dt.timedelta(days=9, minutes=k))
            forget_readings()
            began = time.process_time()
            against(new, memories)
            cold.append(time.process_time() - began)
            began = time.process_time()
            against(new, memories)
            warm.append(time.process_time() - began)
            conflict_net.forget()
            began = time.process_time()
            sharing.append(len(conflict_net.near(new, memories)))
            netted.append(time.process_time() - began)
        cold_us, warm_us = statistics.median(cold) * 1e6, statistics.median(warm) * 1e6
        print(f"per write against {n:5} same-scope memories: {cold_us / 1000:7.2f} ms CPU cold "
              f"({cold_us / n:5.1f} µs/pair), {warm_us / 1000:6.2f} ms warm ({warm_us / n:4.1f} µs/pair); "
              f"the wider net: {statistics.median(netted) * 1000:.2f} ms CPU cold, names {sum(sharing)} near misses "
              f"over {len(sharing)} writes (at most {conflict_net.NEAR_MAX} each)")


def semantic_net(paths: list[Path], sweep: bool) -> None:
    """Part 4 (see the module docstring): each pair as one old memory and one new, as remember
    and the file tools weigh them (:func:`memfs.ops.conflicts.near_misses`' pure parts), the
    cosines from MiniLM instead of the cache."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "bench"))
    import minilm_numpy

    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    rows = [row for path in paths for row in read_rows(path)]
    began = time.process_time()
    unrelated = [np.asarray(v) for v in minilm_numpy.embed(list(conflict_net.UNRELATED))]

    def cos(a: np.ndarray, b: np.ndarray) -> float:
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    cosine, baseline = {}, {}
    for row in rows:
        a, b = (np.asarray(v) for v in minilm_numpy.embed([row["old"], row["new"]]))
        cosine[(row["old"], row["new"])] = cos(a, b)
        baseline[row["new"]] = max(cos(b, u) for u in unrelated)
    spent = (time.process_time() - began) / max(1, 2 * len(rows))

    def named(row: dict[str, str], threshold: float | None) -> bool:
        old = _Memory("facts/old.md", row["old"], "user:bench", row["type"], updated=start)
        new = _Memory("facts/new.md", row["new"], "user:bench", row["type"], updated=start + dt.timedelta(days=1))
        candidates = conflict_net.comparable(new, [old])
        by_vectors = [] if threshold is None else conflict_net.by_meaning(
            candidates, {old.path: cosine[(row["old"], row["new"])]}, baseline[row["new"]], threshold)
        return bool(conflict_net.merged(conflict_net.near(new, candidates), by_vectors))

    def line(part: list[dict[str, str]], threshold: float | None) -> str:
        total = sum(r["label"] == "conflict" for r in part)
        found = sum(r["label"] == "conflict" and compare(r["old"], r["new"]).conflict for r in part)
        rest = [r for r in part if not compare(r["old"], r["new"]).conflict]
        hit = [r for r in rest if named(r, threshold)]
        good = sum(r["label"] == "conflict" for r in hit)
        recall, rules = ((found + good) / total, found / total) if total else (0.0, 0.0)
        return (f"names {len(hit):3} of {len(rest):3} ({good:2} conflicts of {total - found:2} missed); "
                f"oracle recall {recall:.2f} (rules {rules:.2f})")

    names = " + ".join(path.name for path in paths)
    print(f"the wider net by meaning (MiniLM, {spent * 1000:.0f} ms CPU per text; load average "
          f"{os.getloadavg()[0]:.1f}), {names}:")
    for lang, label in ((None, "all"), ("en", "English"), ("zh", "Chinese")):
        part = [r for r in rows if lang in (None, r["lang"])]
        if not part:
            continue
        print(f"  {label:8} words only:               {line(part, None)}")
        least = conflict_net.MEANING_MIN
        print(f"  {label:8} words + vectors (>= {least:.2f}): {line(part, least)}")
    if sweep:
        for lang in ("en", "zh"):
            part = [r for r in rows if r["lang"] == lang]
            for threshold in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7):
                print(f"  sweep {lang} >= {threshold:.2f}: {line(part, threshold)}")


def semantic_cost(sizes: tuple[int, ...] = (50, 200, 1000), dims: int = 384) -> None:
    """What the net by meaning adds to a write besides embedding the new memory once: the
    comparable memories' vectors from a warm cache (:func:`memfs.index.vectors.similarities`, as
    :func:`memfs.ops.semantic.cosines` asks it) and the ranking; an embedder of random unit
    vectors of MiniLM's size, so memfs's cost and not a model's. CPU time, median of 5."""
    import hashlib
    import tempfile

    import numpy as np

    from memfs.index.vectors import VectorCache, similarities

    def embed(texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            rng = np.random.default_rng(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little"))
            vec = rng.standard_normal(dims)
            out.append((vec / np.linalg.norm(vec)).tolist())
        return out

    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            cache = VectorCache(Path(folder), f"bench-{n}", dims, embed)
            memories = [_Memory(f"facts/t{i}.md", f"memory number {i}", "user:bench", updated=start) for i in range(n)]
            new = _Memory("facts/new.md", "the new memory", "user:bench", updated=start + dt.timedelta(days=1))
            texts = {m.path: [m.body] for m in memories}
            wanted = cache.vectors([new.body], lambda _: "new")[0]
            similarities(cache, wanted, texts)  # warm
            times = []
            for _ in range(5):
                began = time.process_time()
                candidates = conflict_net.comparable(new, memories)
                scores, _ = similarities(cache, wanted, {m.path: texts[m.path] for m in candidates})
                conflict_net.by_meaning(candidates, scores, 0.0)
                times.append(time.process_time() - began)
            print(f"  the net by meaning per write, {n:5} comparable memories, warm cache: "
                  f"{statistics.median(times) * 1000:.2f} ms CPU (load average {os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    parser.add_argument("--anthropic", action="store_true", help="also the shipped Anthropic judge (network)")
    parser.add_argument("--semantic", action="store_true",
                        help="only the wider net by meaning, with MiniLM (MEMFS_BENCH_MINILM)")
    parser.add_argument("--pairs", type=Path, action="append",
                        help="a pair file of the same format instead of the shipped sets (repeatable)")
    args = parser.parse_args()
    if args.semantic:
        semantic_net(args.pairs or [HELDOUT, BLIND], sweep=not args.pairs)
        semantic_cost()
        return
    for path in args.pairs or [PAIRS, HELDOUT, BLIND, BLIND2, BLIND3]:
        labelled(path)
    judge_path(args.pairs or [PAIRS, HELDOUT, BLIND, BLIND2, BLIND3], args.anthropic)
    if args.pairs:
        return
    if args.locomo.exists():
        texts = conversation(args.locomo)
        per_write(texts)
        repository_scan(texts, 10)
        repository_scan(texts, 1)
    else:
        print(f"{args.locomo}: not found, conversation rate skipped")


if __name__ == "__main__":
    main()
