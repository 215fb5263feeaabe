"""``memfs prune``: apply the forgetting policy of ``.memfs.toml`` (the rules: :mod:`memfs.policy.prune`).

A dry run by default: it lists what the rules propose (expire, archive, retract) and why, and
changes nothing. Applied, every proposal goes into ONE commit (``Memfs-Op: prune``), so the whole
forgetting step is reviewed as one diff and undone by one ``git revert``. Proposals are decided
again under the write lock when applied, so the commit holds exactly what the rules say then.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from memfs.format.config import PruneConfig
from memfs.format.model import Memory, jsonable, utcnow
from memfs.format.times import parse_time
from memfs.ops.forget import archive_path
from memfs.ops.retract import Reviewer, closure_members, flag, load_graph
from memfs.ops.retract import plan as retraction_plan
from memfs.policy import prune as policy
from memfs.store import usage
from memfs.store.repo import Store, Transaction


@dataclass
class PruneResult:
    """What the rules propose (``proposals``) and, when applied, what the commit did."""

    proposals: list[policy.Proposal]
    applied: bool = False
    commit: str | None = None
    archived: dict[str, str] = field(default_factory=dict)
    flagged: list[str] = field(default_factory=list)
    rules: PruneConfig = field(default_factory=PruneConfig)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": self.applied,
            "commit": self.commit,
            "proposals": [p.to_json() for p in self.proposals],
            "archived": self.archived,
            "flagged": self.flagged,
        }


def items(repo: Store, memories: list[Memory]) -> list[policy.Item]:
    """What the policy needs about each memory: its times, its last recall (``.memfs/usage.json``),
    how many memories depend on it, and whether one awaiting review could be reinstated."""
    graph = load_graph(repo)
    recalls = usage.load(repo)
    reviewer = Reviewer(repo, graph, memories)
    out = []
    for memory in memories:
        last = recalls.get(memory.path)
        out.append(
            policy.Item(
                memory.path, memory.type, memory.status, memory.created, memory.updated,
                parse_time(last.last_recall) if last and last.last_recall else None,
                len(graph.downstream(memory.path)),
                memory.status == "needs_review" and reviewer.eligibility(memory).ok,
            )
        )
    return out


def proposals(repo: Store, now: dt.datetime) -> list[policy.Proposal]:
    rules = repo.config().prune
    if rules.empty:
        return []
    return policy.plan(items(repo, repo.scan().memories), rules, now)


def prune(repo: Store, *, now: dt.datetime | None = None, apply: bool = False, actor: str | None = None) -> PruneResult:
    """The forgetting policy's proposals at ``now``; with ``apply``, all of them in one commit."""
    now = now or utcnow()
    rules = repo.config().prune
    if not apply:
        return PruneResult(proposals(repo, now), rules=rules)
    with repo.transaction("prune", actor=actor) as tx:
        found = proposals(repo, now)
        result = PruneResult(found, applied=True, rules=rules)
        _apply(repo, tx, found, result, now)
        counts = {a: sum(1 for p in found if p.action == a) for a in ("expire", "archive", "retract")}
        done = ", ".join(f"{n} {verb}" for verb, n in (("expired", counts["expire"]), ("archived", counts["archive"]),
                                                        ("retracted", counts["retract"])) if n)
        tx.reason = f"forgetting policy ([prune] in .memfs.toml) as of {jsonable(now)}: {done or 'nothing'}"
        tx.subject = found[0].path if len(found) == 1 else f"{len(found)} memories"
        tx.trailers["Memfs-Rule"] = [f"{p.rule} {p.action} {p.path}" for p in found][:50]
    result.commit = tx.result.commit
    return result


def _apply(repo: Store, tx: Transaction, found: list[policy.Proposal], result: PruneResult, now: dt.datetime) -> None:
    retract = [p.path for p in found if p.action == "retract"]
    if retract:
        graph = load_graph(repo)
        members = closure_members(repo, retract, graph)
        the_plan = retraction_plan(retract, graph, {r: tx.read(r).status for r in retract}, members)
        for rel in the_plan.roots_changed:
            tx.write(rel, fields={"status": "retracted"})
        flag(tx, the_plan, members, f"retracted by the forgetting policy as of {jsonable(now)}: review went stale")
        result.flagged = list(the_plan.downstream)
    for proposal in found:
        if proposal.path in result.flagged:
            continue  # flagged for review in this commit: a person looks at it first
        if proposal.action == "expire":
            tx.write(proposal.path, fields={"status": "expired"})
        elif proposal.action == "archive":
            data = tx.current_bytes(proposal.path)
            assert data is not None
            destination = archive_path(tx, proposal.path)
            tx.delete(proposal.path)
            tx.write_bytes(destination, data, moved_from=proposal.path)
            result.archived[proposal.path] = destination
