"""``memfs tool``, ``watch``, ``mcp`` and ``context``: the verbs agents and their hosts use."""

from __future__ import annotations

import sys

import click

from memfs.cli import State
from memfs.cli.options import pass_state
from memfs.cli.output import emit_json, line, note


@click.command("tool")
@click.option("--scope", help="Scope for memories created from a bare body (default: none, so 'fields' must say).")
@click.option("--source", help="Source for memories created from a bare body (default: the actor).")
@click.option("--text", "as_text", is_flag=True, help="Print only the text meant for the model.")
@pass_state
def tool_cmd(state: State, scope: str | None, source: str | None, as_text: bool) -> None:
    """Run one memory-tool request read as JSON from stdin (view, create, str_replace, insert,
    delete, rename, update_description). Prints the result as JSON; exits 2 if it was refused.

    Example: echo '{"command":"view","path":"/memories"}' | memfs tool
    """
    from memfs.tools import ToolContext, handle, request_from_json

    request = request_from_json(sys.stdin.buffer.read())
    repo = state.repo()
    result = handle(repo, request, ToolContext(actor=state.actor or repo.actor, scope=scope, source=source))
    if as_text:
        (line if result.ok else note)(result.output)
    else:
        emit_json(result.to_json())
    if not result.ok:
        sys.exit(2)
