"""The visibility timeline of ``bench_writers.py`` (issue #25): the integrator run with stamps on
the shared monotonic clock, its rounds, and each write's visibility cut into stages."""

from __future__ import annotations

import json
import signal
import statistics
import time
from dataclasses import dataclass
from typing import Protocol

from benchlib import pct


class Published(Protocol):
    """What the timeline reads of an operation (``bench_writers.Op``)."""

    token: str
    committed: float
    publish_wall: float
    published: bool


@dataclass(frozen=True)
class Round:
    """One integrator round on the shared monotonic clock: its start, the start of its push of
    ``main`` (``None``: it pushed nothing), its end, and how many commits it pushed."""

    started: float
    push: float | None
    ended: float
    pushed: int


def integrator(interval: float) -> None:
    """``memfs integrate --watch --interval INTERVAL --json`` in this process (the clone is the
    working folder), with a stamp on the shared monotonic clock printed before each round, before
    its push of ``main`` and after it (``{"bench": "round" | "push" | "ended", "at": ...}``): the
    visibility timeline's integrator stages. The stamps wrap the integrator's own functions;
    nothing else differs from the command. SIGINT stops it as Ctrl-C would, also when this
    script runs in the background (where a shell starts it with SIGINT ignored, inherited here)."""
    from memfs.cli import main as memfs_main

    signal.signal(signal.SIGINT, signal.default_int_handler)
    from memfs.ops import integrate as integrating

    def stamp(kind: str) -> None:
        print(json.dumps({"bench": kind, "at": time.monotonic()}), flush=True)

    def wrapped(name: str, kind: str, after: str | None = None) -> None:
        real = getattr(integrating, name)

        def timed(*args: object, **kwargs: object) -> object:
            stamp(kind)
            try:
                return real(*args, **kwargs)
            finally:
                if after:
                    stamp(after)

        setattr(integrating, name, timed)

    wrapped("integrate", "round", "ended")
    wrapped("_push", "push")
    memfs_main(["integrate", "--watch", "--interval", str(interval), "--json"])


def timeline(ops: list[Published], seen: dict[str, float], rounds: list[Round]) -> list[dict[str, float]]:
    """Each published write's visibility (local commit to ``main`` seen on the server) cut into
    its stages: the writer's own publishing (commit to its sync's end: fetch, rebase, push of its
    ref), the wait for the integrator (to the start of the round that brought it: the poll
    interval and the round running meanwhile), the round's fetch and merge (to its push of
    ``main``), and that push until the watcher saw ``main`` move. The round that brought a write
    is the last one started before ``main`` was seen with it."""
    out = []
    for op in ops:
        if not op.published or op.token not in seen or not rounds:
            continue
        at = seen[op.token]
        started = [r for r in rounds if r.started <= at]
        if not started:
            continue
        bringing = started[-1]
        push = bringing.push if bringing.push is not None else bringing.ended
        pushed = op.committed + op.publish_wall
        out.append({"writer's publishing": op.publish_wall, "wait for a round": bringing.started - pushed,
                    "round: fetch + merge": push - bringing.started, "round: push main, seen": at - push,
                    "visibility": at - op.committed})
    return out


def report_timeline(mode: str, stages: list[dict[str, float]], rounds: list[Round]) -> None:
    """Where a write's visibility went (:func:`timeline`): p50 / p95 s of each stage, and the
    integrator's rounds (how long one took, how many commits one pushed)."""
    if not stages:
        return
    print(f"  {mode}: visibility by stage, p50 / p95 s ({len(stages)} writes)")
    for stage in stages[0]:
        values = [s[stage] for s in stages]
        print(f"    {stage:<28}{pct(values, 50):>8.2f} /{pct(values, 95):>7.2f}")
    pushing = [r for r in rounds if r.pushed]
    lengths = [r.ended - r.started for r in rounds]
    print(f"    rounds {len(rounds)} ({len(pushing)} pushed main); round wall p50 / max "
          f"{pct(lengths, 50):.2f} / {max(lengths):.2f} s; commits pushed per pushing round, median "
          f"{statistics.median(r.pushed for r in pushing) if pushing else 0:.0f}")
