"""All terminal output of the CLI goes through here: JSON for programs, plain text for people."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from memfs.format.model import Problem
    from memfs.store.repo import CommitResult


def emit_json(data: Any, *, compact: bool = False) -> None:
    """``data`` as JSON on stdout: indented for one result, one line each for a stream of events."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=None if compact else 2, default=str))


def line(text: str = "") -> None:
    click.echo(text)


def note(text: str) -> None:
    """Something the user should see that is not the command's result (goes to stderr)."""
    click.echo(text, err=True)


def error(text: str) -> None:
    click.echo(f"memfs: error: {text}", err=True)


def failure(text: str, exit_code: int, kind: str, as_json: bool) -> None:
    """An error that ends the command: its one line on stderr and, for a program that asked for
    ``--json``, the same as ``{"error": {"type", "message", "exit"}}`` on stdout."""
    if as_json:
        emit_json({"error": {"type": kind, "message": text, "exit": exit_code}})
    error(text)


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


def silence_stdout() -> None:
    """The reader went away (``memfs log | head -1``): send what is left of stdout nowhere, so the
    interpreter's final flush does not fail again, and let the command end quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        return
