"""Searching: the text query, the eligibility restriction folded into it, exact top-N ranking."""

from __future__ import annotations

import dataclasses
import datetime as dt
import heapq
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memfs.errors import MemfsError, UsageError
from memfs.format.limits import Limits
from memfs.format.model import TYPES, Memory, Problem, utcnow
from memfs.index import postings
from memfs.index.analysis import is_cjk, tokens
from memfs.index.catchup import rebuild, sync, uncommitted
from memfs.index.documents import FIELD_BOOSTS, NONE, epoch_us
from memfs.index.postings import SPARSE_BELOW, Parts, union
from memfs.index.reader import Handle, Holds, Mask, Restriction, close, handle
from memfs.index.results import Filtered, Hit, SearchResult
from memfs.policy import recall
from memfs.policy.hybrid import guarded
from memfs.store import paths
from memfs.store.repo import Store

MAX_QUERY_CHARS = 20_000
MAX_QUERY_TERMS = 64
#: a candidate hit: its :func:`recall.rank_key`, path, (relevance, freshness, confidence), and
#: document number
Candidate = tuple[tuple[int, float], str, tuple[float, float, float], int]
#: ``[semantic]``: (the query, eligible memory paths) -> (paths by similarity, best first, with it;
#: the memories the embedder failed on). Raises :class:`MemfsError` when the query cannot be embedded.
Near = Callable[[str, list[str]], tuple[list[tuple[str, float]], list[Problem]]]


def query_terms(text: str) -> list[str]:
    """The unique index terms of a query, in order (at most :data:`MAX_QUERY_TERMS`)."""
    return list(dict.fromkeys(tokens(text[:MAX_QUERY_CHARS])))[:MAX_QUERY_TERMS]


@dataclass(frozen=True)
class Clause:
    """One field's share of a query term: its ``words`` (the term itself, or the indexed bigrams a
    lone CJK character starts, of which a memory's best counts) and the most it can add."""

    field: str
    words: tuple[str, ...]
    bound: float


@dataclass(frozen=True)
class TermPlan:
    """A query term's words per field (:data:`~memfs.index.postings.Parts`), and whether it counts
    toward coverage (see :class:`TextQuery`)."""

    term: str
    parts: Parts
    counted: bool


@dataclass(frozen=True)
class TextQuery:
    """The text query and how to read its scores back.

    A memory's score is the sum, over the query terms and text fields, of the field's boost times
    its BM25 score for the term (Whoosh's BM25F). Each *counted* term (one found in at most half of
    the indexed memories) also adds ``tier`` to the score of a memory that contains it, in any
    field; ``tier`` exceeds the largest possible sum of BM25F scores, so ``score // tier`` is the
    number of counted terms a memory contains (its coverage) and ``score % tier`` its BM25F
    relevance: ordering by score orders by coverage first. A term found in more than half the
    memories is what classic BM25 gives a negative weight (``log((N - n + 0.5) / (n + 0.5)) < 0``):
    it says little about any memory, so it adds relevance but no coverage.
    """

    terms: tuple[TermPlan, ...]
    tier: float

    def split(self, score: float) -> tuple[int, float]:
        """``(coverage, relevance)`` of a score."""
        coverage = int(score // self.tier)
        return coverage, max(0.0, score - coverage * self.tier)


def _clauses(opened: Handle, term: str) -> list[Clause]:
    """One clause per text field holding ``term``, with the largest BM25F score it can give.

    A lone CJK character matches every indexed bigram that starts with it; the clause takes the
    best of those a memory holds, so its score stays bounded like a single term's.
    """
    stats = opened.stats
    gain = postings.BM25_K1 + 1.0
    out: list[Clause] = []
    for name, boost in FIELD_BOOSTS.items():
        if len(term) == 1 and is_cjk(term):
            words = opened.prefixed(name, term)
            if words:
                out.append(Clause(name, words, max(stats.idf(name, w) for w in words) * gain * boost))
        elif stats.df(name, term) > 0:
            out.append(Clause(name, (term,), stats.idf(name, term) * gain * boost))
    return out


def _rare(opened: Handle, term: str, parts: Parts) -> bool:
    """Whether at most half of the indexed memories contain ``term`` (in any field): the field
    document frequencies decide when they can; otherwise the memories are counted."""
    stats = opened.stats
    half = float(stats.count) / 2
    if not (len(term) == 1 and is_cjk(term)):
        dfs = [stats.df(name, term) for name in FIELD_BOOSTS]
        if max(dfs) > half:
            return False
        if sum(dfs) <= half:
            return True
    return len(opened.terms.term(parts)) <= half


def _text_query(opened: Handle, terms: Iterable[str]) -> TextQuery:
    """Every term's clauses, which terms count, and the coverage tier (:class:`TextQuery`)."""
    per_term = [(term, _clauses(opened, term)) for term in terms]
    per_term = [(term, clauses) for term, clauses in per_term if clauses]
    tier = float(math.floor(sum(c.bound for _t, clauses in per_term for c in clauses)) + 1)
    plans = []
    for term, clauses in per_term:
        parts = tuple((c.field, c.words) for c in clauses)
        plans.append(TermPlan(term, parts, _rare(opened, term, parts)))
    return TextQuery(tuple(plans), tier)


class _Pool:
    """The memories a text query matches with their scores, best first on demand.

    Scores are added up term by term over whole posting lists (:mod:`memfs.index.postings`) and
    are exact; the pool holds the matching documents (ascending) and their scores, not a slot per
    document of the index. With counted terms, only the memories holding at least one are
    candidates at first: a memory holding none scores below all of them, so it is needed only
    when those run out.
    """

    def __init__(self, opened: Handle, text: TextQuery, keep: Mask | None) -> None:
        terms = opened.terms
        totals = [(plan.counted, terms.term(plan.parts)) for plan in text.terms]
        counted = sorted((t for c, t in totals if c), key=len, reverse=True)
        self.uncounted = [t for c, t in totals if not c]
        self.size = terms.size
        self.keep = keep
        if counted:
            found = union(counted, self.size, add=text.tier)
            self.ids, self.scores = found.ids, found.scores.copy()
            for total in self.uncounted:
                at, held = _positions(self.ids, total.ids, self.size)
                self.scores[at[held]] += total.scores[held]
        else:
            found = union(self.uncounted, self.size)
            self.ids, self.scores = found.ids, found.scores
        self.rest = bool(counted) and bool(self.uncounted)
        self._candidates: npt.NDArray[np.intp] | None = None

    def candidates(self) -> npt.NDArray[np.intp]:
        """The positions (in :attr:`ids`) of the kept documents."""
        if self._candidates is None:
            every = np.arange(len(self.ids))
            self._candidates = every if self.keep is None else every[self.keep[self.ids]]
        return self._candidates

    def top(self, n: int) -> list[tuple[float, int]]:
        """The best ``n`` kept memories as ``(score, document)``, best first (ties by document
        number, so a longer ask begins with a shorter one's answer)."""
        if len(self.candidates()) < n and self.rest:
            self._add_uncovered()
        at = self.candidates()
        found, scores = self.ids[at].astype(np.intp), self.scores[at]
        if len(found) > n:
            nth = -np.partition(-scores, n - 1)[n - 1]
            above = np.flatnonzero(scores > nth)
            tied = np.flatnonzero(scores == nth)[: n - len(above)]
            pick = np.concatenate([above, tied])
            found, scores = found[pick], scores[pick]
        order = np.lexsort((found, -scores))
        return list(zip(scores[order].tolist(), found[order].tolist(), strict=True))

    def _add_uncovered(self) -> None:
        extra = union(self.uncounted, self.size)
        _at, held = _positions(self.ids, extra.ids, self.size)
        ids = np.concatenate([self.ids, extra.ids[~held]])
        order = np.argsort(ids, kind="stable")
        self.ids, self.scores = ids[order], np.concatenate([self.scores, extra.scores[~held]])[order]
        self._candidates = None
        self.rest = False


def _positions(ids: npt.NDArray[np.int32], wanted: npt.NDArray[np.int32],
               size: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Where each of ``wanted`` is in the ascending ``ids`` (document numbers under ``size``), and
    whether it is there at all: by binary search for a few, through a slot per document for many
    (a term in most memories)."""
    if len(wanted) * SPARSE_BELOW < size:
        at = np.minimum(np.searchsorted(ids, wanted), max(len(ids) - 1, 0))
        held = ids[at] == wanted if len(ids) else np.zeros(len(wanted), np.bool_)
        return at, held
    slot = np.full(size, -1, np.intp)
    slot[ids] = np.arange(len(ids))
    at = slot[wanted]
    held = at >= 0
    return np.where(held, at, 0), held


def _restriction(rule: recall.ScopeRule, version: str | None, type_: str | None) -> Restriction:
    """The eligibility restriction of a session: every clause must hold (status active, sourced,
    readable, in scope, of the version, of the type)."""
    clauses = [Holds("status", ("active",)), Holds("sourced", ("yes",)), Holds("readable", ("yes",))]
    if rule.scopes is not None:
        clauses.append(Holds("scope", tuple(rule.scopes), f"{rule.scope}/" if rule.descendants else None))
    if version is not None:
        clauses.append(Holds("version", (version, NONE)))
    if type_ is not None:
        clauses.append(Holds("type", (type_,)))
    return tuple(clauses)


def _check_request(query: Any, limit: Any, type_: str | None, at: dt.datetime | None) -> None:
    if not isinstance(query, str) or not query.strip():
        raise UsageError("the search query is empty; say what to look for, e.g. 'release notes'", param="query")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise UsageError(f"{limit!r}: must be a whole number of at least 1", param="limit")
    if type_ is not None and type_ not in TYPES:
        raise UsageError(f"{type_!r}: unknown type; use one of: {', '.join(TYPES)}", param="type")
    if at is not None and at.tzinfo is None:
        raise UsageError(f"{at.isoformat()}: has no time zone; add one, e.g. Z", param="at")


def search(
    repo: Store,
    query: str,
    *,
    scope: str | None = None,
    version: str | None = None,
    at: dt.datetime | None = None,
    type: str | None = None,
    limit: int = 10,
    inherit: bool = False,
    explain: bool = False,
    policy: recall.RankPolicy | None = None,
    catch_up: bool = True,
    descendants: bool = False,
    near: Near | None = None,
) -> SearchResult:
    """Eligible memories for ``query`` in ``scope``, best first (the ranking rules of :mod:`memfs.policy.recall`).

    ``scope`` is matched exactly (``inherit=True`` adds its ancestors by whole ``/`` segments,
    ``descendants=True`` the scopes below it; ``None`` searches every scope). ``version=None``
    accepts every version. ``at`` is "now" for expiry and freshness (default: the current time).
    ``explain`` also fills ``filtered`` with memories that matched the words but are not eligible.
    Broken memory files are listed in ``broken``; ``notices`` carries anything the caller should
    show the user (a rebuild, a stale index). ``catch_up=False`` skips the check against the
    files (for callers that just did it).

    Hits come from the working tree; each says whether its file differs from HEAD
    (``Hit.uncommitted``), and ``uncommitted`` lists every such memory path, from the
    ``git status`` the catch-up runs anyway (one more without the catch-up).

    ``near`` (``[semantic]``) ranks eligible memories by vector similarity; it is asked only when
    BM25 has fewer than ``limit`` hits, and its hits only fill the places BM25 left empty
    (:func:`memfs.policy.hybrid.guarded`). An embedder that fails costs its hits, never BM25's.
    """
    _check_request(query, limit, type, at)
    scope, inherit = repo.recall_scope(scope, inherit)
    if descendants and repo.binding is not None:
        raise UsageError(f"this session is bound to scope {repo.binding.scope}; it cannot read the scopes below it",
                         param="descendants")
    now = at or utcnow()
    policy = policy or recall.RankPolicy.from_config(repo.config())
    rule = recall.ScopeRule(scope, inherit, descendants)
    terms = query_terms(query)
    result = SearchResult(query, scope, version, now, inherit, terms)
    if len(query) > MAX_QUERY_CHARS or len(dict.fromkeys(tokens(query[:MAX_QUERY_CHARS]))) > MAX_QUERY_TERMS:
        result.notices.append(f"memfs: the query is long; only its first {MAX_QUERY_TERMS} distinct words are used")
    if catch_up:
        report = sync(repo)
        result.notices.extend(report.notices)
        result.stale = report.stale
        result.uncommitted = report.uncommitted
    else:
        result.uncommitted = uncommitted(repo)
    opened = _open_handle(repo, result)
    result.broken = [p for p in opened.broken() if repo.binding is None or p.path.startswith("system/")]
    keep = opened.allowed((rule, version, type), _restriction(rule, version, type)) & ~opened.expired(epoch_us(now))
    if not terms:
        result.notices.append("memfs: the query has no searchable words (only punctuation or very common words)")
        if near is not None:
            _fill(repo, opened, keep, near, result, limit, (rule, version, type), policy)
        return result
    q = _text_query(opened, terms)
    ranked = _in_rank_order(opened, q, _Pool(opened, q, keep), now, policy)
    for hit in _final(repo, opened, ranked, rule, version, type, now, result):
        result.hits.append(hit)
        if len(result.hits) == limit:
            break
    if near is not None and len(result.hits) < limit:
        _fill(repo, opened, keep, near, result, limit, (rule, version, type), policy)
    if explain:
        result.filtered = _filtered_out(opened, q, rule, version, type, now, limit, bound=repo.binding is not None)
    return result


def _fill(repo: Store, opened: Handle, keep: Mask, near: Near, result: SearchResult, limit: int,
          asked: tuple[recall.ScopeRule, str | None, str | None], policy: recall.RankPolicy) -> None:
    """The places BM25 left empty, by vector similarity among the eligible memories it did not
    find; each re-read and re-checked like BM25's. An embedder failure on the query leaves
    BM25's hits alone; one on a memory leaves that memory out, and both are said in notices."""
    have = [hit.path for hit in result.hits]
    held = set(have)
    numbered = [(int(doc), *opened.record(int(doc))) for doc in np.flatnonzero(keep)]
    stored = {rel: record for _doc, rel, record in numbered}
    docs = {rel: doc for doc, rel, _record in numbered}
    try:
        ranked, problems = near(result.query, [rel for rel in stored if rel not in held])
    except MemfsError as exc:
        result.notices.append(f"memfs: {exc.message}; words only")
        return
    result.notices.extend(f"memfs: {p.message}; not ranked by the vectors" for p in problems)
    similarity = dict(ranked)
    order = guarded(have, [rel for rel, _ in ranked], limit)[len(have):]
    candidates = ((recall.rank_key(0, 0.0, 1.0, 1.0), rel, (0.0, recall.freshness(stored[rel], result.at, policy),
                   stored[rel].confidence), docs[rel]) for rel in order)
    rule, version, type_ = asked
    for hit in _final(repo, opened, candidates, rule, version, type_, result.at, result):
        result.hits.append(dataclasses.replace(hit, similarity=similarity[hit.path]))


def _open_handle(repo: Store, result: SearchResult) -> Handle:
    """The open index; one that cannot be opened (corrupt, or removed by a concurrent rebuild) is rebuilt."""
    try:
        return handle(repo)
    except Exception as exc:
        close(repo)
        result.notices.append(f"memfs: rebuilding the search index: it could not be opened ({type(exc).__name__})")
    try:
        rebuild(repo)
        return handle(repo)
    except MemfsError:
        raise
    except Exception as exc:
        raise MemfsError(
            f"cannot open the search index in {repo.cache_dir} ({type(exc).__name__}); "
            "delete that folder (it is only a cache) and search again"
        ) from None


def _in_rank_order(opened: Handle, text: TextQuery, pool: _Pool, now: dt.datetime,
                   policy: recall.RankPolicy) -> Iterator[Candidate]:
    """Eligible candidates in :func:`recall.rank_key` order, each one final when it is yielded,
    and no more of them read from the index than the caller takes.

    Scores order by ``coverage × tier + relevance``; :func:`recall.rank_key` orders by coverage,
    then by relevance shrunk by freshness and confidence (never grown). So a candidate whose key
    is above the ``(coverage, relevance)`` of the best one not yet read can be yielded: nothing
    further down can overtake it, nor tie with it and win on the path.
    """
    waiting: list[tuple[tuple[int, float], str, Candidate]] = []
    fetch = 16
    top = pool.top(fetch)
    i = 0
    while True:
        if i == len(top) and len(top) == fetch:
            fetch *= 4
            top = pool.top(fetch)
        bound = text.split(top[i][0]) if i < len(top) else None
        while waiting and (bound is None or waiting[0][2][0] > bound):
            yield heapq.heappop(waiting)[2]
        if bound is None:
            return
        found = _candidate(opened, text, top[i], now, policy)
        heapq.heappush(waiting, ((-found[0][0], -found[0][1]), found[1], found))
        i += 1


def _candidate(opened: Handle, text: TextQuery, scored: tuple[float, int], now: dt.datetime,
               policy: recall.RankPolicy) -> Candidate:
    score, doc = scored
    path, stored = opened.record(doc)
    fresh = recall.freshness(stored, now, policy)
    conf = stored.confidence
    coverage, relevance = text.split(score)
    return recall.rank_key(coverage, relevance, fresh, conf), path, (relevance, fresh, conf), doc


def _final(repo: Store, opened: Handle, ranked: Iterable[Candidate], rule: recall.ScopeRule, version: str | None,
           type_: str | None, now: dt.datetime, result: SearchResult) -> Iterator[Hit]:
    """Each candidate's memory as its file is now (:func:`_current`), and :func:`recall.eligibility`
    applied to it: the final word."""
    known = {p.path for p in result.broken}
    limits = repo.limits()
    under = dataclasses.astuple(limits)
    for key, rel, (relevance, fresh, conf), doc in ranked:
        memory, broken = _current(repo, opened, doc, rel, (limits, under))
        if memory is None:
            if broken and rel not in known and repo.binding is None:
                result.broken.append(Problem(rel, None, broken, "fix the file; search skips it until it parses"))
            continue
        if recall.eligibility(memory, scope=rule, version=version, now=now) is not None:
            continue
        if type_ is not None and memory.type != type_:
            continue
        changed = result.uncommitted is None or rel in result.uncommitted
        yield Hit(memory, recall.final_score(*key), relevance, fresh, conf, changed)


def _current(repo: Store, opened: Handle, doc: int, rel: str,
             limits: tuple[Limits, tuple[Any, ...]]) -> tuple[Memory | None, str | None]:
    """(the memory at ``rel`` as its file is now, why it does not parse): what the index kept of
    document ``doc`` while the file still has the signature of the bytes that was parsed from
    (by ``lstat``: :func:`paths.signed_unchanged`) under the same limits, so no byte is read and
    nothing parsed; otherwise the file read and parsed (:meth:`~memfs.store.reading.Reader.load`).
    Eligibility is applied to either by the caller, now: an expiry passed, a status changed by
    an edit, a file gone or replaced, all count."""
    kept = opened.kept(doc)
    if kept is not None:
        signature, under, parsed = kept
        if parsed.path == rel and under == limits[1] and paths.signed_unchanged(repo.root, rel, signature):
            return parsed, None
    _data, memory, broken = repo.load(rel, limits[0])
    return memory, broken


def _filtered_out(opened: Handle, q: TextQuery, rule: recall.ScopeRule, version: str | None, type_: str | None,
                  now: dt.datetime, limit: int, *, bound: bool = False) -> list[Filtered]:
    """Memories that matched the words but are not eligible, with why; a bound session hears only
    of its own scope's (another scope's memories do not exist for it)."""
    found = []
    for score, doc in _Pool(opened, q, None).top(limit * 5 + 20):
        path, stored = opened.record(doc)
        if bound and not rule.allows(stored.scope):
            continue
        reason = recall.eligibility(stored, scope=rule, version=version, now=now)
        if reason is None and type_ is not None and stored.type != type_:
            reason = f"wrong type ({stored.type})"
        if reason is not None:
            found.append(Filtered(path, reason, q.split(score)[1]))
            if len(found) == limit:
                break
    return found
