"""How sync settles two clones' concurrent changes to one memory (pure: no I/O).

Git sees two texts; memfs sees two changes to one subject ``(scope, key, version)``. When the
commits a clone integrates (``upstream``) and the clone's own commits (``local``) both changed a
memory file since their common ancestor (``base``), :func:`settle` decides the file from the three
versions by the reconcile rules (:mod:`memfs.policy.reconcile`), never leaving a text conflict:

==============================  ================================================================
both sides wrote the same        that file
one side kept the ancestor       the other side's file (what git would do)
one deleted it, one changed it   REVIEW: the changed file, held ``needs_review`` for a person
both added it, other subjects    KEEP_BOTH: upstream keeps the path, the local memory moves to a
                                 free path (:attr:`Settled.relocate`)
one withdrew it (retracted it,   REVIEW: the new value, held ``needs_review`` (a ``gate`` record,
or it became needs_review), the  rule ``concurrent-retraction``): the withdrawal was about the old
other changed its value          value, nobody judged the new one. ``memfs reinstate`` (a person)
                                 keeps it; ``memfs retract`` withdraws it. A later edit of a held
                                 memory is held again, so a hold is never lost
both changed the value (or both  SUPERSEDE by :func:`precedence`: the winner's file; the loser is
added the same subject)          the previous revision in history
one changed the value            that side's file: a new value replaces its provenance, as
                                 ``remember``'s SUPERSEDE does
neither changed the value        field merge (:func:`memfs.policy.merge.merge_fields`); a field
                                 both changed differently takes the winner's value
==============================  ================================================================

The value is the body, compared as :func:`memfs.policy.reconcile.normalise` compares values. In
every case but "the same" and "one side kept the ancestor" the settled file's ``revision`` is one
above both sides', so it stays above every revision the memory ever had. A side that does not
parse as a memory cannot be settled (:attr:`Settled.rule` ``unreadable``): the caller falls back
to git's text merge, and validation names the file.

:func:`orphans` is the other half: after any integration, an active memory that one side derived
from a memory the other side retracted is flagged, as the retraction would have flagged it had it
seen the memory. :func:`duplicates` keeps one active memory per subject when the two sides made
the same subject active in two different files (one side retracted a memory and remembered the
subject anew at a new path while the other changed the old file): the newest value stays active,
the others become ``superseded``, as ``remember``'s SUPERSEDE would have left them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.errors import InvalidMemory
from memfs.format import yamlio
from memfs.format.model import Memory
from memfs.format.names import default_id
from memfs.format.parse import load_document, parse
from memfs.policy import gate, lineage, merge
from memfs.policy.guard import PERSON, actor_kind
from memfs.policy.reconcile import normalise

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
#: The ``gate`` record's rule for a change that needs a person.
CONCURRENT_RETRACTION = "concurrent-retraction"
CONCURRENT_DELETION = "concurrent-deletion"
#: Statuses that withdraw a memory pending nothing (retracted) or pending a person (needs_review).
WITHDRAWN = ("retracted", "needs_review")
#: What a new value brings with it (as ``remember``'s SUPERSEDE replaces it): taken from the side
#: that changed the value, whatever the other side did to them.
VALUE_FIELDS = ("status", "source", "source_kind", "confidence", "evidence", "description", "expires",
                "depends_on", gate.RECORD)


@dataclass(frozen=True)
class Side:
    """One side's file (``None``: deleted) and who last wrote it there (a commit's author)."""

    data: bytes | None
    actor: str = ""


@dataclass(frozen=True)
class Settled:
    """What the file becomes: ``content`` (``None``: deleted), which rule decided, ``winner``
    (``local``/``upstream`` when one side's value was chosen), ``review`` (why a person must look,
    when the file is held ``needs_review``) and ``relocate`` (the local memory's bytes, to be
    kept at a free path: KEEP_BOTH)."""

    rule: str
    content: bytes | None
    winner: str | None = None
    review: str | None = None
    relocate: bytes | None = None


def precedence(memory: Memory, actor: str, data: bytes) -> tuple[int, dt.datetime, int, bytes]:
    """The order of two concurrent values: revision, then ``updated``, then a person over an agent
    or a tool, then the bytes' digest (a total order, so every clone settles a pair alike)."""
    person = 1 if actor_kind(actor) == PERSON else 0
    return memory.revision, memory.updated or EPOCH, person, hashlib.sha256(data).digest()


def settle(path: str, base: bytes | None, local: Side, upstream: Side, now: dt.datetime, actor: str) -> Settled:
    """The file at ``path`` after integrating ``upstream`` into ``local`` (see the module table).
    ``now`` and ``actor`` (the clone settling it) go into a review record."""
    if local.data == upstream.data:
        return Settled("same", local.data)
    if local.data == base:
        return Settled("one-sided", upstream.data, "upstream")
    if upstream.data == base:
        return Settled("one-sided", local.data, "local")
    try:
        old = parse(path, base) if base is not None else None
        mine = parse(path, local.data) if local.data is not None else None
        theirs = parse(path, upstream.data) if upstream.data is not None else None
    except InvalidMemory:
        return Settled("unreadable", None)
    if mine is None or theirs is None:
        kept, by = (local, "local") if mine is not None else (upstream, "upstream")
        gone = upstream.actor if by == "local" else local.actor
        why = f"{gone or 'a clone'} deleted {path} while {kept.actor or 'another clone'} changed it"
        assert kept.data is not None
        return _held(path, kept.data, (kept.data,), CONCURRENT_DELETION, why, now, actor, by)
    if old is None and _subject(mine) != _subject(theirs):
        return Settled("keep-both", upstream.data, "upstream", relocate=local.data)
    return _settle_values(path, old, (mine, local), (theirs, upstream), now, actor)


def _settle_values(
    path: str, old: Memory | None, local: tuple[Memory, Side], upstream: tuple[Memory, Side], now: dt.datetime,
    actor: str,
) -> Settled:
    (mine, me), (theirs, them) = local, upstream
    assert me.data is not None and them.data is not None
    datas = (me.data, them.data)
    value = {"local": _changed_value(old, mine), "upstream": _changed_value(old, theirs)}
    withdrawn = {"local": _withdrawn(old, mine), "upstream": _withdrawn(old, theirs)}
    winner = "local" if precedence(mine, me.actor, me.data) > precedence(theirs, them.actor, them.data) else "upstream"
    if value["local"] and value["upstream"]:
        return Settled("supersede", _with_revision(path, datas, me.data if winner == "local" else them.data), winner)
    sides = {"local": (mine, me), "upstream": (theirs, them)}
    by = "local" if value["local"] else "upstream" if value["upstream"] else winner
    top, side = sides[by]
    assert side.data is not None
    if not value[by]:
        return Settled("fields", _merged_fields(path, old, mine, theirs, (top, side.data)), winner)
    merged = _merged_fields(path, old, mine, theirs, (top, side.data), VALUE_FIELDS)
    other = them if by == "local" else me
    if withdrawn["upstream" if by == "local" else "local"]:
        why = (
            f"{other.actor or 'a clone'} withdrew {path} while {side.actor or 'another clone'} gave it a new "
            "value; the new value is held for a person"
        )
        return _held(path, merged, datas, CONCURRENT_RETRACTION, why, now, actor, by)
    return Settled("value", merged, by)


def _subject(memory: Memory) -> tuple[Any, ...]:
    if memory.key:
        return memory.scope, memory.key, memory.version
    return memory.scope, normalise(memory.body), memory.version


def _changed_value(old: Memory | None, new: Memory) -> bool:
    return old is None or normalise(old.body) != normalise(new.body)


def _withdrawn(old: Memory | None, new: Memory) -> bool:
    """Retracted, or held for review (a retraction upstream of it, a review hold), by this side."""
    return new.status in WITHDRAWN and (old is None or old.status != new.status)


def _top_revision(path: str, datas: tuple[bytes, ...]) -> int:
    revisions = []
    for data in datas:
        try:
            revisions.append(parse(path, data).revision)
        except InvalidMemory:
            continue
    return max(revisions, default=0) + 1


def _edited(path: str, data: bytes, changes: Mapping[str, Any]) -> bytes:
    doc, _ = load_document(path, data)
    return doc.with_frontmatter(yamlio.edit(doc.frontmatter, changes, doc.newline)).render().encode("utf-8")


def _with_revision(path: str, datas: tuple[bytes, ...], data: bytes) -> bytes:
    return _edited(path, data, {"revision": _top_revision(path, datas)})


def _held(
    path: str, data: bytes, datas: tuple[bytes, ...], rule: str, why: str, now: dt.datetime, actor: str, by: str
) -> Settled:
    """``data`` held ``needs_review`` with a ``gate`` record, as the write gate holds a memory for
    a person: ``memfs review`` lists it, ``memfs reinstate`` (a person) restores it."""
    memory = parse(path, data)
    held = memory.meta.get(gate.RECORD)
    asked = held.get("confidence") if isinstance(held, dict) else memory.confidence
    asked = asked if isinstance(asked, int | float) and not isinstance(asked, bool) else 0.8
    record = {
        "rule": rule,
        "reason": why,
        "override": f"memfs reinstate {path} --reason ... keeps this value; memfs retract {path} withdraws it",
        "at": now,
        "actor": actor,
        "confidence": asked,
    }
    changes: dict[str, Any] = {
        "status": "needs_review",
        "confidence": min(asked, gate.DOWNGRADED_CONFIDENCE),
        gate.RECORD: record,
        "revision": _top_revision(path, datas),
    }
    return Settled("review", _edited(path, data, changes), by, review=why)


def _merged_fields(
    path: str, old: Memory | None, mine: Memory, theirs: Memory, top: tuple[Memory, bytes], keep: tuple[str, ...] = ()
) -> bytes:
    """The fields merged, a field both changed differently (and every field in ``keep``) taking
    the winner's value; the winner's text (its body too) with only the changed lines replaced."""
    base_meta: Mapping[str, Any] = old.meta if old is not None else {}
    fields = merge.merge_fields(base_meta, mine.meta, theirs.meta)
    winner, data = top
    meta = dict(fields.meta)
    for key in (*fields.conflicts, *keep):
        if key in winner.meta:
            meta[key] = winner.meta[key]
        else:
            meta.pop(key, None)
    meta["revision"] = max(mine.revision, theirs.revision) + 1
    changes: dict[str, Any] = {k: v for k, v in meta.items() if winner.meta.get(k, merge.MISSING) != v}
    changes.update({k: None for k in winner.meta if k not in meta})
    return _edited(path, data, changes)


def relocated(old: str, new: str, data: bytes) -> bytes:
    """``data`` moved from ``old`` to ``new``: an ``id`` that was the old path's default becomes the
    new path's (the memory left at ``old`` keeps the old one; two files never share an id)."""
    doc, meta = load_document(old, data)
    if meta.get("id") != default_id(old):
        return data
    return doc.with_frontmatter(yamlio.edit(doc.frontmatter, {"id": default_id(new)}, doc.newline)).render().encode()


def duplicates(known: Mapping[str, Memory], changed: Collection[str]) -> dict[str, str]:
    """Active keyed memories among ``known`` that share a subject with another active one, where
    at least one of the group is in ``changed``: each loser's path -> the winner's. The winner is
    the newest value (``updated``, then ``revision``, then the path: every clone picks alike)."""
    groups: dict[tuple[Any, ...], list[str]] = {}
    for path, memory in known.items():
        if memory.status == "active" and memory.key:
            groups.setdefault(_subject(memory), []).append(path)
    losers: dict[str, str] = {}
    for paths in groups.values():
        if len(paths) < 2 or not set(paths) & set(changed):
            continue
        winner = max(paths, key=lambda p: (known[p].updated or EPOCH, known[p].revision, p))
        losers.update({p: winner for p in paths if p != winner})
    return losers


def orphans(changed: Mapping[str, Memory], known: Mapping[str, Memory]) -> dict[str, list[str]]:
    """Active memories among ``changed`` that depend on a retracted memory, or on one flagged by a
    retraction, mapped to the roots to record (``invalidated_by``); transitively within
    ``changed``. ``known`` holds every parent's current memory (``changed`` ones included).
    A memory a reviewer reinstated stays as it is: the review cleared it."""
    flagged: dict[str, list[str]] = {}
    status = {p: m.status for p, m in known.items()}
    roots_of = {p: [r.root for r in lineage.invalidations(m)] for p, m in known.items()}
    moving = True
    while moving:
        moving = False
        for path, memory in changed.items():
            if path in flagged or memory.status != "active" or lineage.was_reinstated(memory):
                continue
            roots: list[str] = []
            for parent in memory.depends_on:
                if status.get(parent) == "retracted":
                    roots.append(parent)
                elif status.get(parent) == "needs_review" and roots_of.get(parent):
                    roots += roots_of[parent]
            if roots:
                flagged[path] = list(dict.fromkeys(roots))
                status[path], roots_of[path] = "needs_review", flagged[path]
                moving = True
    return flagged
