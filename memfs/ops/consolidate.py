"""``memfs consolidate``: related episodes become one summary memory (the grouping and the default
summary: :mod:`memfs.policy.consolidate`).

A dry run by default: it lists the groups and the summary each would get. Applied, ONE commit
(``Memfs-Op: consolidate``) adds one ``type: summary`` memory per group, which ``depends_on`` its
episodes (so retracting one of them flags the summary) and keeps their roots in ``evidence``, and
marks the episodes ``superseded`` (out of recall: the summary replaces them there; their text
stays in the files and in history). ``git revert`` of that commit undoes it exactly.

The summariser is pluggable: any Python callable taking the group (oldest first) and returning a
:class:`~memfs.policy.consolidate.Summary`, a ``{"body", "description"}`` mapping or the body as a
string. The default is extractive and needs no model and no network. An external program is
wrapped in such a callable by its host (``memfs consolidate --summariser MODULE:FUNCTION``): memfs
itself starts no process for it, and never one named by repository configuration, which travels
with every clone.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import UsageError
from memfs.format.model import Memory, jsonable, utcnow
from memfs.format.names import default_id
from memfs.index.analysis import tokens
from memfs.ops.remember import slugify
from memfs.policy import consolidate as policy
from memfs.policy import evidence
from memfs.store.repo import Store, Transaction

SUMMARY_DIR = "summaries"
SOURCE = "memfs:consolidate"
#: What a summariser may return: a Summary, {"body", "description"}, or the body alone.
Summarised = policy.Summary | Mapping[str, Any] | str
AnySummariser = Callable[[Sequence[Memory]], Summarised]


@dataclass(frozen=True)
class Group:
    """One group: its episodes, the summary memory it becomes and the summary's text."""

    sources: tuple[str, ...]
    path: str
    summary: policy.Summary

    def to_json(self) -> dict[str, Any]:
        return {"sources": list(self.sources), "path": self.path, "description": self.summary.description,
                "body": self.summary.body}


@dataclass
class ConsolidateResult:
    groups: list[Group] = field(default_factory=list)
    applied: bool = False
    commit: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"applied": self.applied, "commit": self.commit, "groups": [g.to_json() for g in self.groups]}


def terms_of() -> policy.Terms:
    """The search analyzer's terms of a memory's body, description and tags (cached per file)."""
    cache: dict[tuple[str, str], frozenset[str]] = {}

    def terms(memory: Memory) -> frozenset[str]:
        key = (memory.path, memory.body)
        if key not in cache:
            text = "\n".join([memory.body, memory.description or "", " ".join(memory.tags)])
            cache[key] = frozenset(tokens(text))
        return cache[key]

    return terms


def _summary(value: Summarised, group: Sequence[Memory]) -> policy.Summary:
    if isinstance(value, policy.Summary):
        return value
    if isinstance(value, str):
        first = next((line.strip("#>-* ").strip() for line in value.splitlines() if line.strip()), "")
        return policy.Summary(value, first[:120] or f"{len(group)} episodes")
    if isinstance(value, Mapping) and isinstance(value.get("body"), str) and value["body"].strip():
        description = value.get("description")
        return _summary(value["body"], group) if not isinstance(description, str) else policy.Summary(
            value["body"], description)
    raise UsageError(
        f"the summariser returned {type(value).__name__}; return a Summary, {{'body', 'description'}} or the body text",
        param="summariser",
    )


def plan(
    repo: Store, *, now: dt.datetime, scope: str | None = None, summariser: AnySummariser | None = None,
    taken: Callable[[str], bool] | None = None,
) -> list[Group]:
    """The groups of related active episodes (not yet expired at ``now``) and their summaries."""
    rules = repo.config().consolidate
    terms = terms_of()
    episodes = [
        m for m in repo.scan().memories
        if m.type == "episode" and m.status == "active" and (scope is None or m.scope == scope)
        and (m.expires is None or m.expires > now)
    ]
    write = summariser or policy.extractive(terms)
    used: set[str] = set()
    out = []
    for group in policy.groups(episodes, terms, rules):
        summary = _summary(write(group), group)
        path = _free_path(repo, group, terms, used, taken)
        used.add(path)
        out.append(Group(tuple(m.path for m in group), path, summary))
    return out


def _free_path(
    repo: Store, group: Sequence[Memory], terms: policy.Terms, used: set[str], taken: Callable[[str], bool] | None
) -> str:
    first = policy.when(group[0])
    stem = slugify(" ".join(policy.shared_terms(group, terms, 3)) or "episodes", 40)
    base = posixpath.join(SUMMARY_DIR, f"{first:%Y-%m-%d}-{stem}" if first else stem)
    for n in range(1, 1000):
        rel = base + (f"-{n}" if n > 1 else "") + ".md"
        if rel not in used and not repo.exists(rel) and not (taken and taken(rel)):
            return rel
    raise UsageError(f"no free file name for a summary under {SUMMARY_DIR}/")


def consolidate(
    repo: Store, *, now: dt.datetime | None = None, apply: bool = False, scope: str | None = None,
    summariser: AnySummariser | None = None, actor: str | None = None,
) -> ConsolidateResult:
    """Group related episodes and, with ``apply``, store each group's summary and supersede the
    episodes, all in one commit."""
    now = now or utcnow()
    if not apply:
        return ConsolidateResult(plan(repo, now=now, scope=scope, summariser=summariser))
    with repo.transaction("consolidate", actor=actor) as tx:
        groups = plan(repo, now=now, scope=scope, summariser=summariser,
                      taken=lambda rel: not tx.id_is_free(default_id(rel)))
        for group in groups:
            _store(repo, tx, group, now)
        sources = sum(len(g.sources) for g in groups)
        tx.subject = f"{sources} episodes into {len(groups)} summar{'y' if len(groups) == 1 else 'ies'}"
        tx.reason = f"related episodes consolidated as of {jsonable(now)}"
    return ConsolidateResult(groups, True, tx.result.commit)


def _store(repo: Store, tx: Transaction, group: Group, now: dt.datetime) -> None:
    members = [tx.read(rel) for rel in group.sources]
    rules = repo.config().consolidate
    latest = [m.expires for m in members if m.expires is not None]
    expires = max([*latest, now + dt.timedelta(days=rules.expires_days)])

    def parent(path: str) -> tuple[dict[str, Any], str | None, str | None, tuple[str, ...]] | None:
        memory = repo.load(path)[1]
        return None if memory is None else (memory.meta, memory.source, memory.source_kind, memory.depends_on)

    roots = evidence.roots(SOURCE, "agent", group.sources, parent)
    first = members[0]
    fields = {
        "type": "summary", "scope": first.scope, "version": first.version, "source": SOURCE, "source_kind": "agent",
        "expires": expires, "depends_on": list(group.sources), "confidence": min(m.confidence for m in members),
        evidence.EVIDENCE: sorted(roots) or None, "description": group.summary.description[:200],
        "tags": ["consolidated"],
    }
    tx.write(group.path, fields=fields, body=group.summary.body, create_only=True)
    for member in members:
        tx.write(member.path, fields={"status": "superseded"}, expected_revision=member.revision)
