"""``memfs new``, ``write``, ``add`` and ``rm``: the verbs that change memories, derived from their
declarations (:mod:`memfs.ops.verbs.files`)."""

from __future__ import annotations

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.cli.output import commit_result
from memfs.ops.verbs.files import Delete, New, Write


@command(Write)
@json_option
def write_cmd(state: State, op: Write, as_json: bool) -> None:
    commit_result(state.repo().run(op), as_json)


@command(Write, name="add", fixed={"create_only": True, "force": False},
         summary="Create a new memory at PATH (one commit); refuses to overwrite an existing one.")
@json_option
def add_cmd(state: State, op: Write, as_json: bool) -> None:
    commit_result(state.repo().run(op), as_json)


@command(New)
@json_option
def new_cmd(state: State, op: New, as_json: bool) -> None:
    commit_result(state.repo().run(op), as_json)


@command(Delete)
@json_option
def rm_cmd(state: State, op: Delete, as_json: bool) -> None:
    commit_result(state.repo().run(op), as_json)
