"""``memfs validate``: check every memory (or the given files); exit 1 on errors.

Fast enough for a pre-commit hook over a whole repository (PyYAML's C loader, no git calls per
file). With file arguments, as pre-commit passes them, only those files are reported.
"""

from __future__ import annotations

import dataclasses
import os
import sys

import click

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.cli.output import emit_json, line, problems
from memfs.cli.progress import silence
from memfs.errors import PathError
from memfs.format import names
from memfs.format.model import Problem
from memfs.ops.verbs.files import Validate
from memfs.store import paths
from memfs.store.repo import Store


def _memory_path(repo: Store, given: str) -> str | Problem | None:
    """The root-relative path of a named file if it is named like a memory (hooks also pass other
    files, skipped here). Judged by its name only: what is there (a symlink, a FIFO) is for
    validation to report, not a reason to skip the file.

    A path that exists relative to the current directory is taken as such (pre-commit passes
    paths relative to the work tree's top level); anything else is relative to the memory root.
    A memory-named file inside the root whose *name* memfs refuses (a byte that is not UTF-8, a
    control character) is a :class:`Problem`: a hook that passes it must fail, not skip it.
    """
    where = os.path.abspath(given) if os.path.lexists(given) else given
    try:
        rel = paths.lexical_rel(repo.root, where)
    except PathError:
        rel = os.path.relpath(os.path.join(repo.root, where), repo.root).replace(os.sep, "/")
        why = names.path_problem(rel)
        if why is None or rel.startswith("../") or not paths.is_memory_name(rel):
            return None
        return Problem(rel, None, why, "rename the file")
    return None if paths.is_ignored(repo.root, rel) else rel


@command(Validate)
@click.option("--strict", is_flag=True, help="Treat warnings (unknown fields...) as errors too.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors (and no progress bar).")
@json_option
def validate_cmd(state: State, op: Validate, strict: bool, quiet: bool, as_json: bool) -> None:
    repo = state.repo()
    if quiet or as_json:
        silence(repo.store)
    named = [rel for f in op.only or () if (rel := _memory_path(repo.store, f))]
    given = [rel for rel in named if isinstance(rel, str)]
    found = repo.run(dataclasses.replace(op, only=given if op.only else None))
    found = [*(p for p in named if isinstance(p, Problem)), *found]
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
