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
"""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from memfs.ops.callables import load_callable
from memfs.policy import gate
from memfs.policy.candidate import Candidate
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


Classify = Callable[[JudgeQuestion], object]
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
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["answer"] = classify(question)
        except BaseException as exc:  # a judge's failure of any kind means: use the offline rules
            box["error"] = exc

    worker = threading.Thread(target=run, name="memfs-judge", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return _fallback(name, "timeout", f"gave no answer within {timeout:g} s", instead)
    if "error" in box:
        error = box["error"]
        return _fallback(name, "raised", f"raised {type(error).__name__}: {error}", instead)
    answer = box.get("answer")
    label = answer.strip().lower() if isinstance(answer, str) else None
    if label not in question.choices:
        return _fallback(name, "nonsense", f"answered {answer!r}, not one of {', '.join(question.choices)}", instead)
    return Reading(question.question, label, by=f"judge {name}")


def _fallback(name: str, kind: str, why: str, instead: str = "the offline rules decide instead") -> Reading | None:
    if (name, kind) not in _said:
        _said.add((name, kind))
        text = f"memfs: the judge {name} {why}; {instead}"
        _unread.append(text)
        warnings.warn(text, JudgeFallback, stacklevel=3)
    return None  # the offline rules read it


def notice(name: str, kind: str, why: str, instead: str) -> None:
    """Say once per process, judge and kind that a judge could not be used and what decides
    ``instead`` (for a door's own questions, such as MCP sampling's conflict decision)."""
    _fallback(name, kind, why, instead)


def drain() -> list[str]:
    """The fallback notices not yet shown (each once per process): for a door to print (the CLI
    does on stderr), since a host may route Python warnings elsewhere."""
    out = list(_unread)
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
    settings = repo.config().judge
    spec = settings.classify
    if spec is None:
        return None
    try:
        classify: Classify = load_callable(spec, "[judge] classify", outside=repo.git.workdir)
    except Exception as exc:  # importing a module runs its code: any failure means it cannot be used
        failure = str(exc)

        def missing(candidate: Candidate) -> Reading | None:
            return _fallback(spec, "missing", f"cannot be used ({failure})") if question_for(candidate) else None

        return missing

    def judged(candidate: Candidate) -> Reading | None:
        question = question_for(candidate)
        return None if question is None else ask(classify, spec, question, settings.timeout)

    return judged
