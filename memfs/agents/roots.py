"""Recall over several memory repositories at once (``memfs -C A -C B search``): a layer on top
of the one-root search and context, which it runs unchanged in each root.

Every root keeps its own rules: each is opened as its own :class:`~memfs.store.repo.Store` (its
``.memfs.toml``, its index, its session and scope binding), and eligibility is judged inside each
root's own search before anything is merged. Then the rankings are merged fairly
(:func:`memfs.policy.fusion.fuse`: coverage first, then rank within the root), and every hit
keeps the root it came from; nothing is merged across roots.

One root that cannot answer (missing, unreadable, not a memory repository, its index or git
failing) is reported in :attr:`RootsSearchResult.errors` and the others still answer. A request
that is wrong in itself (a :class:`~memfs.errors.UsageError`: a malformed scope, a bound session
asked for another scope) would be wrong in every root and is raised as it is for one root.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memfs.agents.rendering import Context
from memfs.agents.verbs import Context as ContextRequest
from memfs.errors import MemfsError, UsageError, one_line
from memfs.index.results import Hit, SearchResult
from memfs.ops.verbs.recall import Search
from memfs.policy import fusion
from memfs.policy.tokens import TokenCounter, counter
from memfs.store.repo import Store

T = TypeVar("T")


@dataclass(frozen=True)
class Root:
    """One opened root: its memory root (resolved) and the label its hits carry."""

    path: str
    label: str
    store: Store

    def to_json(self) -> dict[str, Any]:
        return {"root": self.path, "label": self.label}


@dataclass(frozen=True)
class RootFailure:
    """A root that did not answer: as it was given, the one-line reason and the error's class."""

    root: str
    error: str
    kind: str

    def to_json(self) -> dict[str, Any]:
        return {"root": self.root, "error": self.error, "kind": self.kind}

    def __str__(self) -> str:
        named = self.error.startswith((self.root, os.path.abspath(self.root)))
        return self.error if named else f"{self.root}: {self.error}"


def failure(root: str | os.PathLike[str], exc: BaseException) -> RootFailure:
    return RootFailure(os.fspath(root), one_line(exc), type(exc).__name__)


def open_roots(
    starts: Sequence[str | os.PathLike[str]], actor: str | None = None
) -> tuple[list[Root], list[RootFailure]]:
    """Open every root, in the order given: the ones that open, and why the others did not.
    Roots are deduplicated by resolved path, before opening and again by the memory root each
    opens (two folders of one repository are one root)."""
    stores: list[Store] = []
    failures: list[RootFailure] = []
    seen: set[str] = set()
    for start in starts:
        given = os.path.realpath(os.fspath(start))
        if given in seen:
            continue
        seen.add(given)
        try:
            store = Store.open(start, actor)
        except (MemfsError, OSError) as exc:
            failures.append(failure(start, exc))
            continue
        root = os.path.realpath(store.root)
        seen.add(root)
        if all(os.path.realpath(s.root) != root for s in stores):
            stores.append(store)
    return labelled(stores), failures


def labelled(stores: Sequence[Store]) -> list[Root]:
    """Each store as a :class:`Root`, labelled distinctly (:func:`memfs.policy.fusion.labels`)."""
    paths = [os.path.realpath(s.root) for s in stores]
    return [Root(path, label, store) for path, label, store in zip(paths, fusion.labels(paths), stores, strict=True)]


_POOL: list[ThreadPoolExecutor] = []
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The threads roots are read in, made once per process: starting threads for every call
    cost more CPU than the overlap saved (bench/bench_roots.py)."""
    with _POOL_LOCK:
        if not _POOL:
            _POOL.append(ThreadPoolExecutor(max_workers=4, thread_name_prefix="memfs-roots"))
        return _POOL[0]


#: The stores (by identity) that have answered once in this process: their git state is kept
#: (:mod:`memfs.store.gitcli.watch`), so what is left of a request is Python work, which threads
#: only slow down (bench/bench_roots.py: 4.1x one root in the pool, 2.8x one after another).
_ANSWERED: weakref.WeakSet[Store] = weakref.WeakSet()


def each(roots: Sequence[Root], fn: Callable[[Store], T], *, in_turn: bool = False) -> list[T | RootFailure]:
    """``fn`` in every root, each root's answer or its failure, in the roots' order: in threads
    the first time several roots are asked (each pays a whole-tree ``git status``, which overlaps),
    one after another once every one has answered before, or when ``in_turn`` says their git
    state is kept elsewhere (a live index). A usage error is the request's fault, not the
    root's, and is raised."""

    def one(root: Root) -> T | RootFailure:
        try:
            return fn(root.store)
        except UsageError:
            raise
        except (MemfsError, OSError) as exc:
            return failure(root.path, exc)

    warm = in_turn or all(root.store in _ANSWERED for root in roots)
    answers = [one(root) for root in roots] if len(roots) < 2 or warm else list(_pool().map(one, roots))
    _ANSWERED.update(root.store for root in roots)
    return answers


# --- search ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RootHit:
    """A hit and the root it came from."""

    root: Root
    hit: Hit

    @property
    def path(self) -> str:
        return self.hit.path

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        return {**self.hit.to_json(body=body), "root": self.root.path, "root_label": self.root.label}


@dataclass
class RootsSearchResult:
    """One search over several roots: the merged hits, each root's own result, and the roots
    that failed."""

    query: str
    roots: list[Root]
    results: list[SearchResult]
    hits: list[RootHit] = field(default_factory=list)
    errors: list[RootFailure] = field(default_factory=list)

    @property
    def notices(self) -> list[str]:
        return [f"{root.label}: {text}" for root, found in zip(self.roots, self.results, strict=True)
                for text in found.notices]

    def to_json(self, *, body: bool = True) -> dict[str, Any]:
        first = self.results[0] if self.results else None
        return {
            "query": self.query,
            "scope": first.scope if first else None,
            "inherit": first.inherit if first else False,
            "version": first.version if first else None,
            "at": first.at.isoformat().replace("+00:00", "Z") if first else None,
            "terms": first.terms if first else [],
            "roots": [root.to_json() for root in self.roots],
            "hits": [hit.to_json(body=body) for hit in self.hits],
            "filtered": [{**f.to_json(), "root": root.path} for root, found in self._pairs() for f in found.filtered],
            "unreadable": [{**p.to_json(), "root": root.path} for root, found in self._pairs() for p in found.broken],
            "notices": self.notices,
            "stale": any(found.stale for found in self.results),
            "errors": [e.to_json() for e in self.errors],
        }

    def _pairs(self) -> list[tuple[Root, SearchResult]]:
        return list(zip(self.roots, self.results, strict=True))


def search(roots: Sequence[Root], op: Search, failures: Sequence[RootFailure] = (), *,
           in_turn: bool = False) -> RootsSearchResult:
    """``op`` in every root (each with its own rules; :func:`memfs.ops.search.search`), the hits
    merged by :func:`memfs.policy.fusion.fuse` and cut to ``op.limit``; ``in_turn``: see :func:`each`."""
    from memfs.ops.search import search as search_one

    answers = each(roots, lambda store: search_one(store, op), in_turn=in_turn)
    answered = [(root, found) for root, found in zip(roots, answers, strict=True) if isinstance(found, SearchResult)]
    errors = [*failures, *(found for found in answers if isinstance(found, RootFailure))]
    order = fusion.fuse([[hit.score for hit in found.hits] for _, found in answered], op.limit)
    hits = [RootHit(answered[r][0], answered[r][1].hits[i]) for r, i in order]
    return RootsSearchResult(op.query, [root for root, _ in answered], [found for _, found in answered], hits, errors)


# --- context ---------------------------------------------------------------------------------------
@dataclass
class RootsContext:
    """One context over several roots: each root's own context (its ``system/`` first, its own
    eligibility, budget rules and fence) under a heading that names the root, and the roots that
    failed. The budget is shared (:func:`context`)."""

    task: str
    format: str
    budget: int
    roots: list[Root]
    parts: list[Context]
    errors: list[RootFailure] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [f"{root.label}: {w}" for root, part in zip(self.roots, self.parts, strict=True)
                for w in part.shown_warnings()]

    @property
    def uncommitted_notice(self) -> str | None:
        notes = [f"{root.label}: {part.uncommitted_notice}" for root, part in zip(self.roots, self.parts, strict=True)
                 if part.uncommitted_notice]
        return "; ".join(notes) or None

    @property
    def tokens(self) -> int:
        return sum(part.tokens for part in self.parts)

    def render(self, format: str | None = None) -> str:
        """The contexts in one text: one root that answered, with nothing to report, is exactly
        its own context; otherwise each under its root's heading, then the roots that failed."""
        fmt = format or self.format
        if fmt == "json":
            import json

            return json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":"))
        return compose(self.roots, [part.render(fmt) for part in self.parts], self.errors, fmt)

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "budget": self.budget,
            "tokens": self.tokens,
            "roots": [root.to_json() for root in self.roots],
            "contexts": [{**root.to_json(), **part.to_json()}
                         for root, part in zip(self.roots, self.parts, strict=True)],
            "errors": [e.to_json() for e in self.errors],
        }


def compose(roots: Sequence[Root], rendered: Sequence[str], errors: Sequence[RootFailure], fmt: str) -> str:
    """Each root's rendered context under its heading, then the roots that did not answer;
    one root and no failure: its context alone."""
    if len(roots) == 1 and not errors:
        return rendered[0]
    pairs = list(zip(roots, rendered, strict=True))
    if fmt == "xml":
        from xml.sax.saxutils import quoteattr

        inner = "".join(f"<repository label={quoteattr(r.label)} root={quoteattr(r.path)}>\n{text}</repository>\n"
                        for r, text in pairs)
        inner += "".join(f"<failed root={quoteattr(e.root)} reason={quoteattr(e.error)}/>\n" for e in errors)
        return f"<memory_repositories>\n{inner}</memory_repositories>\n"
    text = "".join(f"# Memory repository {r.label}\n\n{part}\n" for r, part in pairs)
    if errors:
        text += "Memory repositories that did not answer: " + "; ".join(str(e) for e in errors) + "\n"
    return text


def _frame_cost(roots: Sequence[Root], errors: Sequence[RootFailure], op: ContextRequest, count: TokenCounter) -> int:
    """What the text around the roots' contexts costs (headings, wrappers, failures), with room
    to spare for counts that do not add up exactly."""
    if op.format == "json":
        import json

        listed = {"task": op.task, "budget": op.budget, "tokens": op.budget, "roots": [r.to_json() for r in roots],
                  "contexts": [r.to_json() for r in roots], "errors": [e.to_json() for e in errors]}
        return count(json.dumps(listed, ensure_ascii=False, separators=(",", ":"))) + 16 * len(roots) + 16
    frame = compose(roots, [""] * len(roots), errors, op.format)
    return count(frame) + (8 if frame else 0)


def context(roots: Sequence[Root], op: ContextRequest, failures: Sequence[RootFailure] = ()) -> RootsContext:
    """``op`` in every root, the budget shared: each root first gets an equal share of what the
    headings leave; what a root did not use goes, in a second pass, to the roots that left
    memories out for lack of budget (so the whole stays within ``op.budget``). Each root's
    context follows every rule of one root's (:func:`memfs.agents.context.assemble`)."""
    from memfs.agents import run

    count = op.count or counter(op.counter)
    asked = dataclasses.replace(op, count=count)
    opened_errors = list(failures)
    share = (op.budget - _frame_cost(roots, opened_errors, op, count)) // max(1, len(roots))
    if roots and share < 1:
        raise UsageError(f"{op.budget}: too small a budget for {len(roots)} memory repositories", param="budget")

    def within(budget: int) -> Callable[[Store], Context]:
        return lambda store: run.context(store, dataclasses.replace(asked, budget=budget))

    answers = each(roots, within(share))
    answered = [(root, part) for root, part in zip(roots, answers, strict=True) if isinstance(part, Context)]
    errors = [*failures, *(part for part in answers if isinstance(part, RootFailure))]
    hungry = [i for i, (_, part) in enumerate(answered) if part.left_out_for_budget]
    spare = sum(max(0, share - part.tokens) for i, (_, part) in enumerate(answered) if i not in hungry)
    if hungry and spare > 0:
        more = share + spare // len(hungry)
        again = each([answered[i][0] for i in hungry], within(more))
        for i, part in zip(hungry, again, strict=True):
            if isinstance(part, Context):
                answered[i] = (answered[i][0], part)
    return RootsContext(op.task, op.format, op.budget, [root for root, _ in answered],
                        [part for _, part in answered], errors)

