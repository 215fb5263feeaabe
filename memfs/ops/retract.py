"""Retract, reinstate, impact and the review queue: the lineage policy applied to a repository.

A retraction is one commit: the roots become ``status: retracted`` and every memory downstream
of them (along reverse ``depends_on``, transitively) becomes ``status: needs_review`` with an
``invalidated_by`` record (root, reason, time, actor). Every file is changed through the
minimal-diff editor, so unknown keys, comments and formatting stay, and ``git revert`` of that
commit restores each file byte for byte. Policy lives in :mod:`memfs.policy.lineage` (pure); this module
reads the repository, applies the policy and writes inside one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from memfs.errors import ConflictError, InvalidMemory, MemoryNotFound, Refused, UsageError
from memfs.format.edit import check_revision
from memfs.format.model import Memory
from memfs.format.parse import parse
from memfs.policy import gate, guard, lineage
from memfs.policy.lineage import INVALIDATED_BY, REINSTATED, Eligibility, Graph, Invalidation, TreeNode
from memfs.store.repo import Store, Transaction

#: Statuses a retraction leaves alone downstream: they are already out of recall.
_LEFT_ALONE = ("retracted", "superseded", "expired")


def load_graph(repo: Store) -> Graph:
    """The ``depends_on`` graph of the working tree as it is now (never stale).

    From the write-path cache (:meth:`Store.catalog`, validated against the working tree), which
    re-reads only files that changed; only the files whose ``depends_on`` cannot be read are read
    here, for their problems. Without the cache, the files that mention ``depends_on`` are found
    with one ``git grep`` (working tree, untracked files included) and only that key is read. A
    file memfs does not read (a symlink, a FIFO, one too big) has no edges.
    """
    known = repo.catalog()
    if known is not None:
        unreadable = ((rel, repo.peek(rel)) for rel in known.unreadable_depends_on())
        return lineage.from_parents(known.depends_on(), unreadable)
    return lineage.from_files((rel, repo.peek(rel)) for rel in repo.files_containing("depends_on"))


# --- planning (what a retraction would do) -----------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """What retracting ``roots`` does: which roots change, which downstream memories are flagged
    (``flagged``: active -> needs_review; ``recorded``: already needs_review, gets one more
    record), and which are in the closure but left as they are (``unchanged``)."""

    roots: tuple[str, ...]
    roots_changed: tuple[str, ...]
    flagged: tuple[str, ...]
    recorded: tuple[str, ...]
    unchanged: tuple[str, ...]
    reached_by: Mapping[str, tuple[str, ...]]
    status: Mapping[str, str | None]
    trees: tuple[TreeNode, ...] = ()

    @property
    def downstream(self) -> tuple[str, ...]:
        """Downstream memories this retraction changes."""
        return tuple(sorted(set(self.flagged) | set(self.recorded)))

    @property
    def closure(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.flagged) | set(self.recorded) | set(self.unchanged)))

    def new_status(self, path: str) -> str | None:
        if path in self.roots_changed:
            return "retracted"
        if path in self.flagged:
            return "needs_review"
        return None

    def seen_by(self, repo: Store) -> Plan:
        """This plan as a session bound to a scope may see it: other scopes' memories are left
        out (they are still flagged; their paths are not this session's to know)."""
        if repo.binding is None:
            return self
        keep = {p for p in {*self.roots, *self.closure} if repo.visible(p)}

        def only(paths: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(p for p in paths if p in keep)

        return replace(
            self, roots=only(self.roots), roots_changed=only(self.roots_changed), flagged=only(self.flagged),
            recorded=only(self.recorded), unchanged=only(self.unchanged),
            reached_by={p: r for p, r in self.reached_by.items() if p in keep},
            status={p: s for p, s in self.status.items() if p in keep}, trees=(),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "roots": list(self.roots),
            "roots_changed": list(self.roots_changed),
            "flagged": list(self.flagged),
            "recorded": list(self.recorded),
            "unchanged": list(self.unchanged),
            "count": len(self.downstream),
            "trees": [self._tree_json(t) for t in self.trees],
        }

    def _tree_json(self, node: TreeNode) -> dict[str, Any]:
        return {
            "path": node.path,
            "status": self.status.get(node.path),
            "new_status": self.new_status(node.path),
            "repeat": node.repeat,
            "cycle": node.cycle,
            "children": [self._tree_json(c) for c in node.children],
        }


def plan(
    roots: Iterable[str], graph: Graph, root_status: Mapping[str, str | None], members: Mapping[str, Memory]
) -> Plan:
    """The retraction of ``roots`` on ``graph`` (pure). ``members`` holds the parsed memories of
    the closure (see :func:`closure_members`); a member missing from it is left unchanged."""
    ordered = tuple(dict.fromkeys(roots))
    per_root = lineage.closure_by_root(ordered, graph.children)
    reached: dict[str, list[str]] = {}
    for root, found in per_root.items():
        for member in found:
            reached.setdefault(member, []).append(root)
    status: dict[str, str | None] = dict(root_status)
    flagged: list[str] = []
    recorded: list[str] = []
    unchanged: list[str] = []
    for member in sorted(reached):
        memory = members.get(member)
        state = memory.status if memory is not None else None
        status[member] = state
        known = {r.root for r in lineage.invalidations(memory)} if memory is not None else set()
        new_roots = [r for r in reached[member] if r not in known]
        if memory is None or state in _LEFT_ALONE or state is None:
            unchanged.append(member)
        elif state == "needs_review":
            (recorded if new_roots else unchanged).append(member)
        else:
            (flagged if new_roots else unchanged).append(member)
    changed_roots = tuple(r for r in ordered if root_status.get(r) != "retracted")
    trees = tuple(lineage.tree(root, graph.children) for root in ordered)
    return Plan(
        ordered,
        changed_roots,
        tuple(flagged),
        tuple(recorded),
        tuple(unchanged),
        {k: tuple(v) for k, v in reached.items()},
        status,
        trees,
    )


def closure_members(
    repo: Store, roots: Iterable[str], graph: Graph, tx: Transaction | None = None
) -> dict[str, Memory]:
    """The parsed memories downstream of ``roots`` (paths come from the graph, so they are
    already root-relative memory paths; a file that does not parse raises :class:`InvalidMemory`).
    Read through ``tx`` when the caller is about to flag them in it, so each file is parsed once
    (:meth:`Transaction.memory`)."""
    found = {}
    for rel in sorted(lineage.invalidation_closure(roots, graph.children)):
        try:
            if tx is not None:
                memory = tx.memory(rel)
            else:
                data = repo.read_bytes(rel)
                memory = None if data is None else parse(rel, data)
            if memory is None:
                continue
            found[rel] = memory
        except InvalidMemory as exc:
            raise InvalidMemory(
                f"{rel}: is downstream of {', '.join(roots)} but cannot be parsed ({exc}); nothing was changed. "
                "Fix it first (memfs validate shows the problem)",
                exc.problems,
            ) from None
    return found


def _root_paths(repo: Store, roots: Iterable[str]) -> tuple[str, ...]:
    rels = tuple(dict.fromkeys(repo.rel(r) for r in roots))
    if repo.binding is not None:
        for rel in rels:
            repo.read_file(rel)
    if not rels:
        raise UsageError("name at least one memory to retract", param="paths")
    return rels


def refuse_broken(graph: Graph, affected: Iterable[str]) -> None:
    """A file that does not parse but may depend on an affected memory cannot be flagged safely."""
    names = [a.encode() for a in affected]
    suspects = sorted(p for p, data in graph.raw_broken.items() if any(n in data for n in names))
    if suspects:
        raise InvalidMemory(
            f"{', '.join(suspects)}: cannot be parsed and may depend on a memory being retracted, so it could not be "
            "flagged; nothing was changed. Fix it first (memfs validate shows the problem)",
            [p for p in graph.broken if p.path in suspects],
        )


def derived(repo: Store, root: str) -> tuple[Plan, dict[str, Memory], Graph]:
    """What withdrawing ``root`` must flag, for verbs that do not change ``root`` itself (a purge
    erases it): the plan (``root`` left as it is), the parsed closure and the graph. Refuses, like
    a retraction, when a file that may depend on it cannot be parsed."""
    graph = load_graph(repo)
    refuse_broken(graph, (root, *lineage.invalidation_closure([root], graph.children)))
    members = closure_members(repo, [root], graph)
    return plan([root], graph, {root: "retracted"}, members), members, graph


def impact(repo: Store, roots: Iterable[str]) -> Plan:
    """What ``retract`` would change, without changing anything (a dry run)."""
    rels = _root_paths(repo, roots)
    graph = load_graph(repo)
    status = {r: repo.read(r).status for r in rels}
    return plan(rels, graph, status, closure_members(repo, rels, graph)).seen_by(repo)


# --- retract ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class RetractResult:
    commit: str | None
    plan: Plan

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, **self.plan.to_json()}


def subject(roots: tuple[str, ...], downstream: int) -> str:
    """``facts/a.md (+3 downstream)``; several roots are listed (up to three, then counted)."""
    shown = ", ".join(roots[:3]) + (f" and {len(roots) - 3} more" if len(roots) > 3 else "")
    return f"{shown} (+{downstream} downstream)"


def retract(
    repo: Store,
    roots: Iterable[str],
    *,
    reason: str,
    actor: str | None = None,
    verb: str = "retract",
    expected_revision: int | None = None,
) -> RetractResult:
    """Retract ``roots`` and flag everything downstream, in one commit (none if nothing changes).

    Retracting again is a no-op, except that memories which started depending on a retracted root
    since are flagged then. ``verb`` is the memfs verb withdrawing them (``forget`` withdraws one
    memory the same way); ``expected_revision`` is checked against the (single) root first.
    """
    if not (reason or "").strip():
        raise UsageError("say why: the reason is recorded on every flagged memory and in the commit", param="reason")
    rels = _root_paths(repo, roots)
    with repo.transaction(verb, reason=reason, actor=actor, trailers={"Memfs-Root": list(rels)}) as tx:
        graph = load_graph(repo)
        refuse_broken(graph, (*rels, *lineage.invalidation_closure(rels, graph.children)))
        status = {}
        for rel in rels:
            memory = tx.read(rel)
            if expected_revision is not None:
                check_revision(rel, memory.revision, expected_revision)
            status[rel] = memory.status
        members = closure_members(repo, rels, graph, tx)
        the_plan = plan(rels, graph, status, members)
        for rel in the_plan.roots_changed:
            tx.write(rel, fields={"status": "retracted"})
        flag(tx, the_plan, members, reason)
        tx.subject = subject(rels, len(the_plan.downstream))
        tx.trailers["Memfs-Downstream"] = [str(len(the_plan.downstream))]
    return RetractResult(tx.result.commit, the_plan.seen_by(repo))


def flag(
    tx: Transaction, the_plan: Plan, members: Mapping[str, Memory], reason: str,
    extra: Mapping[str, Mapping[str, Any]] | None = None, root_names: Mapping[str, str] | None = None,
) -> None:
    """Stage the flags of ``the_plan`` in ``tx``: each downstream memory ``needs_review`` with one
    ``invalidated_by`` record per root that newly reaches it. ``extra`` adds field changes per
    memory (a purge cuts its ``depends_on`` entry); ``root_names`` is what a record calls a root
    (a purge names it by a digest, never by its path)."""
    for member in the_plan.downstream:
        memory = members[member]
        known = {r.root for r in lineage.invalidations(memory)}
        new = [
            Invalidation((root_names or {}).get(root, root), reason, tx.now, tx.actor).to_yaml()
            for root in the_plan.reached_by[member]
            if (root_names or {}).get(root, root) not in known
        ]
        fields: dict[str, Any] = {"status": "needs_review", INVALIDATED_BY: [*_old_records(memory), *new]}
        fields.update((extra or {}).get(member, {}))
        tx.write(member, fields=fields)
    for member, changes in (extra or {}).items():
        if member not in the_plan.downstream:
            tx.write(member, fields=dict(changes))


def _old_records(memory: Memory) -> list[Any]:
    """Existing ``invalidated_by`` entries exactly as parsed, so an edit never rewrites them."""
    raw = memory.meta.get(INVALIDATED_BY)
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InvalidMemory(
            f"{memory.path}: invalidated_by is not a list, so another retraction record cannot be added; "
            "fix it first (memfs validate shows the problem). Nothing was changed"
        )
    return list(raw)


# --- reinstate -------------------------------------------------------------------------------
class Reviewer:
    """Applies :func:`memfs.policy.lineage.reinstate_basis` to memories of one repository state,
    reading each status at most once."""

    def __init__(self, repo: Store, graph: Graph, known: Iterable[Memory] = ()) -> None:
        self.repo = repo
        self.graph = graph
        self._memory: dict[str, Memory | None] = {m.path: m for m in known}
        self.cleared = frozenset(
            p for p in repo.files_containing(REINSTATED) if (m := self.memory(p)) and lineage.was_reinstated(m)
        )

    def memory(self, rel: str) -> Memory | None:
        """The parsed memory (cached); ``None`` when missing or unreadable."""
        if rel not in self._memory:
            self._memory[rel] = self.repo.load(rel)[1]
        return self._memory[rel]

    def statuses(self, rels: Iterable[str]) -> dict[str, str | None]:
        """Current status of each path; ``None`` when the file is missing, ``"unreadable"`` when broken."""
        return {rel: self.status(rel) for rel in rels}

    def status(self, rel: str) -> str | None:
        memory = self.memory(rel)
        if memory is None:
            return "unreadable" if self.repo.load(rel)[2] is not None else None
        return memory.status

    def eligibility(self, memory: Memory) -> Eligibility:
        held = held_by_gate(memory)
        if held is not None:
            return Eligibility(False, (), held)
        roots = [r.root for r in lineage.invalidations(memory)]
        parents = self.graph.upstream(memory.path) or memory.depends_on
        return lineage.reinstate_basis(
            memory.path,
            parents=parents,
            recorded_roots=roots,
            status=self.statuses([*parents, *roots]),
            reverse_edges=self.graph.children,
            cleared=self.cleared,
            source_primary=lineage.is_source_primary(memory),
            source=memory.source,
        )


@dataclass(frozen=True)
class ReinstateResult:
    commit: str | None
    path: str
    eligibility: Eligibility
    roots: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "path": self.path,
            "basis": list(self.eligibility.basis),
            "roots": list(self.roots),
        }


def reinstate(repo: Store, path: str, *, reason: str, actor: str | None = None) -> ReinstateResult:
    """Return a ``needs_review`` memory to ``active`` in one commit, if it still has an independent
    active source (see :func:`memfs.policy.lineage.reinstate_basis`); otherwise raise and say why.

    The ``invalidated_by`` record is replaced by a ``reinstated`` record (time, actor, reason, the
    basis and the roots it was cleared of), so the diff shows what was reviewed and why it holds.
    A memory the write gate stored ``needs_review`` (a rule drawn from one observation, see
    :func:`memfs.policy.gate.downgrades`) has nothing upstream to clear it: a person's review is
    its basis, so only a person (a ``user:`` actor) reinstates it, and the confidence it was
    asked with is restored.
    """
    if not (reason or "").strip():
        raise UsageError("say why: the review is recorded on the memory and in the commit", param="reason")
    rel = repo.rel(path)
    with repo.transaction("reinstate", reason=reason, actor=actor) as tx:
        memory = tx.read(rel)
        if memory.status != "needs_review":
            raise ConflictError(_not_in_review(rel, memory.status))
        fields: dict[str, Any] = {"status": "active", INVALIDATED_BY: None}
        held = held_by_gate(memory)
        if held is not None:
            verdict = _confirmed(tx, held, fields, memory)
        else:
            verdict = Reviewer(repo, load_graph(repo)).eligibility(memory)
        if not verdict.ok:
            raise Refused(verdict.why)
        roots = tuple(dict.fromkeys(r.root for r in lineage.invalidations(memory)))
        record: dict[str, Any] = {"at": tx.now, "actor": tx.actor, "reason": reason, "basis": list(verdict.basis)}
        if roots:
            record["roots"] = list(roots)
        tx.write(rel, fields={**fields, REINSTATED: record})
        tx.trailers.update({"Memfs-Basis": list(verdict.basis), "Memfs-Root": list(roots)})
    return ReinstateResult(tx.result.commit, rel, verdict, roots)


def held_by_gate(memory: Memory) -> str | None:
    """Why the write gate stored ``memory`` ``needs_review`` and how it is confirmed, or ``None``
    if it did not (or a retraction flagged it since: that review comes first)."""
    record = memory.meta.get(gate.RECORD)
    if memory.status != "needs_review" or not isinstance(record, dict) or lineage.invalidations(memory):
        return None
    return (
        f"{memory.path} was stored needs_review by the write gate (rule {record.get('rule')}): "
        f"{record.get('reason') or 'no reason recorded'}; a person confirms it with memfs reinstate"
    )


def _confirmed(tx: Transaction, held: str, fields: dict[str, Any], memory: Memory) -> Eligibility:
    """A person's confirmation of a memory the gate held back: the fields it restores, or a refusal."""
    if guard.actor_kind(tx.actor) != guard.PERSON:
        return Eligibility(False, (), f"{held}, not an agent ({tx.actor})")
    record = memory.meta[gate.RECORD]
    asked = record.get("confidence")
    fields[gate.RECORD] = None
    if isinstance(asked, int | float) and not isinstance(asked, bool) and 0 <= asked <= 1:
        fields["confidence"] = asked
    return Eligibility(True, (f"confirmed:{tx.actor}",), "")


def _not_in_review(rel: str, status: str | None) -> str:
    if status == "retracted":
        return (
            f"{rel} is retracted, not awaiting review; undo its retraction with 'memfs revert COMMIT' "
            "(find it with 'memfs log --op retract')"
        )
    return f"{rel} is {status or 'without a valid status'}, not needs_review; only flagged memories are reinstated"


# --- the review queue ------------------------------------------------------------------------
@dataclass(frozen=True)
class ReviewItem:
    path: str
    description: str | None
    records: tuple[Invalidation, ...]
    eligibility: Eligibility

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "description": self.description,
            "reinstatable": self.eligibility.ok,
            "basis": list(self.eligibility.basis),
            "why_not": self.eligibility.why or None,
        }


@dataclass(frozen=True)
class ReviewGroup:
    """Memories awaiting review because of one root (``root`` is ``None``: flagged by hand)."""

    root: str | None
    root_status: str | None
    reasons: tuple[str, ...]
    items: tuple[ReviewItem, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "root_status": self.root_status,
            "reasons": list(self.reasons),
            "items": [i.to_json() for i in self.items],
        }


def review_queue(repo: Store) -> list[ReviewGroup]:
    """Every ``needs_review`` memory, grouped by the root that invalidated it (a memory flagged by
    two retractions appears under both), each with whether it could be reinstated now."""
    waiting = []
    for rel in repo.files_containing("needs_review"):
        memory = repo.load(rel)[1]
        if memory is not None and memory.status == "needs_review":
            waiting.append(memory)
    if not waiting:
        return []
    reviewer = Reviewer(repo, load_graph(repo), waiting)
    groups: dict[str | None, list[ReviewItem]] = {}
    reasons: dict[str | None, list[str]] = {}
    for memory in waiting:
        records = tuple(lineage.invalidations(memory))
        item = ReviewItem(memory.path, memory.description, records, reviewer.eligibility(memory))
        for root in dict.fromkeys(r.root for r in records) if records else [None]:
            groups.setdefault(root, []).append(item)
            reasons.setdefault(root, [])
            for record in records:
                if record.root == root and record.reason not in reasons[root]:
                    reasons[root].append(record.reason)
    root_status = reviewer.statuses(r for r in groups if r is not None)
    order = sorted(groups, key=lambda r: (r is None, r or ""))
    return [
        ReviewGroup(root, root_status.get(root) if root else None, tuple(reasons[root]), tuple(groups[root]))
        for root in order
    ]


# --- the neighbourhood of one memory ---------------------------------------------------------
@dataclass(frozen=True)
class GraphView:
    path: str
    upstream: TreeNode
    downstream: TreeNode
    status: Mapping[str, str | None]
    parents: Mapping[str, tuple[str, ...]]
    cycles: tuple[tuple[str, ...], ...]

    @property
    def nodes(self) -> list[str]:
        return sorted({n.path for n in self.upstream.walk()} | {n.path for n in self.downstream.walk()})

    def dot(self) -> str:
        return lineage.to_dot(self.nodes, self.parents, self.status)

    def to_json(self) -> dict[str, Any]:
        nodes = self.nodes
        return {
            "path": self.path,
            "nodes": [{"path": n, "status": self.status.get(n)} for n in nodes],
            "edges": [
                {"from": p, "to": n, "kind": "depends_on"} for n in nodes for p in self.parents.get(n, ()) if p in nodes
            ],
            "upstream": _tree_json(self.upstream, self.status),
            "downstream": _tree_json(self.downstream, self.status),
            "cycles": [list(c) for c in self.cycles],
        }


def _tree_json(node: TreeNode, status: Mapping[str, str | None]) -> dict[str, Any]:
    return {
        "path": node.path,
        "status": status.get(node.path),
        "repeat": node.repeat,
        "cycle": node.cycle,
        "children": [_tree_json(c, status) for c in node.children],
    }


def graph_view(repo: Store, path: str, *, max_depth: int | None = None) -> GraphView:
    """What ``path`` was derived from (upstream) and what was derived from it (downstream)."""
    rel = repo.rel(path)
    if not repo.exists(rel):
        raise MemoryNotFound(f"{rel}: no such memory")
    graph = load_graph(repo)
    up = lineage.tree(rel, graph.parents, max_depth=max_depth)
    down = lineage.tree(rel, graph.children, max_depth=max_depth)
    names = {n.path for n in up.walk()} | {n.path for n in down.walk()}
    sub = {n: tuple(p for p in graph.parents.get(n, ()) if p in names) for n in names}
    cycles = tuple(tuple(c) for c in lineage.find_cycles(sub) if rel in c)
    return GraphView(rel, up, down, Reviewer(repo, graph).statuses(names), graph.parents, cycles)
