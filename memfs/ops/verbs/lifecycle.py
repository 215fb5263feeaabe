"""How memories are born and fade: ``remember``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memfs.format.declare import CLI, param
from memfs.ops.verbs.declare import Request, request
from memfs.policy.candidate import Candidate

if TYPE_CHECKING:
    from memfs.ops.remember import Outcome  # noqa: F401 - the result named in Request["..."]


@request("remember", tool="memory_remember", cli_note="""
    Prints what happened: INSERT, REINFORCE, SUPERSEDE, KEEP_BOTH, RETRACT or NOOP. Programs pass
    the candidate as one JSON object: 'memfs remember --json -' reads it from stdin.""", model_note="""
    Replaying the same idempotency_key changes nothing.""")
class Remember(Request["Outcome"]):
    """Remember something lasting, with its source: the write gate refuses secrets and one-off
    requests; a memory with the same key is reinforced, superseded or kept as it is; one commit."""

    candidate: Candidate | Mapping[str, Any] = param(
        help="The memory to remember (a Candidate, or the mapping 'memfs remember --json' takes).", record=Candidate,
        kw_only=False)
    force: bool = param(default=False, help="A person overrides a gate rule that allows it (never secrets).",
                        doors={CLI})
    actor: str | None = param(default=None, help="Who acts (default: the repository's actor).", doors=())
