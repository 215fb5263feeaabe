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
    from memfs.cli.output import emit_json, note

    for text in [*opened, *view["notices"]]:
        note(text)
    if as_json:
        emit_json(view["json"])
        return
    for problem in view["broken"]:
        note(f"memfs: unreadable memory, not searched: {problem}")
    if any(hit["uncommitted"] for hit in view["hits"]):
        note("memfs: hits marked [uncommitted] differ from the last commit; 'memfs context' does not inject "
             "those edits until they are committed (or 'memfs watch' commits them)")
    _print_text(view, explain)


def _print_text(view: dict[str, Any], explain: bool) -> None:
    from memfs.cli.output import line

    if not view["hits"]:
        where = f" in scope {view['scope']}" if view["scope"] else ""
        line(f"no eligible memory matches{where}")
    for rank, hit in enumerate(view["hits"], start=1):
        facts = [f for f in (hit["scope"], hit["type"], hit["version"] and f"version {hit['version']}") if f]
        mark = "  [uncommitted]" if hit["uncommitted"] else ""
        root = f"[{hit['root_label']}] " if "root_label" in hit else ""
        line(f"{rank}. {root}{hit['path']}  score {hit['score']:.3f}  [{', '.join(facts)}]{mark}")
        if hit["summary"]:
            line(f"   {hit['summary'][:160]}")
        if explain and hit.get("similarity") is not None:
            line(f"   no query term covered; found by the vectors ([semantic]), similarity {hit['similarity']:.3f}")
        elif explain:
            line(
                f"   {int(hit['score'])} query term(s) covered; relevance {hit['relevance']:.3f} damped by "
                f"freshness {hit['freshness']:.3f} × confidence {hit['confidence']:.2f}; source {hit['source']}"
            )
    if explain:
        line(f"terms: {' '.join(view['terms'])}")
        if view["filtered"]:
            line("matched the words but not eligible:")
            for path, relevance, reason in view["filtered"]:
                line(f"   {path}  relevance {relevance:.3f}  — {reason}")


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

