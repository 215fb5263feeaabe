"""Lineage and retraction: ``retract``, ``reinstate``, ``impact`` and ``graph``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memfs.format.declare import CLI, param
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.ops.retract import GraphView, Plan, ReinstateResult, RetractResult  # noqa: F401 - results named in Request["..."]

_ACTOR = "Who acts (default: the repository's actor); the author of the commit."


@request("retract", tool="memory_retract", cli_note="""
    Each PATH becomes status: retracted; every memory downstream along depends_on (transitively,
    cycles included) becomes status: needs_review with an invalidated_by record. Undo it with
    'memfs revert COMMIT' or plain 'git revert'.""")
class Retract(Request["RetractResult"]):
    """Retract memories that turned out wrong: they become retracted and everything derived
    from them (depends_on, transitively) is flagged needs_review, in one commit."""

    paths: Iterable[str] = param(help="Paths of the memories that turned out wrong.", argument=True, variadic=True,
                                   minimum=1, complete="memory_paths", kw_only=False)
    reason: str = param(help="Why they are wrong (recorded on every flagged memory).")
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("reinstate", tool="memory_reinstate", cli_note="""
    Independent means a depends_on parent that is active and not downstream of the retracted root,
    or its own source marked as primary evidence (source_primary: true). Otherwise it refuses and
    says why.""")
class Reinstate(Request["ReinstateResult"]):
    """Return a memory flagged needs_review to active, after a person reviewed it: refused
    unless it still has an independent active source (a parent not downstream of what was
    retracted, or a first-hand source)."""

    path: str = param(help="The memory's path.", argument=True, complete="memory_paths", kw_only=False)
    reason: str = param(help="What the review found, why it still holds (recorded on the memory and in the commit).")
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("impact")
class Impact(Request["Plan"]):
    """Dry run of 'memfs retract PATH...': the tree of what it would flag. Changes nothing."""

    paths: Iterable[str] = param(help="Paths of the memories to retract.", argument=True, variadic=True, minimum=1,
                                   complete="memory_paths", kw_only=False)


@request("graph")
class Graph(Request["GraphView"]):
    """What PATH was derived from (upstream) and what was derived from it (downstream)."""

    path: str = param(help="The memory's path.", argument=True, complete="memory_paths", kw_only=False)
    depth: int | None = param(default=None, help="At most this many levels each way.", minimum=1, doors={CLI})
