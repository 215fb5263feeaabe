"""Three-way merge of one memory file by what its fields mean (pure policy).

Git merges text line by line, which is wrong for frontmatter: two agents that each bump
``revision`` from 3 to 4 "conflict", while a retraction on one side and an edit on the other
merge "cleanly" into an active memory. Here every known field has a rule:

* ``status``: a one-sided change wins; if both sides changed it, the less eligible status wins
  (:data:`STATUS_PRECEDENCE`), so a retraction is never undone by a concurrent edit;
* ``revision``: ``max(ours, theirs) + 1``, so both sides' readers see a change;
* ``updated``: the latest of the two;
* ``depends_on``, ``distinct_from``, ``tags``, ``invalidated_by``, ``evidence``: merged as sets
  (additions and removals of both sides are kept);
* anything else: a one-sided change wins; the same change on both sides is fine; two different
  changes are a conflict.

The body goes through git's own three-way text merge (injected as ``merge_text`` so this module
stays free of I/O). A conflict, in a field or in the body, leaves standard conflict markers in
the file; markers make the file fail to parse, so validation reports it and nothing recalls it.
Never a silently wrong file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.errors import InvalidMemory
from memfs.format import yamlio
from memfs.format.document import Document
from memfs.format.model import FIELDS
from memfs.format.parse import load_document
from memfs.format.times import parse_time

#: Most to least withdrawn: when both sides changed ``status``, the first one listed wins.
STATUS_PRECEDENCE = ("retracted", "superseded", "expired", "needs_review", "active")
#: List fields merged as sets.
SET_FIELDS = ("depends_on", "distinct_from", "tags", "invalidated_by", "evidence")
LABELS = ("ours", "base", "theirs")

#: ``(ours, base, theirs) -> (merged bytes, number of conflicts)``, e.g. :func:`memfs.store.gitcli.merge_text`.
TextMerge = Callable[[bytes, bytes, bytes], tuple[bytes, int]]


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class FieldMerge:
    """The merged frontmatter; a conflicting key keeps our value here and is listed in ``conflicts``."""

    meta: dict[str, Any]
    conflicts: tuple[str, ...]


@dataclass(frozen=True)
class MergeResult:
    """The merged file and what could not be merged (field names, ``body``, or ``file``)."""

    content: bytes
    conflicts: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _one_sided(base: Any, ours: Any, theirs: Any) -> tuple[bool, Any]:
    """(resolved?, value) by the generic rule: equal sides, or only one side changed."""
    if ours == theirs:
        return True, ours
    if ours == base:
        return True, theirs
    if theirs == base:
        return True, ours
    return False, ours


def merge_status(base: Any, ours: Any, theirs: Any) -> tuple[bool, Any]:
    resolved, value = _one_sided(base, ours, theirs)
    if resolved:
        return True, value
    if ours in STATUS_PRECEDENCE and theirs in STATUS_PRECEDENCE:
        return True, min(ours, theirs, key=STATUS_PRECEDENCE.index)
    return False, ours


def merge_revision(base: Any, ours: Any, theirs: Any) -> tuple[bool, Any]:
    numbers = [v for v in (ours, theirs) if isinstance(v, int) and not isinstance(v, bool)]
    if len(numbers) == 2:
        return True, max(numbers) + 1
    return _one_sided(base, ours, theirs)


def merge_updated(base: Any, ours: Any, theirs: Any) -> tuple[bool, Any]:
    times = [parse_time(v) for v in (ours, theirs)]
    if times[0] is not None and times[1] is not None:
        return True, ours if times[0] >= times[1] else theirs
    return _one_sided(base, ours, theirs)


def merge_set(base: Any, ours: Any, theirs: Any) -> tuple[bool, Any]:
    """Items of either side, minus those either side removed; ours' order, then theirs' additions."""
    resolved, value = _one_sided(base, ours, theirs)
    if resolved:
        return True, value
    sides = [[] if v is MISSING or v is None else v for v in (base, ours, theirs)]
    if not all(isinstance(v, list) for v in sides):
        return False, ours
    old, mine, other = sides
    removed = [item for item in old if item not in mine or item not in other]
    merged: list[Any] = []
    for item in [*mine, *other]:
        if item not in removed and item not in merged:
            merged.append(item)
    if not merged and (ours is MISSING or theirs is MISSING):
        return True, MISSING
    return True, merged


_RULES: dict[str, Callable[[Any, Any, Any], tuple[bool, Any]]] = {
    "status": merge_status,
    "revision": merge_revision,
    "updated": merge_updated,
    **{name: merge_set for name in SET_FIELDS},
}


def merge_fields(base: Mapping[str, Any], ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> FieldMerge:
    """Merge three frontmatter mappings field by field (see the module docstring for the rules)."""
    keys = list(ours) + [k for k in theirs if k not in ours] + [k for k in base if k not in ours and k not in theirs]
    merged: dict[str, Any] = {}
    conflicts: list[str] = []
    for key in keys:
        b, o, t = (m.get(key, MISSING) for m in (base, ours, theirs))
        resolved, value = _RULES.get(key, _one_sided)(b, o, t)
        if not resolved:
            conflicts.append(key)
            value = o
        if value is not MISSING:
            merged[key] = value
    return FieldMerge(merged, tuple(conflicts))


def merge_memory(
    path: str,
    base: bytes | None,
    ours: bytes,
    theirs: bytes,
    merge_text: TextMerge,
    *,
    marker_size: int = 7,
) -> MergeResult:
    """Merge three versions of the memory file at ``path`` (``base`` is ``None`` when both sides
    added it). Files that do not parse as memories fall back to a plain text merge."""
    if ours == theirs or theirs == base:
        return MergeResult(ours)
    if ours == base:
        return MergeResult(theirs)
    try:
        ours_doc, ours_meta = load_document(path, ours)
        theirs_doc, theirs_meta = load_document(path, theirs)
        base_doc, base_meta = load_document(path, base) if base else (None, {})
    except InvalidMemory:
        text, conflicts = merge_text(ours, base or b"", theirs)
        return MergeResult(text, ("file",) if conflicts else ())
    fields = merge_fields(base_meta, ours_meta, theirs_meta)
    body, body_conflict = _merge_body(base_doc, ours_doc, theirs_doc, merge_text)
    frontmatter = render_frontmatter(ours_doc, ours_meta, theirs_meta, fields, marker_size)
    content = ours_doc.with_frontmatter(frontmatter).with_body(body).render().encode("utf-8")
    return MergeResult(content, fields.conflicts + (("body",) if body_conflict else ()))


def _merge_body(
    base_doc: Document | None, ours_doc: Document, theirs_doc: Document, merge_text: TextMerge
) -> tuple[str, bool]:
    base_body = base_doc.body if base_doc is not None else ""
    resolved, body = _one_sided(base_body, ours_doc.body, theirs_doc.body)
    if resolved:
        return body, False
    text, conflicts = merge_text(ours_doc.body.encode(), base_body.encode(), theirs_doc.body.encode())
    return text.decode("utf-8"), conflicts > 0


def render_frontmatter(
    ours_doc: Document,
    ours_meta: Mapping[str, Any],
    theirs_meta: Mapping[str, Any],
    fields: FieldMerge,
    marker_size: int,
) -> str:
    """Our frontmatter text with only the changed lines replaced; conflicting keys go into one
    standard conflict block at its end (ours above ``=======``, theirs below)."""
    newline = ours_doc.newline
    changes: dict[str, Any] = {
        k: v for k, v in fields.meta.items() if k not in fields.conflicts and ours_meta.get(k, MISSING) != v
    }
    changes.update({k: None for k in ours_meta if k not in fields.meta or k in fields.conflicts})
    try:
        text = yamlio.edit(ours_doc.frontmatter, changes, newline) if changes else ours_doc.frontmatter
    except ValueError:
        kept = {k: v for k, v in fields.meta.items() if k not in fields.conflicts}
        text = yamlio.render(kept, FIELDS).replace("\n", newline)
    if not fields.conflicts:
        return text

    def side(meta: Mapping[str, Any]) -> list[str]:
        return [f"{k}: {yamlio.scalar(meta[k])}{newline}" for k in fields.conflicts if k in meta]

    block = [
        f"{'<' * marker_size} {LABELS[0]}{newline}",
        *side(ours_meta),
        f"{'=' * marker_size}{newline}",
        *side(theirs_meta),
        f"{'>' * marker_size} {LABELS[2]}{newline}",
    ]
    return text + "".join(block)
