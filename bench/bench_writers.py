"""Many writers, one memory (issue #25): N concurrent writers x K operations through a real server
on 127.0.0.1 (``git daemon``, smart HTTP behind lighttpd, SSH; started here by
:mod:`tests.servers`), memfs and plain git in the same run.

A *mode* is how a writer publishes; each mode gets its own bare repository (the same seed) and N
clones of its own, and the modes run one after the other against the same server:

``memfs``
    each operation is ``memfs remember`` (one commit) then ``memfs sync`` (fetch, integrate,
    fast-forward push to ``main``, retries with backoff and jitter), two processes as an agent
    would run them.
``git``
    plain git's loop: write a file, ``git add; git commit``, then
    ``until git pull --rebase && git push; do sleep U(0,1); done``, at most 5 tries.

``writer-ref``
    ``memfs remember`` then ``memfs sync --writer-ref --writer wI``: each writer pushes its own
    branch ``memfs/writers/wI`` (no race); one ``memfs integrate --watch --interval S --json``
    runs beside the server in a clone of its own (in this script's process, with stamps for the
    visibility timeline: :mod:`writers_timeline`), the only pusher of ``main``, until every write
    is on ``main`` (docs/collaboration.md, "many writers").
``writer-ref-lib``
    the same route, but each writer is one long-lived process (as an agent host is: an MCP
    server, a program using the library) calling ``MemoryRepo.remember`` then
    ``MemoryRepo.sync(route="writer-ref")`` K times; the process's start is shared over its
    operations (a row of its own).

(Another publishing scheme is one more :class:`Mode`: how to prepare a clone, write, publish,
sync quietly, and what runs beside the server meanwhile.)

Measured per mode: *give-ups* (an operation whose publish failed), *arrived* (writes on the
server's ``main`` when the last writer finished), *lost* (committed but still not on ``main``
after every clone synced once more, one after another), *blocked* clones (that quiet sync
failed), *throughput* (arrivals on ``main`` per second, from the start to the last arrival),
*CPU per operation* (user+sys of the operation's processes and their children, from ``wait4``:
client side only; the integrator's CPU shown apart and shared over the operations), and *visibility*
(from a write's local commit to the moment a watcher polling the server's ``main`` every 0.1 s
sees its file; writes that arrived only in the quiet phase count with that time).

    .venv/bin/python bench/bench_writers.py [--servers daemon http ssh] [--writers 12 50] [--ops 6]
        [--modes memfs writer-ref writer-ref-lib git] [--interval 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlib import pct  # noqa: E402
from writers_timeline import Round, integrator, report_timeline, timeline  # noqa: E402

from memfs import MemoryRepo  # noqa: E402
from memfs.store.init import configure_merge_driver  # noqa: E402
from tests import servers  # noqa: E402

MEMFS = (sys.executable, "-m", "memfs")
TOKEN = re.compile(r"w(\d+)-o(\d+)")


# --- processes -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ran:
    code: int
    cpu: float
    out: str


#: The writers' scheduling priority (``nice``): the bench's own at the start. With
#: ``--host-priority N`` the bench, and so the server and the integrator it starts, run N steps
#: above it (a git host has CPU of its own; here it shares 2 cores with 50 writers and other work).
WRITER_NICE = os.getpriority(os.PRIO_PROCESS, 0)


def as_writer() -> None:
    """In a writer's process before it starts: back to the writers' priority."""
    os.setpriority(os.PRIO_PROCESS, 0, WRITER_NICE)


def run(argv: list[str] | tuple[str, ...], cwd: Path, env: dict[str, str]) -> Ran:
    """Run a process to its end; its exit code, the CPU seconds of it and its waited-for children
    (``wait4``, so concurrent writers' processes are told apart), and its output."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, preexec_fn=as_writer)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return Ran(proc.returncode, usage.ru_utime + usage.ru_stime, out.read().decode(errors="replace"))


# --- modes -----------------------------------------------------------------------------------
@dataclass
class Writer:
    index: int
    clone: Path
    env: dict[str, str]


@dataclass
class Op:
    """One operation: when its commit existed locally, its CPU, and whether it was published."""

    token: str
    committed: float = 0.0
    cpu: float = 0.0
    #: of which the write (``memfs remember``; ``git add`` + ``git commit``)
    write_cpu: float = 0.0
    #: wall seconds from the local commit to the end of publishing (every try and wait)
    publish_wall: float = 0.0
    published: bool = False
    failure: str = ""
    #: of ``cpu``, this operation's share of its long-lived process's start (Python, imports,
    #: opening the repository): one process per writer for all its operations
    start_cpu: float = 0.0


class Mode:
    """How writers publish. Subclasses say how a clone is prepared, how one write is made and
    published, how a clone syncs once quietly at the end, and what runs beside the server."""

    name: ClassVar[str]
    #: how long to wait for published writes to reach ``main`` after the writers finish (an
    #: integrator brings them; a direct push has already)
    settle_s: ClassVar[float] = 0.0
    #: CPU seconds of what ran beside the server, and a note about it (set when it stops)
    beside_cpu: float = 0.0
    beside_note: str = ""
    #: the integrator's rounds, when one ran beside the server
    timed: list[Round]

    def __init__(self) -> None:
        self.timed = []

    def prepare(self, writer: Writer) -> None:
        """Get a fresh clone ready (not measured)."""

    def operate(self, writer: Writer, n: int) -> Op:
        raise NotImplementedError

    def work(self, writer: Writer, ops: int, done: Callable[[Op], None]) -> None:
        """One writer's ``ops`` operations, one after the other, each handed to ``done``."""
        for n in range(ops):
            done(self.operate(writer, n))

    def quiet_sync(self, writer: Writer) -> bool:
        raise NotImplementedError

    def beside(self, server: servers.Served, repo: str, place: Path,
               env: dict[str, str]) -> AbstractContextManager[object]:
        """What runs next to the server while writers work (an integrator, say); nothing here."""
        return nullcontext()


class MemfsSync(Mode):
    """``memfs remember`` then ``memfs sync`` straight to ``main``."""

    name = "memfs"

    def sync_args(self, writer: Writer) -> list[str]:
        return [*MEMFS, "sync"]

    def prepare(self, writer: Writer) -> None:
        repo = MemoryRepo.open(writer.clone, actor=f"agent:w{writer.index}")
        configure_merge_driver(repo.store.git)
        repo.search("warm up the index")

    def operate(self, writer: Writer, n: int) -> Op:
        op = Op(f"w{writer.index}-o{n}")
        remember = run([*MEMFS, "remember", "--scope", f"agent:w{writer.index}", "--key", op.token, "--type", "fact",
                        "--source", f"bench:{op.token}", "--source-kind", "tool",
                        "--body", f"Writer {writer.index} measured build {n} at {40 + n} seconds."],
                       writer.clone, writer.env)
        op.committed, op.cpu, op.write_cpu = time.monotonic(), remember.cpu, remember.cpu
        if remember.code:
            op.failure = f"remember exited {remember.code}: {remember.out.strip()[-300:]}"
            return op
        synced = run(self.sync_args(writer), writer.clone, writer.env)
        op.cpu += synced.cpu
        op.publish_wall = time.monotonic() - op.committed
        op.published = synced.code == 0
        op.failure = "" if op.published else f"sync exited {synced.code}: {synced.out.strip()[-300:]}"
        return op

    def quiet_sync(self, writer: Writer) -> bool:
        return run(self.sync_args(writer), writer.clone, writer.env).code == 0


class WriterRef(MemfsSync):
    """``memfs remember`` then ``memfs sync --writer-ref``; ``memfs integrate --watch`` beside."""

    name = "writer-ref"
    settle_s = 180.0
    interval = 1.0

    def sync_args(self, writer: Writer) -> list[str]:
        return [*MEMFS, "sync", "--writer-ref", "--writer", f"w{writer.index}"]

    @contextmanager
    def beside(self, server: servers.Served, repo: str, place: Path, env: dict[str, str]) -> Iterator[object]:
        """``memfs integrate --watch`` in a clone of its own (:func:`writers_timeline.integrator`),
        stopped by SIGINT (as Ctrl-C) once the run is over; its CPU from ``wait4``, its rounds
        and their stamps from its JSON lines."""
        clone = place / "integrator"
        server.clone(repo, clone)
        configure_merge_driver(MemoryRepo.open(clone, actor="agent:integrator").store.git)
        # appended to (O_APPEND), so reading it here while it runs never moves where it writes
        with open(place / "integrator.out", "a+b") as out:
            proc = subprocess.Popen([sys.executable, __file__, "--integrator", str(self.interval)],
                                    cwd=clone, env={**env, "MEMFS_ACTOR": "agent:integrator"},
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
            # a running integrator is warm: the writers start once its first round is done
            deadline = time.monotonic() + 120
            while proc.poll() is None and time.monotonic() < deadline and b'"remote"' not in out.read():
                time.sleep(0.2)
                out.seek(0)
            out.seek(0, os.SEEK_END)
            try:
                yield proc
            finally:
                proc.send_signal(signal.SIGINT)
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                self.beside_cpu = usage.ru_utime + usage.ru_stime
                out.seek(0)
                self.beside_note = self._rounds(out.read().decode(errors="replace"))

    def _rounds(self, text: str) -> str:
        """Its rounds from its output: one JSON document per round (compact with ``--watch``, but
        read as documents, not lines), each after the stamps of its start and of its push of
        ``main`` (:func:`integrator`), kept in :attr:`timed`; the last other line (an error note)."""
        decoder, rounds, pushed, at, other = json.JSONDecoder(), 0, 0, 0, ""
        stamps: dict[str, float] = {}
        self.timed = []
        while (at := len(text) - len(text[at:].lstrip())) < len(text):
            try:
                data, at = decoder.raw_decode(text, at)
            except ValueError:
                end = text.find("\n", at) % (len(text) + 1)
                line, at = text[at:end].strip(), end + 1
                other = other if line == "memfs: error: interrupted" else line  # the SIGINT that stops it
                continue
            if isinstance(data, dict) and "bench" in data:
                stamps = {} if data["bench"] == "round" else stamps
                stamps[data["bench"]] = data["at"]
                continue
            rounds += 1
            pushed += bool(data.get("pushed")) if isinstance(data, dict) else 0
            if "round" in stamps and isinstance(data, dict):
                self.timed.append(Round(stamps["round"], stamps.get("push"), stamps.get("ended", stamps["round"]),
                                        int(data.get("pushed") or 0)))
            stamps = {}
        extra = f"; other output: {other[:200]}" if other else ""
        return f"integrator: {rounds} rounds, {pushed} of them pushed main{extra}"


class WriterRefLibrary(WriterRef):
    """Each writer one long-lived process (as an agent host is: an MCP server, a program using the
    library) calling ``MemoryRepo.remember`` then ``MemoryRepo.sync(route="writer-ref")`` K times;
    ``memfs integrate --watch`` beside, as for ``writer-ref``."""

    name = "writer-ref-lib"

    def work(self, writer: Writer, ops: int, done: Callable[[Op], None]) -> None:
        """Start the writer's process (this script with ``--agent``), take each operation from its
        JSON lines as it finishes, then share the rest of the process's CPU (``wait4``: its start,
        imports and opening, its git children included) over its operations."""
        argv = [sys.executable, __file__, "--agent", str(writer.clone), str(writer.index), str(ops)]
        proc = subprocess.Popen(argv, cwd=writer.clone, env=writer.env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=as_writer)
        assert proc.stdout is not None
        made, other = [], []
        for line in proc.stdout:
            if not line.startswith("{"):
                other.append(line.strip())
                continue
            made.append(Op(**json.loads(line)))
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        share = (usage.ru_utime + usage.ru_stime - sum(op.cpu for op in made)) / max(len(made), 1)
        said = " ".join(other)[-300:]
        made += [Op(f"w{writer.index}-o{n}", failure=f"agent exited {proc.returncode}: {said}")
                 for n in range(len(made), ops)]
        for op in made:
            op.cpu += share
            op.start_cpu = share
            done(op)


def agent(clone: Path, index: int, ops: int) -> None:
    """A writer as a long-lived process: ``ops`` remember + writer-ref sync in this one process,
    one JSON line per operation (an :class:`Op`: its times from the shared monotonic clock, its CPU
    from ``getrusage`` of this process and its git children)."""
    from memfs.errors import MemfsError

    def cpu() -> float:
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime

    repo = MemoryRepo.open(clone, actor=f"agent:w{index}")
    for n in range(ops):
        op, began = Op(f"w{index}-o{n}"), cpu()
        try:
            repo.remember({"scope": f"agent:w{index}", "key": op.token, "type": "fact", "source": f"bench:{op.token}",
                           "source_kind": "tool", "body": f"Writer {index} measured build {n} at {40 + n} seconds."})
        except MemfsError as exc:
            op.failure = f"remember: {exc}"
        op.committed, op.write_cpu = time.monotonic(), cpu() - began
        if not op.failure:
            try:
                repo.sync(route="writer-ref", writer=f"w{index}")
                op.published = True
            except MemfsError as exc:
                op.failure = f"sync: {exc}"
            op.publish_wall = time.monotonic() - op.committed
        op.cpu = cpu() - began
        print(json.dumps(dataclasses.asdict(op)), flush=True)


class PlainGit(Mode):
    """``git commit`` then ``until git pull --rebase && git push; do sleep; done`` (5 tries)."""

    name = "git"
    tries = 5

    def prepare(self, writer: Writer) -> None:
        for key, value in (("user.name", f"w{writer.index}"), ("user.email", f"w{writer.index}@bench.invalid")):
            subprocess.run(["git", "config", key, value], cwd=writer.clone, env=writer.env, check=True)

    def operate(self, writer: Writer, n: int) -> Op:
        op = Op(f"w{writer.index}-o{n}")
        path = writer.clone / "plain" / f"{op.token}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"Writer {writer.index} measured build {n} at {40 + n} seconds.\n")
        committed = self._git(writer, op, "add", str(path)) and self._git(writer, op, "commit", "-qm", op.token)
        op.committed, op.write_cpu = time.monotonic(), op.cpu
        if not committed:
            return op
        for attempt in range(self.tries):
            if self._publish(writer, op):
                op.published, op.failure = True, ""
                op.publish_wall = time.monotonic() - op.committed
                return op
            if attempt + 1 < self.tries:
                time.sleep(random.uniform(0, 1))
        return op

    def _git(self, writer: Writer, op: Op, *args: str) -> bool:
        ran = run(["git", *args], writer.clone, writer.env)
        op.cpu += ran.cpu
        if ran.code:
            op.failure = f"git {args[0]} exited {ran.code}: {ran.out.strip()[-300:]}"
        return ran.code == 0

    def _publish(self, writer: Writer, op: Op) -> bool:
        return self._git(writer, op, "pull", "-q", "--rebase") and self._git(writer, op, "push", "-q", "origin", "main")

    def quiet_sync(self, writer: Writer) -> bool:
        return self._publish(writer, Op("quiet"))


MODES: dict[str, type[Mode]] = {mode.name: mode for mode in (MemfsSync, WriterRef, WriterRefLibrary, PlainGit)}


# --- watching main ---------------------------------------------------------------------------
class Watcher:
    """Polls the bare repository's ``main`` every 0.1 s; the first time each write's file is there."""

    def __init__(self, bare: Path, env: dict[str, str]) -> None:
        self.bare, self.env = bare, env
        self.seen: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _tip(self) -> str:
        loose = self.bare / "refs" / "heads" / "main"
        if loose.exists():
            return loose.read_text().strip()
        packed = (self.bare / "packed-refs").read_text() if (self.bare / "packed-refs").exists() else ""
        return next((line.split()[0] for line in packed.splitlines() if line.endswith(" refs/heads/main")), "")

    def look(self) -> None:
        now = time.monotonic()
        listed = subprocess.run(["git", "ls-tree", "-r", "--name-only", "main"], cwd=self.bare, env=self.env,
                                capture_output=True, text=True).stdout
        for match in TOKEN.finditer(listed):
            self.seen.setdefault(match.group(0), now)

    def _loop(self) -> None:
        tip = ""
        while not self._stop.wait(0.1):
            current = self._tip()
            if current and current != tip:
                tip = current
                self.look()

    @contextmanager
    def running(self) -> Iterator[Watcher]:
        self._thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            self._thread.join()
            self.look()


# --- one run ---------------------------------------------------------------------------------
@dataclass
class Outcome:
    mode: str
    ops: list[Op] = field(default_factory=list)
    wall: float = 0.0
    #: seconds from the start to the last write's arrival on ``main`` (before the quiet syncs)
    to_main: float = 0.0
    beside_cpu: float = 0.0
    note: str = ""
    arrived: int = 0
    lost: int = 0
    blocked: int = 0
    latencies: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    #: per write that reached ``main`` through an integrator round: its visibility in stages
    stages: list[dict[str, float]] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)

    @property
    def give_ups(self) -> int:
        return sum(not op.published for op in self.ops)


def setup(
    server: servers.Served, mode: Mode, seed: Path, writers: int, work: Path, env: dict[str, str]
) -> list[Writer]:
    bare = server.root / f"{mode.name}.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(bare)], env=env, check=True)
    made = []
    for i in range(writers):
        writer = Writer(i, work / mode.name / f"w{i}", {**env, "MEMFS_ACTOR": f"agent:w{i}"})
        writer.clone.parent.mkdir(parents=True, exist_ok=True)
        server.clone(f"{mode.name}.git", writer.clone)
        mode.prepare(writer)
        made.append(writer)
    return made


def settle(watcher: Watcher, tokens: list[str], within: float) -> None:
    """Wait (``within`` seconds at most) until every token is on ``main``."""
    deadline = time.monotonic() + within
    while any(token not in watcher.seen for token in tokens) and time.monotonic() < deadline:
        time.sleep(0.2)
        watcher.look()


def run_mode(mode: Mode, writers: list[Writer], ops: int, site: tuple[servers.Served, str, Path],
             env: dict[str, str]) -> Outcome:
    server, repo, place = site
    outcome = Outcome(mode.name)
    lock = threading.Lock()

    def done(op: Op) -> None:
        with lock:
            outcome.ops.append(op)

    def work(writer: Writer) -> None:
        mode.work(writer, ops, done)

    with mode.beside(server, repo, place, env), Watcher(server.root / repo, env).running() as watcher:
        started = time.monotonic()
        threads = [threading.Thread(target=work, args=(w,)) for w in writers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcome.wall = time.monotonic() - started
        watcher.look()
        settle(watcher, [op.token for op in outcome.ops if op.published], mode.settle_s)
        outcome.arrived = sum(op.token in watcher.seen for op in outcome.ops)
        arrivals = [watcher.seen[op.token] for op in outcome.ops if op.token in watcher.seen]
        outcome.to_main = max(arrivals) - started if arrivals else 0.0
        outcome.blocked = sum(not mode.quiet_sync(w) for w in writers)
        committed = [op for op in outcome.ops if op.committed and not op.failure.startswith(("remember", "git add"))]
        settle(watcher, [op.token for op in committed], mode.settle_s)
    outcome.beside_cpu, outcome.note = mode.beside_cpu, mode.beside_note
    outcome.lost = sum(op.token not in watcher.seen for op in committed)
    outcome.latencies = [watcher.seen[op.token] - op.committed for op in committed if op.token in watcher.seen]
    outcome.rounds = mode.timed
    outcome.stages = timeline(outcome.ops, watcher.seen, mode.timed)
    outcome.failures = [op.failure for op in outcome.ops if op.failure]
    return outcome


# --- report ----------------------------------------------------------------------------------
def rows(outcome: Outcome) -> dict[str, float]:
    cpus = [op.cpu for op in outcome.ops]
    lat = outcome.latencies or [float("nan")]
    published = [op.publish_wall for op in outcome.ops if op.published]
    return {
        "operations": len(outcome.ops),
        "give-ups": outcome.give_ups,
        "arrived during the run": outcome.arrived,
        "lost after quiet syncs": outcome.lost,
        "blocked clones": outcome.blocked,
        "writers' wall s": outcome.wall,
        "wall to last arrival s": outcome.to_main,
        "throughput to main /s": outcome.arrived / outcome.to_main if outcome.to_main else 0.0,
        "CPU s per op (median)": statistics.median(cpus) if cpus else 0.0,
        "CPU s per op (mean)": statistics.fmean(cpus) if cpus else 0.0,
        "integrator CPU s per op": outcome.beside_cpu / len(cpus) if cpus else 0.0,
        "CPU s per op, all (mean)": statistics.fmean(cpus) + outcome.beside_cpu / len(cpus) if cpus else 0.0,
        "  of which write (median)": statistics.median(op.write_cpu for op in outcome.ops) if cpus else 0.0,
        "  of which publish (median)": statistics.median(op.cpu - op.write_cpu - op.start_cpu for op in outcome.ops)
        if cpus else 0.0,
        "  of which process start (mean)": statistics.fmean(op.start_cpu for op in outcome.ops) if cpus else 0.0,
        "publish wall s (median)": statistics.median(published) if published else float("nan"),
        "visibility p50 s": pct(lat, 50),
        "visibility p95 s": pct(lat, 95),
    }


def report(kind: str, writers: int, ops: int, outcomes: list[Outcome]) -> None:
    """One column per mode, then each other mode's ratio to plain git's (or the last mode's)."""
    print(f"\n{kind}, {writers} writers x {ops} ops (load average {os.getloadavg()[0]:.1f})")
    table = {o.mode: rows(o) for o in outcomes}
    names = list(table)
    base = "git" if "git" in names else names[-1]
    ratios = [n for n in names if n != base]
    print(f"{'':<30}" + "".join(f"{n:>11}" for n in names) + "".join(f"{n + '/' + base:>15}" for n in ratios))
    for key in table[names[0]]:
        values = [table[n][key] for n in names]
        shown = "".join(f"{v:>11.0f}" if float(v).is_integer() else f"{v:>11.2f}" for v in values)
        below = table[base][key]
        shown += "".join(f"{table[n][key] / below:>15.2f}" if below else f"{'-':>15}" for n in ratios)
        print(f"{key:<30}{shown}")
    for outcome in outcomes:
        report_timeline(outcome.mode, outcome.stages, outcome.rounds)
    for outcome in outcomes:
        if outcome.note:
            print(f"  {outcome.mode} {outcome.note}")
        for failure in sorted(set(outcome.failures))[:3]:
            print(f"  {outcome.mode} failure ({outcome.failures.count(failure)}x): {failure.splitlines()[-1][:200]}")


def seed_repo(work: Path) -> Path:
    """A fresh memory repository (``memfs init``), every mode's starting point."""
    return Path(MemoryRepo.init(work / "seed", actor="agent:seed").root)


def main() -> None:
    if sys.argv[1:2] == ["--agent"]:
        agent(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        return
    if sys.argv[1:2] == ["--integrator"]:
        integrator(float(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", nargs="+", default=["daemon"], choices=servers.KINDS)
    parser.add_argument("--writers", type=int, nargs="+", default=[12])
    parser.add_argument("--ops", type=int, default=6)
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    parser.add_argument("--interval", type=float, default=WriterRef.interval,
                        help="seconds between the integrator's rounds (writer-ref)")
    parser.add_argument("--host-priority", type=int, default=0, metavar="N",
                        help="run the server and the integrator N nice steps above the writers (root only)")
    args = parser.parse_args()
    WriterRef.interval = args.interval
    if args.host_priority:
        os.setpriority(os.PRIO_PROCESS, 0, WRITER_NICE - args.host_priority)
    print(f"loadavg at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores, shared); "
          f"server and integrator {args.host_priority} nice steps above the writers")
    with tempfile.TemporaryDirectory(prefix="memfs-bench-writers-") as tmp:
        work = Path(tmp)
        (work / "home").mkdir()
        # an installed memfs has its bytecode compiled: without it every process compiles ~150 modules
        env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
        env.update(HOME=str(work / "home"), GIT_CONFIG_NOSYSTEM="1")
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "memfs")], env=env, check=True)
        os.environ.update(HOME=env["HOME"], GIT_CONFIG_NOSYSTEM="1")
        seed = seed_repo(work)
        for kind in args.servers:
            with servers.serve(kind, work / kind) as server:
                for count in args.writers:
                    outcomes = []
                    for name in args.modes:
                        mode = MODES[name]()
                        place = work / kind / f"{count}"
                        writers = setup(server, mode, seed, count, place, env)
                        repo = f"{mode.name}.git"
                        outcomes.append(run_mode(mode, writers, args.ops, (server, repo, place / mode.name), env))
                        shutil.rmtree(place / mode.name, ignore_errors=True)
                        shutil.rmtree(server.root / repo)
                        if len(outcomes) < len(args.modes):  # so far, in case the run is stopped
                            report(f"{kind} (so far)", count, args.ops, outcomes)
                    report(kind, count, args.ops, outcomes)
    print(f"\nloadavg at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
