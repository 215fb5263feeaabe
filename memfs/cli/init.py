"""``memfs init``: make a folder a memory repository."""

from __future__ import annotations

from pathlib import Path

import click

from memfs.cli import State
from memfs.cli.options import pass_state
from memfs.cli.output import line


@click.command("init")
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--ci", type=click.Choice(["github", "gitlab"]),
              help="Also add the CI job that validates memory and posts 'memfs review' on pull requests "
                   "(github) or merge requests (gitlab).")
@click.option("--no-hooks", "no_hooks", is_flag=True,
              help="Do not install the git hooks that check hand commits for secrets (see memfs install-hooks).")
@pass_state
def init_cmd(state: State, directory: Path | None, ci: str | None, no_hooks: bool) -> None:
    """Create a memory repository in DIRECTORY (default: -C or the current directory).

    Inside an existing git repository the folder becomes a memory root within it; otherwise a
    new git repository is created. Safe to run again. It installs the git hooks that refuse a
    hand commit carrying a secret (memfs install-hooks), unless --no-hooks. With --ci github, also
    .github/workflows/memfs.yml: on every pull request, memfs validate, and memfs review
    BASE..HEAD posted as the pull request's comment. With --ci gitlab, also .gitlab-ci.yml:
    the same on every merge request, posted as a note (it needs a token in the CI/CD variable
    MEMFS_GITLAB_TOKEN; see the file).
    """
    from memfs.api import MemoryRepo

    repo = MemoryRepo.init(directory or state.directory, state.actor, ci=ci, hooks=not no_hooks)
    line(f"memory repository ready at {repo.root}")
    if ci is not None:
        from memfs.store.init import CI

        requests = "merge requests" if ci == "gitlab" else "pull requests"
        line(f"{requests}: {repo.root / CI[ci][1]} validates memory and posts memfs review")
