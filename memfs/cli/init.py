"""``memfs init``: make a folder a memory repository."""

from __future__ import annotations

from pathlib import Path

import click

from memfs.cli import State
from memfs.cli.options import pass_state
from memfs.cli.output import line


@click.command("init")
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@pass_state
def init_cmd(state: State, directory: Path | None) -> None:
    """Create a memory repository in DIRECTORY (default: -C or the current directory).

    Inside an existing git repository the folder becomes a memory root within it; otherwise a
    new git repository is created. Safe to run again.
    """
    from memfs.api import MemoryRepo

    repo = MemoryRepo.init(directory or state.directory, state.actor)
    line(f"memory repository ready at {repo.root}")
