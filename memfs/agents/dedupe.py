"""One side of each duplicate and of each probable conflict goes into a context (rule 2 of
:mod:`memfs.agents.context`).

* **Same declared subject.** At most one active memory per ``(scope, key, version)``: the highest
  revision, in the place of the best-ranked one.
* **Probable conflicts without a key** (:mod:`memfs.policy.conflicts`: same scope, type and
  version, same subject, another value). The newer memory (``updated``, else ``created``) takes
  the place of the older one, which is left out with the reason; a warning names both, so a model
  never gets two values for one subject unlabelled, and a person learns which file to fix (``memfs
  validate`` and ``memfs review`` list the pair too). Every eligible memory of the requested scopes
  is weighed, so a recalled old value is replaced by a newer one the task did not match.
"""

from __future__ import annotations

from dataclasses import dataclass

from memfs.agents.rendering import Context, LeftOut
from memfs.format.model import Memory
from memfs.format.validate import identity_of
from memfs.policy import conflict_pairs


@dataclass
class Candidate:
    """A memory the context may inject, with its search score and relevance (``None``: placed
    without matching, as the scope's preferences are)."""

    memory: Memory
    score: float | None
    relevance: float | None


def one_per_identity(ctx: Context, candidates: list[Candidate], in_scope: list[Memory]) -> list[Candidate]:
    """At most one memory per ``(scope, key, version)``: the highest revision of the eligible ones,
    in the place of the best-ranked one; every other one is left out and reported."""
    groups: dict[tuple[str | None, str, str | None], list[Memory]] = {}
    for memory in [c.memory for c in candidates] + in_scope:
        identity = identity_of(memory)
        if identity is not None:
            group = groups.setdefault(identity, [])
            if all(m.path != memory.path for m in group):
                group.append(memory)
    out: list[Candidate] = []
    placed: set[tuple[str | None, str, str | None]] = set()
    for candidate in candidates:
        identity = identity_of(candidate.memory)
        if identity is None or len(groups[identity]) < 2:
            out.append(candidate)
            continue
        if identity in placed:
            continue
        placed.add(identity)
        group = sorted(groups[identity], key=lambda m: (-m.revision, m.path))
        winner = group[0]
        out.append(candidate if winner.path == candidate.memory.path else Candidate(winner, candidate.score, None))
        scope, key, version = identity
        for other in group[1:]:
            ctx.left_out.append(LeftOut(other.path, f"duplicate of {winner.path} (revision {winner.revision})"))
        ctx.duplicates.extend(m.path for m in group)
        ctx.warnings.append(
            f"{len(group)} active memories share scope {scope or 'none'}, key {key!r}, version {version or 'any'}: "
            f"{', '.join(m.path for m in group)}; only {winner.path} (revision {winner.revision}) was injected. "
            "Supersede, retract or forget the others (memfs validate lists them)."
        )
    return out


def newer_side(ctx: Context, candidates: list[Candidate], in_scope: list[Memory]) -> list[Candidate]:
    """The newer memory of each probable conflict in the older one's place; the older one is left
    out, and the pair is named in a warning and in :attr:`Context.conflicts`."""
    memories = {c.memory.path: c.memory for c in candidates}
    for memory in in_scope:
        memories.setdefault(memory.path, memory)
    pairs = conflict_pairs.pairs(memories.values())
    if not pairs:
        return candidates
    replaced: dict[str, str] = {}
    for pair in pairs:
        replaced.setdefault(pair.older, pair.newer)

    def newest(path: str) -> str:
        seen: set[str] = set()
        while path in replaced and path not in seen:
            seen.add(path)
            path = replaced[path]
        return path

    out: list[Candidate] = []
    placed: set[str] = set()
    for candidate in candidates:
        path = newest(candidate.memory.path)
        if path in placed:
            continue
        placed.add(path)
        out.append(candidate if path == candidate.memory.path else Candidate(memories[path], candidate.score, None))
    offered = {c.memory.path for c in candidates}
    for pair in pairs:
        if pair.older not in offered:
            continue
        now = newest(pair.older)
        ctx.conflicts.append((pair.older, now))
        ctx.left_out.append(LeftOut(pair.older, f"probable conflict: {now} is newer"))
        ctx.warnings.append(
            f"{pair.older} and {pair.newer} look like two values for one subject ({pair.why}); only the newer, "
            f"{now}, was injected. Edit or delete {pair.older} (memfs validate lists the pair)."
        )
    return out
