"""Searching: the text query, the eligibility restriction folded into it, exact top-N ranking."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from memfs.errors import MemfsError, UsageError
from memfs.format.model import TYPES, Problem, utcnow
from memfs.index.analysis import is_cjk, tokens
from memfs.index.catchup import rebuild, sync, uncommitted
from memfs.index.documents import FIELD_BOOSTS, NONE, Stored, epoch_us
from memfs.index.reader import Handle, close, handle
from memfs.index.results import Filtered, Hit, SearchResult
from memfs.policy import recall
from memfs.store.repo import Store

if TYPE_CHECKING:
    from whoosh.query.qcore import Query

MAX_QUERY_CHARS = 20_000
MAX_QUERY_TERMS = 64
Ranked = list[tuple[float, str, tuple[float, float, float]]]


def query_terms(text: str) -> list[str]:
    """The unique index terms of a query, in order (at most :data:`MAX_QUERY_TERMS`)."""
    return list(dict.fromkeys(tokens(text[:MAX_QUERY_CHARS])))[:MAX_QUERY_TERMS]


def _text_query(terms: Iterable[str]) -> Query:
    from whoosh.query.compound import Or
    from whoosh.query.terms import Prefix, Term

    parts: list[Query] = []
    for term in terms:
        for name, boost in FIELD_BOOSTS.items():
            if len(term) == 1 and is_cjk(term):
                parts.append(Prefix(name, term, boost=boost))
            else:
                parts.append(Term(name, term, boost=boost))
    return Or(parts)


def _restriction(rule: recall.ScopeRule, version: str | None, type_: str | None) -> Query:
    from whoosh.query.compound import And, Or
    from whoosh.query.terms import Prefix, Term

    parts: list[Query] = [Term("status", "active"), Term("sourced", "yes"), Term("readable", "yes")]
    scopes = rule.scopes
    if scopes is not None:
        allowed: list[Query] = [Term("scope", s) for s in scopes]
        if rule.descendants:
            allowed.append(Prefix("scope", f"{rule.scope}/"))
        parts.append(Or(allowed))
    if version is not None:
        parts.append(Or([Term("version", version), Term("version", NONE)]))
    if type_ is not None:
        parts.append(Term("type", type_))
    return And(parts)


def _expired(opened: Handle, now: dt.datetime) -> set[int]:
    from whoosh.query.ranges import NumericRange

    return set(opened.searcher.docs_for_query(NumericRange("expires", None, epoch_us(now))))


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
) -> SearchResult:
    """Eligible memories for ``query`` in ``scope``, best first.

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
    """
    _check_request(query, limit, type, at)
    scope, inherit = repo.recall_scope(scope, inherit)
    if descendants and repo.binding is not None:
        raise UsageError(f"this session is bound to scope {repo.binding.scope}; it cannot read the scopes below it",
                         param="descendants")
    from whoosh.query.compound import Require

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
    result.broken = [p for p in opened.state.broken() if repo.binding is None or p.path.startswith("system/")]
    if not terms:
        result.notices.append("memfs: the query has no searchable words (only punctuation or very common words)")
        return result
    q = _text_query(terms)
    restricted = Require(q, _restriction(rule, version, type))
    ranked = _ranked(opened, restricted, _expired(opened, now), limit, now, policy)
    for hit in _final(repo, ranked, rule, version, type, now, result):
        result.hits.append(hit)
        if len(result.hits) == limit:
            break
    if explain:
        result.filtered = _filtered_out(opened, q, rule, version, type, now, limit, bound=repo.binding is not None)
    return result


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


def _ranked(opened: Handle, q: Query, expired: set[int], limit: int, now: dt.datetime,
            policy: recall.RankPolicy) -> Ranked:
    """Eligible candidates ordered by final score, fetched deep enough that the top ``limit`` is exact.

    Freshness and confidence are at most 1, so once the ``limit``-th final score is at least the
    relevance of the last fetched document, nothing further down can overtake it.
    """
    searcher = opened.searcher
    fetch = max(limit * 3, 30)
    while True:
        results = searcher.search(q, limit=fetch, mask=expired or None, optimize=False)
        scored: Ranked = []
        for hit in results:
            stored = Stored.from_rec(hit["rec"])
            fresh = recall.freshness(stored, now, policy)
            conf = stored.confidence
            scored.append((recall.final_score(hit.score, fresh, conf), hit["path"], (hit.score, fresh, conf)))
        scored.sort(key=lambda item: (-item[0], item[1]))
        fetched = results.scored_length()
        if fetched < fetch or (len(scored) >= limit and scored[limit - 1][0] >= results[fetched - 1].score):
            return scored
        fetch *= 4


def _final(repo: Store, ranked: Ranked, rule: recall.ScopeRule, version: str | None, type_: str | None,
           now: dt.datetime, result: SearchResult) -> Iterator[Hit]:
    """Read each candidate's file and apply :func:`recall.eligibility` to it: the final word."""
    known = {p.path for p in result.broken}
    for final, rel, (relevance, fresh, conf) in ranked:
        _data, memory, broken = repo.load(rel)
        if memory is None:
            if broken and rel not in known and repo.binding is None:
                result.broken.append(Problem(rel, None, broken, "fix the file; search skips it until it parses"))
            continue
        if recall.eligibility(memory, scope=rule, version=version, now=now) is not None:
            continue
        if type_ is not None and memory.type != type_:
            continue
        changed = result.uncommitted is None or rel in result.uncommitted
        yield Hit(memory, final, relevance, fresh, conf, changed)


def _filtered_out(opened: Handle, q: Query, rule: recall.ScopeRule, version: str | None, type_: str | None,
                  now: dt.datetime, limit: int, *, bound: bool = False) -> list[Filtered]:
    """Memories that matched the words but are not eligible, with why; a bound session hears only
    of its own scope's (another scope's memories do not exist for it)."""
    found = []
    for hit in opened.searcher.search(q, limit=limit * 5 + 20):
        stored = Stored.from_rec(hit["rec"])
        if bound and not rule.allows(stored.scope):
            continue
        reason = recall.eligibility(stored, scope=rule, version=version, now=now)
        if reason is None and type_ is not None and stored.type != type_:
            reason = f"wrong type ({stored.type})"
        if reason is not None:
            found.append(Filtered(hit["path"], reason, hit.score))
            if len(found) == limit:
                break
    return found
