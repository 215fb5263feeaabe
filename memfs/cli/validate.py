"""``memfs validate``: check every memory (or the given files); exit 1 on errors.

Fast enough for a pre-commit hook over a whole repository (PyYAML's C loader, no git calls per
file). With file arguments, as pre-commit passes them, only those files are reported.
"""

from __future__ import annotations

import sys

import click

from memfs.cli import State
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line, problems


@click.command("validate")
@click.argument("files", nargs=-1)
@click.option("--strict", is_flag=True, help="Treat warnings (unknown fields...) as errors too.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@json_option
@pass_state
def validate_cmd(state: State, files: tuple[str, ...], strict: bool, quiet: bool, as_json: bool) -> None:
    """Validate memory files: frontmatter, fields, ids, depends_on."""
    repo = state.repo()
    found = repo.validate()
    if files:
        wanted = {repo.rel(f) for f in files if f.endswith(".md") and not f.endswith("README.md")}
        found = [p for p in found if p.path in wanted]
    failing = [p for p in found if p.severity == "error" or strict]
    if quiet:
        found = [p for p in found if p.severity == "error"]
    if as_json:
        emit_json({"ok": not failing, "problems": [p.to_json() for p in found]})
    else:
        problems(found)
        errors = sum(p.severity == "error" for p in found)
        warnings = len(found) - errors
        line(f"{errors} error(s), {warnings} warning(s)" if found else "ok: every memory is valid")
    if failing:
        sys.exit(1)
