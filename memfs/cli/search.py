"""``memfs search`` and ``memfs reindex``: thin wrappers over :meth:`memfs.api.MemoryRepo.search` / ``reindex``.

Imports stay inside the commands so that a one-shot ``memfs search`` loads only what it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from memfs.cli import State, complete
from memfs.cli.options import json_option, pass_state

if TYPE_CHECKING:
    from memfs.index.results import SearchResult


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
    """Find eligible memories matching QUERY, best first (plain words; no query syntax)."""
    from memfs.cli.options import parse_cli_time
    from memfs.cli.output import emit_json, note

    when = parse_cli_time(at, "--at") if at is not None else None
    result = state.scoped(scope, inherit).search(
        " ".join(query),
        scope=scope,
        version=version_,
        at=when,
        type=type_,
        limit=limit,
        inherit=inherit,
        explain=explain,
        record=True,
    )
    for text in result.notices:
        note(text)
    if as_json:
        emit_json(result.to_json())
        return
    for problem in result.broken:
        note(f"memfs: unreadable memory, not searched: {problem}")
    if any(hit.uncommitted for hit in result.hits):
        note("memfs: hits marked [uncommitted] differ from the last commit; 'memfs context' does not inject "
             "those edits until they are committed (or 'memfs watch' commits them)")
    _print_text(result, explain)


def _print_text(result: SearchResult, explain: bool) -> None:
    from memfs.cli.output import line

    if not result.hits:
        where = f" in scope {result.scope}" if result.scope else ""
        line(f"no eligible memory matches{where}")
    for rank, hit in enumerate(result.hits, start=1):
        m = hit.memory
        facts = [f for f in (m.scope, m.type, m.version and f"version {m.version}") if f]
        mark = "  [uncommitted]" if hit.uncommitted else ""
        line(f"{rank}. {m.path}  score {hit.score:.3f}  [{', '.join(facts)}]{mark}")
        summary = m.description or next((ln.strip() for ln in m.body.splitlines() if ln.strip()), "")
        if summary:
            line(f"   {summary[:160]}")
        if explain:
            line(
                f"   relevance {hit.relevance:.3f} × freshness {hit.freshness:.3f} × confidence "
                f"{hit.confidence:.2f} = {hit.score:.3f}; source {m.source}"
            )
    if explain:
        line(f"terms: {' '.join(result.terms)}")
        if result.filtered:
            line("matched the words but not eligible:")
            for item in result.filtered:
                line(f"   {item.path}  relevance {item.relevance:.3f}  — {item.reason}")


@click.command("reindex")
@json_option
@pass_state
def reindex_cmd(state: State, as_json: bool) -> None:
    """Rebuild the search index from the memory files (it is a cache; this is always safe)."""
    from memfs.cli.output import emit_json, line, note

    repo = state.repo()
    if as_json:
        from memfs.cli.progress import silence

        silence(repo)
    report = repo.reindex()
    if as_json:
        emit_json(report.to_json())
        return
    for problem in report.broken:
        note(f"memfs: unreadable memory, not indexed: {problem}")
    line(f"indexed {report.indexed} memories in {report.seconds:.1f} s")

