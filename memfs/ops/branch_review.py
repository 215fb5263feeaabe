"""A reviewer's summary of what a branch changes in memory, for a pull request comment.

``summarize(repo, base, head)`` compares ``head`` with the point where it forked from ``base``
(like a pull request: changes that happened on ``base`` meanwhile are not the branch's) and sorts
every changed memory into what a reviewer needs to decide on: added, superseded (old value → new
value), retracted (with how many memories depend on it downstream), flagged for review, expired,
purged/deleted, other frontmatter field changes, and files that fail to parse. It reads git only
(:func:`memfs.store.history.diff` for the per-file field changes, commit trailers for reasons and
operations) and renders as Markdown text or JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import InvalidMemory, NotFound, UsageError
from memfs.format.model import Memory, jsonable
from memfs.format.parse import parse
from memfs.policy import conflict_pairs, conflicts, lineage
from memfs.store import history
from memfs.store.repo import Store

#: Fields that change on every write; shown in JSON, left out of the text summary.
NOISE = ("revision", "updated")
PURGE_OPS = ("purge", "forget")
_VALUE_WIDTH = 100


@dataclass(frozen=True)
class Entry:
    """One memory in one category. ``old``/``new`` are short value texts (description or first line)."""

    path: str
    description: str | None = None
    old: str | None = None
    new: str | None = None
    by: str | None = None
    reason: str | None = None
    downstream: int | None = None
    flagged: int | None = None
    op: str | None = None
    fields: tuple[history.FieldChange, ...] = ()
    body_changed: bool = False
    closure: tuple[tuple[str, str], ...] = ()
    nodes: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        for key in ("description", "old", "new", "by", "reason", "downstream", "flagged", "op"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.fields:
            out["fields"] = [{"field": f.field, "old": jsonable(f.old), "new": jsonable(f.new)} for f in self.fields]
        if self.body_changed:
            out["body_changed"] = True
        if self.nodes:
            out["closure"] = {"nodes": [{"path": p, "state": st} for p, st in self.nodes],
                              "edges": [list(edge) for edge in self.closure]}
        return out


@dataclass
class ReviewSummary:
    base: str
    head: str
    fork_point: str
    commits: list[history.LogEntry] = field(default_factory=list)
    added: list[Entry] = field(default_factory=list)
    superseded: list[Entry] = field(default_factory=list)
    retracted: list[Entry] = field(default_factory=list)
    flagged: list[Entry] = field(default_factory=list)
    expired: list[Entry] = field(default_factory=list)
    purged: list[Entry] = field(default_factory=list)
    changed: list[Entry] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    #: Probable conflicts at ``head`` with a memory the range added or changed (two values for one subject).
    conflicts: list[conflicts.Pair] = field(default_factory=list)

    CATEGORIES = ("added", "superseded", "retracted", "flagged", "expired", "purged", "changed")

    @property
    def counts(self) -> dict[str, int]:
        out = {name: len(getattr(self, name)) for name in self.CATEGORIES}
        out["invalid"] = len(self.invalid)
        out["commits"] = len(self.commits)
        return out

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"base": self.base, "head": self.head, "fork_point": self.fork_point}
        out["counts"] = self.counts
        for name in self.CATEGORIES:
            out[name] = [e.to_json() for e in getattr(self, name)]
        out["invalid"] = list(self.invalid)
        out["conflicts"] = [p.to_json() for p in self.conflicts]
        out["commits"] = [
            {"commit": c.commit, "actor": c.actor, "op": c.op, "subject": c.subject, "reason": c.reason}
            for c in self.commits
        ]
        return out

    def render(self) -> str:
        """Markdown, ready to post as a pull request comment."""
        c = self.counts
        head = [
            f"### memfs review: {code(f'{self.base}..{self.head}')} ({c['commits']} commit(s))",
            "",
            " · ".join(f"{c[n]} {n}" for n in self.CATEGORIES)
            + (f" · **{c['invalid']} invalid**" if c["invalid"] else ""),
        ]
        sections = [
            ("Invalid (fix before merging)", [f"- {text(p)}" for p in self.invalid]),
            ("Probable conflicts (two values for one subject: edit or delete the older, or give each a key)",
             [f"- {code(p.older)} → {code(p.newer)}: {text(p.why)}" for p in self.conflicts]),
            ("Added", [_added(e) for e in self.added]),
            ("Superseded", [_superseded(e) for e in self.superseded]),
            ("Retracted", [ln for e in self.retracted for ln in (_retracted(e), *mermaid(e))]),
            ("Flagged for review", [_flagged(e) for e in self.flagged]),
            ("Expired", [f"- {code(e.path)}{_desc(e)}" + (f" (archived to {code(e.by)})" if e.by else "")
                         for e in self.expired]),
            ("Purged / deleted", [f"- {code(e.path)} ({text(e.op or 'delete')}){_why(e)}" for e in self.purged]),
            ("Field changes", [_changed(e) for e in self.changed]),
            ("Commits", [f"- {code(x.commit[:10])} {text(x.actor)}: {text(x.subject)}" for x in self.commits]),
        ]
        out = list(head)
        for title, lines in sections:
            lines = [ln for ln in lines if ln]
            if lines:
                out += ["", f"#### {title}", *lines]
        if not any(getattr(self, n) for n in self.CATEGORIES) and not self.invalid:
            out += ["", "No memory changes."]
        return "\n".join(out)


#: What Markdown could read as markup in running text: backslash escapes make each literal
#: (CommonMark lets any ASCII punctuation be escaped); ``<`` and ``&`` so no HTML tag or entity
#: gets through, the others so no code span, emphasis, link, strike-through or table cell starts.
_MARKUP = re.compile(r"([\\`*_\[\]<>&~|])")


def text(value: object) -> str:
    """``value`` as literal Markdown text on one line: line breaks become spaces (a new line
    could start a heading, a list or a code fence) and markup characters are escaped."""
    return _MARKUP.sub(r"\\\1", " ".join(str(value).splitlines()))


def code(value: str) -> str:
    """``value`` as a Markdown code span that shows it literally, backticks included: the fence
    is one backtick longer than the longest run inside, padded with spaces when the text starts
    or ends with a backtick or a space (CommonMark strips one space from each side). HTML in a
    code span is shown, never interpreted."""
    flat = " ".join(value.splitlines())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat[:1] in ("`", " ") or flat[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _desc(e: Entry) -> str:
    return f" — {text(e.description)}" if e.description else ""


def _why(e: Entry) -> str:
    return f"; reason: {text(e.reason)}" if e.reason else ""


def _added(e: Entry) -> str:
    return f"- {code(e.path)}{_desc(e)}"


def _superseded(e: Entry) -> str:
    by = f" (by {code(e.by)})" if e.by else " (same file, next revision)"
    return f"- {code(e.path)}: {_quote(e.old)} → {_quote(e.new)}{by}{_why(e)}"


def _retracted(e: Entry) -> str:
    down = f"; {e.downstream} downstream memor{'y' if e.downstream == 1 else 'ies'}" if e.downstream else ""
    flagged = f" ({e.flagged} flagged for review here)" if e.flagged else ""
    return f"- {code(e.path)}{_desc(e)}{_why(e)}{down}{flagged}"


#: Nodes drawn in one retraction's diagram; a larger closure is cut, and the cut is said.
MERMAID_NODES = 40
_STATE_STYLE = {
    "retracted": "fill:#f8d7da,stroke:#b02a37,color:#000",
    "flagged": "fill:#fff3cd,stroke:#b58105,color:#000",
    "downstream": "fill:#e2e3e5,stroke:#6c757d,color:#000",
}


def mermaid(e: Entry) -> list[str]:
    """A retraction's closure as a Mermaid flowchart (GitHub renders it in a comment): the root,
    every memory derived from it along ``depends_on``, arrows from a source to what was derived
    from it, and each node coloured by what this change did to it: retracted, flagged for
    review, or downstream and left as it was (already flagged, or not active). Empty without a
    closure."""
    if not e.nodes or len(e.nodes) < 2:
        return []
    shown = dict(e.nodes[:MERMAID_NODES])
    ids = {path: f"n{i}" for i, path in enumerate(shown)}
    lines = ["", "```mermaid", "flowchart LR"]
    for path, state in shown.items():
        lines.append(f'  {ids[path]}["{_label(path)}<br/>{state}"]:::{state}')
    lines += [f"  {ids[a]} --> {ids[b]}" for a, b in e.closure if a in ids and b in ids]
    hidden = len(e.nodes) - len(shown)
    if hidden:
        lines.append(f'  more["+{hidden} more downstream"]:::downstream')
    lines += [f"  classDef {state} {style}" for state, style in _STATE_STYLE.items()]
    lines += ["```", ""]
    return lines


def _label(path: str) -> str:
    """A path as the text of a quoted Mermaid label: every ASCII character but letters, digits,
    space and ``/._-`` as Mermaid's decimal entity code (``#`` is ``#35;``, ``"`` is ``#34;``;
    mermaid.js.org/syntax/flowchart.html, "Entity codes to escape characters"), so no quote ends
    the label, no ``#...;`` in a name is read as an entity, no backtick closes the code fence and
    no ``<`` becomes HTML. Letters beyond ASCII are left as they are."""
    return "".join(c if not c.isascii() or c.isalnum() or c in " /._-" else f"#{ord(c)};" for c in path)


def _flagged(e: Entry) -> str:
    return f"- {code(e.path)}{_desc(e)}" + (f" (because of {code(e.by)})" if e.by else "") + _why(e)


def _changed(e: Entry) -> str:
    shown = [str(f) for f in e.fields if f.field not in NOISE]
    if e.body_changed:
        shown.append("body changed")
    return f"- {code(e.path)}: " + text("; ".join(shown)) if shown else ""


def _quote(value: str | None) -> str:
    return f'"{text(value)}"' if value else "(none)"


def value_text(memory: Memory | None) -> str | None:
    """What a memory says, in one short line: its description, else the first body line."""
    if memory is None:
        return None
    text = memory.description or next((ln.strip() for ln in memory.body.splitlines() if ln.strip()), "")
    return text if len(text) <= _VALUE_WIDTH else text[: _VALUE_WIDTH - 1] + "…"


def _parse(rel: str, data: bytes | None) -> Memory | None:
    if data is None:
        return None
    try:
        return parse(rel, data)
    except InvalidMemory:
        return None


def _range(base: str, head: str) -> tuple[str, str]:
    """Accept ``BASE``/``HEAD`` as given by ``BASE..HEAD`` or ``BASE...HEAD`` split at ``..``."""
    head = head.lstrip(".") or "HEAD"
    if not base:
        raise UsageError("give the range as BASE..HEAD, e.g. origin/main..memfs/agent/20261129", param="range")
    return base, head


def summarize(repo: Store, base: str, head: str = "HEAD") -> ReviewSummary:
    """What ``head`` changes in memory since it forked from ``base``."""
    base, head = _range(base, head)
    base_sha, head_sha = repo.git.resolve(base), repo.git.resolve(head)
    fork = repo.git.merge_base(base_sha, head_sha)
    if fork is None:
        raise NotFound(f"{base} and {head} share no history; there is nothing to compare")
    summary = ReviewSummary(base, head, fork)
    log = repo.git.log(rev=f"{fork}..{head_sha}", path=repo.pathspec, follow=False)
    summary.commits = [history.LogEntry.of(repo, c) for c in log]
    by_path = _ops_by_path(summary.commits)
    diffs = history.diff(repo, fork, head_sha)
    after: dict[str, Memory | None] = {}
    before: dict[str, Memory | None] = {}
    changed = [d.path for d in diffs]
    old_files, new_files = repo.files_at(fork, changed), repo.files_at(head_sha, changed)
    for d in diffs:
        before[d.path] = _parse(d.path, old_files[d.path])
        after[d.path] = _parse(d.path, new_files[d.path])
    graph = _downstream_at(repo, head_sha) if any(_status_to(d, "retracted") for d in diffs) else None
    moves = _moves(diffs, before, after)
    for d in diffs:
        if d.path in moves.values():
            continue  # reported with the path it moved from
        if d.path in moves:
            _classify_move(summary, d.path, moves[d.path], before, after, by_path)
            continue
        _classify(summary, d, before[d.path], after[d.path], after, by_path.get(d.path, []), graph, repo, head_sha)
    summary.conflicts = _conflicts_at(repo, head_sha, after)
    return summary


def _conflicts_at(repo: Store, rev: str, after: dict[str, Memory | None]) -> list[conflicts.Pair]:
    """The probable conflicts at ``rev`` that a memory the range added or changed takes part in
    (the tree is read only when the range touched one that may conflict)."""
    touched = {path for path, memory in after.items() if memory is not None and conflicts.eligible(memory)}
    if not touched:
        return []
    scopes = {memory.scope for path, memory in after.items() if path in touched and memory is not None}
    rels = repo.memory_paths_at(rev)
    memories = [m for rel, data in repo.files_at(rev, rels).items()
                if (m := _parse(rel, data)) is not None and m.scope in scopes and repo.visible(rel, data)]
    return [p for p in conflict_pairs.pairs(memories) if p.older in touched or p.newer in touched]


def _moves(
    diffs: list[history.FileDiff], before: dict[str, Memory | None], after: dict[str, Memory | None]
) -> dict[str, str]:
    """old path -> new path for memories that moved (an archive move, a rename): a file deleted
    and a file added with the same ``id``."""
    added = {m.id: d.path for d in diffs if d.change == "added" and (m := after.get(d.path)) is not None and m.id}
    out = {}
    for d in diffs:
        old = before.get(d.path)
        if d.change == "deleted" and old is not None and old.id in added:
            out[d.path] = added.pop(old.id)
    return out


def _classify_move(
    summary: ReviewSummary, old_path: str, new_path: str, before: dict[str, Memory | None],
    after: dict[str, Memory | None], by_path: dict[str, list[history.LogEntry]],
) -> None:
    """A moved memory is one change, not an addition and a deletion: an expiry sweep that archived
    it is an expiry; any other move is a field change of its path."""
    old, new = before[old_path], after[new_path]
    assert old is not None and new is not None
    log = by_path.get(old_path, []) + by_path.get(new_path, [])
    if new.status == "expired" and old.status != "expired":
        summary.expired.append(Entry(old_path, new.description, by=new_path, reason=_reason(log, ("expire",))))
        return
    fields = (history.FieldChange("path", old_path, new_path),
              *history.field_changes(old.meta, new.meta))
    summary.changed.append(Entry(old_path, new.description, fields=tuple(fields), body_changed=old.body != new.body))


def _ops_by_path(log: list[history.LogEntry]) -> dict[str, list[history.LogEntry]]:
    found: dict[str, list[history.LogEntry]] = {}
    for entry in log:
        for path in set(entry.paths) | set(entry.trailers.get("Memfs-Path", [])):
            found.setdefault(path, []).append(entry)
    return found


def _status_to(d: history.FileDiff, status: str) -> bool:
    return any(f.field == "status" and f.new == status for f in d.fields)


def _reason(entries: list[history.LogEntry], ops: tuple[str, ...] = ()) -> str | None:
    for entry in entries:
        if entry.reason and (not ops or entry.op in ops):
            return entry.reason
    return None


def _classify(
    summary: ReviewSummary,
    d: history.FileDiff,
    old: Memory | None,
    new: Memory | None,
    after: dict[str, Memory | None],
    log: list[history.LogEntry],
    graph: lineage.Graph | None,
    repo: Store,
    head: str,
) -> None:
    if d.change != "deleted" and new is None:
        data = repo.git.show_file(head, repo.git_path(d.path))
        try:
            parse(d.path, data or b"")
        except InvalidMemory as exc:
            summary.invalid.extend(str(p) for p in exc.problems)
        return
    if new is not None:
        summary.invalid.extend(str(p) for p in new.errors)
    if d.change == "added":
        summary.added.append(Entry(d.path, new.description if new else None))
        return
    if d.change == "deleted":
        op = next((e.op for e in log if e.op in PURGE_OPS), None) or next((e.op for e in log if e.op), None)
        summary.purged.append(Entry(d.path, old.description if old else None, op=op, reason=_reason(log)))
        return
    status = next((f.new for f in d.fields if f.field == "status"), None)
    desc = new.description if new else None
    if status is None and any(e.op == "supersede" for e in log):
        # remember's SUPERSEDE: the same file holds the new value (revision + 1); the old one is in history
        summary.superseded.append(
            Entry(d.path, desc, old=value_text(old), new=value_text(new), reason=_reason(log, ("supersede",)))
        )
        return
    if status == "superseded":
        by = _successor(new, after) if new else None
        summary.superseded.append(
            Entry(
                d.path,
                desc,
                old=value_text(old),
                new=value_text(after.get(by)) if by else None,
                by=by,
                reason=_reason(log),
            )
        )
    elif status == "retracted":
        down = lineage.invalidation_closure([d.path], graph.children) if graph else set()
        flagged = {p for p in down if (m := after.get(p)) is not None and m.status == "needs_review"}
        nodes = ((d.path, "retracted"), *((p, "flagged" if p in flagged else "downstream") for p in sorted(down)))
        inside = {d.path, *down}
        edges = tuple((a, b) for a in sorted(inside) for b in (graph.children.get(a, ()) if graph else ())
                      if b in inside and b != d.path)
        summary.retracted.append(
            Entry(
                d.path, desc, reason=_reason(log, ("retract",)) or _reason(log), downstream=len(down),
                flagged=len(flagged), closure=edges, nodes=nodes,
            )
        )
    elif status == "needs_review":
        summary.flagged.append(Entry(d.path, desc, by=_flagged_by(new), reason=_held_because(new)))
    elif status == "expired":
        summary.expired.append(Entry(d.path, desc, reason=_reason(log)))
    others = tuple(f for f in d.fields if f.field != "status")
    explained = (*NOISE, "invalidated_by") if status == "needs_review" else NOISE
    if any(f.field not in explained for f in others) or (d.body_changed and status is None):
        summary.changed.append(Entry(d.path, desc, fields=others, body_changed=d.body_changed))


def _held_because(memory: Memory | None) -> str | None:
    """Why a memory was held for a person (the ``gate`` record: the write gate, or sync's
    reconciliation of concurrent changes), if it says."""
    record = memory.meta.get("gate") if memory else None
    reason = record.get("reason") if isinstance(record, dict) else None
    return str(reason) if reason else None


def _flagged_by(memory: Memory | None) -> str | None:
    records = memory.meta.get("invalidated_by") if memory else None
    roots = [r["root"] for r in records if isinstance(r, dict) and "root" in r] if isinstance(records, list) else []
    return str(roots[-1]) if roots else None


def _successor(old: Memory, after: dict[str, Memory | None]) -> str | None:
    """The active memory with the same (scope, key) among the changed files, if there is one."""
    if not old.key:
        return None
    for path, memory in sorted(after.items()):
        if memory is None or path == old.path or memory.status != "active":
            continue
        if (memory.key, memory.scope, memory.version) == (old.key, old.scope, old.version):
            return path
    return None


def _downstream_at(repo: Store, rev: str) -> lineage.Graph:
    """The ``depends_on`` graph of the tree at ``rev`` (read in one ``git cat-file --batch``)."""
    rels = repo.memory_paths_at(rev)
    return lineage.from_files(repo.files_at(rev, rels).items())
