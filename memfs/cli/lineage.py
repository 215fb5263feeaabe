"""``memfs retract``, ``reinstate``, ``impact`` and ``graph``: lineage on the command line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from memfs.cli import State
from memfs.cli.derive import command
from memfs.cli.options import json_option
from memfs.cli.output import emit_json, line
from memfs.ops.verbs.lineage import Graph, Impact, Reinstate, Retract
from memfs.policy.lineage import TreeNode

if TYPE_CHECKING:
    from memfs.ops.retract import Plan


def render_tree(root: TreeNode, label: Callable[[str], str]) -> list[str]:
    """Box-drawing lines for a tree; repeats and cycles are leaves with a note."""
    out = [f"{root.path}{label(root.path)}"]

    def walk(node: TreeNode, prefix: str) -> None:
        for i, child in enumerate(node.children):
            last = i == len(node.children) - 1
            note = " (cycle: back to an ancestor)" if child.cycle else " (shown above)" if child.repeat else ""
            out.append(f"{prefix}{'└── ' if last else '├── '}{child.path}{label(child.path)}{note}")
            walk(child, prefix + ("    " if last else "│   "))

    walk(root, "")
    return out


def _plan_lines(plan: Plan) -> list[str]:
    def label(path: str) -> str:
        old, new = plan.status.get(path), plan.new_status(path)
        if new:
            return f"  {old or '?'} → {new}"
        if path in plan.recorded:
            return f"  {old} (+ record)"
        return f"  {old or 'missing'} (unchanged)"

    out: list[str] = []
    for tree in plan.trees:
        out += render_tree(tree, label)
    return out


@command(Retract)
@json_option
def retract_cmd(state: State, op: Retract, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    plan = result.plan
    if result.commit is None:
        line(f"nothing changed: {', '.join(plan.roots)} already retracted and everything downstream flagged")
        return
    for path in plan.roots_changed:
        line(f"retracted     {path}")
    for path in plan.flagged:
        line(f"needs_review  {path}")
    for path in plan.recorded:
        line(f"+ record      {path} (already awaiting review)")
    line(f"commit {result.commit[:10]}: {_count(len(plan.downstream))} flagged; review with 'memfs review'")


def _count(n: int) -> str:
    return f"{n} downstream memor{'y' if n == 1 else 'ies'}"


@command(Reinstate)
@json_option
def reinstate_cmd(state: State, op: Reinstate, as_json: bool) -> None:
    result = state.repo().run(op)
    if as_json:
        emit_json(result.to_json())
        return
    line(f"reinstated {result.path} (basis: {', '.join(result.eligibility.basis)})")
    if result.commit:
        line(f"commit {result.commit[:10]}")


@command(Impact)
@json_option
def impact_cmd(state: State, op: Impact, as_json: bool) -> None:
    plan = state.repo().run(op)
    if as_json:
        emit_json(plan.to_json())
        return
    for text in _plan_lines(plan):
        line(text)
    rest = f", {len(plan.unchanged)} left as they are" if plan.unchanged else ""
    line(f"{_count(len(plan.downstream))} would be flagged{rest}")


@command(Graph)
@click.option("--dot", "as_dot", is_flag=True, help="Print Graphviz (dot) instead of text trees.")
@json_option
def graph_cmd(state: State, op: Graph, as_dot: bool, as_json: bool) -> None:
    view = state.repo().run(op)
    if as_json:
        emit_json(view.to_json())
        return
    if as_dot:
        click.echo(view.dot(), nl=False)
        return

    def label(p: str) -> str:
        return f"  [{view.status.get(p) or 'missing'}]"

    line(f"upstream (what {view.path} depends on):")
    for text in render_tree(view.upstream, label):
        line("  " + text)
    line(f"downstream (what depends on {view.path}):")
    for text in render_tree(view.downstream, label):
        line("  " + text)
    for cycle in view.cycles:
        line("cycle: " + " → ".join(cycle))
