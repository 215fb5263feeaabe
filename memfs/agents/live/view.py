"""What ``memfs search`` and ``memfs remember`` print, as data: built by whoever did the work
(this process or a live index), printed by the CLI. One function for both paths, so the output with and without a
server is the same by construction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memfs.agents.roots import RootsSearchResult
    from memfs.index.results import Hit, SearchResult
    from memfs.ops.remember import Outcome


def search_view(result: SearchResult, *, as_json: bool) -> dict[str, Any]:
    """The notices, and either the JSON document or the text fields, as JSON-able data (floats
    kept exact, so rounding for print happens once, on the printing side)."""
    view: dict[str, Any] = {"notices": list(result.notices)}
    if as_json:
        view["json"] = result.to_json()
        return view
    view["broken"] = [str(p) for p in result.broken]
    view["scope"] = result.scope
    view["terms"] = list(result.terms)
    view["filtered"] = [[f.path, f.relevance, f.reason] for f in result.filtered]
    view["hits"] = [_hit_view(hit) for hit in result.hits]
    return view


def _hit_view(hit: Hit) -> dict[str, Any]:
    m = hit.memory
    summary = m.description or next((ln.strip() for ln in m.body.splitlines() if ln.strip()), "")
    return {
        "path": m.path, "scope": m.scope, "type": m.type, "version": m.version, "source": m.source,
        "summary": summary, "score": hit.score, "relevance": hit.relevance, "freshness": hit.freshness,
        "confidence": hit.confidence, "uncommitted": hit.uncommitted, "similarity": hit.similarity,
    }


def roots_search_view(result: RootsSearchResult, *, as_json: bool) -> dict[str, Any]:
    """:func:`search_view` of a search over several roots: each hit labelled with its root (the
    ``root_label`` key the printer shows), the filtered and unreadable ones too."""
    view: dict[str, Any] = {"notices": result.notices}
    if as_json:
        view["json"] = result.to_json()
        return view
    pairs = list(zip(result.roots, result.results, strict=True))
    view["broken"] = [f"{root.label}: {p}" for root, found in pairs for p in found.broken]
    view["scope"] = result.results[0].scope if result.results else None
    view["terms"] = list(result.results[0].terms) if result.results else []
    view["filtered"] = [[f"{root.label}: {f.path}", f.relevance, f.reason] for root, found in pairs
                        for f in found.filtered]
    view["hits"] = [{**_hit_view(hit.hit), "root_label": hit.root.label} for hit in result.hits]
    return view


def remember_view(outcome: Outcome, *, as_json: bool) -> dict[str, Any]:
    """What ``memfs remember`` prints of ``outcome``: its JSON document, or the lines for stdout
    and the notes for stderr."""
    if as_json:
        return {"json": outcome.to_json()}
    revision = f" (revision {outcome.revision})" if outcome.revision else ""
    lines = [f"{outcome.op.value} {', '.join(outcome.paths) or '-'}{revision}: {outcome.reason}"]
    if outcome.commit:
        lines.append(f"commit {outcome.commit[:10]}")
    lines += [f"stored needs_review (rule {held.rule}): {held.message}; {held.fix}" for held in outcome.downgraded]
    notes = ["forced past: " + ", ".join(outcome.forced)] if outcome.forced else []
    return {"lines": lines, "notes": notes}
