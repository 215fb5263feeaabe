"""``memfs remember``: a candidate memory through the write gate, reconciled, in one commit.

:func:`remember` runs a candidate through the write gate (:mod:`memfs.policy.gate`), reconciles it
with what is there (:mod:`memfs.policy.reconcile`) and applies the decision in ONE commit whose
trailers say what happened (``Memfs-Op: supersede``, ``Memfs-Idempotency-Key``...). Everything
from reading the existing memories to the commit happens under the repository's write lock, so
two writers on the same subject are serialised: each sees the other's result, and a caller that
passes the revision it read gets a :class:`~memfs.errors.ConflictError` instead of overwriting.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from memfs.errors import ConflictError, InvalidMemory, MemoryNotFound, PathError, UsageError, WriteRefused, one_line
from memfs.format import yamlio
from memfs.format.edit import check_revision
from memfs.format.model import Memory
from memfs.format.names import default_id
from memfs.format.parse import load_document
from memfs.ops import idempotency
from memfs.ops.judge import configured, rulings
from memfs.policy import evidence, gate
from memfs.policy.candidate import Candidate
from memfs.policy.conflicts import Ruling
from memfs.policy.meaning import Reading
from memfs.policy.reconcile import Decision, Op, reconcile
from memfs.store.gitcli import ere_escape
from memfs.store.repo import Store, Transaction

TYPE_DIRS = {
    "preference": "prefs",
    "fact": "facts",
    "episode": "episodes",
    "procedure": "procedures",
    "summary": "summaries",
    "note": "notes",
}
DESCRIPTION_CHARS = 120
#: Confidence of a new value when the candidate gives none: one statement, not yet confirmed.
#: Each confirmation (REINFORCE) raises it by a noisy OR, see :func:`memfs.policy.reconcile.reinforced_confidence`.
DEFAULT_CONFIDENCE = 0.8
#: Frontmatter a candidate's extra fields may not set: the verbs that own them do.
_OWNED = frozenset({"status", "evidence", "gate", "invalidated_by", "reinstated", "revision", "created", "updated"})


@dataclass(frozen=True)
class Outcome:
    """What :func:`remember` did."""

    op: Op
    paths: tuple[str, ...]
    reason: str
    commit: str | None
    revision: int | None = None
    forced: tuple[str, ...] = ()
    #: What the gate stored differently from what was asked (needs_review, low confidence), and why.
    downgraded: tuple[gate.Refusal, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op.value,
            "paths": list(self.paths),
            "reason": self.reason,
            "commit": self.commit,
            "revision": self.revision,
            "forced": list(self.forced),
            "downgraded": [r.to_json() for r in self.downgraded],
        }


# --- remember ----------------------------------------------------------------------------
def remember(repo: Store, candidate: Candidate | Mapping[str, Any], *, force: bool = False,
             actor: str | None = None) -> Outcome:
    """Gate, reconcile and apply ``candidate`` in one commit (none for NOOP). A candidate given as
    a mapping (what ``--json`` takes, and the live index receives) is checked by ``from_mapping``.

    ``force`` overrides the gate rules a person may override (never secrets). Raises
    :class:`WriteRefused` (nothing written) or :class:`ConflictError` when
    ``candidate.expected_revision`` is stale.
    """
    if not isinstance(candidate, Candidate):
        from memfs.policy.candidate import from_mapping

        candidate = from_mapping(candidate)
    candidate = _tidy(candidate)
    judge = configured(repo)
    reading = judge(candidate) if judge is not None and not gate.secrets(candidate) else None
    ruled = rulings(repo, candidate)
    with repo.transaction("remember", actor=actor, force=force) as tx:
        refused = gate.secrets(candidate)
        if refused:
            raise WriteRefused(refused)
        keys = idempotency.applied_keys(repo) if candidate.idempotency_key else {}
        step = _remember_in(repo, tx, candidate, force, keys, reading=reading, ruled=ruled)
        tx.op = step.op.trailer
        tx.reason = candidate.reason or step.reason
        tx.trailers.update(_trailers([candidate], [r for r in step.forced]))
    idempotency.note(repo, tx.result, tx.trailers.get(idempotency.TRAILER, []))
    return replace(step, commit=step.commit or tx.result.commit)


@dataclass
class BatchResult:
    """What :func:`remember_batch` did: one outcome per candidate (``None`` where refused)."""

    commit: str | None
    outcomes: list[Outcome | None]
    refused: dict[int, list[gate.Refusal]]

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "outcomes": [o.to_json() if o else None for o in self.outcomes],
            "refused": {str(i): [r.to_json() for r in rs] for i, rs in self.refused.items()},
        }


def remember_batch(
    repo: Store, candidates: list[Candidate], *, force: bool = False, actor: str | None = None
) -> BatchResult:
    """Remember many candidates in ONE commit (an import, a session's worth of memories).

    Each candidate sees the ones before it; a refused candidate is skipped and reported, the rest
    are committed. A stale ``expected_revision`` aborts the whole batch (nothing is written).
    A RETRACT uses the lineage retraction, which makes its own commit."""
    result = BatchResult(None, [], {})
    tidy = [_tidy(c) for c in candidates]
    judge = configured(repo)
    readings = [judge(c) if judge is not None and not gate.secrets(c) else None for c in tidy]
    ruled = [rulings(repo, c) for c in tidy]
    with repo.transaction("remember", actor=actor, force=force) as tx:
        applied = dict(idempotency.applied_keys(repo))
        ops: Counter[str] = Counter()
        kept: list[Candidate] = []
        staged: dict[str, None] = {}
        for index, candidate in enumerate(tidy):
            try:
                refused = gate.secrets(candidate)
                if refused:
                    raise WriteRefused(refused)
                step = _remember_in(repo, tx, candidate, force, applied, tuple(staged), readings[index],
                                    ruled[index])
            except WriteRefused as exc:
                tx.note_refused(exc.refusals)
                result.refused[index] = exc.refusals
                result.outcomes.append(None)
                continue
            result.outcomes.append(step)
            ops[step.op.trailer] += 1
            if step.op is not Op.NOOP:
                kept.append(candidate)
                staged.update(dict.fromkeys(step.paths))
                if candidate.idempotency_key:
                    applied[candidate.idempotency_key] = "(this batch)"
        tx.subject = f"{sum(ops.values()) - ops['noop']} memories"
        tx.reason = ", ".join(f"{op} {n}" for op, n in sorted(ops.items()))
        tx.trailers.update(_trailers(kept, []))
        tx.trailers.pop("Memfs-Scope", None)
        tx.trailers.pop("Memfs-Key", None)
        tx.trailers.pop("Memfs-Source", None)
    idempotency.note(repo, tx.result, tx.trailers.get(idempotency.TRAILER, []))
    result.commit = tx.result.commit
    result.outcomes = [replace(o, commit=o.commit or result.commit) if o else None for o in result.outcomes]
    return result


def _tidy(candidate: Candidate) -> Candidate:
    if candidate.idempotency_key:
        return replace(candidate, idempotency_key=" ".join(candidate.idempotency_key.split()))
    return candidate


def _remember_in(
    repo: Store,
    tx: Transaction,
    candidate: Candidate,
    force: bool,
    applied_keys: dict[str, str],
    staged: tuple[str, ...] = (),
    reading: Reading | None = None,
    ruled: Mapping[str, Ruling] | None = None,
) -> Outcome:
    """Gate, reconcile and stage one candidate inside ``tx``; ``commit`` is set only when another
    operation (a lineage retraction) committed on its own. ``reading`` is the judge's reading of
    the candidate's meaning and ``ruled`` its rulings on the candidate's probable conflicts, asked
    before the lock (:mod:`memfs.ops.judge`); a ruling chooses among what the rules find here, and
    the gate and the guard judge the decision as any other."""
    force = force and tx.forced  # only a person overrides the gate
    memories = _related_memories(repo, tx, candidate, staged)
    if candidate.supersedes:
        memories = [*memories, _superseded(tx, candidate)]
    decision = reconcile(candidate, memories, rulings=ruled)
    refusals = gate.check(candidate, decision.target, reading)
    blocking = [r for r in refusals if not (force and r.forceable)]
    if blocking:
        raise WriteRefused(blocking)
    applied = applied_keys.get(candidate.idempotency_key or "")
    if applied is not None:
        decision = replace(reconcile(candidate, memories, applied_in=applied), target=decision.target)
    offered = _roots(tx, candidate.source, candidate.source_kind, candidate.depends_on)
    downgraded: list[gate.Refusal] = []
    if decision.op in (Op.INSERT, Op.KEEP_BOTH, Op.SUPERSEDE):
        downgraded = gate.downgrades(candidate, offered, reading)
        if force:
            refusals, downgraded = [*refusals, *downgraded], []
    counted = None
    if decision.op is Op.REINFORCE and decision.target is not None:
        target = decision.target
        held = evidence.recorded(target.meta)
        if held is None:
            held = _roots(tx, target.source, target.source_kind, target.depends_on)
        decision, counted = evidence.count(decision, held, offered, target.confidence, candidate.confidence)
    _check_expected(candidate, decision)
    override = _downgraded(tx, candidate, downgraded) if downgraded else {}
    paths, revision, commit = _apply(repo, tx, candidate, decision, offered, counted, override)
    forced = tuple(r.rule for r in refusals) if force else ()
    return Outcome(decision.op, paths, decision.reason, commit, revision, forced, tuple(downgraded))


def _superseded(tx: Transaction, candidate: Candidate) -> Memory:
    """The memory ``candidate.supersedes`` names, checked: an active memory of the candidate's scope
    and version (and key, when both have one); :class:`UsageError` naming ``supersedes`` otherwise,
    before anything is written. Another scope's file reads as missing, as at every door."""
    path = candidate.supersedes
    assert path is not None
    try:
        memory = tx.read(path)
    except (InvalidMemory, MemoryNotFound, PathError) as exc:
        raise UsageError(f"supersedes {path!r}: no active memory to replace there ({one_line(exc)})",
                         param="supersedes") from None
    problem = (
        "no memory of this scope is there" if memory.scope != candidate.scope
        else f"it is {memory.status}, not active" if memory.status != "active"
        else f"it applies to version {memory.version or 'any'}, not {candidate.version or 'any'}"
        if memory.version != candidate.version
        else f"its key is {memory.key!r}, not {candidate.key!r}"
        if candidate.key and memory.key not in (None, candidate.key)
        else None
    )
    if problem is not None:
        raise UsageError(f"supersedes {path!r}: {problem}; name an active memory of {candidate.scope} (memfs ls; "
                         "memfs review lists probable conflicts)", param="supersedes")
    return memory


def _downgraded(tx: Transaction, candidate: Candidate, found: list[gate.Refusal]) -> dict[str, Any]:
    """The fields that store the candidate as the gate lets it in: ``needs_review``, low confidence,
    and a ``gate`` record saying why and how a person confirms it (with the confidence asked for,
    which a confirmation restores)."""
    asked = DEFAULT_CONFIDENCE if candidate.confidence is None else candidate.confidence
    first = found[0]
    record = {"rule": first.rule, "reason": first.message, "override": first.fix, "at": tx.now, "actor": tx.actor,
              "confidence": asked}
    return {"status": "needs_review", "confidence": min(asked, gate.DOWNGRADED_CONFIDENCE), gate.RECORD: record}


def _roots(tx: Transaction, source: str | None, kind: str | None, depends_on: tuple[str, ...]) -> frozenset[str]:
    """The independent sources a claim rests on (:func:`memfs.policy.evidence.roots`), reading the
    memories it was derived from through the transaction."""

    def parent(path: str) -> tuple[dict[str, Any], str | None, str | None, tuple[str, ...]] | None:
        try:
            memory = tx.read(path)
        except (InvalidMemory, MemoryNotFound, PathError):
            return None
        return memory.meta, memory.source, memory.source_kind, memory.depends_on

    return evidence.roots(source, kind, depends_on, parent)


def _trailers(candidates: list[Candidate], forced: list[str] | tuple[str, ...]) -> dict[str, list[str]]:
    """Queryable trailers: scope, key, source and idempotency key of what was remembered."""
    out: dict[str, list[str]] = {}
    for name, values in (
        ("Memfs-Scope", [c.scope for c in candidates]),
        ("Memfs-Key", [c.key for c in candidates if c.key]),
        ("Memfs-Source", [c.source for c in candidates if c.source]),
        (idempotency.TRAILER, [c.idempotency_key for c in candidates if c.idempotency_key]),
        ("Memfs-Forced", sorted(set(forced))),
    ):
        if values:
            out[name] = list(dict.fromkeys(values))
    return out


def _check_expected(candidate: Candidate, decision: Decision) -> None:
    expected = candidate.expected_revision
    if expected is None or decision.op is Op.NOOP:
        return
    target = decision.target
    if target is None and expected not in (0,):
        subject = f"({candidate.scope}, {candidate.key})" if candidate.key else "this content"
        raise ConflictError(
            f"expected revision {expected} of {subject}, but there is no active memory for it any more; "
            "read it again and redo your change"
        )
    if target is not None:
        check_revision(target.path, target.revision, expected)


def key_pattern(name: str, value: str) -> str:
    """A ``git grep`` pattern for the frontmatter line ``name: value`` (quoted or not, a comment after)."""
    return f"^{name}:[[:space:]]*['\"]?{ere_escape(value)}['\"]?[[:space:]]*(#.*)?$"


def _related_memories(
    repo: Store, tx: Transaction, candidate: Candidate, staged: tuple[str, ...] = ()
) -> list[Memory]:
    """Memories with the candidate's key (any scope), or in its scope when it has no key.

    The write-path cache (:meth:`Transaction.catalog`) names the files, else ``git grep`` does; each is
    then parsed, so quoting and comments do not matter. ``staged`` adds files written earlier in
    the same transaction (not on disk yet). Broken files are skipped here (validation reports them)."""
    known = tx.catalog()
    if known is not None:
        rels = known.with_key(candidate.key) if candidate.key else known.in_scope(candidate.scope)
    elif candidate.key:
        rels = repo.files_matching(key_pattern("key", candidate.key))
    else:
        rels = repo.files_matching(key_pattern("scope", candidate.scope))
    found = []
    for rel in dict.fromkeys([*rels, *staged]):
        try:
            found.append(tx.read(rel))
        except (InvalidMemory, MemoryNotFound):
            continue
    rule = repo.binding
    return [m for m in found if rule is None or m.is_system or rule.allows(m.scope)]


_Applied = tuple[tuple[str, ...], int | None, str | None]


def _apply(
    repo: Store,
    tx: Transaction,
    candidate: Candidate,
    decision: Decision,
    offered: frozenset[str] = frozenset(),
    counted: evidence.Counted | None = None,
    override: Mapping[str, Any] | None = None,
) -> _Applied:
    """Stage the decision in ``tx``: (paths, revision afterwards, commit made elsewhere if any).
    ``offered`` are the candidate's roots (its ``evidence`` when it becomes the value);
    ``counted`` what a REINFORCE adds; ``override`` the fields a gate downgrade sets."""
    op, target = decision.op, decision.target
    kept = sorted(offered) or None
    if op in (Op.INSERT, Op.KEEP_BOTH):
        rel = candidate.path or _new_path(repo, tx, candidate)
        fields = {**_new_fields(candidate), evidence.EVIDENCE: kept, **_apart(candidate, decision), **(override or {})}
        memory = tx.write(rel, fields=fields, body=candidate.body, create_only=True)
        return (memory.path,), memory.revision, None
    if op is Op.NOOP:
        return ((target.path,) if target else ()), (target.revision if target else None), None
    assert target is not None
    if op is Op.REINFORCE:
        assert counted is not None
        _reinforce(tx, target, counted)
        return (target.path,), target.revision, None
    if op is Op.SUPERSEDE:
        memory = tx.write(
            target.path,
            fields={**_superseding_fields(candidate, target), evidence.EVIDENCE: kept, **_apart(candidate, decision),
                    **(override or {})},
            body=candidate.body,
            expected_revision=target.revision,
        )
        return (memory.path,), memory.revision, None
    from memfs.ops.retract import retract

    # Same thread, so the write lock is re-entered: the retraction commits inside our lock.
    result = retract(repo, [target.path], reason=candidate.reason or decision.reason, actor=tx.actor)
    return (target.path, *result.plan.downstream), None, result.commit


def describe(body: str) -> str:
    """A one-line description from the body: its first non-empty line, shortened."""
    for raw in body.splitlines():
        text = raw.strip().lstrip("#>-* ").strip()
        if text:
            return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 1].rstrip() + "…"
    return ""


def _value_fields(candidate: Candidate) -> dict[str, Any]:
    """The fields that describe the candidate's value and its provenance (new or superseding).
    Extra fields are kept, except those memfs's verbs own (a candidate cannot bring its own
    ``status``, ``evidence`` or gate record)."""
    fields: dict[str, Any] = {k: v for k, v in candidate.extra.items() if k not in _OWNED}
    fields.update(
        type=candidate.type,
        source=candidate.source,
        source_kind=candidate.source_kind,
        expires=candidate.expires,
        depends_on=list(candidate.depends_on) or None,
        confidence=DEFAULT_CONFIDENCE if candidate.confidence is None else candidate.confidence,
        description=candidate.description or describe(candidate.body) or None,
    )
    return fields


def _apart(candidate: Candidate, decision: Decision) -> dict[str, Any]:
    """``distinct_from``: the memories the decision kept apart, beside any the caller named; none
    at all removes the field (a superseded value's ``distinct_from`` described the old value)."""
    given = candidate.extra.get("distinct_from")
    if given is not None and not (isinstance(given, list) and all(isinstance(p, str) for p in given)):
        return {}  # the caller's own value, refused by validation with its reason
    paths = sorted({*decision.apart, *(given or ())})
    return {"distinct_from": paths or None}


def _new_fields(candidate: Candidate) -> dict[str, Any]:
    fields = _value_fields(candidate)
    fields.update(
        scope=candidate.scope,
        key=candidate.key,
        version=candidate.version,
        status="active",
        tags=list(candidate.tags) or None,
    )
    return fields


def _superseding_fields(candidate: Candidate, old: Memory) -> dict[str, Any]:
    """The new value's provenance replaces the old one's; fields that described the old value
    (description, expiry, what it was derived from) go unless the candidate gives new ones."""
    fields = _value_fields(candidate)
    if candidate.tags:
        fields["tags"] = list(candidate.tags)
    return fields


def _reinforce(tx: Transaction, target: Memory, counted: evidence.Counted) -> None:
    """Raise confidence, record the new independent sources in ``evidence`` and move ``updated``,
    without a new revision: the value did not change."""
    current = tx.current_bytes(target.path)
    assert current is not None
    doc, _ = load_document(target.path, current)
    changes = {"updated": tx.now, "confidence": counted.confidence, evidence.EVIDENCE: list(counted.evidence)}
    frontmatter = yamlio.edit(doc.frontmatter, changes, doc.newline)
    tx.write_bytes(target.path, doc.with_frontmatter(frontmatter).render().encode("utf-8"))


def slugify(text: str, limit: int = 60) -> str:
    """A file-name stem: letters and digits of any script kept, everything else one ``-``."""
    text = unicodedata.normalize("NFKC", text).casefold()
    slug = re.sub(r"[^\w]+|_", "-", text).strip("-")
    return slug[:limit].rstrip("-") or "memory"


#: A scope written only with these (``agent:a``, ``team:x/project:p8``) appears in a file name as is,
#: ``:`` as ``-`` and ``/`` as ``--``, which reads back to exactly one scope.
_PLAIN_SCOPE = re.compile(r"[a-z0-9_]+(?:[:/][a-z0-9_]+)*")


def scoped_stem(base: str, scope: str) -> str:
    """A default file-name stem in ``scope``: ``format--agent-a``. A scope the plain form cannot
    render exactly (capitals, other characters, more than 40 characters) is shortened and gets the
    first 6 hex digits of its SHA-256 (``format--user-u5-1c9f0e``), so two scopes never share a
    default name: clones that remember the same key in different scopes never write one file."""
    plain = scope.replace("/", "--").replace(":", "-")
    if _PLAIN_SCOPE.fullmatch(scope) and len(plain) <= 40:
        return f"{base}--{plain}"
    return f"{base}--{slugify(scope, 32)}-{hashlib.sha256(scope.encode('utf-8')).hexdigest()[:6]}"


def _new_path(repo: Store, tx: Transaction, candidate: Candidate) -> str:
    """``prefs/release-note-language--user-u5-1c9f0e.md``: the key (else the first words), the
    version, then the scope (:func:`scoped_stem`); a number is added when taken (a file there, or a
    memory already using that path as its id). Files named before the scope was part of the name
    (``prefs/release-note-language.md``) keep their names: memories are found by key, not path."""
    folder = TYPE_DIRS.get(candidate.type, "notes")
    base = slugify(candidate.key or " ".join(candidate.body.split()[:8]))
    if candidate.version:
        base += "-" + slugify(candidate.version, 20)
    first = scoped_stem(base, candidate.scope)
    for stem in (first, *(f"{first}-{n}" for n in range(2, 1000))):
        rel = posixpath.join(folder, stem + ".md")
        if tx.current_bytes(rel) is None and tx.id_is_free(default_id(rel)):
            return rel
    raise ConflictError(f"could not find a free file name for {base!r} under {folder}/; give one", param="path")
