"""Reconcile a candidate with the memories already there (pure: no I/O).

The subject of a memory is ``(scope, key, version)``: one active memory per subject. Candidates
without a key are matched by *normalised content* within the same scope and version (see
:func:`normalise`), so saying the same thing twice never makes a second file.

=============  ===================================================================================
INSERT         nothing active about this subject (or this content, for keyless candidates)
REINFORCE      same value from a new source: ``updated`` and confidence go up, no new file, no new
               revision (the value did not change)
SUPERSEDE      a different value for the subject: the same file gets the new value, revision + 1;
               the old value stays in git history (``memfs history PATH``). Without a key, a
               *probable conflict* (:mod:`memfs.policy.conflicts`: same scope, type and version,
               same subject, another value) is one too, unless the candidate asks ``keep_both``
               or a judge rules otherwise (``rulings``: ``keep-both`` or ``unrelated``).
               An explicit ``supersedes`` (a path the caller checked) is one whatever the content
KEEP_BOTH      the key exists only in other scopes or for other versions, or the candidate asked
               (or a judge ruled) to keep a probable conflict: those stay, a new file is added
               beside them
RETRACT        an explicit correction (``retract: true``) withdrawing the active memory
NOOP           the idempotency key was already applied, or the exact same value from the same
               source again (a replay), or a retraction of something no longer active
=============  ===================================================================================
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from memfs.format.model import Memory
from memfs.policy import conflicts
from memfs.policy.candidate import Candidate

DEFAULT_EVIDENCE = 0.5
_SPACE = re.compile(r"\s+")
_EDGE_PUNCT = ".!?。！？…;；,，:："


class Op(StrEnum):
    INSERT = "INSERT"
    REINFORCE = "REINFORCE"
    SUPERSEDE = "SUPERSEDE"
    KEEP_BOTH = "KEEP_BOTH"
    RETRACT = "RETRACT"
    NOOP = "NOOP"

    @property
    def trailer(self) -> str:
        """The ``Memfs-Op`` value: lower case, ``keep-both``."""
        return self.value.lower().replace("_", "-")


@dataclass(frozen=True)
class Decision:
    op: Op
    reason: str
    target: Memory | None = None
    kept: tuple[str, ...] = ()
    #: Memories the rules paired with the candidate as another value of its subject that the caller
    #: or a judge kept apart (``keep_both``, ``keep-both``, ``unrelated``): the written memory's
    #: ``distinct_from``, so recall, ``validate`` and ``review`` stop pairing them.
    apart: tuple[str, ...] = ()


def normalise(text: str) -> str:
    """The form two values are compared in: Unicode NFKC (full-width → ASCII), case-folded,
    every whitespace run → one space, and leading/trailing whitespace and sentence punctuation
    removed. "Use English." and "use  english" are the same value; "use English" and "use Chinese"
    are not."""
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold())
    return text.strip().strip(_EDGE_PUNCT).strip()


def reinforced_confidence(old: float, evidence: float | None) -> float:
    """Independent confirmations combine as a noisy OR: ``1 - (1-old)(1-new)``; 0.8 twice → 0.96."""
    new = DEFAULT_EVIDENCE if evidence is None else evidence
    return round(1 - (1 - old) * (1 - new), 4)


def _same_subject(candidate: Candidate, memory: Memory) -> bool:
    if memory.scope != candidate.scope or memory.version != candidate.version:
        return False
    if candidate.key:
        return memory.key == candidate.key
    return normalise(memory.body) == normalise(candidate.body)


def _related(candidate: Candidate, memory: Memory) -> bool:
    if candidate.key:
        return memory.key == candidate.key
    return memory.scope == candidate.scope and normalise(memory.body) == normalise(candidate.body)


def _kept_apart(candidate: Candidate, others: list[Memory]) -> str:
    """Why a KEEP_BOTH: memories of the candidate's own scope (other versions) are named; those of
    other scopes are only counted, since the reason is shown to whoever remembers for this scope."""
    mine = [f"{m.path} (version {m.version or 'any'})" for m in others if m.scope == candidate.scope]
    foreign = len(others) - len(mine)
    parts = ([f"other versions in {', '.join(mine)}"] if mine else []) + (
        [f"{foreign} memor{'y' if foreign == 1 else 'ies'} in other scopes"] if foreign else []
    )
    return f"the key is also used by {' and '.join(parts)}; both are kept"


def _rival(candidate: Candidate, rivals: list[tuple[Memory, conflicts.Verdict]],
           rulings: Mapping[str, conflicts.Ruling]) -> Decision:
    """A keyless candidate that probably gives a new value for an active memory's subject
    (:mod:`memfs.policy.conflicts`): it replaces the newest such memory, unless ``keep_both``, or
    unless a judge ruled on that memory (``rulings``, by path): ``keep-both`` keeps both,
    ``replace`` replaces it (the same SUPERSEDE, named as the judge's)."""
    target, verdict = rivals[0]
    named = ", ".join(m.path for m, _ in rivals)
    ruling = rulings.get(target.path)
    paths = tuple(m.path for m, _ in rivals)
    if candidate.keep_both:
        return Decision(Op.KEEP_BOTH, f"probable conflict with {named} ({verdict.why}); both are kept, as asked",
                        None, paths, paths)
    if ruling is not None and ruling.answer == "keep-both":
        return Decision(Op.KEEP_BOTH, f"probable conflict with {named} ({verdict.why}); {ruling.by} reads both as "
                                      "true at once, so both are kept", None, paths, paths)
    extra = f" ({len(rivals) - 1} more: {', '.join(m.path for m, _ in rivals[1:])})" if rivals[1:] else ""
    why = (f"{ruling.by} reads it as replacing {target.path}" if ruling is not None and ruling.answer == "replace"
           else f"probable conflict: {verdict.why}")
    return Decision(
        Op.SUPERSEDE,
        f"{why}; the new value replaces revision {target.revision} of {target.path}{extra} (--keep-both keeps both)",
        target,
    )


def _unrelated(rivals: list[tuple[Memory, conflicts.Verdict]], rulings: Mapping[str, conflicts.Ruling]
               ) -> tuple[list[tuple[Memory, conflicts.Verdict]], list[conflicts.Ruling]]:
    """``rivals`` without those a judge ruled ``unrelated``, and those rulings."""
    apart = [r for m, _ in rivals if (r := rulings.get(m.path)) is not None and r.answer == "unrelated"]
    gone = {r.path for r in apart}
    return [(m, v) for m, v in rivals if m.path not in gone], apart


def _judged_near(candidate: Candidate, active: list[Memory], rulings: Mapping[str, conflicts.Ruling]
                 ) -> tuple[Memory, conflicts.Ruling] | None:
    """A near miss (:mod:`memfs.policy.conflict_net`) a judge ruled the candidate replaces: an
    active memory of its scope, type and version; never without that ruling, never with
    ``keep_both``."""
    if candidate.keep_both:
        return None
    probe = conflicts.probe_of(candidate)
    for memory in active:
        ruling = rulings.get(memory.path)
        if ruling is not None and ruling.answer == "replace" and conflicts.comparable(probe, memory):
            return memory, ruling
    return None


def reconcile(candidate: Candidate, memories: Iterable[Memory], applied_in: str | None = None,
              rulings: Mapping[str, conflicts.Ruling] | None = None) -> Decision:
    """What to do with ``candidate`` given ``memories`` (any set that includes every active memory
    with its key, or in its scope for keyless candidates; others are ignored). ``applied_in`` is
    the commit that already applied the candidate's idempotency key, if any. ``rulings`` are a
    judge's answers about the probable conflicts of a keyless candidate, by the older memory's
    path: they only choose among the memories the rules pair with it (a memory ruled
    ``unrelated`` is not replaced; one no judge ruled on is decided by the rules)."""
    if applied_in is not None:
        return Decision(
            Op.NOOP, f"idempotency key {candidate.idempotency_key!r} was already applied in commit {applied_in[:10]}"
        )
    active = [m for m in memories if m.status == "active"]
    same = sorted((m for m in active if _same_subject(candidate, m)), key=lambda m: (-m.revision, m.path))
    subject = f"({candidate.scope}, {candidate.key})" if candidate.key else f"this content in {candidate.scope}"
    if candidate.retract:
        if not same:
            return Decision(Op.NOOP, f"nothing active to retract for {subject}")
        return Decision(Op.RETRACT, f"explicit correction withdraws {same[0].path}", same[0])
    chosen = next((m for m in active if candidate.supersedes and m.path == candidate.supersedes), None)
    if chosen is not None and normalise(chosen.body) != normalise(candidate.body):
        return Decision(Op.SUPERSEDE, f"the new value replaces revision {chosen.revision} of {chosen.path}, as asked "
                                      "(supersedes)", chosen)
    if same:
        target = same[0]
        extra = (
            f" ({len(same) - 1} more active duplicate(s): {', '.join(m.path for m in same[1:])})" if same[1:] else ""
        )
        if normalise(target.body) == normalise(candidate.body):
            if (candidate.source or "") == (target.source or ""):
                return Decision(Op.NOOP, f"{target.path} already says this, from the same source{extra}", target)
            return Decision(
                Op.REINFORCE, f"{target.path} already says this; confirmed by {candidate.source}{extra}", target
            )
        return Decision(
            Op.SUPERSEDE, f"new value for {subject} replaces revision {target.revision} of {target.path}{extra}", target
        )
    apart: list[conflicts.Ruling] = []
    if not candidate.key:
        rivals, apart = _unrelated(conflicts.against(candidate, active), rulings or {})
        if rivals:
            decided = _rival(candidate, rivals, rulings or {})
            return replace(decided, apart=tuple(sorted({*decided.apart, *(r.path for r in apart)})))
        replaced = _judged_near(candidate, active, rulings or {})
        if replaced is not None:
            target, ruling = replaced
            return Decision(Op.SUPERSEDE, f"{ruling.by} reads it as replacing {target.path}, a similar memory the "
                                          f"rules did not pair; the new value replaces revision {target.revision} "
                                          "(--keep-both keeps both)", target)
    unrelated = tuple(r.path for r in apart)
    others = tuple(m.path for m in active if _related(candidate, m))
    if others:
        return Decision(Op.KEEP_BOTH, _kept_apart(candidate, [m for m in active if m.path in others]), None, others,
                        tuple(sorted(unrelated)))
    if apart:
        return Decision(Op.INSERT, f"{apart[0].by} reads it as unrelated to {', '.join(unrelated)}, "
                                   "which the rules took for another value of its subject; both are kept",
                        apart=tuple(sorted(unrelated)))
    return Decision(Op.INSERT, f"nothing active about {subject} yet")
