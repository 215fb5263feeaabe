"""``memfs review``: the queue of memories awaiting review, or (with BASE..HEAD) what a branch changed."""

from __future__ import annotations

import click

from memfs.cli import State
from memfs.cli.options import json_option, pass_state
from memfs.cli.output import emit_json, line
from memfs.errors import UsageError


@click.command("review")
@click.argument("range_", metavar="[BASE..HEAD]", required=False)
@json_option
@pass_state
def review_cmd(state: State, range_: str | None, as_json: bool) -> None:
    """Without an argument: the probable conflicts (two values for one subject, the newer
    named second), then every needs_review memory, grouped by the retraction that flagged it,
    and whether each could be reinstated now (--json: {"conflicts": [...], "queue": [...]}).
    With BASE..HEAD: a summary of what that range changes in memory, for a pull request
    comment, its probable conflicts among them."""
    if range_:
        _range_summary(state, range_, as_json)
        return
    repo = state.repo()
    groups = repo.review_queue()
    pairs = repo.conflicts()
    if as_json:
        emit_json({"conflicts": [p.to_json() for p in pairs], "queue": [g.to_json() for g in groups]})
        return
    if not groups and not pairs:
        line("nothing awaits review")
        return
    if pairs:
        line("probable conflicts (two values for one subject; edit or delete the older, or give each a key):")
        for pair in pairs:
            line(f"  {pair.older} -> {pair.newer}: {pair.why}")
    for group in groups:
        if group.root is None:
            line("flagged without a retraction record (by hand, or held back by the write gate):")
        else:
            why = f": {'; '.join(group.reasons)}" if group.reasons else ""
            line(f"{group.root} [{group.root_status or 'missing'}]{why}")
        for item in group.items:
            desc = f"  {item.description}" if item.description else ""
            verdict = (
                f"can be reinstated (basis: {', '.join(item.eligibility.basis)})"
                if item.eligibility.ok
                else item.eligibility.why if not item.records and item.eligibility.why
                else "no independent source left"
            )
            line(f"  {item.path}{desc}")
            line(f"      {verdict}")


def _range_summary(state: State, range_: str, as_json: bool) -> None:
    base, sep, head = range_.partition("..")
    if not base:
        raise UsageError(f"{range_!r}: write the range as BASE..HEAD, e.g. main..my-branch", param="range_")
    result = state.repo().review(base, head if sep and head else "HEAD")
    if as_json:
        emit_json(result.to_json())
    else:
        line(result.render())
