"""``memfs show``: one memory, now or as of a commit or date."""

from __future__ import annotations

import click

from memfs.cli import State
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line


@click.command("show")
@click.argument("path")
@click.option("--at", help="A commit (sha, branch, HEAD~2) or an ISO time with zone.")
@json_option
@pass_state
def show_cmd(state: State, path: str, at: str | None, as_json: bool) -> None:
    """Print the memory at PATH."""
    from memfs.format.parse import parse

    repo = state.repo()
    if at is None:
        rel, data = repo.read_file(path)
    else:
        from memfs.store.history import file_at

        rel, data = file_at(repo, path, at)
    memory = parse(rel, data)
    if as_json:
        out = memory.to_json()
        out["problems"] = [p.to_json() for p in memory.problems]
        emit_json(out)
        return
    line(data.decode("utf-8").rstrip("\n"))
