"""The live index's Unix socket: one server per memory root, only this user may connect, and
anything that is not a well-formed request of :mod:`memfs.agents.live.wire`'s protocol gets an
error reply and a log line. The index it serves is :class:`memfs.agents.live.server.LiveIndex`."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import select
import socket
import struct
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memfs.agents.live import answers, wire
from memfs.agents.live.server import REQUEST_TIMEOUT, TICK_SECONDS, AlreadyRunning, LiveIndex
from memfs.errors import MemfsError, UsageError
from memfs.index.state import ensure_cache
from memfs.store import atomic, locking

log = logging.getLogger("memfs.live")
#: held by the server of a root while it runs (:meth:`SocketServer._claim`)
LOCK = "live.lock"


# --- the socket ----------------------------------------------------------------------------------
class SocketServer:
    """Serve one or several :class:`LiveIndex` (one per memory root) on one Unix socket until
    :meth:`stop`, a ``stop`` request, or :attr:`idle_timeout` seconds without a request.

    The socket is named by the first root's real path, and every root's ``.memfs/live.json``
    points to it, so one process answers for all of them (and a search over several of them at
    once, :mod:`.answers`). One server per memory root: a second server finds the first answering
    and refuses to start; a socket whose process is gone is removed. Only this user may connect
    (0700 folder, 0600 socket, and the peer's uid checked); anything that is not a well-formed
    request of our protocol gets an error reply and a log line.
    """

    def __init__(self, lives: LiveIndex | Sequence[LiveIndex], *, idle_timeout: float | None = None) -> None:
        started = [lives] if isinstance(lives, LiveIndex) else list(lives)
        if not started:
            raise UsageError("a live index serves at least one memory root")
        self.lives = {os.path.realpath(live.repo.root): live for live in started}
        self.live = started[0]
        self.root = Path(os.path.realpath(self.live.repo.root))
        self.path = wire.socket_path(self.root)
        self.idle_timeout = idle_timeout
        #: the command hosting it (``serve``, ``mcp``, ``watch``): only ``serve`` ends with the socket
        self.door = "serve"
        self.last_request = time.monotonic()
        self.sock: socket.socket | None = None
        self.stopped = threading.Event()
        self._thread: threading.Thread | None = None
        #: (read end, write end) of a pipe :meth:`stop` writes to, so the socket's thread sees
        #: :attr:`stopped` at once instead of at its next tick (:meth:`_accept`)
        self._wake: tuple[int, int] | None = None
        self._claims: list[int] = []
        for live in self.lives.values():
            live._publish = functools.partial(self.publish, live)  # type: ignore[method-assign]
            live.record_missing = functools.partial(self.record_missing, live)  # type: ignore[method-assign]

    def start(self) -> None:
        self._bind()
        running: list[LiveIndex] = []
        try:
            for live in self.lives.values():
                live.start()
                running.append(live)
                self.publish(live)
        except BaseException:
            for live in running:
                live.stop()
            self._cleanup()
            raise
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._serve, name="memfs-live-socket", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self._wake is not None:
            os.write(self._wake[1], b"x")
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=30)
            if self._wake is not None and not self._thread.is_alive():
                for fd in self._wake:
                    os.close(fd)
                self._wake = None
        for live in self.lives.values():
            live.stop()
        self._cleanup()

    def idle(self) -> bool:
        """Whether :attr:`idle_timeout` seconds passed since the last request (never without one)."""
        return self.idle_timeout is not None and time.monotonic() - self.last_request > self.idle_timeout

    def __enter__(self) -> SocketServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _claim(self) -> None:
        """Hold each root's ``.memfs/live.lock`` for as long as this server runs: two servers
        started at once for one root (two commands that each found none and started one in the
        background) would both find no socket answering yet; the second finds the lock held."""
        try:
            for root, live in self.lives.items():
                ensure_cache(live.repo.cache_dir)
                fd = locking.try_hold(live.repo.cache_dir / LOCK)
                if fd is None:
                    raise AlreadyRunning(f"a live index is starting or already serves {Path(root).name} "
                                         "(memfs serve --status; --stop)")
                self._claims.append(fd)
        except BaseException:
            self._release()
            raise

    def _release(self) -> None:
        for fd in self._claims:
            os.close(fd)
        self._claims.clear()

    def _bind(self) -> None:
        self._claim()
        try:
            self._bind_socket()
        except BaseException:
            self._release()
            raise

    def _bind_socket(self) -> None:
        folder = self.path.parent
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        if not wire.private_dir_ok(folder):
            raise UsageError(f"{folder} must be a folder of yours that only you can enter (chmod 700 {folder})")
        for root in self.lives:
            recorded = wire.read_record(Path(root))
            if (recorded is not None and recorded.get("root") == root and recorded["socket"] != str(self.path)
                    and _answers(Path(recorded["socket"]))):
                raise AlreadyRunning(f"a live index already serves {Path(root).name} on {recorded['socket']} "
                                     "(memfs serve --status; --stop)")
        if self.path.exists() or self.path.is_symlink():
            if _answers(self.path):
                raise AlreadyRunning("a live index already serves this repository (memfs serve --status; --stop)")
            self.path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(16)
        sock.settimeout(TICK_SECONDS)
        self.sock = sock

    def publish(self, live: LiveIndex) -> None:
        """Write ``.memfs/live.json`` so clients find the socket (again, after ``.memfs/`` was deleted)."""
        root = os.path.realpath(live.repo.root)
        record = {"protocol": wire.PROTOCOL, "socket": str(self.path), "root": root, "pid": os.getpid()}
        ensure_cache(live.repo.cache_dir)
        atomic.write_bytes(live.repo.cache_dir / wire.RECORD, json.dumps(record).encode())

    def record_missing(self, live: LiveIndex) -> bool:
        found = wire.read_record(Path(os.path.realpath(live.repo.root)))
        return found is None or found.get("pid") != os.getpid() or found.get("socket") != str(self.path)

    def _cleanup(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        with contextlib.suppress(OSError):
            self.path.unlink()
        for root, live in self.lives.items():
            found = wire.read_record(Path(root))
            if found is not None and found.get("pid") == os.getpid():
                with contextlib.suppress(OSError):
                    (live.repo.cache_dir / wire.RECORD).unlink()
        self._release()

    def _serve(self) -> None:
        """Answer one connection at a time until stopped; then the socket and the records go at
        once (a door that hosts the index for itself, ``memfs mcp``, keeps reading through it)."""
        sock = self.sock
        assert sock is not None
        while not self.stopped.is_set():
            try:
                conn = self._accept(sock)
            except TimeoutError:
                continue
            except OSError:
                break
            if conn is None:
                break
            with conn:
                self._answer(conn)
        self._cleanup()

    def _accept(self, sock: socket.socket) -> socket.socket | None:
        """The next connection, waiting at most a tick (:class:`TimeoutError`); ``None`` once
        :meth:`stop` wrote to the wake pipe. Without the pipe, a stop would wait out the rest of
        the tick: ``shutdown`` does not wake a thread waiting in ``accept`` on a Unix socket."""
        poller = select.poll()
        poller.register(sock, select.POLLIN)
        if self._wake is not None:
            poller.register(self._wake[0], select.POLLIN)
        ready = {fd for fd, _ in poller.poll(TICK_SECONDS * 1000)}
        if self._wake is not None and self._wake[0] in ready:
            return None
        if not ready:
            raise TimeoutError
        return sock.accept()[0]

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_TIMEOUT)
        try:
            uid = peer_uid(conn)
            if uid != os.getuid():
                log.warning("memfs serve: refused a connection from uid %s", uid)
                conn.sendall(wire.encode({"ok": False, "error": "refused: not the owner of this live index"}))
                return
            message = wire.receive(conn, wire.MAX_REQUEST)
            if message.get("op") not in ("status", "stop"):
                self.last_request = time.monotonic()
            if message.get("op") in wire.WRITES:
                conn.sendall(wire.encode(wire.ACCEPTED))  # the client still waits: it may be done here
            reply = self.dispatch(message)
        except (wire.WireError, UsageError) as exc:
            log.warning("memfs serve: bad request: %s", exc)
            reply = {"ok": False, "error": f"bad request: {exc}"}
        except MemfsError as exc:
            reply = {"ok": False, "error": str(exc)}
        except OSError as exc:
            log.warning("memfs serve: connection failed: %s", exc)
            return
        except Exception as exc:  # a bug answering one request must not stop the server
            log.exception("memfs serve: request failed")
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        with contextlib.suppress(OSError):
            conn.sendall(wire.encode(reply))

    def dispatch(self, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("memfs") != wire.PROTOCOL:
            raise UsageError(f"unknown protocol {str(message.get('memfs'))[:40]!r}; this server speaks {wire.PROTOCOL}")
        live = self.lives.get(str(message.get("root")))
        if live is None:
            raise UsageError("this live index serves another memory root")
        op, args = message.get("op"), message.get("args", {})
        if op == "search":
            return live.search(args)
        if op == "context":
            return live.context(args)
        if op == "remember":
            return answers.remember(live, args)
        if op == "search_roots":
            return answers.search_roots(self.lives, args)
        if op == "status":
            return {**live.status(), "socket": str(self.path), "roots": list(self.lives),
                    "idle_timeout": self.idle_timeout, "door": self.door}
        if op == "stop":
            self.stopped.set()
            return {"ok": True}
        raise UsageError(f"unknown op {str(op)[:40]!r}")


def _answers(path: Path) -> bool:
    """Whether something accepts connections on the Unix socket ``path``."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def peer_uid(conn: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (``SO_PEERCRED``)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def serve_forever(server: SocketServer, stop: threading.Event) -> None:
    """Run until ``stop`` is set (the CLI sets it on SIGINT/SIGTERM), a ``stop`` request, or
    the server's idle timeout."""
    server.start()
    try:
        while not stop.wait(TICK_SECONDS) and not server.stopped.is_set() and not server.idle():
            pass
    finally:
        server.stop()


def status(root: Path) -> dict[str, Any] | None:
    """What the server of ``root`` says about itself, or ``None`` if none answers."""
    return wire.request(root, "status", {})


def request_stop(root: Path) -> bool:
    """Ask the server of ``root`` to stop; whether one answered."""
    return wire.request(root, "stop", {}) is not None


