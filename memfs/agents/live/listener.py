"""The live index's Unix socket: one server per memory root, only this user may connect, and
anything that is not a well-formed request of :mod:`memfs.agents.live.wire`'s protocol gets an
error reply and a log line. The index it serves is :class:`memfs.agents.live.server.LiveIndex`."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import struct
import threading
from pathlib import Path
from typing import Any

from memfs.agents.live import wire
from memfs.agents.live.server import REQUEST_TIMEOUT, TICK_SECONDS, AlreadyRunning, LiveIndex
from memfs.errors import MemfsError, UsageError
from memfs.index.state import ensure_cache
from memfs.store import atomic

log = logging.getLogger("memfs.live")


# --- the socket ----------------------------------------------------------------------------------
class SocketServer:
    """Serve one :class:`LiveIndex` on its Unix socket until :meth:`stop` (or a ``stop`` request).

    One server per memory root: the socket is named by the root's real path and a second server
    finds the first answering there and refuses to start; a socket whose process is gone is
    removed. Only this user may connect (0700 folder, 0600 socket, and the peer's uid checked);
    anything that is not a well-formed request of our protocol gets an error reply and a log line.
    """

    def __init__(self, live: LiveIndex) -> None:
        self.live = live
        self.root = Path(os.path.realpath(live.repo.root))
        self.path = wire.socket_path(self.root)
        self.sock: socket.socket | None = None
        self.stopped = threading.Event()
        self._thread: threading.Thread | None = None
        live._publish = self.publish  # type: ignore[method-assign]
        live.record_missing = self.record_missing  # type: ignore[method-assign]

    def start(self) -> None:
        self._bind()
        try:
            self.live.start()
            self.publish()
        except BaseException:
            self._cleanup()
            raise
        self._thread = threading.Thread(target=self._serve, name="memfs-live-socket", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.live.stop()
        self._cleanup()

    def __enter__(self) -> SocketServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _bind(self) -> None:
        folder = self.path.parent
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        if not wire.private_dir_ok(folder):
            raise UsageError(f"{folder} must be a folder of yours that only you can enter (chmod 700 {folder})")
        recorded = wire.read_record(self.root)
        if (recorded is not None and recorded.get("root") == str(self.root) and recorded["socket"] != str(self.path)
                and _answers(Path(recorded["socket"]))):
            raise AlreadyRunning(f"a live index already serves this repository on {recorded['socket']} "
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

    def publish(self) -> None:
        """Write ``.memfs/live.json`` so clients find the socket (again, after ``.memfs/`` was deleted)."""
        record = {"protocol": wire.PROTOCOL, "socket": str(self.path), "root": str(self.root), "pid": os.getpid()}
        ensure_cache(self.live.repo.cache_dir)
        atomic.write_bytes(self.live.repo.cache_dir / wire.RECORD, json.dumps(record).encode())

    def record_missing(self) -> bool:
        found = wire.read_record(self.root)
        return found is None or found.get("pid") != os.getpid() or found.get("socket") != str(self.path)

    def _cleanup(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        with contextlib.suppress(OSError):
            self.path.unlink()
        found = wire.read_record(self.root)
        if found is not None and found.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                (self.live.repo.cache_dir / wire.RECORD).unlink()

    def _serve(self) -> None:
        assert self.sock is not None
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                self._answer(conn)

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_TIMEOUT)
        try:
            uid = peer_uid(conn)
            if uid != os.getuid():
                log.warning("memfs serve: refused a connection from uid %s", uid)
                conn.sendall(wire.encode({"ok": False, "error": "refused: not the owner of this live index"}))
                return
            message = wire.receive(conn, wire.MAX_REQUEST)
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
        if message.get("root") != str(self.root):
            raise UsageError("this live index serves another memory root")
        op = message.get("op")
        if op == "search":
            return self.live.search(message.get("args", {}))
        if op == "context":
            return self.live.context(message.get("args", {}))
        if op == "status":
            return {**self.live.status(), "socket": str(self.path)}
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
    """Run until ``stop`` is set (the CLI sets it on SIGINT/SIGTERM) or a ``stop`` request."""
    server.start()
    try:
        while not stop.wait(TICK_SECONDS) and not server.stopped.is_set():
            pass
    finally:
        server.stop()


def status(root: Path) -> dict[str, Any] | None:
    """What the server of ``root`` says about itself, or ``None`` if none answers."""
    return wire.request(root, "status", {})


def request_stop(root: Path) -> bool:
    """Ask the server of ``root`` to stop; whether one answered."""
    return wire.request(root, "stop", {}) is not None


