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

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from memfs.cli import exits
from memfs.cli.output import note

if TYPE_CHECKING:
    from memfs.agents.roots import RootFailure
    from memfs.agents.verbs import Context
    from memfs.ops.verbs.recall import Search
    from memfs.repos import MemoryRepos


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

