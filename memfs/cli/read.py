"""``memfs show``, ``ls`` and ``tree``: reading memories."""

from __future__ import annotations

from typing import Any

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.cli.output import emit_json, line, note
from memfs.format.model import Memory
from memfs.ops.verbs.history import Ls, Show


@command(Show)
@json_option
def show_cmd(state: State, op: Show, as_json: bool) -> None:
    rel, data = state.repo().run(op)
    if as_json:
        from memfs.format.parse import parse

        memory = parse(rel, data)
        emit_json({**memory.to_json(), "problems": [p.to_json() for p in memory.problems]})
        return
    line(data.decode("utf-8").rstrip("\n"))


def _summary(memory: Memory) -> dict[str, Any]:
    return {
        "path": memory.path,
        "id": memory.id,
        "type": memory.type,
        "scope": memory.scope,
        "status": memory.status,
        "revision": memory.revision,
        "description": memory.description,
    }


def _listing(state: State, op: Ls, as_json: bool) -> list[Memory] | None:
    scan = state.repo().run(op)
    if as_json:
        emit_json({"memories": [_summary(m) for m in scan.memories], "unreadable": [p.to_json() for p in scan.broken]})
        return None
    for problem in scan.broken:
        note(f"unreadable: {problem}")
    return scan.memories


@command(Ls)
@json_option
def ls_cmd(state: State, op: Ls, as_json: bool) -> None:
    for m in _listing(state, op, as_json) or []:
        status = "" if m.status == "active" else f" [{m.status or 'no status'}]"
        scope = f" ({m.scope})" if m.scope else ""
        line(f"{m.path}{status}{scope}  {m.description or ''}".rstrip())


@command(Ls, name="tree", summary="Show memories as a folder tree with their descriptions (system/ first).")
@json_option
def tree_cmd(state: State, op: Ls, as_json: bool) -> None:
    shown: set[str] = set()
    for m in _listing(state, op, as_json) or []:
        parts = m.path.split("/")
        for depth in range(len(parts) - 1):
            folder = "/".join(parts[: depth + 1])
            if folder not in shown:
                shown.add(folder)
                line("  " * depth + parts[depth] + "/")
        status = "" if m.status == "active" else f" [{m.status or 'no status'}]"
        desc = f" — {m.description}" if m.description else ""
        line("  " * (len(parts) - 1) + parts[-1] + status + desc)
