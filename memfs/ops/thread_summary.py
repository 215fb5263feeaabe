"""Thread summaries stored as ``type: summary`` memories (the record itself is :mod:`memfs.policy.transcript`).

One file per thread, ``summaries/<thread_id>.md``. :func:`save_summary` writes version ``n + 1``
only over version ``n`` (or version 1 over nothing), so two writers that both summarised version
``n`` cannot silently overwrite each other: the second gets a :class:`ConflictError`. A summary is
a snapshot, so it takes an ``expires`` time like any summary through the write gate
(``summary-without-expiry``; a person may force it).
"""

from __future__ import annotations

import datetime as dt

from memfs.errors import ConflictError, InvalidMemory, WriteRefused
from memfs.policy import gate, guard
from memfs.policy.candidate import Candidate
from memfs.policy.transcript import SummaryRecord, record_from_body, summary_body, summary_problems
from memfs.store.repo import CommitResult, Store

SUMMARY_DIR = "summaries"


def summary_path(thread_id: str) -> str:
    problems = summary_problems({"thread_id": thread_id})
    if any(p.startswith("thread_id") for p in problems):
        raise InvalidMemory(f"thread {thread_id!r}: thread_id must be 1-128 letters, digits or _ . : @ + = -", [])
    return f"{SUMMARY_DIR}/{thread_id.replace(':', '_')}.md"


def load_summary(repo: Store, thread_id: str) -> SummaryRecord | None:
    """The stored summary of a thread, or ``None`` if there is none yet."""
    rel = summary_path(thread_id)
    if not repo.exists(rel):
        return None
    memory = repo.read(rel)
    return record_from_body(memory.body, rel)


def save_summary(
    repo: Store,
    record: SummaryRecord,
    *,
    scope: str,
    expires: dt.datetime | None = None,
    reason: str | None = None,
    actor: str | None = None,
    force: bool = False,
) -> CommitResult:
    """Validate and commit ``record`` as the next version of its thread's summary memory, valid
    until ``expires``. The write gate judges it like a remembered summary: no secrets, and an
    ``expires`` time unless a person forces it."""
    problems = summary_problems(record.to_json())
    if problems:
        raise InvalidMemory(f"summary of {record.thread_id}: " + "; ".join(problems), [])
    rel = summary_path(record.thread_id)
    body = summary_body(record)
    source = f"thread:{record.thread_id}#{record.covered_until_message_id}"
    person = guard.actor_kind(actor or repo.actor) == guard.PERSON
    fields = {
        "id": f"summary-{record.thread_id.replace(':', '-')}",
        "type": "summary",
        "scope": scope,
        "key": f"thread_summary:{record.thread_id}",
        "source": source,
        "source_kind": "agent",
        "expires": expires,
        "description": f"Summary of thread {record.thread_id} (version {record.summary_version}): {record.goal}"[:200],
    }
    with repo.transaction("summarize", reason=reason, actor=actor, subject=rel) as tx:
        candidate = Candidate(scope, body, type="summary", source=source, source_kind="agent", expires=expires)
        refused = gate.check(candidate)
        blocking = [r for r in refused if not (force and person and r.forceable)]
        if blocking:
            raise WriteRefused(blocking)
        stored = None
        if tx.current_bytes(rel) is not None:
            stored = record_from_body(tx.read(rel).body, rel)
        expected = 1 if stored is None else stored.summary_version + 1
        if record.summary_version != expected:
            have = "no summary" if stored is None else f"version {stored.summary_version}"
            raise ConflictError(
                f"{rel}: has {have}, so the next summary must be version {expected}, not "
                f"{record.summary_version}; load it again and build on it with next_summary()"
            )
        if stored is not None and stored.thread_id != record.thread_id:
            raise ConflictError(f"{rel}: belongs to thread {stored.thread_id!r}")
        tx.write(rel, fields=fields, body=body)
    return tx.result
