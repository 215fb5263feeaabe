"""Shell completion of values: types, statuses, source kinds, templates, memory paths.

click completes commands and options by itself once the shell loads its script
(``eval "$(_MEMFS_COMPLETE=bash_source memfs)"``; ``zsh_source``, ``fish_source``); these
functions add the values. A completion runs the real command line with nothing executed, so
each function must be quick and must never fail: a repository that cannot be opened completes
nothing.
"""

from __future__ import annotations

from pathlib import Path

import click
from click.shell_completion import CompletionItem

from memfs.format.model import SOURCE_KINDS, STATUSES, TYPES


def _matching(values: list[str] | tuple[str, ...], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(v) for v in values if v.startswith(incomplete)]


def types(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return _matching(TYPES, incomplete)


def statuses(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return _matching(STATUSES, incomplete)


def source_kinds(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    return _matching(SOURCE_KINDS, incomplete)


def templates(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from memfs.format.templates import names

    return _matching(names(), incomplete)


def memory_paths(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Memory files of the repository the first ``-C`` names (or the current directory's), by path."""
    from memfs.errors import MemfsError
    from memfs.store.paths import iter_memory_paths
    from memfs.store.repo import Store

    given = ctx.find_root().params.get("directories") or ()
    directory = given[0] if given else Path(".")
    try:
        root = Store.open(directory).root
        found = list(iter_memory_paths(root))
    except (MemfsError, OSError):
        return []
    return _matching(found, incomplete)
