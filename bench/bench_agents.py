"""Agent interfaces: context assembly latency and label overhead, and save-to-committed under watch.

1. ``context``: a repository of N memories (default 10,000; varied words so queries match a few
   hundred) plus three system/ files, index built once; then ``context.assemble`` for ROUNDS
   different tasks at budget 4,000. Prints p50/p95 wall and CPU per call, tokens used, and the
   share of tokens spent on labels, delimiters and the preamble.
2. ``watch``: the same repository under an in-process :class:`memfs.agents.watch.Watcher` (debounce
   250 ms, index on); an external atomic save (temp file + rename) of a new memory, timed until
   the commit exists and until ``index.search`` finds it. Medians and p95 over ROUNDS saves.
3. ``--calibrate``: the offline token estimate against a real BPE (``bpe-openai``, if installed).

    .venv/bin/python bench/bench_agents.py [--memories 10000] [--rounds 30] [--calibrate]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlib import commit_all, cpu, pct

from memfs import MemoryRepo, index
from memfs.agents.context import assemble
from memfs.agents.rendering import render_head as _render_head
from memfs.agents.rendering import render_tail as _render_tail
from memfs.agents.watch import Watcher
from memfs.policy.tokens import estimate_tokens

WORDS = (
    "release deploy pipeline service test suite rollback database migration schema latency cache "
    "invoice customer language chinese report weekly standup sprint ticket review approval budget "
    "incident outage alert pager oncall backup restore kubernetes cluster node memory disk quota"
).split()








def make_repo(root: Path, count: int) -> MemoryRepo:
    rng = random.Random(7)
    MemoryRepo.init(root, actor="bench:setup")
    for i in range(count):
        folder = root / f"area{i % 10}"
        folder.mkdir(exist_ok=True)
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        (folder / f"m{i:05d}.md").write_text(
            f"---\nid: m{i:05d}\ntype: fact\nscope: project:P{i % 4}\nsource: bench:{i}\nrevision: 1\n"
            f"created: 2026-09-20T10:00:00Z\nupdated: 2026-09-20T10:00:00Z\nstatus: active\n"
            f"description: {' '.join(rng.choice(WORDS) for _ in range(5))}\n---\n{body}\n",
            encoding="utf-8",
        )
    for name in ("rules", "style"):
        (root / f"system/{name}.md").write_text(
            f"---\nid: {name}\ntype: note\nsource: bench\nstatus: active\nrevision: 1\n---\n"
            + "Keep answers short and cite the memory path you used. " * 8
            + "\n",
            encoding="utf-8",
        )
    commit_all(root)
    return MemoryRepo.open(root, actor="bench:memfs")


def bench_context(repo: MemoryRepo, rounds: int, budget: int) -> None:
    rng = random.Random(11)
    t0 = time.perf_counter()
    index.sync(repo.store)
    print(f"index build: {time.perf_counter() - t0:.1f} s wall")
    assemble(repo.store, "warm up release", scope="project:P1", budget=budget)
    enc = _real_encoding()
    walls, cpus, tokens, labels, blocks, left, real_share, real_tokens, real_label = [], [], [], [], [], [], [], [], []
    for _ in range(rounds):
        task = " ".join(rng.choice(WORDS) for _ in range(6))
        w, c = time.perf_counter(), cpu()
        ctx = assemble(repo.store, task, scope="project:P1", budget=budget)
        walls.append(time.perf_counter() - w)
        cpus.append(cpu() - c)
        tokens.append(ctx.tokens)
        labels.append(ctx.label_tokens)
        blocks.append(len(ctx.blocks))
        left.append(len(ctx.left_out_for_budget))
        if enc is not None:
            total = len(enc.encode(ctx.render()))
            text = sum(len(enc.encode(b.text)) for b in ctx.blocks)
            real_tokens.append(total)
            real_share.append((total - text) / total)
            head = len(enc.encode(_head(ctx))) + len(enc.encode(_tail(ctx)))
            real_label.append((total - text - head) / max(1, len(ctx.blocks)))
    share = [lab / tok for lab, tok in zip(labels, tokens, strict=True)]
    per_block = [lab / max(1, b) for lab, b in zip(labels, blocks, strict=True)]
    print(f"context assembly, {rounds} tasks, budget {budget}:")
    print(f"  wall p50 {statistics.median(walls) * 1000:.0f} ms, p95 {pct(walls, 95) * 1000:.0f} ms")
    print(f"  cpu  p50 {statistics.median(cpus) * 1000:.0f} ms, p95 {pct(cpus, 95) * 1000:.0f} ms")
    print(
        f"  tokens used median {statistics.median(tokens):.0f}; memories injected median "
        f"{statistics.median(blocks):.0f}; left out for budget median {statistics.median(left):.0f}"
    )
    print(
        f"  label+delimiter+preamble tokens: median {statistics.median(share) * 100:.1f}% of the context, "
        f"{statistics.median(per_block):.1f} tokens per memory (estimated)"
    )
    if enc is not None:
        print(
            f"  with o200k_base: context median {statistics.median(real_tokens):.0f} real tokens for a "
            f"{budget}-token budget; everything but memory text (labels, fences, preamble, left-out list) "
            f"median {statistics.median(real_share) * 100:.1f}%; label + fences per memory median "
            f"{statistics.median(real_label):.1f} real tokens"
        )


def _head(ctx) -> str:  # type: ignore[no-untyped-def]
    return _render_head(ctx, ctx.format)


def _tail(ctx) -> str:  # type: ignore[no-untyped-def]
    return _render_tail(ctx, ctx.format)


def _real_encoding():  # type: ignore[no-untyped-def]
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        return None
    return bpe_openai.get_encoding("o200k_base")


def bench_watch(repo: MemoryRepo, rounds: int) -> None:
    committed: dict[str, float] = {}
    ready = threading.Condition()

    def report(event) -> None:  # type: ignore[no-untyped-def]
        if event.outcome == "committed":
            with ready:
                committed[event.path] = time.perf_counter()
                ready.notify_all()

    watcher = Watcher(repo.store, actor="user:bench", report=report, index=True)
    watcher.start()
    to_commit, to_search = [], []
    try:
        for i in range(rounds):
            rel = f"watched/w{i:03d}.md"
            word = f"zebra{i:03d}quokka"
            text = (
                f"---\nid: w{i:03d}\ntype: fact\nscope: project:P1\nsource: bench\nstatus: active\n---\n"
                f"The {word} note saved by an editor.\n"
            )
            target = repo.root / rel
            target.parent.mkdir(exist_ok=True)
            tmp = target.parent / f".{target.name}.tmp"
            start = time.perf_counter()
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, target)
            with ready:
                ready.wait_for(lambda rel=rel: rel in committed, timeout=60)
            to_commit.append(committed[rel] - start)
            while not index.search(repo.store, word, scope="project:P1").hits:
                time.sleep(0.005)
            to_search.append(time.perf_counter() - start)
    finally:
        watcher.stop()
    print(f"watch, {rounds} atomic saves into the same repository (debounce 250 ms, index on):")
    print(
        f"  save -> committed: median {statistics.median(to_commit) * 1000:.0f} ms, "
        f"p95 {pct(to_commit, 95) * 1000:.0f} ms"
    )
    print(
        f"  save -> committed and searchable: median {statistics.median(to_search) * 1000:.0f} ms, "
        f"p95 {pct(to_search, 95) * 1000:.0f} ms"
    )


def calibrate() -> None:
    try:
        import bpe_openai  # type: ignore[import-not-found]
    except ImportError:
        print("calibrate: pip install bpe-openai (ships its vocabularies; no download at run time)")
        return
    root = Path(__file__).resolve().parents[1]
    samples = {
        "prose (README, DESIGN)": [root / "README.md"],
        "code (memfs/**/*.py)": sorted((root / "memfs").rglob("*.py")),
        "memory files (templates)": sorted((root / "templates").glob("*.md")),
    }
    cjk = "发布说明用中文写。用户要求每周五提交周报，并在会议前确认预算审批。回滚计划需要在发布前由值班工程师确认。" * 6
    for name in ("o200k_base", "cl100k_base"):
        enc = bpe_openai.get_encoding(name)
        for label, files in samples.items():
            texts = [f.read_text(encoding="utf-8") for f in files]
            chunks = [t[i : i + 1500] for t in texts for i in range(0, len(t), 1500)]
            ratios = [estimate_tokens(c) / max(1, len(enc.encode(c))) for c in chunks if c.strip()]
            total = sum(estimate_tokens(c) for c in chunks) / sum(len(enc.encode(c)) for c in chunks)
            chars = sum(len(c) for c in chunks) / sum(len(enc.encode(c)) for c in chunks) / 4
            print(
                f"{name:12s} {label:26s} estimate/real total {total:.3f}, per chunk min {min(ratios):.3f} "
                f"max {max(ratios):.3f}; chars/4 would give {chars:.3f}"
            )
        real = len(enc.encode(cjk))
        print(
            f"{name:12s} {'Chinese text':26s} estimate/real {estimate_tokens(cjk) / real:.3f}; "
            f"chars/4 would give {len(cjk) / 4 / real:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--calibrate", action="store_true")
    args = parser.parse_args()
    if args.calibrate:
        calibrate()
        return
    print(f"load average: {os.getloadavg()[0]:.1f} (2 cores, shared)")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        repo = make_repo(Path(tmp) / "mem", args.memories)
        print(f"{args.memories} memories generated and committed in {time.perf_counter() - t0:.1f} s")
        bench_context(repo, args.rounds, args.budget)
        bench_watch(repo, min(args.rounds, 20))


if __name__ == "__main__":
    main()
