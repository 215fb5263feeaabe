"""The public library: :class:`MemoryRepo` is every verb, one method each, over a store.

Every ``memfs`` command and every MCP tool is one call on a :class:`MemoryRepo` (sqlite-utils'
library/CLI parity), so agents and scripts get exactly the power of the shell. Each method is a
thin call into the module that does the job; those modules are imported inside the methods, so
``import memfs`` stays cheap and a one-shot ``memfs search`` loads only what search needs.

>>> import memfs
>>> repo = memfs.MemoryRepo.open("path/to/memory", actor="agent:release-bot")  # doctest: +SKIP
>>> repo.search("release notes", scope="user:U5/project:P8").hits                # doctest: +SKIP

A :class:`MemoryRepo` *holds* its :class:`~memfs.store.repo.Store` (``repo.store``): the lower
level (reads by path, transactions, validation scans, the git plumbing) that integrations,
tests and power users reach through it, kept out of the verbs' namespace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from memfs.agents.verbs import Context, Eval
from memfs.ops.verbs.collab import Export, Import, Integrate, Propose, Sync
from memfs.ops.verbs.declare import Request, verb
from memfs.ops.verbs.files import Delete, InstallHooks, InstallMergeDriver, New, Validate, Write
from memfs.ops.verbs.history import Diff, History, Log, Ls, Revert, Show
from memfs.ops.verbs.lifecycle import Consolidate, Expire, Forget, Prune, Purge, Remember, Stats
from memfs.ops.verbs.lineage import Graph, Impact, Reinstate, Retract
from memfs.ops.verbs.recall import Reindex, Search
from memfs.store.repo import CommitResult, Scan, Store

R = TypeVar("R")

if TYPE_CHECKING:
    from pathlib import Path

    from memfs.agents.evaluate import EvalReport
    from memfs.agents.live.listener import SocketServer
    from memfs.agents.live.server import LiveIndex
    from memfs.agents.rendering import Context as ContextResult
    from memfs.agents.tools import ToolContext, ToolResult
    from memfs.agents.watch import Watcher, WatchEvent
    from memfs.format.model import Problem
    from memfs.index.results import ReindexReport, SearchResult
    from memfs.ops.branch_review import ReviewSummary
    from memfs.ops.consolidate import ConsolidateResult
    from memfs.ops.demo import DemoResult
    from memfs.ops.forget import ForgetResult, SweepResult
    from memfs.ops.integrate import IntegrateResult
    from memfs.ops.interop import ExportReport, ImportReport
    from memfs.ops.mergedriver import Installed
    from memfs.ops.propose import ProposeResult
    from memfs.ops.prune import PruneResult
    from memfs.ops.purge import PurgePlan, PurgeReport
    from memfs.ops.remember import BatchResult, Outcome
    from memfs.ops.retract import GraphView, Plan, ReinstateResult, RetractResult, ReviewGroup
    from memfs.ops.stats import Stats as StatsResult
    from memfs.ops.sync import SyncResult
    from memfs.policy.candidate import Candidate
    from memfs.policy.conflicts import Pair
    from memfs.policy.guard import Grants
    from memfs.policy.recall import ScopeRule
    from memfs.store.history import FileDiff, LogEntry, Revision
    from memfs.store.hooks import HooksInstalled


class MemoryRepo:
    """A memory repository: every memfs verb, over the store it holds (:attr:`store`). Open one
    with :meth:`open` or create one with :meth:`init`."""

    def __init__(self, store: Store) -> None:
        #: The lower-level interface: reads by path, transactions, scans, git (:class:`Store`).
        self.store = store

    def __repr__(self) -> str:
        return f"MemoryRepo({str(self.root)!r}, actor={self.actor!r})"

    # --- opening and creating --------------------------------------------------------------
    @classmethod
    def open(cls, start: str | os.PathLike[str] = ".", actor: str | None = None) -> MemoryRepo:
        """The memory repository containing ``start`` (:meth:`~memfs.store.upkeep.Repository.open`)."""
        return cls(Store.open(start, actor))

    @classmethod
    def init(
        cls, directory: str | os.PathLike[str], actor: str | None = None, *, ci: str | None = None, hooks: bool = True
    ) -> MemoryRepo:
        """``memfs init``: make ``directory`` a memory repository (see
        :meth:`~memfs.store.repo.Store.init`) with the hooks that check hand commits (unless
        ``hooks`` is false: :mod:`memfs.store.hooks`); with ``ci`` (``"github"`` or ``"gitlab"``)
        also the CI job that validates memory and posts ``memfs review BASE..HEAD`` on every pull
        request or merge request (:meth:`~memfs.store.repo.Store.add_ci`)."""
        store = Store.init(directory, actor, hooks=hooks)
        if ci is not None:
            store.add_ci(ci)
        return cls(store)

    def session(
        self,
        scope: str | None,
        *,
        inherit: bool = False,
        grants: Grants | None = None,
        actor: str | None = None,
    ) -> MemoryRepo:
        """This repository as one agent session sees it (:meth:`~memfs.store.reading.Reader.session`):
        bound to ``scope``, with the host's ``grants``, acting as ``actor``."""
        return MemoryRepo(self.store.session(scope, inherit=inherit, grants=grants, actor=actor))

    # --- what it is --------------------------------------------------------------------------
    @property
    def root(self) -> Path:
        """The memory root (a folder of a git work tree)."""
        return self.store.root

    @property
    def actor(self) -> str:
        """Who this repository's changes are by, unless a verb is given another ``actor``."""
        return self.store.actor

    @property
    def binding(self) -> ScopeRule | None:
        """The scope a session is bound to (``None``: unbound, every scope)."""
        return self.store.binding

    @property
    def notices(self) -> list[str]:
        """What opening the repository had to say (a crashed write finished, a cache repaired)."""
        return self.store.notices

    @staticmethod
    def demo(directory: str | os.PathLike[str]) -> DemoResult:
        """``memfs demo``: build the example repository with its history in ``directory``."""
        from memfs.ops.demo import build_demo

        return build_demo(directory)

    write = verb(Write)

    delete = verb(Delete)

    validate = verb(Validate)

    new = verb(New)

    # --- reading -------------------------------------------------------------------------
    show = verb(Show)

    ls = verb(Ls)

    # --- history -------------------------------------------------------------------------
    log = verb(Log)

    diff = verb(Diff)

    revert = verb(Revert)

    history = verb(History)

    # --- search and recall ---------------------------------------------------------------
    search = verb(Search)

    def live_server(self, *, debounce: float | None = None, polling: bool = False,
                    idle_timeout: float | None = None, also: Sequence[MemoryRepo] = ()) -> SocketServer:
        """``memfs serve``: the live index of this repository (and of ``also``'s, served by the
        same process on the same socket) and its socket, not started yet
        (:mod:`memfs.agents.live.server`; run it with ``serve_forever`` or as a context manager);
        ``idle_timeout``: seconds without a request before ``serve_forever`` ends."""
        from memfs.agents.live.listener import SocketServer
        from memfs.agents.live.server import DEBOUNCE_SECONDS, LiveIndex

        wait = DEBOUNCE_SECONDS if debounce is None else debounce
        return SocketServer([LiveIndex(repo.store, debounce=wait, polling=polling) for repo in (self, *also)],
                            idle_timeout=idle_timeout)

    def live_index(self, *, debounce: float | None = None, polling: bool = False) -> LiveIndex:
        """A started live index of this repository without a socket, for a long-running process
        that reads through it itself (``memfs mcp``): ``live.read(fn)``; ``live.stop()`` when done."""
        from memfs.agents.live.server import DEBOUNCE_SECONDS, LiveIndex

        live = LiveIndex(self.store, debounce=DEBOUNCE_SECONDS if debounce is None else debounce, polling=polling)
        try:
            live.start()
        except BaseException:
            live.stop()
            raise
        return live

    def live_status(self) -> dict[str, Any] | None:
        """``memfs serve --status``: what the running live index says about itself, ``None`` if none runs."""
        from memfs.agents.live.listener import status

        return status(self.root)

    def live_stop(self) -> bool:
        """``memfs serve --stop``: ask the running live index to stop; whether one was running."""
        from memfs.agents.live.listener import request_stop

        return request_stop(self.root)

    reindex = verb(Reindex)

    context = verb(Context)

    eval = verb(Eval)

    # --- lineage -------------------------------------------------------------------------
    retract = verb(Retract)

    reinstate = verb(Reinstate)

    impact = verb(Impact)

    graph = verb(Graph)

    def review_queue(self) -> list[ReviewGroup]:
        """``memfs review``: every memory awaiting review, grouped by the retraction that flagged it."""
        from memfs.ops.retract import review_queue

        return review_queue(self.store)

    def conflicts(self) -> list[Pair]:
        """Probable conflicts: two active memories of one scope, type and version that give two
        values for one subject without a shared key (``memfs review``, ``memfs validate``)."""
        from memfs.ops.conflicts import every_pair

        return every_pair(self.store)

    def review(self, base: str, head: str = "HEAD") -> ReviewSummary:
        """``memfs review BASE..HEAD``: what a branch changes in memory, for a pull request."""
        from memfs.ops.branch_review import summarize

        return summarize(self.store, base, head)

    # --- lifecycle -----------------------------------------------------------------------
    remember = verb(Remember)

    def remember_batch(
        self, candidates: Iterable[Candidate | Mapping[str, Any]], *, force: bool = False, actor: str | None = None
    ) -> BatchResult:
        """Many candidates in one commit (an import); refused ones are skipped and reported."""
        from memfs.ops.remember import remember_batch
        from memfs.policy.candidate import Candidate, from_mapping

        built = [c if isinstance(c, Candidate) else from_mapping(c) for c in candidates]
        return remember_batch(self.store, built, force=force, actor=actor)

    expire = verb(Expire)

    forget = verb(Forget)

    def purge_plan(self, path: str) -> PurgePlan:
        """What ``purge`` of ``path`` would rewrite (for a confirmation prompt); reads only."""
        from memfs.ops.purge import plan

        return plan(self.store, path)

    purge = verb(Purge)

    prune = verb(Prune)

    consolidate = verb(Consolidate)

    stats = verb(Stats)

    # --- other systems -------------------------------------------------------------------
    import_ = verb(Import)

    export = verb(Export)

    # --- agents --------------------------------------------------------------------------
    def tool(self, request: Mapping[str, Any], context: ToolContext | None = None) -> ToolResult:
        """``memfs tool``: one memory-tool request (view, create, str_replace, insert, delete,
        rename, update_description); never raises for a bad request."""
        from memfs.agents.tools import handle

        return handle(self.store, request, context)

    def watcher(
        self, *, debounce: float = 0.25, report: Callable[[WatchEvent], None] | None = None,
        index: bool = True, polling: bool = False, actor: str | None = None,
    ) -> Watcher:
        """``memfs watch``: a watcher that commits direct edits; call ``start()``/``stop()``."""
        from memfs.agents.watch import Watcher

        return Watcher(self.store, actor=actor, debounce=debounce, report=report, index=index, polling=polling)

    # --- collaboration -------------------------------------------------------------------
    sync = verb(Sync)

    integrate = verb(Integrate)

    propose = verb(Propose)

    # --- every verb as a typed request --------------------------------------------------------
    def run(self, op: Request[R]) -> R:
        """One verb given as its typed request (:mod:`memfs.ops.verbs`), e.g.
        ``repo.run(Search("release notes", limit=3))``; the methods declared with :class:`verb`
        are this call. A request of a verb this library does not run is a :class:`UsageError`."""
        doer = _DOERS.get(type(op))
        if doer is None:
            from memfs.errors import UsageError

            raise UsageError(f"{type(op).__name__}: not a request memfs runs")
        result: R = doer(self, op)
        return result

    def batch(self, ops: Iterable[Request[Any]]) -> list[Any]:
        """Several requests in order, each as :meth:`run` does it; the results in the same order."""
        return [self.run(op) for op in ops]

    install_merge_driver = verb(InstallMergeDriver)
    install_hooks = verb(InstallHooks)

# --- how each declared verb runs: one function per request, in the module that does the work ---
_DOERS: dict[type, Callable[[MemoryRepo, Any], Any]] = {}
Q = TypeVar("Q", bound=Request[Any])


def _does(cls: type[Q]) -> Callable[[Callable[[MemoryRepo, Q], R]], Callable[[MemoryRepo, Q], R]]:
    def register(fn: Callable[[MemoryRepo, Q], R]) -> Callable[[MemoryRepo, Q], R]:
        _DOERS[cls] = fn
        return fn

    return register


@_does(Validate)
def _validate(repo: MemoryRepo, op: Validate) -> list[Problem]:
    return repo.store.validate(op.scan, None if op.only is None else list(op.only))


@_does(Show)
def _show(repo: MemoryRepo, op: Show) -> tuple[str, bytes]:
    if op.at is None:
        return repo.store.read_file(op.path)
    from memfs.store.history import file_at

    return file_at(repo.store, op.path, op.at)


@_does(Ls)
def _ls(repo: MemoryRepo, op: Ls) -> Scan:
    scan = repo.store.scan()
    if not op.include_all:
        scan.memories = [m for m in scan.memories if m.status in ("active", None)]
    return scan


@_does(Log)
def _log(repo: MemoryRepo, op: Log) -> list[LogEntry]:
    from memfs.store.history import log

    return log(repo.store, op.path, op=op.op, limit=op.limit)


@_does(Diff)
def _diff(repo: MemoryRepo, op: Diff) -> list[FileDiff]:
    from memfs.store.history import diff

    return diff(repo.store, op.old, op.new, op.path)


@_does(Revert)
def _revert(repo: MemoryRepo, op: Revert) -> str:
    from memfs.store.history import revert

    return revert(repo.store, op.commit, reason=op.reason, actor=op.actor)


@_does(History)
def _history(repo: MemoryRepo, op: History) -> list[Revision]:
    from memfs.store.history import revisions

    return revisions(repo.store, op.path)


@_does(Search)
def _search(repo: MemoryRepo, op: Search) -> SearchResult:
    from memfs.ops.search import search

    return search(repo.store, op)


@_does(Reindex)
def _reindex(repo: MemoryRepo, op: Reindex) -> ReindexReport:
    from memfs import index

    return index.reindex(repo.store, progress=op.progress)


@_does(Context)
def _context(repo: MemoryRepo, op: Context) -> ContextResult:
    from memfs.agents import run

    return run.context(repo.store, op)


@_does(Retract)
def _retract(repo: MemoryRepo, op: Retract) -> RetractResult:
    from memfs.ops.retract import retract

    return retract(repo.store, op.paths, reason=op.reason, actor=op.actor)


@_does(Reinstate)
def _reinstate(repo: MemoryRepo, op: Reinstate) -> ReinstateResult:
    from memfs.ops.retract import reinstate

    return reinstate(repo.store, op.path, reason=op.reason, actor=op.actor)


@_does(Impact)
def _impact(repo: MemoryRepo, op: Impact) -> Plan:
    from memfs.ops.retract import impact

    return impact(repo.store, op.paths)


@_does(Graph)
def _graph(repo: MemoryRepo, op: Graph) -> GraphView:
    from memfs.ops.retract import graph_view

    return graph_view(repo.store, op.path, max_depth=op.depth)


@_does(Remember)
def _remember(repo: MemoryRepo, op: Remember) -> Outcome:
    from memfs.ops.remember import remember

    return remember(repo.store, op.candidate, force=op.force, actor=op.actor)


@_does(Expire)
def _expire(repo: MemoryRepo, op: Expire) -> SweepResult:
    from memfs.ops.forget import expire

    return expire(repo.store, now=op.now, archive=op.archive, dry_run=op.dry_run, actor=op.actor)


@_does(Forget)
def _forget(repo: MemoryRepo, op: Forget) -> ForgetResult:
    from memfs.ops.forget import forget

    return forget(repo.store, op.path, reason=op.reason, expected_revision=op.expected_revision, actor=op.actor)


@_does(Purge)
def _purge(repo: MemoryRepo, op: Purge) -> PurgeReport:
    from memfs.ops.purge import purge

    return purge(repo.store, op.path, reason=op.reason, actor=op.actor)


@_does(Prune)
def _prune(repo: MemoryRepo, op: Prune) -> PruneResult:
    from memfs.ops.prune import prune

    return prune(repo.store, now=op.now, apply=op.apply, actor=op.actor)


@_does(Stats)
def _stats(repo: MemoryRepo, op: Stats) -> StatsResult:
    from memfs.ops.stats import stats

    return stats(repo.store)


@_does(Propose)
def _propose(repo: MemoryRepo, op: Propose) -> ProposeResult:
    from memfs.ops.propose import propose

    return propose(repo.store, branch=op.branch, remote=op.remote, base=op.base, keep_main=op.keep_main,
                   reason=op.reason)


@_does(Write)
def _write(repo: MemoryRepo, op: Write) -> CommitResult:
    return repo.store.write(op.path, fields=op.fields, body=op.body, expected_revision=op.expected_revision,
                            create_only=op.create_only, reason=op.reason, actor=op.actor, force=op.force)


@_does(New)
def _new(repo: MemoryRepo, op: New) -> CommitResult:
    from memfs.format.templates import fill

    filled, text = fill(op.template, op.fields or {}, op.body)
    return repo.store.write(op.path, fields=filled, body=text, create_only=True, reason=op.reason, actor=op.actor)


@_does(Delete)
def _delete(repo: MemoryRepo, op: Delete) -> CommitResult:
    return repo.store.delete(op.path, expected_revision=op.expected_revision, reason=op.reason, actor=op.actor,
                             force=op.force)


@_does(InstallMergeDriver)
def _install_merge_driver(repo: MemoryRepo, op: InstallMergeDriver) -> Installed:
    from memfs.ops.mergedriver import install

    return install(repo.store, op.command)


@_does(InstallHooks)
def _install_hooks(repo: MemoryRepo, op: InstallHooks) -> HooksInstalled:
    return repo.store.install_hooks()


@_does(Sync)
def _sync(repo: MemoryRepo, op: Sync) -> SyncResult:
    from memfs.ops.sync import sync

    return sync(repo.store, remote=op.remote, branch=op.branch, mode=op.mode, push=op.push, attempts=op.attempts,
                budget=op.budget, route=op.route, writer=op.writer)


@_does(Integrate)
def _integrate(repo: MemoryRepo, op: Integrate) -> IntegrateResult:
    from memfs.ops import integrate

    options = op.round_options()
    if not op.watch:
        return integrate.integrate(repo.store, **options)
    return integrate.watch(repo.store, integrate.Rounds(op.interval, op.rounds), **options)


@_does(Import)
def _import(repo: MemoryRepo, op: Import) -> ImportReport:
    from memfs.ops.interop import import_

    return import_(
        repo.store, op.format, op.source, scope=op.scope, source_text=op.source_text, source_kind=op.source_kind,
        type=op.type, prefix=op.prefix, apply=op.apply, force=op.force, reason=op.reason, actor=op.actor,
    )


@_does(Export)
def _export(repo: MemoryRepo, op: Export) -> ExportReport:
    from memfs.ops.interop import export

    return export(repo.store, op.format, op.dest, scope=op.scope, inherit=op.inherit, version=op.version,
                  apply=op.apply, force=op.force, now=op.now)


@_does(Consolidate)
def _consolidate(repo: MemoryRepo, op: Consolidate) -> ConsolidateResult:
    from memfs.ops.consolidate import consolidate

    return consolidate(repo.store, now=op.now, apply=op.apply, scope=op.scope, summariser=op.summariser,
                       actor=op.actor)


@_does(Eval)
def _eval(repo: MemoryRepo, op: Eval) -> EvalReport:
    from pathlib import Path

    from memfs.agents.evaluate import EvalReport, evaluate, load_cases
    from memfs.agents.gate_eval import evaluate_gate
    from memfs.errors import UsageError
    from memfs.ops.judge import configured

    if op.cases is None and op.gate is None:
        raise UsageError("give a cases file, or --gate with a labelled utterance file (or both)", param="cases")
    report = (evaluate(repo.store, load_cases(Path(op.cases), repo.store), deletion=op.deletion)
              if op.cases is not None else EvalReport())
    if op.gate is not None:
        report.gate = evaluate_gate(Path(op.gate), configured(repo.store))
    return report
