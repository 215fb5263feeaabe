"""A live index started in the background by a command that found none running, as an editor
starts a language server: only when the user's own configuration asks for it (never a
repository's ``.memfs.toml``, which travels with every clone)::

    [serve]
    start = "auto"        # default "manual": only 'memfs serve' (or watch, mcp) runs one
    idle_timeout = 600    # seconds without a request before a server started this way stops

The command that starts it does its own work directly (same answer); the next ones are answered
by the server. It runs ``memfs -C ROOT serve --idle-timeout N`` detached (its own session, its
output in ``.memfs/serve.log``), so it ends by itself after ``idle_timeout`` seconds without a
request, on ``memfs serve --stop`` or on SIGTERM, and removes its socket and record when it does.
A marker (``.memfs/live.starting``, the starting server's pid) keeps two commands from starting
two servers while the first still loads its index.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from memfs.errors import InvalidConfig

DEFAULT_IDLE_SECONDS = 600.0
STARTING = "live.starting"
LOG = "serve.log"


@dataclass(frozen=True)
class Settings:
    """``[serve]`` of the user's configuration."""

    auto: bool = False
    idle_timeout: float = DEFAULT_IDLE_SECONDS


def settings() -> Settings:
    """``[serve]`` of the user's configuration (:func:`memfs.cli.config.config_path`); the defaults
    when there is no file or no section. A value of the wrong kind is an error naming it."""
    import tomllib

    from memfs.cli.config import config_path

    path = config_path()
    try:
        section = tomllib.loads(path.read_text(encoding="utf-8")).get("serve", {})
    except FileNotFoundError:
        return Settings()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidConfig(f"{path}: cannot be read ({exc})") from None
    start = section.get("start", "manual") if isinstance(section, dict) else None
    idle = section.get("idle_timeout", DEFAULT_IDLE_SECONDS) if isinstance(section, dict) else None
    if start not in ("auto", "manual"):
        raise InvalidConfig(f'{path}: [serve] start must be "auto" or "manual"')
    if isinstance(idle, bool) or not isinstance(idle, int | float) or idle <= 0:
        raise InvalidConfig(f"{path}: [serve] idle_timeout must be a number of seconds above 0")
    return Settings(start == "auto", float(idle))


def start_if_asked(directory: Path) -> int | None:
    """Start a live index for the memory root containing ``directory`` in the background, when
    the configuration says ``start = "auto"`` and none runs or is starting; its pid, else ``None``."""
    found = settings()
    if not found.auto:
        return None
    from memfs.agents.live import wire

    root = wire.find_root(directory)
    if root is None:
        return None
    record = wire.read_record(root)
    if record is not None and wire.pid_alive(record["pid"]):
        return None
    cache = root / wire.CACHE_DIR
    marker = cache / STARTING
    with contextlib.suppress(OSError, ValueError):
        if wire.pid_alive(int(marker.read_text())):
            return None
    from memfs.store.gitcli.process import start_detached

    cache.mkdir(exist_ok=True)
    pid = start_detached(root, "memfs", "-C", str(root), "serve", "--idle-timeout", f"{found.idle_timeout:g}",
                         log=cache / LOG)
    tmp = cache / f".{STARTING}.{os.getpid()}"
    tmp.write_text(str(pid))
    tmp.replace(marker)
    return pid
