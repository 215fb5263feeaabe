"""Recall policy, as pure functions: who may be recalled (eligibility) and in which order (rank).

Eligibility comes first and is absolute: a memory is recallable for (scope, version, now) only if
its scope is the asked one (or, when the caller asks for inheritance, one of its ancestors),
it applies to the asked version (or to every version), it is ``active``, it has a source, and it
has not expired (``now >= expires`` is expired). A memory that validation rejects
(``unreadable``: the fields it rejects, :func:`memfs.format.validate.rejected`, such as an
eligibility field present but invalid, a confidence of 7) fails closed: it is never eligible,
since reading a broken ``version`` or ``expires`` as absent would make it apply to every version,
forever. No relevance
score compensates for a failed check. The index pushes the same restriction into its query so
eligible memories are never crowded out; :func:`eligibility` stays the final word on every
returned hit.

Rank follows three rules, in order:

1. **Coverage first.** A memory containing more of the query's distinct terms (in any field) ranks
   above one containing fewer. Only terms found in at most half of the indexed memories count:
   a term in more than half of them is one classic BM25 gives a negative weight, so it neither
   rewards nor punishes (English function words are already dropped by the analyzer).
2. **Relevance within the same coverage.** BM25F (field boosts included) orders memories that
   cover the same number of terms; a boost can never lift a memory over one covering more terms,
   so one word in a path or title never beats every word in a body.
3. **Freshness and confidence only between similar relevances.** ``freshness = 2^(-age /
   half_life)`` (the half-life depends on the type; procedures do not age, except those a tool or
   an agent observed, which age with the half-life ``observed_procedure``, 90 days unless
   ``.memfs.toml`` says otherwise) and the confidence multiply into a factor ``f`` in [0, 1]; the
   relevance is scaled by ``(1 + f) / 2``, so age and doubt can at most halve it: they reorder
   two memories of the same coverage whose relevances are within a factor of 2, never a memory
   covering more terms below one covering fewer, and never lift one above its own relevance.

Functions here accept any object with the :class:`~memfs.format.model.Memory` attributes they read
(``scope``, ``version``, ``status``, ``source``, ``expires``, ``type``, ``created``, ``updated``,
``confidence``, ``unreadable``), so the index can apply them to stored fields without reading files.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from memfs.errors import UsageError
from memfs.format.config import Config
from memfs.format.validate import scope_problem

DAY = 86400.0

#: The half-life key of procedures whose source is a tool's or an agent's observation.
OBSERVED_PROCEDURE = "observed_procedure"
#: Source kinds that observe a single event (a procedure from them is not yet an established rule).
OBSERVERS = ("tool", "agent")

#: Default half-lives in days; ``None`` means the type does not age.
DEFAULT_HALF_LIVES: dict[str, float | None] = {
    "preference": 365.0,
    "fact": 365.0,
    "episode": 365.0,
    "summary": 365.0,
    "note": 365.0,
    "procedure": None,
    OBSERVED_PROCEDURE: 90.0,
}


class Recallable(Protocol):
    """What :func:`eligibility` reads. Read-only, so frozen records (``Memory``, the index's stored
    fields) satisfy it."""

    @property
    def scope(self) -> str | None: ...
    @property
    def version(self) -> str | None: ...
    @property
    def status(self) -> str | None: ...
    @property
    def source(self) -> str | None: ...
    @property
    def expires(self) -> dt.datetime | None: ...
    @property
    def unreadable(self) -> tuple[str, ...]: ...


class Ageing(Protocol):
    """What :func:`freshness` reads."""

    @property
    def type(self) -> str | None: ...
    @property
    def created(self) -> dt.datetime | None: ...
    @property
    def updated(self) -> dt.datetime | None: ...


class Confident(Protocol):
    """What :func:`confidence_factor` reads."""

    @property
    def confidence(self) -> float | None: ...


@dataclass(frozen=True)
class ScopeRule:
    """Which memory scopes a request for ``scope`` may see.

    ``scope=None`` means "any scope" (administrative search; agents should always name one).
    ``inherit=True`` adds the scope's ancestors by whole ``/`` segments: ``user:U5/project:P8``
    sees ``user:U5/project:P8`` and ``user:U5``, never ``user:U50`` nor ``user:U5/project:P80``.
    ``descendants=True`` adds the scopes below it, by whole segments too: ``memories`` sees
    ``memories/u5`` but not ``memories2`` (a namespace-prefix search, as LangGraph's; never for a
    bound session, whose boundary is its scope and, at most, its ancestors).
    """

    scope: str | None
    inherit: bool = False
    descendants: bool = False

    @property
    def scopes(self) -> tuple[str, ...] | None:
        if self.scope is None:
            return None
        if not self.inherit:
            return (self.scope,)
        parts = self.scope.split("/")
        return tuple("/".join(parts[:n]) for n in range(len(parts), 0, -1))

    def allows(self, scope: str | None) -> bool:
        allowed = self.scopes
        if allowed is None:
            return True
        if scope is None:
            return False
        return scope in allowed or (self.descendants and scope.startswith(f"{self.scope}/"))


#: What an agent-facing request without a scope is told: the fix ``memfs tool``, ``memfs mcp`` and
#: ``memfs context`` give alike.
ONE_SCOPE_FIX = "give --scope (e.g. user:U5), or --all-scopes to administer every scope"


def people(scopes: Iterable[str | None]) -> list[str]:
    """The persons (``user:`` segments, by whole segment) ``scopes`` belong to, sorted:
    ``user:maria/project:P8`` and ``user:mariana`` are two people; ``project:P8`` is nobody."""
    return sorted({seg for scope in scopes if scope for seg in scope.split("/") if seg.startswith("user:")})


def check_one_person(scopes: Iterable[str | None], what: str) -> None:
    """Fail closed when ``what`` (recalled without a scope) belongs to more than one person: an
    unscoped request never mixes people silently (:data:`ONE_SCOPE_FIX` says how to ask)."""
    found = people(scopes)
    if len(found) > 1:
        raise UsageError(f"{what} belong to more than one person ({', '.join(found)}): {ONE_SCOPE_FIX}",
                         param="scope")


def check_scope(scope: str | None) -> str | None:
    """The asked scope, validated like a memory's scope; :class:`UsageError` if it is malformed."""
    if scope is None:
        return None
    scope = scope.strip()
    why = scope_problem(scope)
    if why:
        raise UsageError(f"{scope!r}: {why}; write it like user:U5/project:P8", param="scope")
    return scope


def eligibility(
    memory: Recallable,
    *,
    scope: str | ScopeRule | None,
    version: str | None,
    now: dt.datetime,
) -> str | None:
    """Why ``memory`` may not be recalled for this request, or ``None`` when it may.

    ``version=None`` asks for no particular version: every version is eligible.
    """
    if memory.unreadable:
        return f"unreadable {', '.join(memory.unreadable)} (memfs validate says why)"
    rule = scope if isinstance(scope, ScopeRule) else ScopeRule(scope)
    if not rule.allows(memory.scope):
        return f"wrong scope ({memory.scope or 'none'})"
    if version is not None and memory.version is not None and memory.version != version:
        return f"wrong version ({memory.version})"
    if memory.status != "active":
        return f"status is {memory.status or 'missing'}"
    if not (memory.source or "").strip():
        return "no source"
    if memory.expires is not None and now >= memory.expires:
        return f"expired at {memory.expires.isoformat().replace('+00:00', 'Z')}"
    return None


@dataclass(frozen=True)
class RankPolicy:
    """Half-lives (days) per memory type; a type absent from the map, or mapped to ``None``, never ages."""

    half_lives: Mapping[str, float | None] = field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))

    @classmethod
    def from_config(cls, config: Config) -> RankPolicy:
        """The defaults, overridden by ``[recall.half_life_days]`` of ``.memfs.toml``."""
        return cls({**DEFAULT_HALF_LIVES, **config.half_life_days})


def freshness(memory: Ageing, now: dt.datetime, policy: RankPolicy) -> float:
    """``2^(-age / half_life)`` with age from ``updated`` (else ``created``); 1 when it cannot age.
    A procedure a tool or an agent observed (its ``source_kind``, when the record has one) ages as
    :data:`OBSERVED_PROCEDURE`."""
    kind = memory.type or ""
    if kind == "procedure" and getattr(memory, "source_kind", None) in OBSERVERS:
        kind = OBSERVED_PROCEDURE
    half_life = policy.half_lives.get(kind)
    when = memory.updated or memory.created
    if not half_life or when is None:
        return 1.0
    age = (now - when).total_seconds()
    if age <= 0:
        return 1.0
    return math.pow(2.0, -age / (half_life * DAY))


def confidence_factor(memory: Confident) -> float:
    value = memory.confidence
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return 1.0
    return min(1.0, max(0.0, float(value)))


#: How much of a memory's relevance freshness × confidence can take away (rule 3): at most half.
DAMPING = 0.5


def rank_key(coverage: int, relevance: float, fresh: float, confidence: float) -> tuple[int, float]:
    """The order of search hits, best first when sorted descending: coverage, then relevance
    scaled by ``1 - DAMPING × (1 - freshness × confidence)`` (rules 1-3 above)."""
    factor = min(1.0, max(0.0, fresh * confidence))
    return coverage, relevance * (1.0 - DAMPING * (1.0 - factor))


def final_score(coverage: int, ranked_relevance: float) -> float:
    """One number that orders hits like :func:`rank_key`: the coverage plus a fraction below 1
    that grows with the scaled relevance (``r / (1 + r)``)."""
    r = max(0.0, ranked_relevance)
    return coverage + r / (1.0 + r)
