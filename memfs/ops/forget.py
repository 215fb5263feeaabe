"""Forgetting without erasing: the expiry sweep and ``forget`` (hard deletion is :mod:`memfs.ops.purge`).

Expiry takes effect at read time, whatever the files say (recall checks ``expires`` on every
read); :func:`expire` later records it in the files, in one commit, and can move expired
memories under ``archive/``. :func:`forget` withdraws one memory from recall; its text stays in
the file and in history.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from dataclasses import dataclass, field
from typing import Any

from memfs.format.model import Memory, jsonable, utcnow
from memfs.ops.retract import retract
from memfs.store.repo import Store, Transaction


@dataclass
class SweepResult:
    commit: str | None
    expired: list[str] = field(default_factory=list)
    archived: dict[str, str] = field(default_factory=dict)
    kept_in_place: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "expired": self.expired,
            "archived": self.archived,
            "kept_in_place": self.kept_in_place,
        }


ARCHIVE_DIR = "archive"


def expire(
    repo: Store,
    *,
    now: dt.datetime | None = None,
    archive: bool = False,
    dry_run: bool = False,
    actor: str | None = None,
) -> SweepResult:
    """Mark every active memory whose ``expires`` has passed ``status: expired`` in one commit;
    with ``archive`` also move it under ``archive/`` (kept in place when others depend on it)."""
    now = now or utcnow()
    result = SweepResult(None)
    if dry_run:
        result.expired = [m.path for m in _due(repo, now)]
        return result
    with repo.transaction("expire", reason=f"expired as of {jsonable(now)}", actor=actor) as tx:
        due = _due(repo, now)
        for memory in due:
            updated = tx.write(memory.path, fields={"status": "expired"}, expected_revision=memory.revision)
            result.expired.append(memory.path)
            if not archive or memory.path.startswith(ARCHIVE_DIR + "/"):
                continue
            if repo.dependents(memory.path):
                result.kept_in_place.append(memory.path)
                continue
            destination = archive_path(tx, memory.path)
            data = tx.current_bytes(updated.path)
            assert data is not None
            tx.delete(memory.path, check_dependents=False)
            tx.write_bytes(destination, data)
            result.archived[memory.path] = destination
        # the subject counts memories, not files: an archive move touches two paths for one memory
        if len(due) == 1:
            moved = result.archived.get(due[0].path)
            tx.subject = due[0].path + (f" (archived to {moved})" if moved else "")
        elif due:
            tx.subject = f"{len(due)} memories"
    result.commit = tx.result.commit
    return result


def _due(repo: Store, now: dt.datetime) -> list[Memory]:
    return [m for m in repo.scan().memories if m.status == "active" and m.expires is not None and now >= m.expires]


def archive_path(tx: Transaction, rel: str) -> str:
    """A free path for ``rel`` under ``archive/`` (``-2``, ``-3``... when taken)."""
    stem, ext = posixpath.splitext(posixpath.join(ARCHIVE_DIR, rel))
    candidate, n = stem + ext, 2
    while tx.current_bytes(candidate) is not None:
        candidate, n = f"{stem}-{n}{ext}", n + 1
    return candidate


# --- soft forget ----------------------------------------------------------------------------
@dataclass(frozen=True)
class ForgetResult:
    """What :func:`forget` did: the commit, and the memories derived from the forgotten one that
    it flagged for review (``dependents``) in the same commit."""

    commit: str | None
    path: str
    dependents: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "path": self.path, "status": "retracted", "flagged": list(self.dependents)}


#: The reason recorded when ``forget`` is given none (every flagged memory says why it was flagged).
FORGET_REASON = "forgotten"


def forget(
    repo: Store,
    path: str,
    *,
    reason: str | None = None,
    expected_revision: int | None = None,
    actor: str | None = None,
) -> ForgetResult:
    """Stop recalling a memory: ``status: retracted``, and everything derived from it (the same
    closure along reverse ``depends_on`` as :func:`memfs.ops.retract.retract`) ``needs_review``
    with an ``invalidated_by`` record, in one commit. The content stays in the file and in history
    (use :func:`memfs.ops.purge.purge` to erase it)."""
    rel = repo.rel(path)
    result = retract(
        repo, [rel], reason=(reason or "").strip() or FORGET_REASON, actor=actor, verb="forget",
        expected_revision=expected_revision,
    )
    return ForgetResult(result.commit, rel, result.plan.downstream)
