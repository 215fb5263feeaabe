"""``memfs search`` and ``memfs reindex``: the search command is derived from its declaration
(:class:`memfs.ops.verbs.recall.Search`); this module prints its results.

Imports stay inside the commands so that a one-shot ``memfs search`` loads only what it needs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.ops.verbs.recall import Reindex, Search


@command(Search)
@json_option
def search_cmd(state: State, op: Search, as_json: bool) -> None:
    if state.several():
        from memfs.cli.roots import finish, search_roots

        served = state.ask_live_roots(op, as_json)
        if served is not None and isinstance(served.get("view"), dict):
            _print([], served["view"], as_json=as_json, explain=op.explain)
            finish(served["errors"], answered=served["answered"])
            return
        search_roots(state.repos(op.scope, bool(op.inherit)), op, as_json, _print)
        return
    answered = _ask_live(state, op, as_json)
    if answered is not None:
        _print(*answered, as_json=as_json, explain=op.explain)
        return
    from memfs.agents.live.view import search_view

    result = state.scoped(op.scope, bool(op.inherit)).run(dataclasses.replace(op, record=True))
    _print([], search_view(result, as_json=as_json), as_json=as_json, explain=op.explain)


def _ask_live(state: State, op: Search, as_json: bool) -> tuple[list[str], dict[str, Any]] | None:
    """(notices of opening the repository, the view) from a live index, or ``None`` to search here."""
    reply = state.ask_live("search", op, as_json)
    if reply is None or not isinstance(reply.get("view"), dict) or not isinstance(reply.get("notices"), list):
        return None
    return reply["notices"], reply["view"]


def _print(opened: list[str], view: dict[str, Any], *, as_json: bool, explain: bool) -> None:
    import click

    from memfs.cli import printing

    printing.search(click.echo, opened, view, as_json=as_json, explain=explain)


@command(Reindex)
@json_option
def reindex_cmd(state: State, op: Reindex, as_json: bool) -> None:
    from memfs.cli.output import emit_json, line, note

    repo = state.repo()
    if as_json:
        from memfs.cli.progress import silence

        silence(repo.store)
    report = repo.run(op)
    if as_json:
        emit_json(report.to_json())
        return
    for problem in report.broken:
        note(f"memfs: unreadable memory, not indexed: {problem}")
    line(f"indexed {report.indexed} memories in {report.seconds:.1f} s")

