"""The user's own configuration file (``$MEMFS_CONFIG``, else ``$XDG_CONFIG_HOME/memfs/config.toml``)
and the roots it lists (:mod:`memfs.cli.roots` says what they are for). Standard library only, so
that the fast path (:mod:`memfs.cli.fast`) knows whether a command reads several roots without
loading click."""

from __future__ import annotations

import os
from pathlib import Path


def config_path() -> Path:
    """The user's configuration file (it need not exist)."""
    named = os.environ.get("MEMFS_CONFIG")
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "memfs" / "config.toml"


def configured_roots() -> list[Path]:
    """``[recall] roots`` of the user's configuration, in order; none when there is no file.
    A file that cannot be read or a list that is not one of paths is an error naming the file
    and the field (a recall that silently skipped the user's roots would look complete)."""
    path = config_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        from memfs.errors import InvalidConfig

        raise InvalidConfig(f"{path}: cannot be read ({exc})") from None
    import tomllib

    from memfs.errors import InvalidConfig

    try:
        roots = tomllib.loads(text).get("recall", {}).get("roots", [])
    except (tomllib.TOMLDecodeError, AttributeError) as exc:
        raise InvalidConfig(f"{path}: not a valid configuration ({exc})") from None
    if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
        raise InvalidConfig(f"{path}: [recall] roots must be a list of folder paths, e.g. roots = [\"~/memory\"]")
    return [path.parent / Path(root).expanduser() for root in roots]
