"""``memfs new``, ``write``, ``add`` and ``rm``: the verbs that change memories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from memfs.cli import State, complete
from memfs.cli.options import field_options, json_option, pass_state, read_body
from memfs.cli.output import commit_result

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

_body: list[Decorator] = [
    click.option("--body", help="The Markdown body."),
    click.option("--body-file", help="Read the body from this file ('-' for stdin)."),
]
_common: list[Decorator] = [
    click.option("--expect-revision", type=int, help="Fail if the memory is no longer at this revision."),
    click.option("--reason", help="Why (goes into the commit message)."),
    json_option,
]


def _apply(options: list[Decorator]) -> Decorator:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def _write(state: State, path: str, fields: dict[str, Any], body: str | None, body_file: str | None,
           expect_revision: int | None, reason: str | None, as_json: bool, create_only: bool,
           force: bool = False) -> None:
    result = state.repo().write(path, fields=fields, body=read_body(body, body_file), create_only=create_only,
                                expected_revision=expect_revision, reason=reason, force=force)
    commit_result(result, as_json)


@click.command("write")
@click.argument("path", shell_complete=complete.memory_paths)
@field_options
@_apply(_body + _common)
@click.option("--force", is_flag=True, help="Change it even if it is read_only: true (people only).")
@pass_state
def write_cmd(state: State, /, path: str, fields: dict[str, Any], **options: Any) -> None:
    """Create or update the memory at PATH (one commit). Only the given fields change."""
    _write(state, path, fields, create_only=False, **options)


@click.command("add")
@click.argument("path", shell_complete=complete.memory_paths)
@field_options
@_apply(_body + _common)
@pass_state
def add_cmd(state: State, /, path: str, fields: dict[str, Any], **options: Any) -> None:
    """Create a new memory at PATH (one commit); refuses to overwrite an existing one."""
    _write(state, path, fields, create_only=True, **options)


@click.command("new")
@click.argument("template", shell_complete=complete.templates)
@click.argument("path", shell_complete=complete.memory_paths)
@field_options
@_apply(_body + _common)
@pass_state
def new_cmd(
    state: State,
    template: str,
    path: str,
    fields: dict[str, Any],
    body: str | None,
    body_file: str | None,
    expect_revision: int | None,
    reason: str | None,
    as_json: bool,
) -> None:
    """Create PATH from TEMPLATE (preference, fact, episode, procedure, summary, note, system)."""
    result = state.repo().new(template, path, fields=fields, body=read_body(body, body_file), reason=reason)
    commit_result(result, as_json)


@click.command("rm")
@click.argument("path", shell_complete=complete.memory_paths)
@click.option("--force", is_flag=True, help="Delete even if other memories depend on it, or it is read_only.")
@_apply(_common)
@pass_state
def rm_cmd(
    state: State, path: str, force: bool, expect_revision: int | None, reason: str | None, as_json: bool
) -> None:
    """Delete the memory at PATH (one commit; it stays in git history)."""
    result = state.repo().delete(path, expected_revision=expect_revision, reason=reason, force=force)
    commit_result(result, as_json)
