"""How memories are born and fade: ``remember``, ``expire``, ``forget``, ``purge``, ``prune``,
``consolidate`` and ``stats``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memfs.format.declare import CLI, param
from memfs.format.model import Memory
from memfs.ops.verbs.declare import Request, request
from memfs.policy.candidate import Candidate

if TYPE_CHECKING:
    from memfs.ops.consolidate import ConsolidateResult  # noqa: F401
    from memfs.ops.forget import ForgetResult, SweepResult  # noqa: F401 - results named in Request["..."]
    from memfs.ops.prune import PruneResult  # noqa: F401
    from memfs.ops.purge import PurgeReport  # noqa: F401
    from memfs.ops.remember import Outcome  # noqa: F401
    from memfs.ops.stats import Stats as StatsResult  # noqa: F401

_ACTOR = "Who acts (default: the repository's actor)."


@request("remember", tool="memory_remember", cli_note="""
    Prints what happened: INSERT, REINFORCE, SUPERSEDE, KEEP_BOTH, RETRACT or NOOP. Programs pass
    the candidate as one JSON object: 'memfs remember --json -' reads it from stdin.""", model_note="""
    Replaying the same idempotency_key changes nothing.""")
class Remember(Request["Outcome"]):
    """Remember something lasting, with its source: the write gate refuses secrets and one-off
    requests; a memory with the same key is reinforced, superseded or kept as it is; one commit."""

    candidate: Candidate | Mapping[str, Any] = param(
        help="The memory to remember (a Candidate, or the mapping 'memfs remember --json' takes).", record=Candidate,
        metavar="[CANDIDATE.json|-]", kw_only=False)
    force: bool = param(default=False, help="A person overrides a gate rule that allows it (never secrets).",
                        doors={CLI})
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("expire")
class Expire(Request["SweepResult"]):
    """Mark memories past their 'expires' time as status: expired, in one commit."""

    now: dt.datetime | None = param(default=None, help="Sweep as of this ISO time (default: now).", metavar="TIME",
                                    wire="time")
    archive: bool = param(default=False, help="Also move expired memories under archive/.")
    dry_run: bool = param(default=False, help="Only list what would expire.")
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("forget")
class Forget(Request["ForgetResult"]):
    """Stop recalling PATH (status: retracted) and flag what was derived from it for review, in
    one commit. The text stays in history; see 'purge'."""

    path: str = param(help="The memory's path.", argument=True, complete="memory_paths", kw_only=False)
    reason: str | None = param(default=None, help="Why (goes into the commit message).")
    expected_revision: int | None = param(default=None, help="Fail unless the memory is at this revision.",
                                          flags=("--expect-revision",))
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("purge", cli_note="""
    Verifies afterwards that no object still contains the text, and says which remotes need a
    force-push. Asks for confirmation unless --yes.""")
class Purge(Request["PurgeReport"]):
    """Erase PATH from the work tree, the index and EVERY commit in history (rewrites history)."""

    path: str = param(help="The memory's path.", argument=True, complete="memory_paths", kw_only=False)
    reason: str = param(help="Why (recorded in the audit commit, without the content).")
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("prune", cli_note="""
    A dry run unless --apply; applied, it is one commit ('git revert' undoes it). Rules: per-type
    quotas, days without use (recall statistics), superseded/expired/retracted for N days, reviews
    left waiting for N days.""")
class Prune(Request["PruneResult"]):
    """Forget by policy: what the [prune] rules of .memfs.toml propose to expire, archive or retract."""

    now: dt.datetime | None = param(default=None, help="Apply the rules as of this ISO time (default: now).",
                                    metavar="TIME", wire="time")
    apply: bool = param(default=False, help="Make the proposed changes, in one commit (default: only list them).")
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("stats")
class Stats(Request["StatsResult"]):
    """Counts by status and type, and how often each memory was recalled (kept in .memfs/, not git)."""


@request("consolidate", cli_note="""
    The summary depends_on its episodes, which become superseded. A dry run unless --apply;
    applied, it is one commit ('git revert' undoes it). [consolidate] in .memfs.toml sets the
    time window, the term overlap and the smallest group.""")
class Consolidate(Request["ConsolidateResult"]):
    """Group related episodes (same scope, overlapping terms and time) into one summary memory each."""

    now: dt.datetime | None = param(default=None, help="As of this ISO time (default: now).", metavar="TIME",
                                    wire="time")
    apply: bool = param(default=False, help="Write the summaries, in one commit (default: only show them).")
    scope: str | None = param(default=None, help="Only episodes of this scope.")
    summariser: Callable[[Sequence[Memory]], Any] | None = param(
        default=None, metavar="MODULE:FUNCTION", wire="callable",
        help="A Python callable (group of episodes -> summary) instead of the extractive default.")
    actor: str | None = param(default=None, help=_ACTOR, doors=())
