"""What a live index answers beyond one root's search and context: a ``remember`` a client sends
instead of loading the write path itself, and a search over several roots one server hosts.

The work is the direct path's, in the server's process: ``remember`` runs
:func:`memfs.ops.remember.remember` (the gate, reconciliation and the one commit path with its guard),
on the server's writing store, whose git probe is exact at the call; a search over several roots
runs :func:`memfs.agents.roots.search` over the hosted roots' kept stores. A refusal is an answer
too (:func:`memfs.errors.to_wire`): the client raises it as the direct path would have, and never does the
write a second time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Mapping
from typing import Any

from memfs.agents.live.server import Busy, LiveIndex, call_args
from memfs.agents.live.view import remember_view, roots_search_view
from memfs.errors import MemfsError, UsageError, to_wire
from memfs.ops.verbs.lifecycle import Remember
from memfs.ops.verbs.recall import Search


def remember(live: LiveIndex, args: Any) -> dict[str, Any]:
    """``memfs remember`` done here: the outcome as the CLI prints it, the notices of opening the
    store and of the judge; once the reply is sent, the write is searchable through ``live``."""
    from memfs.ops import judge
    from memfs.ops.remember import remember as run

    op, actor, as_json = call_args(Remember, args)
    writer = live.writer
    store = type(writer)(writer.root, writer.git, actor)
    try:
        with live.writing:
            outcome = run(store, op.candidate, force=op.force, actor=op.actor)
    except MemfsError as exc:
        return {"ok": False, "error": str(exc), "failure": to_wire(exc), "judge": judge.drain()}
    notices = judge.drain()
    live.settle()
    return {"ok": True, "notices": store.notices, "judge": notices, "view": remember_view(outcome, as_json=as_json)}


def search_roots(lives: Mapping[str, LiveIndex], args: Any) -> dict[str, Any]:
    """A search over several roots this server hosts, in the order the client gave them (which
    the merge's ties follow), each root in its own session as :class:`memfs.repos.MemoryRepos`
    opens it; a root this server does not host is a usage error (the client searches itself)."""
    from memfs.agents import roots
    from memfs.format.model import utcnow

    if not isinstance(args, dict) or not isinstance(args.get("roots"), list):
        raise UsageError("arguments must name the roots")
    asked = [lives.get(str(root)) for root in args["roots"]]
    hosted = [live for live in asked if live is not None]
    if len(hosted) != len(asked) or len({id(live) for live in hosted}) != len(hosted) or len(hosted) < 2:
        raise UsageError("this live index does not serve every root asked for")
    op, actor, as_json = call_args(Search, {k: v for k, v in args.items() if k != "roots"})
    try:
        with _reading(hosted) as stores:
            views = [s if op.scope is None else s.session(op.scope, inherit=bool(op.inherit))
                     for s in (type(st)(st.root, st.git, actor) for st in stores)]
            result = roots.search(roots.labelled(views), dataclasses.replace(op, catch_up=False, record=False),
                                  in_turn=True)
    except Busy as exc:
        return {"ok": False, "busy": True, "error": str(exc)}
    when = utcnow()
    for root, found in zip(result.roots, result.results, strict=True):
        hosting = lives[os.path.realpath(root.store.root)]
        hosting.note_recalls(root.store, [hit.path for hit in found.hits], when)
    return {"ok": True, "notices": [], "view": roots_search_view(result, as_json=as_json),
            "errors": [str(e) for e in result.errors], "answered": len(result.roots)}


@contextlib.contextmanager
def _reading(hosted: list[LiveIndex]) -> Iterator[list[Any]]:
    """Every hosted index held for reading at once (taken in the order of their roots, so two
    searches over the same roots never wait for each other's second), their open indexes
    shared with this thread as :meth:`LiveIndex.read` does."""
    from memfs.index import reader

    taken: list[LiveIndex] = []
    handles: dict[str, Any] = {}
    try:
        for live in sorted(hosted, key=lambda one: str(one.repo.root)):
            if not live.lock.acquire(timeout=live.query_wait):
                raise Busy("the live index is being rebuilt")
            taken.append(live)
            handles.update(live._handles)
        with reader.shared(handles):
            yield [live.repo for live in hosted]
        for live in hosted:
            cache = str(live.repo.cache_dir)
            live._handles.clear()
            if cache in handles:
                live._handles[cache] = handles[cache]
            live.answered += 1
    finally:
        for live in taken:
            live.lock.release()
