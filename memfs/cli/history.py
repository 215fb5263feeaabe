"""``memfs log``, ``diff``, ``revert`` and ``history``: memory through git history."""

from __future__ import annotations

import click

from memfs.cli import State, complete
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line


@click.command("log")
@click.argument("path", required=False, shell_complete=complete.memory_paths)
@click.option("--op", help="Only commits of this operation (Memfs-Op trailer), e.g. retract.")
@click.option("-n", "limit", type=click.IntRange(min=1), help="At most this many commits.")
@json_option
@pass_state
def log_cmd(state: State, path: str | None, op: str | None, limit: int | None, as_json: bool) -> None:
    """History of the repository, or of one memory."""
    entries = state.repo().log(path, op=op, limit=limit)
    if as_json:
        emit_json([e.to_json() for e in entries])
        return
    for e in entries:
        line(f"{e.commit[:10]} {e.time}  {e.actor}  {e.subject}")
        if e.reason:
            line(f"           reason: {e.reason}")


@click.command("diff")
@click.argument("old", default="HEAD")
@click.argument("new", required=False)
@click.option("--path", help="Only this memory.")
@json_option
@pass_state
def diff_cmd(state: State, old: str, new: str | None, path: str | None, as_json: bool) -> None:
    """What changed in memory from OLD (default HEAD) to NEW (default: the working tree).

    OLD and NEW are commits or ISO times. Each file shows a summary of frontmatter changes
    (status: active → retracted) above its textual diff.
    """
    files = state.repo().diff(old, new, path)
    if as_json:
        emit_json([f.to_json() for f in files])
        return
    for f in files:
        line(f"{f.change}: {f.path}")
        for change in f.fields:
            line(f"  {change}")
        if f.body_changed and f.change == "modified":
            line("  body changed")
        line(f.text.rstrip("\n"))
        line()
    if not files:
        line("no memory changed")


@click.command("revert")
@click.argument("commit")
@click.option("--reason", help="Why (goes into the commit message).")
@json_option
@pass_state
def revert_cmd(state: State, commit: str, reason: str | None, as_json: bool) -> None:
    """Undo COMMIT with a new commit; on conflict nothing changes."""
    sha = state.repo().revert(commit, reason=reason)
    if as_json:
        emit_json({"commit": sha, "reverted": commit})
    else:
        line(f"reverted {commit} in commit {sha[:10]}")


@click.command("history")
@click.argument("path", shell_complete=complete.memory_paths)
@json_option
@pass_state
def history_cmd(state: State, path: str, as_json: bool) -> None:
    """Every revision of the memory at PATH, oldest first: value, time, source and commit."""
    found = state.repo().history(path)
    if as_json:
        emit_json([r.to_json() for r in found])
        return
    for r in found:
        source = f"{r.source} ({r.source_kind})" if r.source_kind else (r.source or "no source")
        line(f"revision {r.revision}  {r.time}  {r.status}  {source}  commit {r.commit[:10]}  {r.op or ''}".rstrip())
        for text in r.value.rstrip("\n").splitlines() or [""]:
            line(f"    {text}")
