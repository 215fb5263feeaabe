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
    repo = state.repo()
    if at is not None:
        from memfs.history import show_at

        memory = show_at(repo, path, at)
        data = None
    else:
        memory = repo.read(path)
        data = repo.read_bytes(memory.path)
    if as_json:
        out = memory.to_json()
        out["problems"] = [p.to_json() for p in memory.problems]
        emit_json(out)
        return
    if data is None:
        from memfs.history import resolve_at

        data = repo.git.show_file(resolve_at(repo, at or "HEAD"), repo.git_path(memory.path)) or b""
    line(data.decode("utf-8").rstrip("\n"))
