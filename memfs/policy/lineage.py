"""The ``depends_on`` graph and the policy of retraction, as pure functions plus one loader.

Edges point from a memory to what it was derived from (``parents``); ``children`` is the
reverse. :func:`invalidation_closure` is what a retraction flags; :func:`reinstate_basis` decides
whether a flagged memory may become active again; :func:`tree` lays a neighbourhood out for
people. None of them touches the disk: callers hand :func:`from_files` the bytes.

Cycles are allowed in ``depends_on`` (two notes citing each other); every walk here visits each
node once, so cycles terminate and diamonds are counted once.
"""

from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import InvalidMemory
from memfs.format.model import Memory, Problem
from memfs.format.parse import read_depends_on
from memfs.format.times import parse_time

#: Frontmatter key of the record a retraction leaves on each flagged memory (a list of mappings).
INVALIDATED_BY = "invalidated_by"
#: Frontmatter key of the record a successful review leaves (one mapping: the latest review).
REINSTATED = "reinstated"
#: ``source_primary: true`` says the memory's own ``source`` is primary evidence, not a derivation.
SOURCE_PRIMARY = "source_primary"


# --- the graph -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Graph:
    """Forward (``parents``) and reverse (``children``) ``depends_on`` edges, plus what is known
    about each node's status and invalidation records (only for files the loader parsed)."""

    parents: Mapping[str, tuple[str, ...]]
    children: Mapping[str, tuple[str, ...]]
    memories: Mapping[str, Memory] = field(default_factory=dict)
    broken: tuple[Problem, ...] = ()
    raw_broken: Mapping[str, bytes] = field(default_factory=dict)

    def upstream(self, path: str) -> tuple[str, ...]:
        return self.parents.get(path, ())

    def downstream(self, path: str) -> tuple[str, ...]:
        return self.children.get(path, ())


def build(memories: Iterable[Memory]) -> Graph:
    """The graph of ``memories`` (pure). Edges to files that do not exist are kept: validation
    reports them, and a walk simply finds nothing behind them."""
    parents: dict[str, tuple[str, ...]] = {}
    children: dict[str, list[str]] = {}
    known: dict[str, Memory] = {}
    for memory in memories:
        known[memory.path] = memory
        deps = tuple(dict.fromkeys(d for d in memory.depends_on if d != memory.path))
        if deps:
            parents[memory.path] = deps
            for dep in deps:
                children.setdefault(dep, []).append(memory.path)
    return Graph(parents, {k: tuple(sorted(v)) for k, v in children.items()}, known)


def from_files(files: Iterable[tuple[str, bytes | None]]) -> Graph:
    """The graph of memory files given as (root-relative path, bytes) (edges only; ``memories``
    stays empty). Only ``depends_on`` is read from each file (:func:`memfs.format.parse.read_depends_on`),
    not the whole frontmatter: callers pass every file that may carry an edge, e.g. those a
    ``git grep depends_on`` finds. Files whose ``depends_on`` cannot be read are returned in
    ``broken``/``raw_broken``, so a retraction can refuse to guess about them."""
    parents: dict[str, tuple[str, ...]] = {}
    children: dict[str, list[str]] = {}
    broken: list[Problem] = []
    raw: dict[str, bytes] = {}
    for rel, data in files:
        if data is None:
            continue
        try:
            deps = read_depends_on(rel, data)
        except InvalidMemory as exc:
            broken.extend(exc.problems)
            raw[rel] = data
            continue
        if deps:
            parents[rel] = deps
            for dep in deps:
                children.setdefault(dep, []).append(rel)
    return Graph(parents, {k: tuple(sorted(v)) for k, v in children.items()}, {}, tuple(broken), raw)


def from_parents(parents: Mapping[str, tuple[str, ...]], unreadable: Iterable[tuple[str, bytes | None]]) -> Graph:
    """The graph :func:`from_files` builds, from each file's ``depends_on`` already read
    (``parents``: file -> its non-empty ``depends_on``) plus the files whose key could not be read
    (``unreadable``, read again here for their problems)."""
    rest = from_files(unreadable)
    children: dict[str, list[str]] = {k: list(v) for k, v in rest.children.items()}
    for rel, deps in parents.items():
        for dep in deps:
            children.setdefault(dep, []).append(rel)
    return Graph({**parents, **rest.parents}, {k: tuple(sorted(v)) for k, v in children.items()}, {},
                 rest.broken, rest.raw_broken)


# --- closure ---------------------------------------------------------------------------------
def invalidation_closure(
    roots: Iterable[str], reverse_edges: Mapping[str, Iterable[str]], *, exclude: Collection[str] = ()
) -> set[str]:
    """Every node reachable from ``roots`` along ``reverse_edges`` (node -> its dependents),
    transitively; the roots themselves are not part of the result (a root reached again
    through a cycle, or through another root, stays a root).

    Nodes in ``exclude`` are neither returned nor walked through (used by review: a memory a
    reviewer already cleared stops the spread). Pure: the inputs are not changed; each node is
    visited once, so cycles terminate.
    """
    start = set(roots)
    seen: set[str] = set(start)
    queue = deque(start)
    while queue:
        node = queue.popleft()
        for child in reverse_edges.get(node, ()):
            if child not in seen and child not in exclude:
                seen.add(child)
                queue.append(child)
    return seen - start


def closure_by_root(roots: Iterable[str], reverse_edges: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """For each root, the downstream memories it reaches (other roots excluded)."""
    ordered = list(dict.fromkeys(roots))
    return {root: invalidation_closure([root], reverse_edges) - set(ordered) for root in ordered}


def find_cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(edges.get(start, ())))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found)


# --- invalidation records --------------------------------------------------------------------
@dataclass(frozen=True)
class Invalidation:
    """One entry of ``invalidated_by``: which retraction flagged the memory, why, when, by whom."""

    root: str
    reason: str
    at: dt.datetime | None
    actor: str

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"root": self.root, "reason": self.reason}
        if self.at is not None:
            out["at"] = self.at
        out["actor"] = self.actor
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "reason": self.reason,
            "at": None if self.at is None else self.at.isoformat().replace("+00:00", "Z"),
            "actor": self.actor,
        }


def invalidations(memory: Memory) -> list[Invalidation]:
    """The memory's ``invalidated_by`` records (malformed entries are skipped; validation reports them)."""
    raw = memory.meta.get(INVALIDATED_BY)
    out = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict) and isinstance(item.get("root"), str):
            reason, actor = str(item.get("reason") or ""), str(item.get("actor") or "")
            out.append(Invalidation(item["root"], reason, parse_time(item.get("at")), actor))
    return out


def is_source_primary(memory: Memory) -> bool:
    return memory.meta.get(SOURCE_PRIMARY) is True and bool((memory.source or "").strip())


def was_reinstated(memory: Memory) -> bool:
    return memory.status == "active" and isinstance(memory.meta.get(REINSTATED), dict)


# --- reinstate policy ------------------------------------------------------------------------
@dataclass(frozen=True)
class Eligibility:
    """Whether a ``needs_review`` memory may become active again, on what basis, or why not."""

    ok: bool
    basis: tuple[str, ...]
    why: str
    invalidated: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "basis": list(self.basis), "why": self.why}


def reinstate_basis(
    path: str,
    *,
    parents: Iterable[str],
    recorded_roots: Iterable[str],
    status: Mapping[str, str | None],
    reverse_edges: Mapping[str, Iterable[str]],
    cleared: Collection[str] = (),
    source_primary: bool = False,
    source: str | None = None,
) -> Eligibility:
    """The reinstate rule (pure).

    A flagged memory may return to ``active`` when it still has an *independent active source*:

    * its own ``source`` marked primary evidence (``source_primary: true``), or
    * a ``depends_on`` parent that is ``active`` and outside the invalidated set, where the
      invalidated set is every recorded root that is still retracted (or gone) plus everything
      downstream of those roots, except memories a reviewer already ``cleared`` (reinstated).
      Two summaries of the same root are therefore not independent: both are downstream of it.
    * or, when every recorded root is active again (its retraction was undone), there is
      nothing left to review.

    ``status`` maps paths to their current status (missing: the file does not exist).
    """
    recorded = list(dict.fromkeys(recorded_roots))
    live = [r for r in recorded if status.get(r) != "active"]
    invalidated = frozenset(live) | frozenset(invalidation_closure(live, reverse_edges, exclude=cleared))
    parent_list = list(dict.fromkeys(parents))
    basis = tuple(p for p in parent_list if status.get(p) == "active" and p not in invalidated)
    if source_primary and (source or "").strip():
        basis = (f"source:{source}", *basis)
    if basis:
        return Eligibility(True, basis, "", invalidated)
    if recorded and not live:
        return Eligibility(True, tuple(f"undone:{r}" for r in recorded), "", invalidated)
    return Eligibility(False, (), _refusal(path, parent_list, live, status, invalidated, source), invalidated)


def _refusal(
    path: str,
    parents: list[str],
    live: list[str],
    status: Mapping[str, str | None],
    invalidated: frozenset[str],
    source: str | None,
) -> str:
    reasons = []
    for parent in parents:
        state = status.get(parent)
        if parent in live:
            reasons.append(f"{parent} is retracted")
        elif parent in invalidated:
            reasons.append(f"{parent} is downstream of the retracted {', '.join(live)}")
        elif state is None:
            reasons.append(f"{parent} does not exist")
        else:
            reasons.append(f"{parent} is {state}")
    why = f"{path} has no independent active source: " + ("; ".join(reasons) if reasons else "it depends on nothing")
    hint = (
        "its own source is not marked as primary evidence"
        if (source or "").strip()
        else "it has no source of its own either"
    )
    return (
        f"{why}; {hint}. Review it: add an independent depends_on entry, or set source_primary: true if its "
        "source is first-hand evidence, or revert the retraction"
    )


# --- trees for people ------------------------------------------------------------------------
@dataclass(frozen=True)
class TreeNode:
    """One line of a tree: ``repeat`` means shown earlier (diamond), ``cycle`` means an ancestor."""

    path: str
    children: tuple[TreeNode, ...] = ()
    repeat: bool = False
    cycle: bool = False

    def walk(self) -> Iterable[TreeNode]:
        yield self
        for child in self.children:
            yield from child.walk()


def tree(start: str, edges: Mapping[str, Iterable[str]], *, max_depth: int | None = None) -> TreeNode:
    """``start`` and everything reachable along ``edges``, children in path order. A node is
    expanded where it first appears as the tree is read (top to bottom, depth first); met again,
    it is a leaf marked ``repeat`` ("shown above"), or ``cycle`` when it is on the way back to the
    start. With ``max_depth``, nodes at that depth are leaves (not marked: they may be expanded
    where they appear higher up). Iterative, so deep chains do not hit the recursion limit."""

    class Building:
        def __init__(self, path: str, repeat: bool = False, cycle: bool = False) -> None:
            self.path, self.repeat, self.cycle = path, repeat, cycle
            self.children: list[Building] = []

        def frozen(self) -> TreeNode:
            done: dict[int, TreeNode] = {}
            order: list[Building] = []
            todo = [self]
            while todo:
                node = todo.pop()
                order.append(node)
                todo.extend(node.children)
            for node in reversed(order):
                kids = tuple(done[id(c)] for c in node.children)
                done[id(node)] = TreeNode(node.path, kids, node.repeat, node.cycle)
            return done[id(self)]

    def children(path: str) -> list[str]:
        return sorted(dict.fromkeys(edges.get(path, ())))

    root = Building(start)
    expanded = {start}
    on_path = {start}
    work: list[tuple[Building, Iterator[str], int]] = [(root, iter(children(start)), 0)]
    if max_depth is not None and max_depth <= 0:
        work = []
    while work:
        node, pending, depth = work[-1]
        child = next(pending, None)
        if child is None:
            work.pop()
            on_path.discard(node.path)
            continue
        if child in on_path:
            node.children.append(Building(child, cycle=True))
        elif child in expanded:
            node.children.append(Building(child, repeat=True))
        else:
            built = Building(child)
            node.children.append(built)
            if max_depth is None or depth + 1 < max_depth:
                expanded.add(child)
                on_path.add(child)
                work.append((built, iter(children(child)), depth + 1))
    return root.frozen()


def to_dot(paths: Iterable[str], parents: Mapping[str, Iterable[str]], status: Mapping[str, str | None]) -> str:
    """Graphviz: an arrow from each source to what was derived from it, coloured by status."""
    colours = {"retracted": "red", "needs_review": "orange", "superseded": "grey", "expired": "grey"}
    nodes = sorted(set(paths))
    lines = ["digraph memfs {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
    for node in nodes:
        state = status.get(node)
        colour = colours.get(state or "", "black")
        label = f"{node}\\n{state or 'missing'}"
        lines.append(f'  "{_dot(node)}" [label="{_dot(label)}", color={colour}];')
    for node in nodes:
        for parent in parents.get(node, ()):
            if parent in nodes:
                lines.append(f'  "{_dot(parent)}" -> "{_dot(node)}";')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot(text: str) -> str:
    return text.replace('"', '\\"')
