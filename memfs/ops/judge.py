"""The judge: a caller's callable that reads what a candidate means, for the write gate.

Configured in ``.memfs.toml`` like the summariser is named on the command line, as
``MODULE:FUNCTION``::

    [judge]
    classify = "memfs.integrations.anthropic_judge:classify"   # or your own
    timeout = 10                                              # seconds (default 10, at most 300)

**Contract.** ``classify(question: JudgeQuestion) -> str``. The question says which of the gate's
meaning questions is asked (:data:`memfs.policy.meaning.CHOICES`), the candidate's text, type,
source kind and scope, what the offline rules read, and ``choices``, the allowed answers:

* ``preference`` (the user's or an administrator's preference): ``lasting``, ``one-off`` (for this
  time, thread, letter, meeting, day or week only) or ``inferred`` (a guess about the user, not
  their statement);
* ``observation`` (a fact or note a tool or an agent observed once): ``status`` (how things are
  now) or ``durable-claim`` (that something always or never holds).

The answer is one of ``choices`` (case and surrounding space ignored). The callable runs in a
separate thread; memfs waits ``timeout`` seconds for it.

**Fallback.** A judge that is missing (no such module or function, or a module inside the
memory repository itself: a clone must not run its own code), raises, times out or answers
anything else: the offline rules decide, and memfs says so once per process and judge
(:class:`JudgeFallback`, a warning). A judge only reads meaning: the secret, ID, source and trust
rules and the core guard run whatever it answers, so nothing is written on its word alone that
they would refuse. Asked only where a question applies (a trusted preference, or a tool's or
agent's fact or note, without ``expires``), before the write lock is taken.

**Conflict decisions.** ``conflict = "MODULE:FUNCTION"`` names the judge of probable conflicts
(:mod:`memfs.policy.conflicts`): ``conflict(question: ConflictQuestion) -> str``, one of
``replace`` (the new memory replaces the active one), ``keep-both`` (both hold at once) or
``unrelated`` (they are about different things). It is asked about the pairs the offline rules
found (at most :data:`MAX_RULINGS` per write, newest first, until one is not ``unrelated``), then
about the few near misses of the wider net (:mod:`memfs.policy.conflict_net`), the same way: by
``remember`` for a keyless candidate whose caller decided nothing (no ``supersedes``, no
``keep_both``), before the lock, and by the file tools after a write, for the notice the model
reads. Its answer only chooses among what the rules and the wider net found: a ``replace`` is
the SUPERSEDE the rules would have made (on a near miss, the only way one is superseded),
through the same gate and guard; an answer memfs cannot use falls back
to the rules (the new value replaces the old), said once, as for ``classify``. Under ``memfs
mcp`` a host offering sampling is asked first (:mod:`memfs.mcp_sampling`), then this judge,
then the rules.
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from memfs.format.model import Memory
from memfs.ops import semantic
from memfs.ops.callables import load_callable
from memfs.policy import conflicts, gate
from memfs.policy.candidate import Candidate
from memfs.policy.conflicts import RULINGS, Ruling
from memfs.policy.meaning import CHOICES, Question, Reading
from memfs.store.repo import Store

#: What each question asks, in words a model prompt can use.
ASKS: dict[Question, str] = {
    "preference": "Is this the user's lasting preference (lasting), a request for this one time, thread, letter, "
                  "message, meeting, day or week only (one-off), or someone's guess about what the user prefers "
                  "rather than the user's own statement (inferred)?",
    "observation": "A tool or an agent observed this once. Is it a status, how things are now (status), or a claim "
                   "that something always, never or permanently holds (durable-claim)?",
}


class JudgeFallback(UserWarning):
    """The judge could not be used; the offline rules decided (said once per judge and reason)."""


@dataclass(frozen=True)
class JudgeQuestion:
    """What a judge is asked about one candidate (see the module's contract)."""

    question: Question
    asks: str
    text: str
    type: str
    source_kind: str | None
    scope: str
    choices: tuple[str, ...]
    offline: str


#: What a conflict judge is asked, in words a model prompt can use.
CONFLICT_ASKS = ("A new memory is being saved. The rules found an active memory of the same person and kind that "
                 "looks like an older value for the same subject. Does the new memory replace the existing one "
                 "(replace), are both true at once, so both should be kept (keep-both), or are they about "
                 "different things (unrelated)?")
#: What a conflict judge is asked about a near miss of the wider net (:mod:`memfs.policy.conflict_net`).
NEAR_ASKS = ("A new memory is being saved. An active memory of the same person and kind is similar to it, though "
             "memfs's rules found no conflict. Does the new memory replace the existing one (replace), are both "
             "true at once, so both should be kept (keep-both), or are they about different things (unrelated)?")
#: At most this many probable conflicts of one write are put to a conflict judge.
MAX_RULINGS = 3
_CONFLICT_INSTEAD = "the offline rules decide the probable conflict instead (the new value replaces the old)"


@dataclass(frozen=True)
class Side:
    """One memory of a probable conflict as a conflict judge sees it: its text, type, scope, who
    asserted it, its path (``None`` for a new memory not yet written) and when it was last set
    (ISO 8601, ``None`` when unknown or not yet written)."""

    text: str
    type: str
    scope: str
    source_kind: str | None
    path: str | None = None
    updated: str | None = None


@dataclass(frozen=True)
class ConflictQuestion:
    """What a conflict judge is asked about one pair (see the module's contract): does ``new``
    replace ``old``? ``offline`` says why the rules paired them; ``choices`` are the allowed
    answers (:data:`memfs.policy.conflicts.RULINGS`)."""

    asks: str
    new: Side
    old: Side
    offline: str
    choices: tuple[str, ...] = RULINGS


Classify = Callable[[JudgeQuestion], object]
Decide = Callable[[ConflictQuestion], object]
_said: set[tuple[str, str]] = set()
_unread: list[str] = []
#: A judge the door brings for the calls it makes (MCP sampling: the host's model), asked before
#: the ``[judge]`` of ``.memfs.toml``: (name, classify, timeout).
_host: ContextVar[tuple[str, Classify, float] | None] = ContextVar("memfs_host_judge", default=None)


@contextlib.contextmanager
def hosted(name: str, classify: Classify, timeout: float) -> Iterator[None]:
    """Within the block (this thread or task), ``classify`` reads meaning first; when it fails the
    ``[judge]`` or the offline rules read it, as for any judge (said once)."""
    token = _host.set((name, classify, timeout))
    try:
        yield
    finally:
        _host.reset(token)


def question_for(candidate: Candidate) -> JudgeQuestion | None:
    """The question a judge is asked about ``candidate``, or ``None`` when none applies."""
    asked = gate.question(candidate)
    if asked is None:
        return None
    return JudgeQuestion(asked, ASKS[asked], candidate.body, candidate.type, candidate.source_kind, candidate.scope,
                         CHOICES[asked], gate.read(candidate, asked).label)


def ask(classify: Classify, name: str, question: JudgeQuestion, timeout: float,
        instead: str = "the offline rules decide instead") -> Reading | None:
    """The judge's reading of ``question``, or ``None`` (and a warning, once, saying what decides
    ``instead``) when it cannot give one."""
    label = _answer(classify, name, question, question.choices, timeout, instead)
    return None if label is None else Reading(question.question, label, by=f"judge {name}")


def rule(decide: Decide, name: str, question: ConflictQuestion, timeout: float,
         instead: str = _CONFLICT_INSTEAD) -> Ruling | None:
    """The conflict judge's ruling on ``question``, or ``None`` (said once, as for :func:`ask`)."""
    label = _answer(decide, name, question, question.choices, timeout, instead)
    if label is None or question.old.path is None:
        return None
    answer: conflicts.Answer = "replace" if label == "replace" else "keep-both" if label == "keep-both" else "unrelated"
    return Ruling(question.old.path, answer, f"the judge {name}")


def _answer(judge: Callable[[Any], object], name: str, question: object, choices: tuple[str, ...], timeout: float,
            instead: str) -> str | None:
    """``judge``'s answer to ``question`` when it is one of ``choices`` (case and surrounding space
    ignored), asked on a thread and waited for ``timeout`` seconds; ``None`` otherwise, said once."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["answer"] = judge(question)
        except BaseException as exc:  # a judge's failure of any kind means: use the offline rules
            box["error"] = exc

    worker = threading.Thread(target=run, name="memfs-judge", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _fallback(name, "timeout", f"gave no answer within {timeout:g} s", instead)
        return None
    if "error" in box:
        error = box["error"]
        _fallback(name, "raised", f"raised {type(error).__name__}: {error}", instead)
        return None
    answer = box.get("answer")
    label = answer.strip().lower() if isinstance(answer, str) else None
    if label not in choices:
        _fallback(name, "nonsense", f"answered {answer!r}, not one of {', '.join(choices)}", instead)
        return None
    return label


def _fallback(name: str, kind: str, why: str, instead: str = "the offline rules decide instead") -> None:
    if (name, kind) not in _said:
        _said.add((name, kind))
        text = f"memfs: the judge {name} {why}; {instead}"
        _unread.append(text)
        warnings.warn(text, JudgeFallback, stacklevel=3)


def notice(name: str, kind: str, why: str, instead: str) -> None:
    """Say once per process, judge and kind that a judge could not be used and what decides
    ``instead`` (for a door's own questions, such as MCP sampling's conflict decision)."""
    _fallback(name, kind, why, instead)


def drain() -> list[str]:
    """The fallback notices not yet shown (each once per process): for a door to print (the CLI
    does on stderr), since a host may route Python warnings elsewhere; the ``[semantic]``
    embedder's notices about the wider net among them (:func:`memfs.ops.semantic.unread`)."""
    out = [*_unread, *semantic.unread()]
    _unread.clear()
    return out


def configured(repo: Store) -> Callable[[Candidate], Reading | None] | None:
    """The judge of ``repo`` as a function of a candidate: the door's own (:func:`hosted`) first,
    then the ``[judge]`` of ``.memfs.toml`` (``None``: neither; a judge that cannot be loaded
    reads nothing, and says so once)."""
    own = _configured(repo)
    host = _host.get()
    if host is None:
        return own
    name, classify, timeout = host
    instead = "the [judge] decides instead" if own is not None else "the offline rules decide instead"

    def first_the_host(candidate: Candidate) -> Reading | None:
        question = question_for(candidate)
        if question is None:
            return None
        reading = ask(classify, name, question, timeout, instead)
        return reading if reading is not None or own is None else own(candidate)

    return first_the_host


def _configured(repo: Store) -> Callable[[Candidate], Reading | None] | None:
    entry = _entry(repo, "classify")
    if entry is None:
        return None
    spec, classify, failure, timeout = entry
    if classify is None:

        def missing(candidate: Candidate) -> Reading | None:
            if question_for(candidate) is not None:
                _fallback(spec, "missing", f"cannot be used ({failure})")
            return None

        return missing

    def judged(candidate: Candidate) -> Reading | None:
        question = question_for(candidate)
        return None if question is None else ask(classify, spec, question, timeout)

    return judged


# --- conflict decisions -----------------------------------------------------------------------------------
def deciding(repo: Store) -> tuple[str, Decide | None, float] | None:
    """The ``[judge] conflict`` of ``repo``: (its name, the callable or ``None`` when it cannot be
    loaded, said once, the timeout); ``None`` when none is set."""
    entry = _entry(repo, "conflict")
    if entry is None:
        return None
    spec, decide, failure, timeout = entry
    if decide is None:
        _fallback(spec, "missing", f"cannot be used ({failure})", _CONFLICT_INSTEAD)
    return spec, decide, timeout


def _entry(repo: Store, entry: Literal["classify", "conflict"]) -> tuple[str, Any, str, float] | None:
    """``[judge] entry`` of ``repo``: (its name, the callable or ``None``, why it cannot be used,
    the timeout), or ``None`` when none is set (importing a module runs its code: any failure
    means it cannot be used; one inside the repository is refused)."""
    settings = repo.config().judge
    spec: str | None = getattr(settings, entry)
    if spec is None:
        return None
    try:
        return spec, load_callable(spec, f"[judge] {entry}", outside=repo.git.workdir), "", settings.timeout
    except Exception as exc:
        return spec, None, str(exc), settings.timeout


def side(memory: Memory) -> Side:
    """``memory`` as a conflict judge sees it."""
    when = memory.updated or memory.created
    return Side(memory.body.strip(), memory.type or "note", memory.scope or "", memory.source_kind, memory.path,
                when.isoformat() if when is not None else None)


def rulings_on(repo: Store, new: Side, rivals: list[tuple[Memory, conflicts.Verdict]],
               asks: str = CONFLICT_ASKS) -> dict[str, Ruling]:
    """The ``[judge] conflict``'s rulings on the probable conflicts ``rivals`` of ``new`` (newest
    first, as :func:`memfs.policy.conflicts.against` gives them), by the older memory's path:
    asked one by one, at most :data:`MAX_RULINGS`, until one is not ``unrelated`` or the judge
    gives no usable answer (the rules decide the rest), each asked ``asks`` (:data:`NEAR_ASKS`
    for near misses). Empty without a judge."""
    judge = deciding(repo) if rivals else None
    if judge is None:
        return {}
    name, decide, timeout = judge
    if decide is None:
        return {}
    found: dict[str, Ruling] = {}
    for memory, verdict in rivals[:MAX_RULINGS]:
        ruling = rule(decide, name, ConflictQuestion(asks, new, side(memory), verdict.why), timeout)
        if ruling is None:
            break
        found[memory.path] = ruling
        if ruling.answer != "unrelated":
            break
    return found


def rulings(repo: Store, candidate: Candidate) -> dict[str, Ruling]:
    """What the ``[judge] conflict`` rules on the probable conflicts of ``candidate``, for
    :func:`memfs.policy.reconcile.reconcile` (asked before the write lock): only for a keyless
    candidate whose caller decided nothing, and never about text the secret scan refuses. When
    the rules pair nothing, or the judge reads every pair as unrelated, it is asked about the near
    misses (:mod:`memfs.policy.conflict_net`: at most a few more questions); its ``replace`` on
    one is the only way a near miss is superseded."""
    if repo.config().judge.conflict is None or candidate.key or candidate.keep_both or candidate.supersedes:
        return {}
    if candidate.retract or gate.secrets(candidate):
        return {}
    from memfs.ops.conflicts import in_scope, near_misses

    scope = in_scope(repo, candidate.scope)
    rivals = conflicts.against(candidate, scope)
    new = Side(candidate.body.strip(), candidate.type, candidate.scope, candidate.source_kind)
    found = rulings_on(repo, new, rivals)
    if any(r.answer != "unrelated" for r in found.values()) or (rivals and len(found) < len(rivals[:MAX_RULINGS])):
        return found  # decided, or the judge gave no usable answer: the rules decide
    return found | rulings_on(repo, new, near_misses(repo, candidate, scope, [m.path for m, _ in rivals]), NEAR_ASKS)
