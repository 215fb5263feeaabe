"""``memfs remember``, ``expire``, ``forget``, ``purge``, ``prune``, ``consolidate`` and ``stats``: how
memories are born and fade."""

from __future__ import annotations

import sys
from typing import Any

import click

from memfs.cli import State, exits, printing
from memfs.cli.derive import command
from memfs.cli.options import json_option, require_terminal
from memfs.cli.output import emit_json, error, line, note
from memfs.errors import ConflictError
from memfs.ops.verbs.lifecycle import Consolidate, Expire, Forget, Prune, Purge, Remember, Stats


@command(Remember)
@json_option
def remember_cmd(state: State, op: Remember, as_json: bool) -> None:
    """Prints what happened; with --json, also a refusal as JSON (and its exit code)."""
    from memfs.errors import WriteRefused

    try:
        view = _remembered(state, op, as_json)
    except WriteRefused as exc:
        if not as_json:
            raise
        text = exits.message(exc, click.get_current_context().command)
        refused = {"op": "REFUSED", "paths": [], "reason": str(exc), "commit": None,
                   "refusals": [r.to_json() for r in exc.refusals]}
        emit_json({**refused, "error": {"type": type(exc).__name__, "message": text, "exit": exits.code(exc)}})
        error(text)
        sys.exit(exits.code(exc))
    printing.remembered(click.echo, view, as_json)


def _remembered(state: State, op: Remember, as_json: bool) -> dict[str, Any]:
    """What to print of the remember: done by a running live index (its notices printed here),
    else in this process (:func:`memfs.agents.live.view.remember_view` either way)."""
    reply = state.ask_live("remember", op, as_json, write=True)
    if reply is not None and isinstance(reply.get("view"), dict):
        printing.served_notes(click.echo, reply)
        found: dict[str, Any] = reply["view"]
        return found
    from memfs.agents.live.view import remember_view

    return remember_view(state.repo().run(op), as_json=as_json)


@command(Expire)
@json_option
def expire_cmd(state: State, op: Expire, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    for rel in result.expired:
        moved = result.archived.get(rel)
        line(f"{'would expire' if op.dry_run else 'expired'} {rel}" + (f" -> {moved}" if moved else ""))
    for rel in result.kept_in_place:
        note(f"{rel}: kept in place (other memories depend on it)")
    if result.commit:
        line(f"commit {result.commit[:10]}")
    elif not result.expired:
        line("nothing has expired")


@command(Forget)
@json_option
def forget_cmd(state: State, op: Forget, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    line(f"forgot {result.path}" + (f" in commit {result.commit[:10]}" if result.commit else " (already forgotten)"))
    if result.dependents:
        line("flagged for review (derived from it): " + ", ".join(result.dependents))


@command(Purge)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
def purge_cmd(state: State, op: Purge, yes: bool, as_json: bool) -> None:
    repo = state.repo()
    if not yes:
        require_terminal("purge")
        the_plan = repo.purge_plan(op.path)
        note(
            f"purge {the_plan.path}: rewrites {len(the_plan.commits)} commit(s) touching "
            f"{', '.join(the_plan.git_paths)} and every branch after them; this cannot be undone."
        )
        if the_plan.remotes:
            note("remotes that will need a force-push: " + ", ".join(the_plan.remotes))
        click.confirm("Purge it?", abort=True, err=True)
    report = repo.run(op)
    if as_json:
        emit_json(report.to_json())
    else:
        for text in report.lines():
            line(text)
    if not report.verified:
        raise ConflictError("the purged text is still present (see above); remove those copies and purge them too")


@command(Prune)
@json_option
def prune_cmd(state: State, op: Prune, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    if result.rules.empty:
        line("no [prune] rules in .memfs.toml: nothing to propose (see memfs prune --help)")
        return
    verbs = {"expire": "expired", "archive": "archived", "retract": "retracted"}
    for p in result.proposals:
        done = verbs[p.action] if op.apply else f"would {p.action}"
        moved = result.archived.get(p.path)
        line(f"{done} {p.path}" + (f" -> {moved}" if moved else "") + f" ({p.rule}): {p.why}")
    for rel in result.flagged:
        line(f"flagged for review (derived from a retracted one): {rel}")
    if not result.proposals:
        line("nothing to forget under the rules")
    elif result.commit:
        line(f"commit {result.commit[:10]} (undo: memfs revert {result.commit[:10]})")
    elif not op.apply:
        line(f"dry run: nothing changed; 'memfs prune --apply' makes these {len(result.proposals)} change(s) "
             "in one commit")


@command(Consolidate)
@json_option
def consolidate_cmd(state: State, op: Consolidate, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    for group in result.groups:
        line(f"{'wrote' if op.apply else 'would write'} {group.path} ({group.summary.description}) from "
             + ", ".join(group.sources))
    if not result.groups:
        line("no related episodes to consolidate")
    elif result.commit:
        line(f"commit {result.commit[:10]} (undo: memfs revert {result.commit[:10]})")
    elif not op.apply:
        line(f"dry run: nothing changed; 'memfs consolidate --apply' writes {len(result.groups)} summary(ies) "
             "in one commit")


@command(Stats)
@click.option("-n", "top", type=click.IntRange(min=1), default=20, show_default=True, help="Top memories shown.")
@json_option
def stats_cmd(state: State, op: Stats, top: int, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    total = sum(result.by_status.values())
    line(f"{total} memories" + (f", {result.broken} broken" if result.broken else ""))
    line("by status: " + ", ".join(f"{k} {v}" for k, v in sorted(result.by_status.items())))
    line("by type: " + ", ".join(f"{k} {v}" for k, v in sorted(result.by_type.items())))
    ranked = sorted(result.usage.items(), key=lambda kv: (-kv[1].recalls, kv[0]))[:top]
    if not ranked:
        line("no recalls recorded yet")
    for rel, use in ranked:
        line(f"{use.recalls:6d}  {use.last_recall or '-':20}  {rel}")
