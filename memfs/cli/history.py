"""``memfs log``, ``diff``, ``revert`` and ``history``: memory through git history."""

from __future__ import annotations

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.cli.output import emit_json, line
from memfs.ops.verbs.history import Diff, History, Log, Revert


@command(Log)
@json_option
def log_cmd(state: State, op: Log, as_json: bool) -> None:
    entries = state.repo().run(op)
    if as_json:
        emit_json([e.to_json() for e in entries])
        return
    for e in entries:
        line(f"{e.commit[:10]} {e.time}  {e.actor}  {e.subject}")
        if e.reason:
            line(f"           reason: {e.reason}")


@command(Diff)
@json_option
def diff_cmd(state: State, op: Diff, as_json: bool) -> None:
    files = state.repo().run(op)
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


@command(Revert)
@json_option
def revert_cmd(state: State, op: Revert, as_json: bool) -> None:
    sha = state.repo().run(op)
    if as_json:
        emit_json({"commit": sha, "reverted": op.commit})
    else:
        line(f"reverted {op.commit} in commit {sha[:10]}")


@command(History)
@json_option
def history_cmd(state: State, op: History, as_json: bool) -> None:
    found = state.repo().run(op)
    if as_json:
        emit_json([r.to_json() for r in found])
        return
    for r in found:
        source = f"{r.source} ({r.source_kind})" if r.source_kind else (r.source or "no source")
        line(f"revision {r.revision}  {r.time}  {r.status}  {source}  commit {r.commit[:10]}  {r.op or ''}".rstrip())
        for text in r.value.rstrip("\n").splitlines() or [""]:
            line(f"    {text}")
