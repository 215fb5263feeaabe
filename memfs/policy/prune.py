"""The forgetting policy: which memories ``memfs prune`` proposes to expire, archive or retract
(pure: no I/O).

Rules come from ``[prune]`` in ``.memfs.toml`` (:class:`memfs.format.config.PruneConfig`); without
rules nothing is proposed. Each memory gets at most one proposal, from the first rule that applies:

=============  =========  ==========================================================================
rule           action     applies to
=============  =========  ==========================================================================
``review``     retract    waiting in ``needs_review`` longer than ``review_days`` with no
                          independent source left (it cannot be reinstated; retracting closes the
                          review, and flags what was derived from it, like ``memfs retract``)
``superseded`` archive    ``superseded``, ``expired`` or ``retracted`` for longer than
                          ``superseded_days`` (moved under ``archive/``; kept where it is while
                          another memory depends on it)
``unused``     expire     active, of a type in ``unused_days``, neither recalled nor changed for
                          that many days (last use: the recall statistics in ``.memfs/``, else
                          ``updated``, else ``created``)
``quota``      expire     active, of a type in ``quota``, beyond the N most recently used
=============  =========  ==========================================================================

``system/`` (core memory) and memories already under ``archive/`` are never proposed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from memfs.format.config import PruneConfig
from memfs.format.model import SYSTEM_DIR, jsonable

Action = Literal["expire", "archive", "retract"]
ARCHIVE_DIR = "archive"
DAY = dt.timedelta(days=1)
_WITHDRAWN = ("superseded", "expired", "retracted")


@dataclass(frozen=True)
class Item:
    """What the policy needs to know about one memory."""

    path: str
    type: str | None
    status: str | None
    created: dt.datetime | None
    updated: dt.datetime | None
    last_recall: dt.datetime | None = None
    dependents: int = 0
    reinstatable: bool = False

    @property
    def last_use(self) -> dt.datetime | None:
        """The last time it was recalled or changed."""
        times = [t for t in (self.last_recall, self.updated, self.created) if t is not None]
        return max(times) if times else None

    @property
    def changed(self) -> dt.datetime | None:
        return self.updated or self.created


@dataclass(frozen=True)
class Proposal:
    path: str
    action: Action
    rule: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "action": self.action, "rule": self.rule, "why": self.why}


def _days(delta: dt.timedelta) -> str:
    return f"{delta / DAY:.0f} days"


def plan(items: Iterable[Item], rules: PruneConfig, now: dt.datetime) -> list[Proposal]:
    """The proposals for ``items`` under ``rules`` at ``now``, in path order."""
    out: dict[str, Proposal] = {}
    candidates = [i for i in items if not i.path.startswith((SYSTEM_DIR + "/", ARCHIVE_DIR + "/"))]
    for item in candidates:
        found = _review(item, rules, now) or _superseded(item, rules, now) or _unused(item, rules, now)
        if found is not None:
            out[item.path] = found
    for kind, quota in sorted(rules.quota.items()):
        # what the other rules already expire does not count against the quota
        active = [i for i in candidates if i.type == kind and i.status == "active" and i.path not in out]
        never = dt.datetime.min.replace(tzinfo=dt.UTC)
        ranked = sorted(active, key=lambda i: (i.last_use or never, i.path), reverse=True)
        for item in ranked[quota:]:
            used = jsonable(item.last_use) if item.last_use else "never"
            out[item.path] = Proposal(item.path, "expire", f"quota:{kind}",
                                      f"more than {quota} active {kind} memories; this one was last used {used}")
    return [out[p] for p in sorted(out)]


def _review(item: Item, rules: PruneConfig, now: dt.datetime) -> Proposal | None:
    if rules.review_days is None or item.status != "needs_review" or item.reinstatable or item.changed is None:
        return None
    waited = now - item.changed
    if waited < rules.review_days * DAY:
        return None
    why = f"awaiting review for {_days(waited)} with no independent source left (limit {rules.review_days:g})"
    return Proposal(item.path, "retract", "review", why)


def _superseded(item: Item, rules: PruneConfig, now: dt.datetime) -> Proposal | None:
    if rules.superseded_days is None or item.status not in _WITHDRAWN or item.changed is None:
        return None
    age = now - item.changed
    if age < rules.superseded_days * DAY or item.dependents:
        return None
    return Proposal(item.path, "archive", "superseded",
                    f"{item.status} for {_days(age)} (limit {rules.superseded_days:g}); nothing depends on it")


def _unused(item: Item, rules: PruneConfig, now: dt.datetime) -> Proposal | None:
    limit = rules.unused_days.get(item.type or "")
    if limit is None or item.status != "active" or item.last_use is None:
        return None
    idle = now - item.last_use
    if idle < limit * DAY:
        return None
    return Proposal(item.path, "expire", f"unused:{item.type}",
                    f"not recalled or changed for {_days(idle)} (limit {limit:g} for {item.type})")
