"""Every door that asks a live index gets the direct path's answer, whatever the server does:
the doors (``search``, ``search --json --explain``, ``context``, an accepted ``remember`` and a
refused one, a search over several roots) x the server's states (running, dead with its socket
left behind, hung, answering garbage). A running server answers (counted); any other state
makes the door do the work itself, once (a write is never done twice).

Both sides of each comparison run the same command: the door as it is, and the door with
``MEMFS_NO_LIVE`` (the direct path), on twin copies of one repository for writes.
The clock memfs reads is held, so the two sides print the same ``at`` and ``updated`` whichever
second each starts in."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfs import MemoryRepo
from memfs.agents.live import answers, wire
from memfs.cli.agent import hosted_live
from memfs.errors import ConflictError, InvalidMemory, UsageError, WriteRefused, from_wire, to_wire
from tests.helpers import ACTOR, Ran, commit_all, copy_repo, git, memory_text, run_cli, write_file

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir", "clock")]
AT = "2026-06-01T00:00:00Z"
SCOPE = "user:U5"
STATES = ["running", "dead", "hung", "garbage"]
REMEMBER = ["remember", "--scope", SCOPE, "--type", "fact", "--source", "conversation:C9", "--source-kind", "user"]
DOORS: dict[str, list[str]] = {
    "search": ["search", "--at", AT, "rocket", "friday"],
    "search-json": ["search", "--at", AT, "--json", "--explain", "rocket"],
    "context": ["context", "--scope", SCOPE, "--at", AT, "when does the rocket launch"],
    "remember": [*REMEMBER, "--body", "The rocket carries a blue satellite."],
    "refused": [*REMEMBER, "--json", "--body", "The deploy key is sk-abcdefabcdefabcdefabcdefabcdef1234"],
}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory, template_repo: Path) -> Path:
    """Two memory repositories, ``user`` and ``team``, with a few memories each (built once)."""
    base = tmp_path_factory.mktemp("doors")
    for name, bodies in (("user", ["The rocket launches on friday.", "Release notes in English."]),
                         ("team", ["The rocket is painted red.", "The team reviews on friday."])):
        root = copy_repo(template_repo, base / name)
        for i, body in enumerate(bodies):
            write_file(root / f"facts/{name}{i}.md", memory_text(body, scope=SCOPE, source=f"test:{name}",
                                                                 created=AT))
        commit_all(root, "memories")
    return base


def twins(prepared: Path, tmp_path: Path) -> tuple[MemoryRepo, MemoryRepo]:
    return tuple(MemoryRepo.open(copy_repo(prepared / "user", tmp_path / name), ACTOR)  # type: ignore[return-value]
                 for name in ("served", "alone"))


def masked(ran: Ran) -> tuple[int, str, str]:
    """The run with commit ids taken out (twin repositories commit the same change at another id),
    and a context's fence (a random number per rendering)."""
    def mask(text: str) -> str:
        return re.sub(r"(MEMORY|END) \d+", r"\1 N", re.sub(r"\b[0-9a-f]{10,40}\b", "COMMIT", text))

    return ran.returncode, mask(ran.stdout), mask(ran.stderr)


# --- servers in every state --------------------------------------------------------------------
class Fake:
    """Something at a live index's socket that is not a working server: it accepts and never
    answers (``hung``), answers bytes that are no reply (``garbage``), or accepts a write and
    closes before its outcome (``accepts``)."""

    def __init__(self, path: Path, mode: str) -> None:
        self.mode, self.conns = mode, []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(8)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.mode == "garbage":
                with conn:
                    conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
            elif self.mode == "accepts":  # a server that takes the write and dies before answering
                with conn:
                    conn.recv(1 << 16)
                    conn.sendall(wire.encode(wire.ACCEPTED))
            else:
                self.conns.append(conn)

    def close(self) -> None:
        for conn in self.conns:
            conn.close()
        self.sock.close()


def record(root: Path, sock: Path, pid: int) -> Path:
    path = root / ".memfs" / wire.RECORD
    path.write_text(json.dumps({"protocol": wire.PROTOCOL, "socket": str(sock), "root": os.path.realpath(root),
                                "pid": pid}))
    return path


def dead_pid() -> int:
    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


@pytest.fixture
def serving() -> Iterator[list[object]]:
    """What :func:`in_state` started, stopped after the test."""
    started: list[object] = []
    timeout = wire.CLIENT_TIMEOUT
    yield started
    wire.CLIENT_TIMEOUT = timeout
    for thing in started:
        thing.stop() if hasattr(thing, "stop") else thing.close()  # type: ignore[attr-defined]


def in_state(repo: MemoryRepo, state: str, started: list[object], also: tuple[MemoryRepo, ...] = ()) -> object:
    """Put a server in ``state`` at ``repo``'s socket; the started server when ``running``."""
    if state == "running":
        server = repo.live_server(debounce=0.01, also=also)
        server.door = "test"
        server.start()
        started.append(server)
        for live in server.lives.values():
            live.settle()
        return server
    folder = wire.run_dir()
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"fake-{state}.sock"
    if state == "dead":
        left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        left.bind(str(path))
        left.close()  # a killed server's socket: the file stays, nobody listens
        record(repo.root, path, dead_pid())
        return None
    started.append(Fake(path, state))
    record(repo.root, path, os.getpid())
    wire.CLIENT_TIMEOUT = 0.2  # what "late" is here (the fixture puts it back)
    return None


# --- the matrix ---------------------------------------------------------------------------------
@pytest.mark.parametrize("state", STATES)
def test_every_door_answers_as_the_direct_path_whatever_the_server_does(
        prepared: Path, tmp_path: Path, serving: list[object], monkeypatch: pytest.MonkeyPatch, state: str) -> None:
    served, alone = twins(prepared, tmp_path)
    server = in_state(served, state, serving)
    writes: list[str] = []
    real = answers.remember
    monkeypatch.setattr(answers, "remember", lambda live, args: writes.append("x") or real(live, args))
    for door, args in DOORS.items():
        if state != "running" and door in ("search-json", "context"):
            continue  # what a door does when no server answers is the same for every door
        answered = server.live.answered if server is not None else 0  # type: ignore[attr-defined]
        through = run_cli("-C", str(served.root), *args)
        direct = run_cli("-C", str(alone.root), *args, env={"MEMFS_NO_LIVE": "1"})
        assert masked(through) == masked(direct), (state, door)
        assert through.returncode == (3 if door == "refused" else 0), through.stderr
        if server is not None and door not in ("remember", "refused"):
            assert server.live.answered == answered + 1, door  # type: ignore[attr-defined]
    assert len(writes) == (2 if state == "running" else 0)
    assert git(served.root, "log", "--format=%an %s") == git(alone.root, "log", "--format=%an %s")
    if state == "dead":
        assert not (served.root / ".memfs" / wire.RECORD).exists()  # the client removed what was stale
        assert not (wire.run_dir() / "fake-dead.sock").exists()


@pytest.mark.parametrize("state", ["running", "hosts one", "hung"])
def test_a_search_over_several_roots_is_the_direct_one(prepared: Path, tmp_path: Path, serving: list[object],
                                                        state: str) -> None:
    user = MemoryRepo.open(copy_repo(prepared / "user", tmp_path / "user"), ACTOR)
    team = MemoryRepo.open(copy_repo(prepared / "team", tmp_path / "team"), ACTOR)
    server = in_state(user, "running" if state == "hosts one" else state, serving,
                      also=(team,) if state == "running" else ())
    for args in (["search", "--at", AT, "rocket", "friday"], ["search", "--at", AT, "--json", "rocket"]):
        before = server.live.answered if server is not None else 0  # type: ignore[attr-defined]
        through = run_cli("-C", str(user.root), "-C", str(team.root), *args)
        direct = run_cli("-C", str(user.root), "-C", str(team.root), *args, env={"MEMFS_NO_LIVE": "1"})
        assert (through.returncode, through.stdout, through.stderr) == (direct.returncode, direct.stdout, direct.stderr)
        assert "[team]" in through.stdout or '"team"' in through.stdout
        if server is not None:
            assert server.live.answered == before + (1 if state == "running" else 0)


def test_mcp_and_watch_serve_their_live_index_to_the_other_commands(repo: MemoryRepo) -> None:
    write_file(repo.root / "facts/a.md", memory_text("The rocket launches on friday.", created=AT))
    commit_all(repo.root, "a")
    live, stop = hosted_live(repo, "MCP")
    assert live is not None
    try:
        live.settle()
        status = repo.live_status()
        assert status is not None and status["door"] == "mcp"
        found = run_cli("-C", str(repo.root), "search", "--at", AT, "rocket")
        assert "facts/a.md" in found.stdout and live.answered == 1
        assert hosted_live(repo, "watch", alone=False)[0] is None  # watch then keeps the index itself
        own, stop_own = hosted_live(repo, "MCP")  # a second MCP server reads through its own
        assert own is not None and own is not live
        stop_own()
        stopped = run_cli("-C", str(repo.root), "serve", "--stop")
        assert stopped.returncode == 0 and repo.live_status() is None
        assert run_cli("-C", str(repo.root), "search", "--at", AT, "rocket").stdout == found.stdout
    finally:
        stop()
    assert not (repo.root / ".memfs" / wire.RECORD).exists()


# --- a refusal crosses the socket as itself ------------------------------------------------------
@pytest.mark.parametrize("exc", [
    UsageError("give a scope", param="scope"),
    ConflictError("the memory is at revision 3", forceable=True),
    InvalidMemory("bad field", [object()], param="candidate"),
])
def test_an_error_rebuilt_from_its_wire_form_prints_and_exits_alike(exc: Exception) -> None:
    rebuilt = from_wire(json.loads(json.dumps(to_wire(exc))))  # type: ignore[arg-type]
    assert type(rebuilt) is type(exc) and str(rebuilt) == str(exc)
    assert (rebuilt.param, rebuilt.message, rebuilt.forceable) == (exc.param, exc.message, exc.forceable)  # type: ignore[union-attr,attr-defined]


def test_a_write_refusal_keeps_its_rules_and_anything_else_is_not_an_error() -> None:
    from memfs.policy.gate import Refusal

    exc = WriteRefused([Refusal("secret/api-key", "a key", "remove it"),
                        Refusal("one-off", "once", "say so", forceable=True)])
    rebuilt = from_wire(json.loads(json.dumps(to_wire(exc))))
    assert isinstance(rebuilt, WriteRefused) and str(rebuilt) == str(exc) and not rebuilt.forceable
    assert [r.to_json() for r in rebuilt.refusals] == [r.to_json() for r in exc.refusals]
    for bad in (None, [], {"type": "OSError", "message": "x"}, {"type": "WriteRefused", "message": "x"},
                {"type": "UsageError"}, {"type": "object", "message": "x"}):
        assert from_wire(bad) is None


def test_a_write_whose_outcome_was_lost_is_done_again_only_when_a_repeat_is_the_same_statement(
        prepared: Path, tmp_path: Path, serving: list[object]) -> None:
    """The server accepted the write, then its answer never came: a plain remember is done here
    (were it made, reconcile would take the repeat as the same statement), one that a repeat would
    change (--keep-both, --path, --expect-revision, --retract, --supersedes) is refused, nothing
    written, and the message says to look at the log first."""
    served, alone = twins(prepared, tmp_path)
    in_state(served, "accepts", serving)
    plain = DOORS["remember"]
    through = run_cli("-C", str(served.root), *plain)
    assert masked(through) == masked(run_cli("-C", str(alone.root), *plain, env={"MEMFS_NO_LIVE": "1"}))
    head = git(served.root, "rev-parse", "HEAD")
    kept = run_cli("-C", str(served.root), *REMEMBER, "--keep-both", "--body", "The rocket carries a red satellite.")
    assert kept.returncode == 3 and "its answer never came" in kept.stderr and "--keep-both" in kept.stderr
    assert "memfs log" in kept.stderr
    assert git(served.root, "rev-parse", "HEAD") == head
