"""``memfs search`` and ``memfs reindex``: thin wrappers over :meth:`memfs.api.MemoryRepo.search` / ``reindex``.

Imports stay inside the commands so that a one-shot ``memfs search`` loads only what it needs.
"""

from __future__ import annotations

from typing import Any

import click

from memfs.cli import State, complete
from memfs.cli.options import json_option, pass_state


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--scope", help="Only memories in exactly this scope, e.g. user:U5/project:P8.")
@click.option(
    "--inherit", is_flag=True, help="Also the scope's ancestors by whole segments (user:U5/project:P8 → user:U5)."
)
@click.option("--version", "version_", help="The world version asked about; memories for other versions are excluded.")
@click.option("--at", help="Evaluate expiry and freshness at this ISO time with zone (default: now).")
@click.option("--type", "type_", shell_complete=complete.types,
              help="Only memories of this type (preference, fact, episode, ...).")
@click.option("--limit", "-n", type=click.IntRange(min=1), default=10, show_default=True, help="How many results.")
@click.option("--explain", is_flag=True, help="Show score factors, and matches that were filtered out and why.")
@json_option
@pass_state
def search_cmd(
    state: State,
    query: tuple[str, ...],
    scope: str | None,
    inherit: bool,
    version_: str | None,
    at: str | None,
    type_: str | None,
    limit: int,
    explain: bool,
    as_json: bool,
) -> None:
    """Find eligible memories matching QUERY, best first (plain words; no query syntax).

    With a live index running ('memfs serve'), it answers; the output is the same either way."""
    from memfs.cli.options import parse_cli_time

    when = parse_cli_time(at, "--at") if at is not None else None
    text = " ".join(query)
    args = {"query": text, "scope": scope, "inherit": inherit, "version": version_,
            "at": when.isoformat() if when is not None else None, "type": type_, "limit": limit,
            "explain": explain, "actor": state.actor, "json": as_json}
    answered = _ask_live(state, args)
    if answered is not None:
        _print(*answered, as_json=as_json, explain=explain)
        return
    from memfs.agents.live.view import search_view

    result = state.scoped(scope, inherit).search(
        text, scope=scope, version=version_, at=when, type=type_, limit=limit, inherit=inherit, explain=explain,
        record=True,
    )
    _print([], search_view(result, as_json=as_json), as_json=as_json, explain=explain)


def _ask_live(state: State, args: dict[str, Any]) -> tuple[list[str], dict[str, Any]] | None:
    """(notices of opening the repository, the view) from a live index, or ``None`` to search here."""
    reply = state.ask_live("search", args)
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
        line(f"{rank}. {hit['path']}  score {hit['score']:.3f}  [{', '.join(facts)}]{mark}")
        if hit["summary"]:
            line(f"   {hit['summary'][:160]}")
        if explain:
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


@click.command("reindex")
@json_option
@pass_state
def reindex_cmd(state: State, as_json: bool) -> None:
    """Rebuild the search index from the memory files (it is a cache; this is always safe)."""
    from memfs.cli.output import emit_json, line, note

    repo = state.repo()
    if as_json:
        from memfs.cli.progress import silence

        silence(repo.store)
    report = repo.reindex()
    if as_json:
        emit_json(report.to_json())
        return
    for problem in report.broken:
        note(f"memfs: unreadable memory, not indexed: {problem}")
    line(f"indexed {report.indexed} memories in {report.seconds:.1f} s")

