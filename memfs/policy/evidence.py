"""Evidence is counted once: which independent sources support a memory (pure: no I/O).

Repeating a claim is not new evidence. Four agents re-summarising the same tracker comment are
one observation, not four, so a REINFORCE raises confidence only for a source that is independent
of the ones already counted. Independence is decided on *roots*:

* the roots of a memory (or a candidate) that was derived from others (``depends_on``) are the
  roots of those others, followed along ``depends_on`` to what was not derived from anything;
* the roots of a memory derived from nothing are its own ``source``, unless the source is an
  agent (``source_kind: agent``): an agent restates, it does not observe, so its claim adds no
  root of its own (it counts through what it depends on).

A memory keeps the roots it was counted on in ``evidence`` (a list of sources), so a reviewer sees
why its confidence is what it is; a file written before this field existed has the roots its
``depends_on`` and ``source`` give.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from memfs.policy.reconcile import Decision, Op, reinforced_confidence

#: Frontmatter key: the independent sources (roots) the memory's confidence was counted on.
EVIDENCE = "evidence"
#: ``source_kind`` values whose claims are restatements, not observations.
RESTATING = ("agent",)


def own_roots(source: str | None, source_kind: str | None) -> frozenset[str]:
    """What a claim derived from nothing rests on: its source, unless an agent restated it."""
    if not (source or "").strip() or source_kind in RESTATING:
        return frozenset()
    return frozenset({(source or "").strip()})


def recorded(meta: Mapping[str, Any]) -> frozenset[str] | None:
    """The ``evidence`` list a memory's frontmatter keeps (``None``: absent or malformed)."""
    value = meta.get(EVIDENCE)
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return frozenset(v.strip() for v in value)
    return None


def roots(
    source: str | None,
    source_kind: str | None,
    depends_on: Iterable[str],
    parent: Callable[[str], tuple[Mapping[str, Any], str | None, str | None, tuple[str, ...]] | None],
) -> frozenset[str]:
    """The roots of a claim with ``source``/``source_kind`` derived from ``depends_on``.

    ``parent(path)`` gives a memory's (frontmatter, source, source_kind, depends_on), or ``None``
    when there is no such memory (then the path itself is the root: the claim rests on it, and
    validation reports that it is missing). Each memory is visited once, so cycles end."""
    deps = list(dict.fromkeys(depends_on))
    if not deps:
        return own_roots(source, source_kind)
    found: set[str] = set()
    seen: set[str] = set()
    todo = list(deps)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        record = parent(path)
        if record is None:
            found.add(f"memory:{path}")
            continue
        meta, its_source, its_kind, its_deps = record
        kept = recorded(meta)
        if kept is not None:
            found |= kept
        elif its_deps:
            todo.extend(its_deps)
        else:
            found |= own_roots(its_source, its_kind)
    return frozenset(found)


@dataclass(frozen=True)
class Counted:
    """What a REINFORCE adds: the ``new`` roots, the whole ``evidence`` afterwards and the
    ``confidence`` they give (one noisy-OR step per new root)."""

    new: tuple[str, ...]
    evidence: tuple[str, ...]
    confidence: float


def count(
    decision: Decision, held: frozenset[str], offered: frozenset[str], confidence: float, weight: float | None
) -> tuple[Decision, Counted | None]:
    """Apply the rule to a REINFORCE: with no root outside ``held`` (what the memory rests on) the
    candidate restates it and the decision becomes NOOP, saying so; otherwise the confidence rises
    once per new root. Other decisions pass through."""
    if decision.op is not Op.REINFORCE or decision.target is None:
        return decision, None
    target = decision.target
    new = sorted(offered - held)
    if not new:
        basis = ", ".join(sorted(held)) or "no independent source"
        why = (
            f"{target.path} already says this; the new statement rests on what was already counted ({basis}), "
            "and repeating a claim is not new evidence"
        )
        return replace(decision, op=Op.NOOP, reason=why), None
    value = confidence
    for _ in new:
        value = reinforced_confidence(value, weight)
    reason = f"{target.path} already says this; confirmed independently by {', '.join(new)}"
    return replace(decision, reason=reason), Counted(tuple(new), tuple(sorted(held | set(new))), value)
