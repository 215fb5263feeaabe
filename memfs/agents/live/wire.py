"""The live index's socket: where it is, its message format, and the client.

Standard library only: a fresh ``memfs search`` imports this, asks a running ``memfs serve`` and
prints its answer without loading Whoosh, YAML or the store. Any doubt (no server, a stale or
foreign socket, a busy or failing server, an answer that does not parse) is ``None`` for the
caller, which then does the search itself: a server is a shortcut, never a different answer.

Where: the socket cannot live in ``.memfs/`` (a Unix socket path is limited to 107 bytes, and
memory roots are often deeper than that), so it is ``<run dir>/<hash of the root>.sock``, the
run dir being ``$XDG_RUNTIME_DIR/memfs`` or ``/tmp/memfs-<uid>``, a 0700 folder of this user
(the socket itself is 0600, and the server also checks each peer's uid). ``.memfs/live.json``
records the socket, the root and the server's pid: a client with no record does not try.

Messages, both ways: ``MFS1``, a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
A request is ``{"memfs": "live/1", "op": ..., "root": ..., "args": {...}}``, at most
:data:`MAX_REQUEST` bytes; a reply is ``{"ok": true, ...}`` or ``{"ok": false, "error": ...}``
(``"busy": true`` while the server rebuilds and cannot answer in time).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import struct
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:  # (annotations only: the CLI's fast path imports this module)
    from typing import Any

PROTOCOL = "live/2"
MAGIC = b"MFS1"
MAX_REQUEST = 64 * 1024
MAX_REPLY = 256 * 1024 * 1024
RECORD = "live.json"
CACHE_DIR = ".memfs"
CONFIG_FILE = ".memfs.toml"
CLIENT_TIMEOUT = 30.0
#: how long a write waits for its outcome once the server accepted it (it may queue for the
#: repository's write lock)
WRITE_TIMEOUT = 120.0
#: the requests that change the repository, acknowledged before they are done (:func:`ask`)
WRITES = frozenset({"remember"})
ACCEPTED = {"accepted": True}
#: What :func:`ask` answers for a write the server accepted whose outcome never came (the server
#: died, or took longer than :data:`WRITE_TIMEOUT`): it may or may not have been made.
LOST = {"ok": False, "lost": True}


class WireError(Exception):
    """A message that is not ours: bad magic, too long, cut short, or not a JSON object."""


# --- where ---------------------------------------------------------------------------------
def run_dir() -> Path:
    """This user's folder for memfs sockets (not created here)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return Path(runtime) / "memfs"
    return Path(f"/tmp/memfs-{os.getuid()}")


def socket_path(root: str | os.PathLike[str]) -> Path:
    """The socket of the server for memory root ``root`` (one per root: named by its real path).
    Clients take it from the record instead, so they need not load ``hashlib``."""
    import hashlib

    digest = hashlib.sha256(os.path.realpath(root).encode()).hexdigest()[:20]
    return run_dir() / f"{digest}.sock"


def private_dir_ok(folder: Path) -> bool:
    """Whether ``folder`` is a real folder of this user that nobody else may enter (0700)."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def socket_ok(path: Path) -> bool:
    """Whether ``path`` is a socket of this user in a folder only this user may enter (wherever
    the server's ``$XDG_RUNTIME_DIR`` put it). A missing socket is "ok" here: connecting finds
    it gone and the record stale."""
    if not private_dir_ok(path.parent):
        return False
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISSOCK(st.st_mode) and st.st_uid == os.getuid()


def find_root(start: str | os.PathLike[str]) -> Path | None:
    """The memory root ``Store.open(start)`` would choose, found without git: the nearest folder
    with a ``.memfs.toml``, else the nearest with ``.git``. ``None`` when git's environment
    variables could point elsewhere, or ``start`` is not a folder (the caller then asks git, the
    slow way, and reports what it finds)."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return None
    here = Path(os.path.realpath(os.path.abspath(start)))
    if not here.is_dir():
        return None
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_FILE).is_file() or (candidate / ".git").exists():
            return candidate
    return None


def read_record(root: Path) -> dict[str, Any] | None:
    """``.memfs/live.json`` of ``root``: the running server's socket, root and pid, if any."""
    try:
        raw = json.loads((root / CACHE_DIR / RECORD).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("protocol") != PROTOCOL:
        return None
    if not isinstance(raw.get("socket"), str) or not isinstance(raw.get("pid"), int):
        return None
    return raw


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat_line = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat_line[stat_line.rfind(b")") + 2:][:1] != b"Z"


# --- messages ------------------------------------------------------------------------------
def encode(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, ensure_ascii=False, separators=(",", ":"), default=str).encode()
    return MAGIC + struct.pack(">I", len(data)) + data


def _read_exact(conn: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = conn.recv(min(n, 1 << 20))
        if not chunk:
            raise WireError("the message was cut short")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(conn: socket.socket, limit: int) -> dict[str, Any]:
    """One message from ``conn``; :class:`WireError` if it is not one of ours."""
    head = _read_exact(conn, 8)
    if head[:4] != MAGIC:
        raise WireError("not a memfs live-index message (bad magic)")
    (size,) = struct.unpack(">I", head[4:])
    if size > limit:
        raise WireError(f"message of {size} bytes is longer than the {limit} allowed")
    try:
        message = json.loads(_read_exact(conn, size))
    except (UnicodeDecodeError, ValueError):
        raise WireError("the message is not JSON") from None
    if not isinstance(message, dict):
        raise WireError("the message is not a JSON object")
    return message


# --- the client ----------------------------------------------------------------------------
def remove_stale(root: Path, record: dict[str, Any]) -> None:
    """Remove the socket and record a killed server left, if its process is gone."""
    if pid_alive(record["pid"]):
        return
    sock = Path(record["socket"])
    if socket_ok(sock):
        with contextlib.suppress(OSError):
            sock.unlink()
    with contextlib.suppress(OSError):
        current = read_record(root)
        if current is not None and current.get("pid") == record["pid"]:
            (root / CACHE_DIR / RECORD).unlink()


def request(start: str | os.PathLike[str], op: str, args: dict[str, Any],
            timeout: float | None = None) -> dict[str, Any] | None:
    """Ask the server of the memory root containing ``start``; its ``ok`` reply, or ``None`` when
    there is no usable server or it could not answer (the caller does the work itself)."""
    reply = ask(start, op, args, timeout)
    return reply if reply is not None and reply.get("ok") is True else None


def ask(start: str | os.PathLike[str], op: str, args: dict[str, Any],
        timeout: float | None = None) -> dict[str, Any] | None:
    """The server's reply to ``op``, ``ok`` or not (a write's refusal is its answer: the caller
    raises it, and must not do the write again), or ``None`` when no usable server answered: none
    runs, its socket is stale (removed here when its process is gone), it hung or answered late
    (``timeout`` seconds, :data:`CLIENT_TIMEOUT` unless given), it is busy, or the reply is not ours.

    A write (:data:`WRITES`) is first acknowledged: the server says ``accepted`` before it starts,
    and starts only if it could say so (a client that gave up has closed the connection, so a
    server that wakes up late never does a write its client then did itself). After the
    acknowledgement the client waits up to :data:`WRITE_TIMEOUT` for the outcome (the write may
    queue for the repository's lock); a connection that drops then (the server died) or an outcome
    that comes too late is :data:`LOST`: the write may have been made, and the caller decides
    whether doing it again is safe (the journal's recovery finishes or undoes a torn one)."""
    root = find_root(start)
    if root is None:
        return None
    record = read_record(root)
    if record is None or record.get("root") != str(root):
        return None
    sock_path = record["socket"]
    if not socket_ok(Path(sock_path)):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(CLIENT_TIMEOUT if timeout is None else timeout)
        try:
            conn.connect(sock_path)
        except (FileNotFoundError, ConnectionRefusedError):
            remove_stale(root, record)
            return None
        conn.sendall(encode({"memfs": PROTOCOL, "op": op, "root": str(root), "args": args}))
        reply = receive(conn, MAX_REPLY)
        if op in WRITES and reply == ACCEPTED:
            conn.settimeout(WRITE_TIMEOUT)
            try:
                reply = receive(conn, MAX_REPLY)
            except (OSError, WireError):
                return dict(LOST)
    except (OSError, WireError):
        return None
    finally:
        conn.close()
    return None if reply.get("busy") is True or not isinstance(reply.get("ok"), bool) else reply
