"""Real git servers on 127.0.0.1, started and stopped by the tests and the benchmarks themselves:
``git daemon`` (``git://``), smart HTTP (``git http-backend`` as a CGI behind lighttpd) and SSH
(OpenSSH's ``sshd`` on a high port, with a host key and a user key made for the run).

``serve(kind, folder)`` is a context manager: it starts the server on a free port, waits until it
answers, yields a :class:`Served` (where bare repositories go, their URLs, and the ``git -c``
options a client needs), and on the way out stops the server and every process it started (its
whole process group), failure or not. Each server is also tied to the process that started it
(Linux's parent-death signal), so a test run killed outright leaves none behind.

Pushes are on for every server (``receive-pack``). Server-side git reads no user or system config.
What each needs: ``git daemon`` ships with git; HTTP needs ``lighttpd`` (Debian: ``lighttpd``);
SSH needs ``sshd`` and ``ssh-keygen`` (Debian: ``openssh-server``). :func:`missing` says what is
absent. This module is shared: ``bench/bench_writers.py`` imports it."""

from __future__ import annotations

import contextlib
import ctypes
import getpass
import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

KINDS = ("daemon", "http", "ssh")
#: The Debian packages that bring each server's binaries (git itself brings the daemon and
#: http-backend); ``.ci/run`` installs them.
PACKAGES = {"daemon": (), "http": ("lighttpd",), "ssh": ("openssh-server",)}
START_TIMEOUT = 20.0
#: Server-side git reads only the repository's config, as on a real host set up for the purpose.
SERVER_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


@dataclass(frozen=True)
class Served:
    """A running server: bare repositories under ``root`` are served at ``base + name``."""

    kind: str
    root: Path
    base: str
    #: ``git -c`` options a client needs (SSH: which key, which known_hosts); ``git clone`` with
    #: them writes them into the clone's config, so every later fetch and push uses them.
    client_config: tuple[str, ...] = ()

    def url(self, name: str) -> str:
        return self.base + name

    def clone(self, name: str, dest: Path) -> None:
        """``git clone`` of ``name`` into ``dest``, configured to reach this server again."""
        options = [arg for key in self.client_config for arg in ("-c", key)]
        subprocess.run(["git", "clone", "-q", *options, self.url(name), str(dest)], check=True, capture_output=True)


def _exec_path() -> Path:
    found = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True)
    return Path(found.stdout.strip())


def _binary(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/bin")


def missing(kind: str) -> str | None:
    """Why ``kind`` cannot be served here (the binary and the Debian package to install), or ``None``."""
    needs_by_kind: dict[str, list[tuple[str, str | None]]] = {
        "daemon": [("git-daemon", str(_exec_path() / "git-daemon"))],
        "http": [("git-http-backend", str(_exec_path() / "git-http-backend")), ("lighttpd", _binary("lighttpd"))],
        "ssh": [("sshd", _binary("sshd")), ("ssh-keygen", _binary("ssh-keygen")), ("ssh", _binary("ssh"))],
    }
    absent = [name for name, path in needs_by_kind[kind] if not path or not Path(path).exists()]
    if not absent:
        return None
    packages = " ".join(PACKAGES[kind])
    return f"{kind} server: {', '.join(absent)} not installed" + (f" (apt-get install {packages})" if packages else "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _die_with_parent() -> None:
    """In the child before exec: a new process group (stopped as one), and SIGTERM when the
    process that started it dies (Linux ``prctl(PR_SET_PDEATHSIG)``; elsewhere only the group)."""
    os.setsid()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server and everything in its process group: TERM, then KILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # children that outlived the leader
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def _running(
    name: str, command: Callable[[int], list[str]], log: Path, env: dict[str, str] | None = None
) -> Iterator[int]:
    """Start ``command(port)`` on a free port (a few ports are tried: another process may take
    one between the probe and the bind), wait until it accepts connections; its port. Stopped on exit."""
    for _ in range(5):
        port = _free_port()
        with log.open("ab") as out:
            proc = subprocess.Popen(command(port), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + START_TIMEOUT
        while proc.poll() is None and not _listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is None and _listening(port):
            break
        _stop(proc)
    else:
        raise RuntimeError(f"{name} did not start; its log ({log}):\n{log.read_text(errors='replace')}")
    try:
        yield port
    finally:
        _stop(proc)


def _daemon(root: Path, state: Path) -> contextlib.AbstractContextManager[int]:
    def command(port: int) -> list[str]:
        return ["git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr", "--informative-errors",
                "--max-connections=0", "--listen=127.0.0.1", f"--port={port}", f"--base-path={root}"]

    return _running("git daemon", command, state / "daemon.log", env={**os.environ, **SERVER_GIT_ENV})


def _http(root: Path, state: Path) -> contextlib.AbstractContextManager[int]:
    backend = _exec_path() / "git-http-backend"
    environment = {**SERVER_GIT_ENV, "GIT_PROJECT_ROOT": str(root), "GIT_HTTP_EXPORT_ALL": "1",
                   "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.receivepack", "GIT_CONFIG_VALUE_0": "true"}
    settings = ", ".join(f'"{key}" => "{value}"' for key, value in environment.items())

    def command(port: int) -> list[str]:
        conf = state / f"lighttpd-{port}.conf"
        conf.write_text(
            'server.modules = ("mod_alias", "mod_cgi", "mod_setenv")\n'
            f'server.document-root = "{state}"\n'
            f'server.bind = "127.0.0.1"\nserver.port = {port}\n'
            f'server.errorlog = "{state / "lighttpd-errors.log"}"\n'
            f'alias.url = ("/git" => "{backend}")\n'
            '$HTTP["url"] =~ "^/git" { cgi.assign = ("" => "") }\n'
            f"setenv.add-environment = ({settings})\n"
        )
        return [_binary("lighttpd") or "lighttpd", "-D", "-f", str(conf)]

    return _running("lighttpd", command, state / "lighttpd.log")


@dataclass(frozen=True)
class _SshKeys:
    host: Path
    user: Path

    @classmethod
    def make(cls, state: Path) -> _SshKeys:
        keys = cls(state / "host_ed25519", state / "user_ed25519")
        for key in (keys.host, keys.user):
            subprocess.run([_binary("ssh-keygen") or "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "memfs-test",
                            "-f", str(key)], check=True, capture_output=True)
        (state / "authorized_keys").write_text(keys.user.with_suffix(".pub").read_text())
        return keys

    def client(self, state: Path) -> str:
        """The ssh command a client runs: this key only, no prompt, the host key accepted into a
        known_hosts of the run's own."""
        return shlex.join([
            "ssh", "-i", str(self.user), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={state / 'known_hosts'}",
            "-o", "LogLevel=ERROR",
        ])


def _ssh(state: Path, keys: _SshKeys) -> contextlib.AbstractContextManager[int]:
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation folder
    set_env = " ".join(f"{key}={value}" for key, value in SERVER_GIT_ENV.items())

    def command(port: int) -> list[str]:
        conf = state / f"sshd-{port}.conf"
        conf.write_text(
            f"Port {port}\nListenAddress 127.0.0.1\nHostKey {keys.host}\n"
            f"AuthorizedKeysFile {state / 'authorized_keys'}\nPidFile none\n"
            "PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "UsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
            # many writers connect at once: sshd's default drops unauthenticated connections past 10
            f"MaxStartups 500\nSetEnv {set_env}\nLogLevel ERROR\n"
        )
        return [_binary("sshd") or "sshd", "-D", "-e", "-f", str(conf)]

    return _running("sshd", command, state / "sshd.log")


@contextlib.contextmanager
def serve(kind: str, folder: Path) -> Iterator[Served]:
    """Run a ``kind`` server (one of :data:`KINDS`) for bare repositories under ``folder/served``;
    its state (config, keys, logs) goes in ``folder/server``. Raises ``RuntimeError`` naming
    what is missing (:func:`missing`) or the server's log if it did not start."""
    absent = missing(kind)
    if absent:
        raise RuntimeError(absent)
    root, state = folder / "served", folder / "server"
    root.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    if kind == "daemon":
        with _daemon(root, state) as port:
            yield Served(kind, root, f"git://127.0.0.1:{port}/")
    elif kind == "http":
        with _http(root, state) as port:
            yield Served(kind, root, f"http://127.0.0.1:{port}/git/")
    elif kind == "ssh":
        keys = _SshKeys.make(state)
        with _ssh(state, keys) as port:
            base = f"ssh://{getpass.getuser()}@127.0.0.1:{port}{root}/"
            yield Served(kind, root, base, (f"core.sshCommand={keys.client(state)}",))
    else:
        raise ValueError(f"unknown server kind {kind!r}; one of {', '.join(KINDS)}")
