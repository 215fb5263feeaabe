"""The live index (``memfs serve``) with a real observer and a real socket: a change is visible
to the next query once its event is processed, missed events trigger the full check, the
server survives bad input and faults, and its answers equal the direct path's.

Tests wait on the server's own "processed" signal (:meth:`LiveIndex.wait_for`), never on sleeps."""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import shutil
import socket
import stat
import struct
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfs import MemoryRepo
from memfs.agents.live import listener, wire
from memfs.agents.live.server import AlreadyRunning, Batch, _jumped
from memfs.agents.live.view import search_view
from memfs.index import state as index_state
from memfs.store import locking, paths
from tests.helpers import ACTOR, TIMEOUT, copy_repo, git, memory_text, wait_for

pytestmark = [pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"),
              pytest.mark.usefixtures("live_run_dir")]
AT = "2026-06-01T00:00:00+00:00"
WORDS = ["release", "notes", "german", "deploy", "friday", "budget", "coffee", "python", "review", "mirror",
         "invoice", "garden", "rocket", "ticket", "window", "summer"]
SCOPES = ["user:U5", "user:U5/project:P8", "user:U7", "team:T1"]


def fact(body: str, scope: str = "user:U5", **fields: Any) -> str:
    return memory_text(body, type="fact", scope=scope, source="tool:ci", created="2026-01-01T00:00:00Z", **fields)


def args(query: str, **over: Any) -> dict[str, Any]:
    """A search request as the CLI sends it: the request's fields, the actor, whether JSON is wanted."""
    request = {"query": query, "scope": None, "inherit": False, "version": None, "at": AT, "type": None,
               "limit": 10, "explain": True}
    top = {"actor": None, "json": True}
    for name, value in over.items():
        (top if name in top else request)[name] = value
    return {"request": request, **top}


def via_server(repo: MemoryRepo, query: str, **over: Any) -> dict[str, Any] | None:
    reply = wire.request(repo.root, "search", args(query, **over))
    return None if reply is None else reply["view"]


def direct(repo: MemoryRepo, query: str, **over: Any) -> dict[str, Any]:
    given = args(query, **over)
    a = {**given["request"], "json": given["json"]}
    view = repo if a["scope"] is None else repo.session(a["scope"], inherit=a["inherit"])
    result = view.search(a["query"], scope=a["scope"], inherit=a["inherit"], version=a["version"],
                         at=dt.datetime.fromisoformat(a["at"]), type=a["type"], limit=a["limit"],
                         explain=a["explain"], record=True)
    return search_view(result, as_json=a["json"])


def paths_of(view: dict[str, Any] | None) -> list[str]:
    assert view is not None
    return [h["path"] for h in view["json"]["hits"]]


class Live:
    """A started server and the way to wait for its next processed batch."""

    def __init__(self, repo: MemoryRepo) -> None:
        self.repo = repo
        self.server = repo.live_server(debounce=0.01)
        self.index = self.server.live
        self.settled = 0

    def mark(self) -> int:
        return self.index.processed

    def wait(self, since: int, test: Callable[[Batch], bool]) -> Batch:
        batch = self.index.wait_for(test, since, timeout=TIMEOUT)
        assert batch is not None, "the live index did not process the change"
        return batch

    def settle(self) -> list[Batch]:
        """Wait until every event delivered so far is processed; the batches processed since the
        previous settle. Counting from the previous settle, not from this call, keeps a batch the
        observer processed before this call (a loaded machine) among the ones returned."""
        since = self.settled
        batch = self.index.wait_barrier(self.index.barrier(), timeout=TIMEOUT)
        assert batch is not None, "the live index did not process the change"
        self.settled = self.mark()
        return [b for b in self.index.batches if b.number > since]

    def wait_path(self, since: int, rel: str) -> Batch:
        return self.wait(since, lambda b: rel in b.paths or b.full is not None)


@pytest.fixture
def live(repo: MemoryRepo) -> Iterator[Live]:
    running = Live(repo)
    running.server.start()
    try:
        yield running
    finally:
        running.server.stop()
    assert not running.server.path.exists(), "the socket outlived the server"
    assert not (repo.store.cache_dir / wire.RECORD).exists(), "the record outlived the server"


def write(repo: MemoryRepo, rel: str, text: str) -> None:
    path = repo.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# --- visibility ---------------------------------------------------------------------------------
def test_a_save_is_visible_to_the_next_query_once_processed(live: Live) -> None:
    repo = live.repo
    assert paths_of(via_server(repo, "rocket")) == []
    since = live.mark()
    write(repo, "facts/rocket.md", fact("The rocket launches on friday."))
    live.wait_path(since, "facts/rocket.md")
    view = via_server(repo, "rocket")
    assert paths_of(view) == ["facts/rocket.md"]
    assert view is not None and view["json"]["hits"][0]["uncommitted"] is True
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "rocket")
    assert any(b.git for b in live.settle())
    view = via_server(repo, "rocket")
    assert view is not None and view["json"]["hits"][0]["uncommitted"] is False
    since = live.mark()
    (repo.root / "facts/rocket.md").unlink()
    live.wait_path(since, "facts/rocket.md")
    assert paths_of(via_server(repo, "rocket")) == []


def test_a_save_indexed_too_soon_to_sign_is_signed_by_a_later_update_after_the_margin(
        live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save is indexed within the racy margin of its change, so its document keeps no parse and
    every search reads the file; the first update the server makes after the margin signs it."""
    repo, rel = live.repo, "facts/rocket.md"
    monkeypatch.setattr(paths, "RACY_NS", 3_600 * 10**9)
    since = live.mark()
    write(repo, rel, fact("The rocket launches on friday."))
    live.wait_path(since, rel)
    assert index_state.read(repo.store.cache_dir).files[rel].unsigned
    monkeypatch.setattr(paths, "RACY_NS", 0)  # the margin has passed
    since = live.mark()
    write(repo, "facts/garden.md", fact("The garden needs water."))
    live.wait_path(since, "facts/garden.md")
    files = index_state.read(repo.store.cache_dir).files
    assert not files[rel].unsigned and not files["facts/garden.md"].unsigned
    assert paths_of(via_server(repo, "rocket")) == [rel]


def test_an_atomic_save_and_a_rename_are_seen(live: Live) -> None:
    repo = live.repo
    write(repo, "facts/.tmp-garden.md.tmp", fact("The garden needs water."))
    since = live.mark()
    os.replace(repo.root / "facts/.tmp-garden.md.tmp", repo.root / "facts/garden.md")
    live.wait_path(since, "facts/garden.md")
    assert paths_of(via_server(repo, "garden")) == ["facts/garden.md"]
    since = live.mark()
    os.replace(repo.root / "facts/garden.md", repo.root / "facts/yard.md")
    live.wait_path(since, "facts/garden.md")
    live.wait_path(since, "facts/yard.md")
    assert paths_of(via_server(repo, "garden")) == ["facts/yard.md"]


# --- missed events: the full check ---------------------------------------------------------------
def test_an_inotify_overflow_runs_the_full_check(live: Live) -> None:
    since = live.mark()
    logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed; filesystem events were lost")
    assert "overflow" in (live.wait(since, lambda b: b.full is not None).full or "")


def test_a_checkout_of_another_branch_runs_the_full_check_and_answers_as_rebuilt(live: Live, tmp_path: Path) -> None:
    repo = live.repo
    git(repo.root, "checkout", "-qb", "other")
    write(repo, "facts/invoice.md", fact("The invoice is due in summer."))
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "invoice")
    live.settle()
    assert paths_of(via_server(repo, "invoice summer")) == ["facts/invoice.md"]
    git(repo.root, "checkout", "-q", "-")
    assert any(b.full for b in live.settle())
    assert paths_of(via_server(repo, "invoice summer")) == []
    git(repo.root, "checkout", "-q", "other")
    assert any(b.full for b in live.settle())
    assert paths_of(via_server(repo, "invoice summer")) == ["facts/invoice.md"]
    assert via_server(repo, "invoice summer") == direct(rebuilt_copy(repo, tmp_path), "invoice summer")


def test_a_changed_memfsignore_runs_the_full_check(live: Live) -> None:
    repo = live.repo
    write(repo, "drafts/coffee.md", fact("The coffee machine is broken."))
    live.settle()
    assert paths_of(via_server(repo, "coffee")) == ["drafts/coffee.md"]
    (repo.root / ".memfsignore").write_text("drafts/\n")
    assert any(b.full for b in live.settle())
    assert paths_of(via_server(repo, "coffee")) == [] == paths_of(direct(repo, "coffee"))


def test_sleep_and_resume_is_noticed_from_the_clocks() -> None:
    assert not _jumped((0.0, 100.0, 0.0), (0.5, 100.5, 0.5))
    assert _jumped((0.0, 100.0, 0.0), (0.5, 400.5, 0.5))  # wall clock moved 300 s more
    assert _jumped((0.0, 100.0, 0.0), (0.5, 100.5, 60.5))  # boot clock counted a suspend


# --- faults ----------------------------------------------------------------------------------------
def test_the_server_survives_a_corrupt_memory_file(live: Live) -> None:
    repo = live.repo
    since = live.mark()
    write(repo, "facts/bad.md", "---\ntype: [unclosed\n---\nwindow\n")
    write(repo, "facts/good.md", fact("The window is open."))
    live.wait_path(since, "facts/bad.md")
    live.wait_path(since, "facts/good.md")
    view = via_server(repo, "window")
    assert paths_of(view) == ["facts/good.md"]
    assert view is not None and [p["path"] for p in view["json"]["unreadable"]] == ["facts/bad.md"]
    assert via_server(repo, "window") == direct(repo, "window")


def test_the_server_survives_a_deleted_cache_folder(live: Live) -> None:
    repo = live.repo
    since = live.mark()
    write(repo, "facts/mirror.md", fact("The mirror is in the hall."))
    live.wait_path(since, "facts/mirror.md")
    since = live.mark()
    shutil.rmtree(repo.store.cache_dir)
    live.wait(since, lambda b: b.full is not None)
    assert wait_for(lambda: wire.read_record(Path(os.path.realpath(repo.root))) is not None)
    assert paths_of(via_server(repo, "mirror")) == ["facts/mirror.md"]


def test_a_stale_socket_of_a_killed_server_is_detected_and_removed(repo: MemoryRepo, live_run_dir: Path) -> None:
    root = Path(os.path.realpath(repo.root))
    sock_path = wire.socket_path(root)
    sock_path.parent.mkdir(mode=0o700)
    dead = subprocess.Popen(["true"])
    dead.wait()
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(sock_path))
    left.close()  # the file stays, nobody listens: what a killed server leaves
    record = {"protocol": wire.PROTOCOL, "socket": str(sock_path), "root": str(root), "pid": dead.pid}
    repo.store.cache_dir.mkdir(exist_ok=True)
    (repo.store.cache_dir / wire.RECORD).write_text(__import__("json").dumps(record))
    assert wire.request(repo.root, "search", args("x")) is None
    assert not sock_path.exists() and not (repo.store.cache_dir / wire.RECORD).exists()
    with repo.live_server() as server:  # and a new server starts where the dead one was
        assert wire.request(repo.root, "status", {}) is not None
        assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(server.path.parent).st_mode) == 0o700


def test_two_servers_never_share_a_root_and_two_roots_never_share_a_server(live: Live, tmp_path: Path) -> None:
    with pytest.raises(AlreadyRunning):
        live.repo.live_server().start()
    assert wire.request(live.repo.root, "status", {}) is not None  # the failed start removed nothing
    other = MemoryRepo.open(copy_repo(live.repo.root, tmp_path / "other"), ACTOR)
    assert wire.socket_path(other.root) != live.server.path
    assert wire.request(other.root, "status", {}) is None  # the copied record names another root
    with other.live_server() as second:
        assert wire.request(other.root, "status", {})["root"] == str(second.root)  # type: ignore[index]


def test_a_server_starting_holds_its_root_before_its_socket_answers(repo: MemoryRepo) -> None:
    """Two servers started at once for one root (two commands that each found none) both see no
    socket answering; the root's lock, held from before the bind until the server stops, lets
    one start and refuses the other, from another run directory too."""
    held = locking.try_hold(repo.store.cache_dir / listener.LOCK)
    assert held is not None  # a server that claimed the root and bound its socket, not yet listening
    path = wire.socket_path(repo.root)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    bound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound.bind(str(path))
    inode = os.stat(path).st_ino
    try:
        with pytest.raises(AlreadyRunning, match="starting or already serves"):
            repo.live_server().start()
        assert os.stat(path).st_ino == inode  # left alone
    finally:
        bound.close()
        path.unlink()
        os.close(held)
    with repo.live_server() as server:  # released: it starts
        assert wire.request(repo.root, "status", {})["pid"] == os.getpid()  # type: ignore[index]
        assert locking.try_hold(repo.store.cache_dir / listener.LOCK) is None
        other = Path(tempfile.mkdtemp(prefix="mfs", dir="/tmp"))
        try:
            second = repo.live_server()
            second.path = other / "s.sock"
            with pytest.raises(AlreadyRunning):
                second.start()
        finally:
            shutil.rmtree(other)
        assert wire.request(repo.root, "status", {})["socket"] == str(server.path)  # type: ignore[index]
    fd = locking.try_hold(repo.store.cache_dir / listener.LOCK)  # stopped: released
    assert fd is not None
    os.close(fd)


def test_a_start_that_fails_claiming_a_later_root_releases_the_earlier_ones(repo: MemoryRepo, tmp_path: Path) -> None:
    """A server of two roots that claimed the first and then failed on the second (its lock
    cannot be opened) must let the first go: a claim left open blocks every later server of it."""
    other = MemoryRepo.open(copy_repo(repo.root, tmp_path / "other"), ACTOR)
    (other.store.cache_dir / listener.LOCK).mkdir(parents=True)  # opening it fails
    with pytest.raises(OSError):
        repo.live_server(also=[other]).start()
    fd = locking.try_hold(repo.store.cache_dir / listener.LOCK)
    assert fd is not None
    os.close(fd)


def test_a_server_is_found_and_not_doubled_from_another_run_dir(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    other = Path(tempfile.mkdtemp(prefix="mfs", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(other))  # a shell whose environment differs from the server's
    try:
        assert wire.request(live.repo.root, "status", {}) is not None
        with pytest.raises(AlreadyRunning):
            live.repo.live_server().start()
        assert wire.request(live.repo.root, "status", {}) is not None
    finally:
        shutil.rmtree(other)


def raw(path: Path, payload: bytes) -> dict[str, Any]:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(TIMEOUT)
    conn.connect(str(path))
    try:
        try:
            conn.sendall(payload)
            conn.shutdown(socket.SHUT_WR)
        except BrokenPipeError:  # refused before it read anything: the reply is still there
            pass
        return wire.receive(conn, wire.MAX_REPLY)
    finally:
        conn.close()


def test_anything_but_our_request_format_gets_an_error_and_the_server_goes_on(live: Live) -> None:
    path, root = live.server.path, str(live.server.root)
    good = {"memfs": wire.PROTOCOL, "op": "search", "root": root, "args": args("rocket")}
    bad = [
        b"GET / HTTP/1.1\r\n\r\n",
        wire.MAGIC + struct.pack(">I", wire.MAX_REQUEST + 1),
        wire.MAGIC + struct.pack(">I", 5) + b"[1,2]",
        wire.MAGIC + struct.pack(">I", 3) + b"\xff\xfe\xfd",
        wire.encode({**good, "memfs": "live/999"}),
        wire.encode({**good, "root": "/elsewhere"}),
        wire.encode({**good, "op": "rm -rf"}),
        wire.encode({**good, "args": args("x", limit="10")}),
        wire.encode({**good, "args": args("x", extra=1)}),
        wire.encode({**good, "args": {**args("x"), "extra": 1}}),
        wire.encode({**good, "args": args("")}),
    ]
    for payload in bad:
        reply = raw(path, payload)
        assert reply["ok"] is False and reply["error"], payload
    assert raw(path, wire.encode(good))["ok"] is True


def test_another_users_connection_is_refused(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    from memfs.agents.live import listener as server_module

    monkeypatch.setattr(server_module, "peer_uid", lambda conn: os.getuid() + 1)
    reply = raw(live.server.path, wire.encode({"memfs": wire.PROTOCOL, "op": "status", "root": "", "args": {}}))
    assert reply == {"ok": False, "error": "refused: not the owner of this live index"}
    assert wire.request(live.repo.root, "status", {}) is None  # the client falls back


def test_a_request_while_the_index_is_rebuilt_waits_or_falls_back(live: Live) -> None:
    import threading

    held, release = threading.Event(), threading.Event()

    def rebuild() -> None:  # holds what an update holds
        with live.index.lock:
            held.set()
            release.wait(TIMEOUT)

    worker = threading.Thread(target=rebuild)
    worker.start()
    try:
        assert held.wait(TIMEOUT)
        live.index.query_wait = 0.01
        assert live.index.search(args("rocket"))["busy"] is True
        assert wire.request(live.repo.root, "search", args("rocket")) is None  # the client searches itself
    finally:
        release.set()
        worker.join(TIMEOUT)
    assert live.index.search(args("rocket"))["ok"] is True


def test_stop_request_and_status(repo: MemoryRepo) -> None:
    import threading

    from memfs.agents.live.listener import serve_forever

    server = repo.live_server()
    done = threading.Thread(target=serve_forever, args=(server, threading.Event()))
    done.start()
    assert wait_for(lambda: repo.live_status() is not None)
    assert repo.live_status()["root"] == str(server.root)  # type: ignore[index]
    assert repo.live_stop() is True
    done.join(TIMEOUT)
    assert not done.is_alive() and not server.path.exists() and repo.live_status() is None
    assert repo.live_stop() is False


# --- same answers ----------------------------------------------------------------------------------
def rebuilt_copy(repo: MemoryRepo, tmp_path: Path) -> MemoryRepo:
    """The same working tree and history in a new folder, its index built from scratch."""
    dest = tmp_path / f"copy{len(list(tmp_path.glob('copy*')))}"
    shutil.copytree(repo.root, dest, symlinks=True, ignore=shutil.ignore_patterns(".memfs"))
    copy = MemoryRepo.open(dest, ACTOR)
    copy.reindex()
    return copy


def comparable(view: dict[str, Any] | None) -> Any:
    assert view is not None
    return [(h["path"], h["score"], h["uncommitted"]) for h in view["json"]["hits"]], view["json"]["filtered"]


def test_the_session_binding_and_eligibility_are_the_direct_paths(live: Live) -> None:
    repo = live.repo
    since = live.mark()
    for i, scope in enumerate(SCOPES):
        write(repo, f"facts/s{i}.md", fact("The budget review is on friday.", scope=scope))
    write(repo, "facts/old.md", fact("The budget review moved.", expires="2026-02-01T00:00:00Z"))
    for rel in [*(f"facts/s{i}.md" for i in range(len(SCOPES))), "facts/old.md"]:
        live.wait_path(since, rel)
    for over in ({}, {"scope": "user:U5"}, {"scope": "user:U5/project:P8", "inherit": True}, {"scope": "user:U7"},
                 {"type": "fact", "limit": 2}, {"scope": "user:U5", "explain": False, "json": False}):
        assert via_server(repo, "budget review", **over) == direct(repo, "budget review", **over), over
    bound = via_server(repo, "budget review", scope="user:U7")
    assert paths_of(bound) == ["facts/s2.md"] and bound is not None and bound["json"]["filtered"] == []


@pytest.mark.slow
def test_incremental_equals_rebuilt_after_random_edits_commits_and_deletes(live: Live, tmp_path: Path) -> None:
    repo, rng = live.repo, random.Random(17)
    names: list[str] = []
    for step in range(14):
        action = rng.choice(["add", "add", "edit", "delete", "commit"]) if names else "add"
        touched: set[str] = set()
        if action in ("add", "edit"):
            for _ in range(rng.randint(1, 4)):
                rel = f"m/{rng.choice(SCOPES).replace(':', '-').replace('/', '_')}/n{step}-{len(names)}.md"
                if action == "edit":
                    rel = rng.choice(names)
                else:
                    names.append(rel)
                body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
                write(repo, rel, fact(body.capitalize() + ".", scope=rng.choice(SCOPES)))
                touched.add(rel)
        elif action == "delete":
            rel = names.pop(rng.randrange(len(names)))
            (repo.root / rel).unlink()
            touched.add(rel)
        else:
            git(repo.root, "add", "-A")
            git(repo.root, "commit", "-qm", f"step {step}")
        batches = live.settle()
        assert touched <= set().union(*(b.paths for b in batches)) or any(b.full for b in batches)
        if step % 3 == 2 or step == 13:
            copy = rebuilt_copy(repo, tmp_path)
            for _ in range(4):
                query = " ".join(rng.sample(WORDS, 2))
                scope = rng.choice([None, *SCOPES])
                assert comparable(via_server(repo, query, scope=scope)) == comparable(direct(copy, query, scope=scope))


@pytest.mark.parametrize("tear", ["half a line", "a foreign line", "no journal"])
def test_a_torn_state_journal_is_caught_up_at_the_next_start(repo: MemoryRepo, tmp_path: Path, tear: str) -> None:
    """A server killed while appending to ``.memfs/state.journal`` leaves a torn last line (or a
    line of another whole file, or none of its lines): the state replays to an older copy than
    the index, the next start's full check indexes again what the lost lines said, its next save
    writes the state whole, and the answers are a fresh build's."""
    from memfs.index import state as index_state
    from memfs.index.state import JOURNAL_FILE

    first = Live(repo)
    first.server.start()
    try:
        for i in range(6):
            write(repo, f"facts/t{i}.md", fact(f"The {WORDS[i]} {WORDS[i + 1]} journal note."))
            first.settle()
        (repo.root / "facts/t0.md").unlink()
        first.settle()
    finally:
        first.server.stop()
    journal = repo.store.cache_dir / JOURNAL_FILE
    data = journal.read_bytes()
    assert data.count(b"\n") >= 2, "each update appends a line"
    cut = data.rstrip(b"\n").rfind(b"\n")
    torn = {"half a line": data[:cut + (len(data) - cut) // 2], "no journal": b"",
            "a foreign line": data[:cut + 1].replace(b'"base":"', b'"base":"x', 1)}[tear]
    journal.write_bytes(torn)
    again = Live(repo)
    again.server.start()
    try:
        write(repo, "facts/t9.md", fact("The journal note after the restart."))
        again.settle()
        state = index_state.read(repo.store.cache_dir)
        assert state.disk.token and state.disk.journal_bytes == (journal.stat().st_size if journal.exists() else 0)
        assert not torn or not journal.exists() or not journal.read_bytes().startswith(torn), "written whole"
        copy = rebuilt_copy(repo, tmp_path)
        for query in ("journal note", f"{WORDS[0]} {WORDS[1]}", f"{WORDS[5]} journal", "restart"):
            assert comparable(via_server(repo, query)) == comparable(direct(copy, query)), query
    finally:
        again.server.stop()


def test_recalls_answered_by_the_server_are_counted_off_the_request_path(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from memfs.store import usage

    repo = live.repo
    flushing = live.index.record_recalls
    threads: set[str] = set()

    def noted() -> None:
        threads.add(threading.current_thread().name)
        flushing()

    monkeypatch.setattr(live.index, "record_recalls", noted)
    write(repo, "facts/kayak.md", fact("The kayak trip is in June."))
    live.settle()
    for _ in range(3):
        assert paths_of(via_server(repo, "kayak")) == ["facts/kayak.md"]
    assert wait_for(lambda: usage.load(repo.store).get("facts/kayak.md", usage.Usage()).recalls == 3)
    assert threads == {"memfs-live-clock"}


def test_the_kept_git_status_equals_a_fresh_one_after_random_changes(live: Live) -> None:
    """The live index brings its ``git status`` up to date from the changed paths alone (a
    status of just those paths); after any mix of new, edited, deleted, committed and git-ignored
    memories and ignore-rule edits it must equal a whole-tree status run afresh, and the hits'
    "uncommitted" flags must be the direct path's."""
    from memfs.index import state as index_state
    from memfs.index.catchup import _probe

    repo, rng = live.repo, random.Random(23)
    (repo.root / ".gitignore").write_text(".memfs/\n")
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "ignore the cache")
    live.settle()
    names: list[str] = []
    for step in range(24):
        action = rng.choice(["add", "add", "edit", "delete", "commit", "ignored", "ignore-rule"]) if names else "add"
        if action in ("add", "ignored"):
            folder = "drafts" if action == "ignored" else "m"
            rel = f"{folder}/n{step}.md"
            names.append(rel)
            write(repo, rel, fact(f"Coffee notes {step} {rng.choice(WORDS)}."))
        elif action == "edit":
            write(repo, rng.choice(names), fact(f"Coffee edited {step} {rng.choice(WORDS)}."))
        elif action == "delete":
            (repo.root / names.pop(rng.randrange(len(names)))).unlink()
        elif action == "commit":
            git(repo.root, "add", "-A")
            git(repo.root, "commit", "-qm", f"step {step}")
        else:
            rules = ".memfs/\n" + ("drafts/\n" if rng.random() < 0.6 else "")
            (repo.root / ".gitignore").write_text(rules)
        live.settle()
        fresh = MemoryRepo.open(repo.root, ACTOR)
        assert index_state.read(repo.store.cache_dir).probe == _probe(fresh.store), (step, action)
        served = via_server(repo, "coffee", limit=50)
        assert served is not None
        assert served["json"] == direct(fresh, "coffee", limit=50)["json"], (step, action)


@pytest.mark.parametrize("change", ["memfsignored file", "excludesFile in .git/config"])
def test_the_kept_git_status_follows_changes_the_watcher_hears_nothing_of(live: Live, change: str) -> None:
    """A memory-named file ``.memfsignore`` excludes (no event reaches the index) and an ignore
    rule set in ``.git/config``: after the next ordinary save, the kept status still equals a
    fresh one."""
    from memfs.index import state as index_state
    from memfs.index.catchup import _probe

    repo = live.repo
    write(repo, ".memfsignore", "scratch/\n")
    write(repo, "m/a.md", fact("Coffee at nine."))
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "base")
    live.settle()
    if change == "memfsignored file":
        write(repo, "scratch/x.md", fact("Coffee scratch."))
    else:
        write(repo, "drafts/d.md", fact("Coffee draft."))
        live.settle()
        (repo.root / ".git" / "more-excludes").write_text("drafts/\n")
        git(repo.root, "config", "core.excludesFile", str(repo.root / ".git" / "more-excludes"))
    live.settle()
    write(repo, "m/a.md", fact("Coffee at ten."))
    live.settle()
    assert index_state.read(repo.store.cache_dir).probe == _probe(MemoryRepo.open(repo.root, ACTOR).store)


def test_an_edit_whose_event_is_not_processed_yet_is_not_injected(repo: MemoryRepo) -> None:
    """Only committed memory is injected. Until the live index processes an edit's event (here:
    never, its debounce is an hour) its index and kept ``git status`` lag the edit, but a served
    context must still inject the committed copy and a served search mark the hit uncommitted,
    as the direct path does: the hit is read from the edited file, which ``git status`` says
    differs from HEAD whenever it is asked."""
    from memfs.agents.verbs import Context
    from memfs.format.declare import CLI, to_wire

    write(repo, "m/a.md", fact("The rocket is blue."))
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-qm", "a")
    context = {"request": to_wire(Context(task="rocket", scope="user:U5"), CLI), "actor": None, "json": False}
    with repo.live_server(debounce=3600) as server:
        live = server.live
        assert "The rocket is blue." in live.context(context)["text"]
        write(repo, "m/a.md", fact("The rocket is red."))
        served = live.context(context)
        hits = live.search(args("rocket"))["view"]["json"]["hits"]
    direct_context = repo.context(task="rocket", scope="user:U5")
    assert "The rocket is blue." in direct_context.render() and "rocket is red" not in direct_context.render()
    assert "The rocket is blue." in served["text"] and "rocket is red" not in served["text"]
    assert served["uncommitted_notice"] == direct_context.uncommitted_notice
    assert [(h["path"], h["uncommitted"]) for h in hits] == [("m/a.md", True)]
    assert [(h["path"], h["uncommitted"]) for h in direct(repo, "rocket")["json"]["hits"]] == [("m/a.md", True)]


def test_a_memory_root_below_the_repository_top_refreshes_the_whole_status(tmp_path: Path) -> None:
    """A ``.gitignore`` above a memory root kept in a sub-folder is outside what the live index
    watches, so there its kept status is never brought up to date path by path."""
    from memfs.agents.live.server import CachedProbeGit
    from memfs.index.catchup import _probe
    from tests.helpers import set_identity

    top = tmp_path / "top"
    top.mkdir()
    git(top, "init", "-q")
    set_identity(top)
    (top / "README.txt").write_text("x\n")
    git(top, "add", ".")
    git(top, "commit", "-qm", "c")
    repo = MemoryRepo.init(top / "mem", actor=ACTOR)
    write(repo, "notes/a.md", fact("A."))
    write(repo, "drafts/x.md", fact("X."))
    git(top, "add", "mem/notes")
    git(top, "commit", "-qm", "a")
    kept = CachedProbeGit(repo.store.git.workdir, repo.store.git.git_dir)
    view = type(repo.store)(repo.root, kept, repo.actor)
    _probe(view)
    (top / ".gitignore").write_text("mem/drafts/\n")
    write(repo, "notes/a.md", fact("A, edited."))
    kept.refresh_probe(repo.store.pathspec, [repo.store.git_path("notes/a.md")])
    assert _probe(view) == _probe(repo.store)


def test_a_server_with_an_idle_timeout_ends_after_it_and_a_request_puts_it_off(repo: MemoryRepo) -> None:
    import threading

    from memfs.agents.live.listener import serve_forever

    with repo.live_server(debounce=0.01, idle_timeout=3600) as server:
        assert not server.idle()
        server.last_request -= 3601  # an hour without a request
        assert server.idle()
        assert wire.request(repo.root, "status", {}) is not None
        assert server.idle(), "asking about the server is not using it"
        assert wire.request(repo.root, "search", args("rocket")) is not None
        assert not server.idle()
    assert repo.live_server().idle() is False  # no timeout: never idle
    ending = repo.live_server(debounce=0.01, idle_timeout=0.05)
    serve_forever(ending, threading.Event())  # returns once idle
    assert ending.idle() and not ending.path.exists() and not (repo.store.cache_dir / wire.RECORD).exists()
