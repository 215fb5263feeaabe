"""``memfs retract``, ``reinstate``, ``impact`` and ``graph``: lineage on the command line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from memfs.cli import State, complete
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line
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


@click.command("retract")
@click.argument("paths", nargs=-1, required=True, shell_complete=complete.memory_paths)
@click.option("--reason", required=True, help="Why it is withdrawn (recorded on every flagged memory).")
@json_option
@pass_state
def retract_cmd(state: State, paths: tuple[str, ...], reason: str, as_json: bool) -> None:
    """Retract PATH(s) and flag everything derived from them for review, in one commit.

    Each PATH becomes status: retracted; every memory downstream along depends_on (transitively,
    cycles included) becomes status: needs_review with an invalidated_by record. Undo it with
    'memfs revert COMMIT' or plain 'git revert'.
    """
    result = state.repo().retract(paths, reason=reason)
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


@click.command("reinstate")
@click.argument("path", shell_complete=complete.memory_paths)
@click.option("--reason", required=True, help="What the review found (recorded on the memory and in the commit).")
@json_option
@pass_state
def reinstate_cmd(state: State, path: str, reason: str, as_json: bool) -> None:
    """Return a needs_review memory to active, if it still has an independent active source.

    Independent means a depends_on parent that is active and not downstream of the retracted root,
    or its own source marked as primary evidence (source_primary: true). Otherwise it refuses and
    says why.
    """
    result = state.repo().reinstate(path, reason=reason)
    if as_json:
        emit_json(result.to_json())
        return
    line(f"reinstated {result.path} (basis: {', '.join(result.eligibility.basis)})")
    if result.commit:
        line(f"commit {result.commit[:10]}")


@click.command("impact")
@click.argument("paths", nargs=-1, required=True, shell_complete=complete.memory_paths)
@json_option
@pass_state
def impact_cmd(state: State, paths: tuple[str, ...], as_json: bool) -> None:
    """Dry run of 'memfs retract PATH...': the tree of what it would flag. Changes nothing."""
    plan = state.repo().impact(paths)
    if as_json:
        emit_json(plan.to_json())
        return
    for text in _plan_lines(plan):
        line(text)
    rest = f", {len(plan.unchanged)} left as they are" if plan.unchanged else ""
    line(f"{_count(len(plan.downstream))} would be flagged{rest}")


@click.command("graph")
@click.argument("path", shell_complete=complete.memory_paths)
@click.option("--dot", "as_dot", is_flag=True, help="Print Graphviz (dot) instead of text trees.")
@click.option("--depth", type=click.IntRange(min=1), help="At most this many levels each way.")
@json_option
@pass_state
def graph_cmd(state: State, path: str, as_dot: bool, depth: int | None, as_json: bool) -> None:
    """What PATH was derived from (upstream) and what was derived from it (downstream)."""
    view = state.repo().graph(path, depth=depth)
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
