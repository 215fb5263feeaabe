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

import datetime as dt
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memfs.store.repo import CommitResult, Scan, Store

if TYPE_CHECKING:
    from pathlib import Path

    from memfs.agents.context import Context
    from memfs.agents.evaluate import EvalReport
    from memfs.agents.live.server import LiveIndex, SocketServer
    from memfs.agents.tools import ToolContext, ToolResult
    from memfs.agents.watch import Watcher, WatchEvent
    from memfs.format.model import Problem
    from memfs.index.results import ReindexReport, SearchResult
    from memfs.ops.branch_review import ReviewSummary
    from memfs.ops.consolidate import AnySummariser, ConsolidateResult
    from memfs.ops.demo import DemoResult
    from memfs.ops.forget import ForgetResult, SweepResult
    from memfs.ops.interop import ExportReport, ImportReport
    from memfs.ops.mergedriver import Installed
    from memfs.ops.prune import PruneResult
    from memfs.ops.purge import PurgePlan, PurgeReport
    from memfs.ops.remember import BatchResult, Outcome
    from memfs.ops.retract import GraphView, Plan, ReinstateResult, RetractResult, ReviewGroup
    from memfs.ops.stats import Stats
    from memfs.ops.sync import ProposeResult, SyncResult
    from memfs.policy.candidate import Candidate
    from memfs.policy.guard import Grants
    from memfs.policy.recall import RankPolicy, ScopeRule
    from memfs.policy.tokens import TokenCounter
    from memfs.store.history import FileDiff, LogEntry, Revision


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
        cls, directory: str | os.PathLike[str], actor: str | None = None, *, ci: str | None = None
    ) -> MemoryRepo:
        """``memfs init``: make ``directory`` a memory repository (see
        :meth:`~memfs.store.repo.Store.init`); with ``ci`` (``"github"``) also the workflow that
        validates memory and posts ``memfs review BASE..HEAD`` on every pull request
        (:meth:`~memfs.store.repo.Store.add_ci`)."""
        store = Store.init(directory, actor)
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

    def write(
        self,
        path: str | os.PathLike[str],
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        expected_revision: int | None = None,
        create_only: bool = False,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """``memfs write``/``add``: create or update one memory in one commit (:meth:`Store.write`)."""
        return self.store.write(path, fields=fields, body=body, expected_revision=expected_revision,
                                create_only=create_only, reason=reason, actor=actor, force=force)

    def delete(
        self,
        path: str | os.PathLike[str],
        *,
        expected_revision: int | None = None,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """``memfs rm``: delete one memory in one commit (:meth:`Store.delete`)."""
        return self.store.delete(path, expected_revision=expected_revision, reason=reason, actor=actor, force=force)

    def validate(self, scan: Scan | None = None, only: list[str] | None = None) -> list[Problem]:
        """``memfs validate``: every finding in the repository, or in just the files ``only``
        (:meth:`~memfs.store.reading.Reader.validate`)."""
        return self.store.validate(scan, only)

    def new(
        self,
        template: str,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        reason: str | None = None,
        actor: str | None = None,
    ) -> CommitResult:
        """``memfs new``: create ``path`` from a template (its defaults, ``fields`` on top)."""
        from memfs.format.templates import fill

        filled, text = fill(template, fields or {}, body)
        return self.write(path, fields=filled, body=text, create_only=True, reason=reason, actor=actor)

    # --- reading -------------------------------------------------------------------------
    def show(self, path: str, at: str | None = None) -> tuple[str, bytes]:
        """``memfs show``: (path, exact bytes) of a memory now, or at a commit or ISO time."""
        if at is None:
            return self.store.read_file(path)
        from memfs.store.history import file_at

        return file_at(self.store, path, at)

    def ls(self, *, include_all: bool = False) -> Scan:
        """``memfs ls``/``tree``: the memories (only active ones unless ``include_all``), ``system/``
        first, and the files that do not parse."""
        scan = self.store.scan()
        if not include_all:
            scan.memories = [m for m in scan.memories if m.status in ("active", None)]
        return scan

    # --- history -------------------------------------------------------------------------
    def log(self, path: str | None = None, *, op: str | None = None, limit: int | None = None) -> list[LogEntry]:
        """``memfs log``: commits touching memory (or one memory), newest first."""
        from memfs.store.history import log

        return log(self.store, path, op=op, limit=limit)

    def diff(self, old: str = "HEAD", new: str | None = None, path: str | None = None) -> list[FileDiff]:
        """``memfs diff``: per-memory changes from ``old`` to ``new`` (``None``: the working tree)."""
        from memfs.store.history import diff

        return diff(self.store, old, new, path)

    def revert(self, commit: str, *, reason: str | None = None, actor: str | None = None) -> str:
        """``memfs revert``: undo ``commit`` with one new commit (nothing changes on a conflict)."""
        from memfs.store.history import revert

        return revert(self.store, commit, reason=reason, actor=actor)

    def history(self, path: str) -> list[Revision]:
        """``memfs history``: every committed revision of one memory, oldest first."""
        from memfs.store.history import revisions

        return revisions(self.store, path)

    # --- search and recall ---------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        scope: str | None = None,
        version: str | None = None,
        at: dt.datetime | None = None,
        type: str | None = None,
        limit: int = 10,
        inherit: bool = False,
        explain: bool = False,
        policy: RankPolicy | None = None,
        catch_up: bool = True,
        record: bool = False,
        descendants: bool = False,
    ) -> SearchResult:
        """``memfs search``: eligible memories for ``query``, best first (:func:`memfs.index.search`).
        ``record`` counts the hits as recalled in the usage statistics (the CLI and MCP do);
        ``descendants`` also searches the scopes below ``scope`` (not in a bound session)."""
        from memfs import index

        result = index.search(
            self.store, query, scope=scope, version=version, at=at, type=type, limit=limit, inherit=inherit,
            explain=explain, policy=policy, catch_up=catch_up, descendants=descendants,
        )
        if record and result.hits:
            from memfs.store import usage

            usage.record_recall(self.store, [hit.path for hit in result.hits])
        return result

    def live_server(self, *, debounce: float | None = None, polling: bool = False) -> SocketServer:
        """``memfs serve``: the live index of this repository and its socket, not started yet
        (:mod:`memfs.agents.live.server`; run it with ``serve_forever`` or as a context manager)."""
        from memfs.agents.live.server import DEBOUNCE_SECONDS, LiveIndex, SocketServer

        return SocketServer(LiveIndex(self.store, debounce=DEBOUNCE_SECONDS if debounce is None else debounce,
                                      polling=polling))

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
        from memfs.agents.live.server import status

        return status(self.root)

    def live_stop(self) -> bool:
        """``memfs serve --stop``: ask the running live index to stop; whether one was running."""
        from memfs.agents.live.server import request_stop

        return request_stop(self.root)

    def reindex(self, *, progress: Callable[[int, int], None] | None = None) -> ReindexReport:
        """``memfs reindex``: rebuild the search index from the files."""
        from memfs import index

        return index.reindex(self.store, progress=progress)

    def context(
        self,
        task: str,
        *,
        scope: str | Sequence[str] | None,
        version: str | None = None,
        budget: int = 4000,
        format: str = "markdown",
        inherit: bool = False,
        system_share: float = 0.5,
        count: TokenCounter | None = None,
        at: dt.datetime | None = None,
        min_relevance: float = 0.2,
    ) -> Context:
        """``memfs context``: the memory to put in front of a model for ``task``, within ``budget``.
        ``scope`` may list several scopes, each matched exactly; ``min_relevance`` drops hits below
        that fraction of the best hit's relevance."""
        from memfs.agents.context import assemble
        from memfs.policy.tokens import estimate_tokens

        return assemble(
            self.store, task, scope=scope, version=version, budget=budget, format=format, inherit=inherit,
            system_share=system_share, count=count or estimate_tokens, at=at, min_relevance=min_relevance,
        )

    def eval(self, cases: str | os.PathLike[str], *, deletion: bool = True) -> EvalReport:
        """``memfs eval CASES``: context metrics (hit rate, wrong injections by cause, leakage,
        tokens, deletion propagation, writes by trailer) over a cases file (YAML or JSONL)."""
        from pathlib import Path

        from memfs.agents.evaluate import evaluate, load_cases

        return evaluate(self.store, load_cases(Path(cases), self.store), deletion=deletion)

    # --- lineage -------------------------------------------------------------------------
    def retract(self, paths: Iterable[str], *, reason: str, actor: str | None = None) -> RetractResult:
        """``memfs retract``: retract ``paths`` and flag everything derived from them, one commit."""
        from memfs.ops.retract import retract

        return retract(self.store, paths, reason=reason, actor=actor)

    def reinstate(self, path: str, *, reason: str, actor: str | None = None) -> ReinstateResult:
        """``memfs reinstate``: a reviewed ``needs_review`` memory back to active, if it still has
        an independent active source."""
        from memfs.ops.retract import reinstate

        return reinstate(self.store, path, reason=reason, actor=actor)

    def impact(self, paths: Iterable[str]) -> Plan:
        """``memfs impact``: what retracting ``paths`` would flag (changes nothing)."""
        from memfs.ops.retract import impact

        return impact(self.store, paths)

    def graph(self, path: str, *, depth: int | None = None) -> GraphView:
        """``memfs graph``: what ``path`` was derived from and what was derived from it."""
        from memfs.ops.retract import graph_view

        return graph_view(self.store, path, max_depth=depth)

    def review_queue(self) -> list[ReviewGroup]:
        """``memfs review``: every memory awaiting review, grouped by the retraction that flagged it."""
        from memfs.ops.retract import review_queue

        return review_queue(self.store)

    def review(self, base: str, head: str = "HEAD") -> ReviewSummary:
        """``memfs review BASE..HEAD``: what a branch changes in memory, for a pull request."""
        from memfs.ops.branch_review import summarize

        return summarize(self.store, base, head)

    # --- lifecycle -----------------------------------------------------------------------
    def remember(
        self, candidate: Candidate | Mapping[str, Any], *, force: bool = False, actor: str | None = None
    ) -> Outcome:
        """``memfs remember``: gate, reconcile and store one candidate (a
        :class:`~memfs.policy.candidate.Candidate` or the mapping ``--json`` takes), one commit."""
        from memfs.ops.remember import remember
        from memfs.policy.candidate import Candidate, from_mapping

        built = candidate if isinstance(candidate, Candidate) else from_mapping(candidate)
        return remember(self.store, built, force=force, actor=actor)

    def remember_batch(
        self, candidates: Iterable[Candidate | Mapping[str, Any]], *, force: bool = False, actor: str | None = None
    ) -> BatchResult:
        """Many candidates in one commit (an import); refused ones are skipped and reported."""
        from memfs.ops.remember import remember_batch
        from memfs.policy.candidate import Candidate, from_mapping

        built = [c if isinstance(c, Candidate) else from_mapping(c) for c in candidates]
        return remember_batch(self.store, built, force=force, actor=actor)

    def expire(
        self, *, now: dt.datetime | None = None, archive: bool = False, dry_run: bool = False,
        actor: str | None = None,
    ) -> SweepResult:
        """``memfs expire``: mark memories past their ``expires`` as expired, in one commit."""
        from memfs.ops.forget import expire

        return expire(self.store, now=now, archive=archive, dry_run=dry_run, actor=actor)

    def forget(
        self, path: str, *, reason: str | None = None, expected_revision: int | None = None,
        actor: str | None = None,
    ) -> ForgetResult:
        """``memfs forget``: stop recalling one memory (its text stays in history)."""
        from memfs.ops.forget import forget

        return forget(self.store, path, reason=reason, expected_revision=expected_revision, actor=actor)

    def purge_plan(self, path: str) -> PurgePlan:
        """What ``purge`` of ``path`` would rewrite (for a confirmation prompt); reads only."""
        from memfs.ops.purge import plan

        return plan(self.store, path)

    def purge(self, path: str, *, reason: str, actor: str | None = None) -> PurgeReport:
        """``memfs purge``: erase a memory from the work tree, the caches and every commit."""
        from memfs.ops.purge import purge

        return purge(self.store, path, reason=reason, actor=actor)

    def prune(
        self, *, now: dt.datetime | None = None, apply: bool = False, actor: str | None = None
    ) -> PruneResult:
        """``memfs prune``: what the forgetting policy in ``.memfs.toml`` proposes to expire, archive
        or retract (a dry run), or with ``apply`` all of it in one commit."""
        from memfs.ops.prune import prune

        return prune(self.store, now=now, apply=apply, actor=actor)

    def consolidate(
        self, *, now: dt.datetime | None = None, apply: bool = False, scope: str | None = None,
        summariser: AnySummariser | None = None, actor: str | None = None,
    ) -> ConsolidateResult:
        """``memfs consolidate``: groups of related episodes and their summaries (a dry run), or with
        ``apply`` one summary memory per group, the episodes superseded, in one commit."""
        from memfs.ops.consolidate import consolidate

        return consolidate(self.store, now=now, apply=apply, scope=scope, summariser=summariser, actor=actor)

    def stats(self) -> Stats:
        """``memfs stats``: counts by status and type, and recall statistics."""
        from memfs.ops.stats import stats

        return stats(self.store)

    # --- other systems -------------------------------------------------------------------
    def import_(
        self,
        format: str,
        source: str | os.PathLike[str],
        *,
        scope: str | None = None,
        source_text: str | None = None,
        source_kind: str | None = None,
        type: str | None = None,
        prefix: str | None = None,
        apply: bool = False,
        force: bool = False,
        reason: str | None = None,
        actor: str | None = None,
    ) -> ImportReport:
        """``memfs import``: the notes of the folder ``source`` (``letta``, ``basic-memory``,
        ``obsidian`` or ``markdown``) as memories, one commit when ``apply`` (else a dry run);
        every file is judged on its own and refused ones are reported, not dropped."""
        from memfs.ops.interop import import_

        return import_(
            self.store, format, source, scope=scope, source_text=source_text, source_kind=source_kind, type=type,
            prefix=prefix, apply=apply, force=force, reason=reason, actor=actor,
        )

    def export(
        self,
        format: str,
        dest: str | os.PathLike[str],
        *,
        scope: str | None = None,
        inherit: bool = False,
        version: str | None = None,
        apply: bool = False,
        force: bool = False,
        now: dt.datetime | None = None,
    ) -> ExportReport:
        """``memfs export``: the memories recall would give, written to ``dest`` in ``format``
        (``letta``) with memfs's fields in a sidecar; only when ``apply`` (else a dry run)."""
        from memfs.ops.interop import export

        return export(self.store, format, dest, scope=scope, inherit=inherit, version=version, apply=apply, force=force,
                      now=now)

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
    def sync(
        self, *, remote: str | None = None, branch: str | None = None, mode: str | None = None, push: bool = True
    ) -> SyncResult:
        """``memfs sync``: fetch, integrate and push; never force-pushes."""
        from memfs.ops.sync import sync

        return sync(self.store, remote=remote, branch=branch, mode=mode, push=push)

    def propose(
        self, *, branch: str | None = None, remote: str | None = None, base: str | None = None,
        keep_main: bool = False, reason: str | None = None,
    ) -> ProposeResult:
        """``memfs propose``: put pending memory changes on a review branch and push it."""
        from memfs.ops.sync import propose

        return propose(self.store, branch=branch, remote=remote, base=base, keep_main=keep_main, reason=reason)

    def install_merge_driver(self, command: str | None = None) -> Installed:
        """``memfs install-merge-driver``: register the frontmatter-aware merge driver in this clone."""
        from memfs.ops.mergedriver import install

        return install(self.store, command)

