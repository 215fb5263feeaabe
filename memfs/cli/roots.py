"""Several memory repositories at the command line: which roots a read verb reads (``-C`` given
more than once, or the user's configuration), and how ``search`` and ``context`` over them end.

The configuration is the user's own, never a repository's: ``.memfs.toml`` travels with every
clone, and a shared repository naming other local repositories could pull a person's private
memory into an agent's context. The file is ``$MEMFS_CONFIG``, else
``$XDG_CONFIG_HOME/memfs/config.toml`` (``~/.config/memfs/config.toml``)::

    [recall]
    roots = ["~/memory", "~/team-memory", "/srv/org-memory"]

Relative paths are read from the file's folder. The list is used by ``search``, ``context`` and
``mcp`` when no ``-C`` is given; writes always act on one repository (``-C`` or the current
directory's).

A root that fails is one line on stderr (``memfs: error: ROOT: why``) and an entry of the JSON's
``errors``; the others still answer. The exit code is 0 when every root answered, 1 when some
failed and others answered, 3 when none answered.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memfs.cli import exits
from memfs.cli.output import note
from memfs.errors import InvalidConfig

if TYPE_CHECKING:
    from memfs.agents.roots import RootFailure
    from memfs.agents.verbs import Context
    from memfs.ops.verbs.recall import Search
    from memfs.repos import MemoryRepos


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
        raise InvalidConfig(f"{path}: cannot be read ({exc})") from None
    try:
        roots = tomllib.loads(text).get("recall", {}).get("roots", [])
    except (tomllib.TOMLDecodeError, AttributeError) as exc:
        raise InvalidConfig(f"{path}: not a valid configuration ({exc})") from None
    if not isinstance(roots, list) or not all(isinstance(r, str) and r for r in roots):
        raise InvalidConfig(f"{path}: [recall] roots must be a list of folder paths, e.g. roots = [\"~/memory\"]")
    return [path.parent / Path(root).expanduser() for root in roots]


def search_roots(repos: MemoryRepos, op: Search, as_json: bool, show: Callable[..., None]) -> None:
    """``memfs search`` over several roots, printed as one root's search is (``show``), each hit
    labelled with its root."""
    import dataclasses

    from memfs.agents.live.view import roots_search_view

    result = repos.run(dataclasses.replace(op, record=True))
    show([], roots_search_view(result, as_json=as_json), as_json=as_json, explain=op.explain)
    finish(result.errors, answered=len(result.roots))


def context_roots(repos: MemoryRepos, op: Context, show: Callable[[list[str], str | None, str], None]) -> None:
    """``memfs context`` over several roots: one context per root, the budget shared."""
    built = repos.run(op)
    show(built.warnings, built.uncommitted_notice, built.render())
    finish(built.errors, answered=len(built.roots))


def finish(errors: Sequence[RootFailure | str], *, answered: int) -> None:
    """Name every root that failed on stderr; exit 1 if others answered, 3 if none did."""
    for failed in errors:
        note(f"memfs: error: {failed}")
    if errors:
        sys.stdout.flush()
        sys.exit(exits.PROBLEMS if answered else exits.FAILED)

