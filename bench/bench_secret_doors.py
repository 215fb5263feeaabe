"""The full door x credential x disguise matrix: how many secrets each door commits (target 0
everywhere), and how much prose about credentials it refuses (false positives, target 0).

Every door of tests/secret_doors.py (CLI add/write/new/remember, memfs tool, MCP over stdio, the
Anthropic adapter, LangGraph put, memfs watch, a real hand commit under the installed hooks,
memfs import, memfs sync) is driven for real with every kind of tests/secret_corpus.py in every
disguise (--per-kind samples each, seeded) and then the prose corpus. The test suite keeps a thin
cross-section of it (tests/smoke/test_secret_doors.py).

    .venv/bin/python bench/bench_secret_doors.py [--per-kind 2] [--doors "cli add,memfs sync"]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import secret_corpus as corpus  # noqa: E402
from tests import secret_doors as doors  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=2, help="samples of each kind in each disguise")
    parser.add_argument("--doors", default="", help="comma-separated door names (default: all)")
    args = parser.parse_args()
    os.environ.pop("MEMFS_HOOKS", None)
    names = [d.strip() for d in args.doors.split(",") if d.strip()] or list(doors.DOORS)
    cells = doors.full(args.per_kind)
    secrets = [c for c in cells if c.secret]
    print(f"{len(secrets)} credential cells ({len(corpus.KINDS)} kinds x {len(corpus.DISGUISES)} disguises x "
          f"{args.per_kind}) and {len(cells) - len(secrets)} prose cells per door; load {os.getloadavg()[0]:.1f}")
    by_kind: dict[str, Counter[str]] = {}
    by_disguise: dict[str, Counter[str]] = {}
    refused_prose: dict[str, list[str]] = {}
    for name in names:
        started, cpu = time.perf_counter(), time.process_time()
        with tempfile.TemporaryDirectory() as scratch, doors.environment(Path(scratch)) as env:
            got = doors.offer(env, name, cells)
        by_kind[name] = Counter(c.kind for c, went in got if c.secret and went)
        by_disguise[name] = Counter(c.disguise for c, went in got if c.secret and went)
        refused_prose[name] = [c.text for c, went in got if not c.secret and not went]
        print(f"  {name}: {sum(by_kind[name].values())} committed of {len(secrets)}, "
              f"{len(refused_prose[name])} prose refused ({time.perf_counter() - started:.1f} s wall, "
              f"{time.process_time() - cpu:.1f} s CPU in this process)", flush=True)
    _table("commits by kind (each summed over its disguises)", sorted(corpus.KINDS), names, by_kind)
    _table("commits by disguise (each summed over the kinds)", list(corpus.DISGUISES), names, by_disguise)
    print(f"\nfalse positives: prose cells refused, of {len(cells) - len(secrets)} per door")
    for name in names:
        shown = "; ".join(repr(t[:50]) for t in refused_prose[name][:3])
        print(f"  {name}: {len(refused_prose[name])}{'  ' + shown if shown else ''}")


def _table(title: str, rows: list[str], names: list[str], counts: dict[str, Counter[str]]) -> None:
    short = [n.split(" (")[0][:10] for n in names]
    print(f"\n{title}\n{'':24}" + "".join(f"{s:>11}" for s in short))
    for row in rows:
        print(f"{row:24}" + "".join(f"{counts[n][row]:>11}" for n in names))
    print(f"{'total':24}" + "".join(f"{sum(counts[n].values()):>11}" for n in names))


if __name__ == "__main__":
    main()
