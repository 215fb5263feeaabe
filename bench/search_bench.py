"""Search benchmark: synthetic memory repos of N files (~10% Chinese), index build, scoped query
latency, catch-up after a one-file edit, disk size, fresh CLI process time, and the same queries
as a ripgrep (or grep) full scan.

    .venv/bin/python bench/search_bench.py --sizes 1000,10000 [--keep DIR] [--queries 200]

Files are generated directly and committed once (not through memfs writes). Times are wall
clock and CPU (``process_time``) medians; the machine is shared, so compare ratios.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = (
    "release deploy pipeline database migration schema backup restore token cache latency budget "
    "invoice customer ticket incident outage rollback feature flag experiment dashboard metric alert "
    "pager review approval merge branch commit build test coverage flaky retry timeout queue worker "
    "cron schedule report export import language preference chinese english format markdown style "
    "meeting agenda note summary decision owner deadline sprint roadmap quarter budget vendor contract"
).split()
FILLER = "the a of to and in for on with is was it that this as be by we they from at".split()
ZH = "发布 说明 部署 数据库 迁移 测试 回滚 版本 用户 偏好 中文 代码 评审 意见 会议 总结 预算 客户 工单 故障".split()
TYPES = ["fact", "preference", "episode", "note", "summary", "procedure"]


def body_for(rng: random.Random, chinese: bool) -> str:
    if chinese:
        return "".join(rng.choices(ZH, k=rng.randint(15, 50))) + f"，参考 B{rng.randint(1, 999)}。"
    words = [rng.choice(WORDS) if rng.random() < 0.45 else rng.choice(FILLER) for _ in range(rng.randint(40, 120))]
    words.insert(rng.randrange(len(words)), f"B{rng.randint(1, 999)}")
    return " ".join(words) + "."


def scope_for(rng: random.Random) -> str:
    user = f"user:U{rng.randint(1, 60)}"
    return user if rng.random() < 0.5 else f"{user}/project:P{rng.randint(1, 8)}"


def generate(root: Path, n: int, seed: int = 42) -> list[tuple[str, str, str]]:
    """Write ``n`` memories under ``root`` and commit them once; returns (path, scope, body) per file."""
    rng = random.Random(seed)
    from memfs import MemoryRepo

    MemoryRepo.init(root, actor="bench:generator")
    made = []
    for i in range(n):
        chinese = rng.random() < 0.10
        scope = scope_for(rng)
        rel = f"{rng.choice(TYPES)}s/{i // 1000:03d}/m{i:06d}.md"
        body = body_for(rng, chinese)
        status = rng.choices(["active", "superseded", "retracted"], [90, 7, 3])[0]
        lines = [
            "---",
            f"id: m{i:06d}",
            f"type: {rel.split('s/')[0]}",
            f'scope: "{scope}"',
            f"source: bench:{i}",
            f"created: 2026-{rng.randint(1, 9):02d}-{rng.randint(1, 28):02d}T10:00:00Z",
            f"status: {status}",
            f"confidence: {rng.choice([0.6, 0.8, 0.9, 1.0])}",
            f'description: "{" ".join(rng.choices(WORDS, k=5))}"',
            f"tags: [{rng.choice(WORDS)}]",
            "---",
            body,
            "",
        ]
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines), encoding="utf-8")
        made.append((rel, scope, body))
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="b@x",
        GIT_COMMITTER_NAME="bench",
        GIT_COMMITTER_EMAIL="b@x",
    )
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "bench corpus"], cwd=root, check=True, env=env)
    return made


def queries_for(made: list[tuple[str, str, str]], count: int, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        _rel, scope, body = rng.choice(made)
        if body[0] >= "\u4e00":
            words = rng.sample(ZH, 2)
        else:
            words = rng.sample([w for w in body.rstrip(".").split() if w in WORDS] or WORDS, 2)
        out.append((" ".join(words), scope))
    return out


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - w, time.process_time() - c


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def scan_cmd(root: Path, query: str) -> list[str]:
    patterns = [arg for w in query.split() for arg in ("-e", w)]
    if shutil.which("rg"):
        return ["rg", "-l", "-i", "-F", *patterns, str(root)]
    return ["grep", "-r", "-l", "-i", "-F", "--include=*.md", *patterns, str(root)]


def run(n: int, base: Path, nq: int, cli_runs: int, scan_runs: int) -> dict:
    from memfs import MemoryRepo, index

    root = base / f"repo-{n}"
    if root.exists():
        shutil.rmtree(root)
    _, gen_wall, _ = timed(lambda: generate(root, n))
    made = list(_read_back(root))
    repo = MemoryRepo.open(root)
    _, build_wall, build_cpu = timed(lambda: index.reindex(repo))
    queries = queries_for(made, nq)
    index.search(repo, queries[0][0], scope=queries[0][1])  # open the searcher
    walls, cpus, walls_nc, cpus_nc, hits = [], [], [], [], 0
    for q, scope in queries:
        res, w, c = timed(lambda q=q, scope=scope: index.search(repo, q, scope=scope, limit=10))
        walls.append(w)
        cpus.append(c)
        hits += len(res.hits)
        _, w, c = timed(lambda q=q, scope=scope: index.search(repo, q, scope=scope, limit=10, catch_up=False))
        walls_nc.append(w)
        cpus_nc.append(c)
    nochange = [timed(lambda: index.sync(repo))[1] for _ in range(15)]
    catchups = []
    rng = random.Random(3)
    for i in range(7):
        rel = rng.choice(made)[0]
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + f"\nedited {i} zebra\n", encoding="utf-8")
        _, w, _ = timed(lambda: index.search(repo, "zebra", scope=queries[0][1]))
        catchups.append(w)
    size = dir_size(root / ".memfs")
    cli = []
    exe = str(Path(sys.executable).with_name("memfs"))
    for q, scope in queries[:cli_runs]:
        _, w, _ = timed(
            lambda q=q, scope=scope: subprocess.run(
                [exe, "-C", str(root), "search", "--json", "--scope", scope, q], capture_output=True, check=True
            )
        )
        cli.append(w)
    scans = []
    for q, _scope in queries[:scan_runs]:
        _, w, _ = timed(lambda q=q: subprocess.run(scan_cmd(root, q), capture_output=True))
        scans.append(w)
    index.close(repo)
    return {
        "n": n,
        "generate_s": gen_wall,
        "build_wall_s": build_wall,
        "build_cpu_s": build_cpu,
        "search_p50_ms": 1000 * pct(walls, 0.5),
        "search_p95_ms": 1000 * pct(walls, 0.95),
        "search_cpu_p50_ms": 1000 * pct(cpus, 0.5),
        "query_only_p50_ms": 1000 * pct(walls_nc, 0.5),
        "query_only_p95_ms": 1000 * pct(walls_nc, 0.95),
        "nochange_check_ms": 1000 * statistics.median(nochange),
        "catchup_1edit_ms": 1000 * statistics.median(catchups),
        "index_mb": size / 1e6,
        "cli_wall_p50_s": statistics.median(cli),
        "scan_tool": "rg" if shutil.which("rg") else "grep -r",
        "scan_p50_ms": 1000 * statistics.median(scans),
        "scan_vs_search": statistics.median(scans) / pct(walls, 0.5),
        "mean_hits": hits / len(queries),
    }


def _read_back(root: Path):
    from memfs.format.parse import parse

    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith((".", "system/")):
            continue
        m = parse(rel, path.read_bytes())
        yield rel, m.scope, m.body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--cli-runs", type=int, default=15)
    parser.add_argument("--scan-runs", type=int, default=15)
    parser.add_argument("--keep", help="put the repos here (default: a temporary folder, removed after)")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memfs-search-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {os.getloadavg()[0]:.1f}", flush=True)
    try:
        for n in (int(s) for s in args.sizes.split(",")):
            row = run(n, base, args.queries, args.cli_runs, args.scan_runs)
            print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
            print(f"load average now: {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
