"""All terminal output of the CLI goes through here: JSON for programs, plain text for people."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from memfs.cli import printing

if TYPE_CHECKING:
    from memfs.format.model import Problem
    from memfs.store.repo import CommitResult


def emit_json(data: Any, *, compact: bool = False) -> None:
    """``data`` as JSON on stdout: indented for one result, one line each for a stream of events."""
    click.echo(printing.json_text(data, compact))


def line(text: str = "") -> None:
    click.echo(text)


def note(text: str) -> None:
    """Something the user should see that is not the command's result (goes to stderr)."""
    click.echo(text, err=True)


def error(text: str) -> None:
    click.echo(f"memfs: error: {text}", err=True)


def failure(text: str, exit_code: int, kind: str, as_json: bool) -> None:
    """An error that ends the command (:func:`memfs.cli.printing.failure`)."""
    printing.failure(click.echo, text, exit_code, kind, as_json)


def problems(found: Iterable[Problem]) -> None:
    for problem in found:
        click.echo(str(problem))


def commit_result(result: CommitResult, as_json: bool) -> None:
    """Report a write: which files changed and in which commit."""
    if as_json:
        emit_json(result.to_json())
        return
    if result.commit is None:
        line("nothing changed, no commit made")
        return
    for change in result.changes:
        rev = f" (revision {change.revision})" if change.revision else ""
        line(f"{change.action} {change.path}{rev}")
    line(f"commit {result.commit[:10]}")
