"""The core guard: the rules every change to memory obeys, whatever door it came through (pure).

memfs is reached through many doors (the CLI, the file tools, MCP, ``memfs watch``, remember,
sync, the merge driver); a rule checked at one door is a hole at the others. So the rules live
here, and the one commit path (:class:`memfs.store.repo.Transaction`) runs :func:`check` on
every changed memory file and :func:`check_message` on every commit message, before anything
reaches disk or git. Rules, in the order they are checked:

* ``secret/<kind>``: a secret or identity number in the added text of a file (body, every
  frontmatter value at any depth, comments), in its path, or in the commit message (reason,
  trailers). Text is normalised first (invisible characters dropped, full-width forms folded).
  Never overridable, by anyone: git keeps what it is given.
* ``core-memory``: ``system/`` is injected into every context, so creating, changing, moving
  or deleting anything there needs a person (a ``user:`` actor) or the host's grant.
* ``scope-boundary``: a session bound to a scope changes memories of that scope only; a memory
  of another scope is "no such memory" (the message names no other scope's path or scope).
* ``protected-field``: ``scope``, ``status``, ``source``, ``source_kind``, ``id``, ``revision``,
  ``created`` and ``invalidated_by`` change only through the verbs that own them
  (:data:`OWNERS`); a new memory starts ``active`` with no ``invalidated_by``. The error names
  the verb to use. A person may force it; the host may allow agents named fields. A revision
  only moves to the next number above both the old one and the highest the memory ever had
  (``FileChange.floor``), so no door can hand a revision number out twice.

Why each verb owns what it owns in :data:`OWNERS`:

* ``remember`` creates and supersedes values (scope, source, source_kind, id, status), and
  stores a candidate the gate downgraded as ``needs_review``;
* ``retract``, ``forget``, ``purge`` and ``prune`` withdraw memories (``status``) and flag what
  was derived from them (``status: needs_review`` plus ``invalidated_by``): ``forget`` is the
  retraction of one memory, ``purge`` flags what was derived from the memory it erases (naming it
  by a digest), ``prune`` expires and archives by the policy's rules and retracts reviews that
  went stale, flagging their closure; being flaggers, they also cross a session's scope
  (:data:`FLAGGING`), since the closure follows ``depends_on`` into other scopes;
* ``reinstate`` clears a review (``status``, ``invalidated_by``); ``expire`` records expiry;
* ``consolidate`` marks the episodes it summarised ``superseded`` (``status`` only: it flags
  nothing and sets no other protected field);
* ``summarize`` (thread summaries) moves its ``source`` along the thread.
* ``managed-time``: memfs sets ``created`` and ``updated``; an agent's change may not set them
  to another time (a backdated ``created`` would pass an old claim for a long-standing one, and
  make freshness lie). A value within :data:`TIME_SLACK` of the commit's time is memfs's own
  (or an editor's save a moment ago, seen by ``memfs watch``).
* ``system-source``: ``source_kind: system`` is the administrator's voice (trusted for
  preferences like the user's own), so only a person or the host's grant sets it.
* ``user-source``: ``source_kind: user`` claims the user said it, so only that user (the actor
  ``user:U5`` for a scope whose user is ``U5``; any person for a scope without a user) or a host
  that vouches for it may write it, on a new memory and on every change of what a user-sourced
  memory says (its body or its ``source``: a SUPERSEDE, an edit), not only when the label is
  first set. A person may force it.

Replays of history (:data:`HISTORY_OPS`) own every field; a person's import
(:data:`IMPORT_OPS`) owns the protected fields and the user-source rule, but not ``system/``.

Who acts is the actor's kind: ``user:...`` is a person; every other kind (``agent:``, ``tool:``,
``system:``...) is not, and can never force.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memfs.format import yamlio
from memfs.format.model import SYSTEM_DIR, Problem
from memfs.format.times import parse_time
from memfs.policy.recall import ScopeRule
from memfs.policy.refusal import Refusal

if TYPE_CHECKING:
    from memfs.policy.secrets_scan import Finding

PERSON = "user"

#: Protected fields and the verbs that own them (may change them).
OWNERS: dict[str, tuple[str, ...]] = {
    "scope": ("remember",),
    "status": ("retract", "reinstate", "forget", "purge", "expire", "remember", "prune", "consolidate"),
    "source": ("remember", "summarize"),
    "source_kind": ("remember",),
    "id": ("remember",),
    "revision": (),
    "created": (),
    "invalidated_by": ("retract", "reinstate", "forget", "purge", "prune"),
}
#: Verbs that flag memories derived from what they withdraw, whatever their scope: the closure
#: follows ``depends_on`` across scopes, and a bound session must not leave another scope's derived
#: memory recallable.
FLAGGING = frozenset({"retract", "forget", "purge", "prune"})
#: Operations that replay or restore history already made by others (undo, integration of
#: other clones, building a repository): they own every field; secrets and ``system/`` still apply.
HISTORY_OPS = frozenset({"init", "demo", "revert", "sync", "merge"})
#: History operations whose actor still decides ``system/``: a revert is someone's choice now
#: (undoing a person's change to core memory is a change to core memory), unlike building a
#: repository or integrating commits other clones already made.
_ACTOR_JUDGED = frozenset({"revert"})
#: Bulk loads of memories kept elsewhere (``memfs import`` from Letta, basic-memory, Obsidian, a
#: folder of Markdown). The files arrive with the fields another system gave them: any
#: ``status``, their own ``created``, ``source_kind: user`` as that system recorded it, ids taken
#: from permalinks. When a person imports, the verb owns every protected field and the
#: user-source rule does not apply: the person vouches for the records they bring, as they
#: could by forcing each file. Not so for agents and tools: an import is a file an agent could
#: have written itself, so letting it through would launder a ``source_kind: user`` preference
#: or a retraction's status past the rules; for them the rules stand (the host can still grant
#: fields or vouch). Unlike :data:`HISTORY_OPS`, ``system/`` still needs a person or a grant,
#: and secrets are refused for everyone; the importer judges files one at a time
#: (:meth:`memfs.store.repo.Transaction.admit`) and reports each refused one.
IMPORT_OPS = frozenset({"import"})
#: Fields memfs itself keeps; on any change the guard lets them move the way memfs moves them.
MANAGED = frozenset({"revision", "updated"})
#: How far from the commit's time an agent's ``created`` or ``updated`` may be: memfs's own
#: stamp, or a save moments before ``memfs watch`` commits it (and a little clock skew).
TIME_SLACK = dt.timedelta(minutes=10)
#: What the refusal suggests for each protected field.
_VERB_FOR = {
    "scope": "remember the memory again with the new scope (memfs remember), then retract the old one",
    "status": "use memfs retract, reinstate, forget or expire",
    "source": "remember the corrected value with its source (memfs remember)",
    "source_kind": "remember the value again with its true source (memfs remember)",
    "id": "ids are fixed once given; create a new memory instead",
    "revision": "memfs counts revisions itself; leave the field as it is",
    "created": "memfs sets created once; leave the field as it is",
    "invalidated_by": "use memfs retract or reinstate",
}


@dataclass(frozen=True)
class Grants:
    """What the host (the program that runs the agent) lets its agents do beyond the defaults:
    change the protected ``fields`` named, write ``system/``, and vouch that ``source_kind: user``
    really is the user's statement."""

    fields: frozenset[str] = frozenset()
    system: bool = False
    vouch_user_source: bool = False


@dataclass(frozen=True)
class Access:
    """Who is changing memory, by which verb, in which session."""

    actor: str
    op: str
    binding: ScopeRule | None = None
    grants: Grants = field(default_factory=Grants)
    force: bool = False
    now: dt.datetime | None = None

    @property
    def is_person(self) -> bool:
        return actor_kind(self.actor) == PERSON


@dataclass(frozen=True)
class FileChange:
    """One memory file a commit would change, as the guard needs to see it.

    ``before``/``after`` are the frontmatter mappings (``None``: the file does not exist on that
    side; an unreadable side is ``{}``, so it is treated as having none of the fields);
    ``changed`` the top-level keys whose value differs; ``added`` the file's text with only
    its new lines kept, the others blank (where a new secret could be, at the file's own line
    numbers); ``moved_from`` the path a rename takes it from; ``floor``
    the highest revision the memory ever had in history (a new revision goes above it, so after a
    revert the number may jump)."""

    path: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    changed: frozenset[str]
    added: str
    moved_from: str | None = None
    floor: int = 0
    #: the text after the frontmatter differs (what the memory says changed)
    body_changed: bool = False


def actor_kind(actor: str) -> str:
    return actor.split(":", 1)[0].strip().lower() if ":" in actor else ""


def describe(
    path: str,
    before: str | None,
    after: str | None,
    *,
    after_meta: Mapping[str, Any] | None = None,
    moved_from: str | None = None,
    owned: frozenset[str] = frozenset(),
    floor: int = 0,
) -> FileChange:
    """The :class:`FileChange` from the two texts of a file (``None``: absent on that side).

    ``after_meta`` is the new frontmatter if the caller parsed it already; ``owned`` the protected
    fields the change's verb may change (:func:`owned_fields`). The old frontmatter is parsed only
    when a protected key the verb does not own (or ``scope``) has different lines, or the file goes
    away; ``revision`` is read from its own line. So a retraction that rewrites a thousand
    ``status`` lines costs a text comparison per file, not two YAML parses.
    """
    before_fm, after_fm = _frontmatter(before), _frontmatter(after)
    old_keys, new_keys = _key_texts(before_fm), _key_texts(after_fm)
    changed = frozenset(k for k in old_keys.keys() | new_keys.keys() if old_keys.get(k) != new_keys.get(k))
    if after is None:
        after_meta = None
    elif after_meta is None:
        after_meta = _meta(after_fm)
    revision = _plain_revision(old_keys.get("revision")) if "revision" in changed else None
    unowned = (changed & OWNERS.keys()) - owned - {"revision"}
    if before is None:
        before_meta: Mapping[str, Any] | None = None
    elif after_meta is None or unowned or "scope" in changed or ("revision" in changed and revision is None):
        before_meta = _meta(before_fm)
    else:
        before_meta = {k: v for k, v in after_meta.items() if k not in changed}
        if revision is not None:
            before_meta["revision"] = revision
    if before_meta is not None and after_meta is not None:
        changed = frozenset(k for k in changed if before_meta.get(k) != after_meta.get(k))
    body_changed = before is not None and after is not None and _tail(before, before_fm) != _tail(after, after_fm)
    return FileChange(path, before_meta, after_meta, changed, _added_lines(before, after), moved_from, floor,
                      body_changed)


def check(change: FileChange, access: Access) -> list[Refusal]:
    """Every rule ``change`` breaks for ``access`` (empty: it may be committed). Forceable
    refusals are already dropped when a person forces the change."""
    found = secrets(change)
    found += _core_memory(change, access)
    found += _boundary(change, access)
    found += _protected(change, access)
    found += _user_source(change, access)
    found += _agent_claims(change, access)
    if access.force and access.is_person:
        found = [r for r in found if not r.forceable]
    return found


def check_message(message: str) -> list[Refusal]:
    """Secrets in a commit message (subject, reason, trailers): never allowed, like in a file."""
    from memfs.policy.secrets_scan import scan

    return [_secret_refusal(f, "commit message", "reword the reason without it") for f in scan(message)]


def secrets(change: FileChange) -> list[Refusal]:
    """Secrets in what the change adds: its new lines, the decoded values of its changed fields
    (YAML escapes like ``\\x41`` hide nothing) and its path.

    The scanner is imported here, by the first call that scans: a command that judges no text (a
    ``sync`` that fetched nothing) does not load its tables."""
    from memfs.policy.secrets_scan import scan, scan_values

    fix = "remove it (refer to where it is kept instead, e.g. 'in the team vault'); nothing was written"
    found = [_secret_refusal(f, change.path, fix) for f in scan(change.added)]
    seen = {r.rule for r in found}
    for name in sorted(change.changed & (change.after or {}).keys(), key=str):
        for finding in scan_values((change.after or {})[name], change.added):
            if finding.rule not in seen:
                seen.add(finding.rule)
                found.append(Refusal(finding.rule, _secret_refusal(finding, change.path, fix).message, fix, str(name)))
    for path in {change.path, change.moved_from} - {None}:
        found += [_secret_refusal(f, "file name", "name the file without it") for f in scan(str(path))]
    return found


def file_secrets(path: str, before: str | None, after: str | None, *, memory: bool) -> list[Refusal]:
    """Secrets a change to any file under the memory root brings in, whoever made it (a hand
    commit, a commit another clone made): for a memory, as :func:`secrets` judges its change
    (decoded frontmatter values too); for any other file (a README, notes, configuration) in its
    added lines and its name. Deleting a file brings nothing in."""
    if after is None:
        return []
    if memory:
        return secrets(describe(path, before, after))
    return secrets(FileChange(path, None, None, frozenset(), _added_lines(before, after)))


def secret_problems(path: str, text: str, meta: Mapping[str, Any] | None = None) -> list[Problem]:
    """The secrets in a whole memory file (its text, its decoded frontmatter values ``meta`` if
    the caller parsed them, its path) as validation findings: what ``memfs validate`` (the
    pre-commit hook, the CI step) reports, so a plain ``git commit`` made with the hook installed
    is stopped too."""
    change = describe(path, None, text, after_meta=meta)
    fix = "remove it; if it was ever committed, erase it from history with memfs purge"
    return [
        Problem(path, r.field if r.field != "text" else None, f"{r.rule}: {r.message.split(': ', 1)[-1]}", fix,
                line=r.line)
        for r in secrets(change)
    ]


def _secret_refusal(finding: Finding, where: str, fix: str) -> Refusal:
    return Refusal(
        finding.rule,
        f"{where}: {finding.kind} found ({finding.preview}); memfs never stores secrets or ID numbers, "
        "because git keeps them in history",
        fix,
        None if where in ("commit message", "file name") else "text",
        finding.start,
        finding.end,
        finding.line,
        finding.column,
    )


def in_system(path: str | None) -> bool:
    return path is not None and path.startswith(SYSTEM_DIR + "/")


def _core_memory(change: FileChange, access: Access) -> list[Refusal]:
    if not (in_system(change.path) or in_system(change.moved_from)):
        return []
    if access.is_person or access.grants.system or access.op in HISTORY_OPS - _ACTOR_JUDGED:
        return []
    return [
        Refusal(
            "core-memory",
            f"{change.path}: system/ is core memory, injected into every context, so only a person "
            f"may change it (the actor is {access.actor})",
            "ask a person to make this change, or have the host grant system writes",
        )
    ]


def _boundary(change: FileChange, access: Access) -> list[Refusal]:
    rule = access.binding
    if rule is None or rule.scope is None or in_system(change.path):
        return []
    before_scope = _scope(change.before)
    after_scope = _scope(change.after)
    flagging = access.op in FLAGGING and _status(change.after) == "needs_review"
    if change.before is not None and before_scope != rule.scope and not flagging:
        return [Refusal("scope-boundary", f"{change.moved_from or change.path}: no such memory",
                        "view the directory to see this session's memories")]
    if change.after is not None and after_scope != rule.scope and not flagging:
        return [
            Refusal(
                "scope-boundary",
                f"{change.path}: scope {after_scope or '(none)'} is outside this session's scope {rule.scope}",
                f"write memories with scope: {rule.scope}",
                "scope",
            )
        ]
    return []


def _protected(change: FileChange, access: Access) -> list[Refusal]:
    if change.after is None or access.op in HISTORY_OPS or _person_import(access):
        return []
    if change.before is None:
        return _protected_on_create(change, access)
    found = []
    for name in sorted(change.changed & OWNERS.keys()):
        if access.op in OWNERS[name] or name in access.grants.fields:
            continue
        if name == "revision" and _bumped(change.before, change.after, change.floor):
            continue
        found.append(_protected_refusal(change.path, name, access))
    return found


def _protected_on_create(change: FileChange, access: Access) -> list[Refusal]:
    after = change.after or {}
    found = []
    if _status(after) not in (None, "active") and "status" not in _owned(access):
        found.append(_protected_refusal(change.path, "status", access, new=True))
    if after.get("invalidated_by") and "invalidated_by" not in _owned(access):
        found.append(_protected_refusal(change.path, "invalidated_by", access, new=True))
    return found


def owned_fields(access: Access) -> frozenset[str]:
    """The protected fields ``access``'s verb may change (all of them for replays and a person's
    import): what :func:`describe` need not read the old value of."""
    if access.op in HISTORY_OPS or _person_import(access):
        return frozenset(OWNERS)
    return frozenset(_owned(access))


def _owned(access: Access) -> set[str]:
    return {name for name, verbs in OWNERS.items() if access.op in verbs} | set(access.grants.fields)


def _protected_refusal(path: str, name: str, access: Access, new: bool = False) -> Refusal:
    what = "a new memory starts active with no invalidated_by" if new else f"{name} may not change through {access.op}"
    return Refusal(
        "protected-field",
        f"{path}: {what} ({name} is protected: it decides who recalls the memory and why)",
        _VERB_FOR[name],
        name,
        forceable=True,
    )


#: Fields whose change is a new claim of what the user said, like a new body: where it was said.
_CLAIM_FIELDS = frozenset({"source_kind", "source"})


def _user_source(change: FileChange, access: Access) -> list[Refusal]:
    """``user-source`` on every change that makes a claim in the user's name: a new memory, and
    an edit of the body or of where it was said (a SUPERSEDE, a file tool's edit, a watched save),
    even when the memory already said ``source_kind: user``. An edit that leaves what the user
    said as it was (a retraction's ``status``, an expiry, a reinforcement's ``evidence``) needs no
    such claim."""
    after = change.after
    if after is None or after.get("source_kind") != "user":
        return []
    if (change.before is not None and change.before.get("source_kind") == "user"
            and not change.body_changed and not change.changed & _CLAIM_FIELDS):
        return []
    if access.grants.vouch_user_source or access.op in HISTORY_OPS or _person_import(access):
        return []
    users = [seg.split(":", 1)[1] for seg in (_scope(after) or "").split("/") if seg.startswith("user:")]
    who = access.actor.split(":", 1)[1] if access.is_person else None
    if access.is_person and (not users or who in users):
        return []
    return [
        Refusal(
            "user-source",
            f"{change.path}: source_kind: user says the user stated it, but the actor is {access.actor}",
            "record it with the source it came from (source_kind: agent, tool or document), act as that user, "
            "or have the host vouch for user statements",
            "source_kind",
            forceable=True,
        )
    ]


def _agent_claims(change: FileChange, access: Access) -> list[Refusal]:
    """``managed-time`` and ``system-source`` (see the module docstring): what only memfs or a
    person may set, checked on what this change sets (a new file's values, an edit's changes)."""
    after = change.after
    if after is None or access.is_person or access.op in HISTORY_OPS:
        return []
    setting = after.keys() if change.before is None else change.changed
    found = []
    if "source_kind" in setting and after.get("source_kind") == "system" and "source_kind" not in access.grants.fields:
        found.append(Refusal(
            "system-source", f"{change.path}: source_kind: system is the administrator's voice, but the actor is "
            f"{access.actor}", "record it with the source it came from (source_kind: agent, tool or document)",
            "source_kind"))
    for name in ("created", "updated") if change.before is None else ("updated",):
        if name not in setting or name in access.grants.fields or access.now is None:
            continue
        when = parse_time(after.get(name))
        if when is None or abs(when - access.now) > TIME_SLACK:
            found.append(Refusal(
                "managed-time", f"{change.path}: {name} is set by memfs when the memory is written (the actor "
                f"{access.actor} gave {after.get(name)!s})", f"leave {name} out; memfs stamps it", name))
    return found


def _person_import(access: Access) -> bool:
    return access.op in IMPORT_OPS and access.is_person


def _bumped(before: Mapping[str, Any], after: Mapping[str, Any], floor: int = 0) -> bool:
    """Whether ``revision`` moved the way memfs moves it: unchanged, or to the next number above
    both the old one and the highest the memory ever had (``floor``)."""
    old, new = before.get("revision", 1), after.get("revision", 1)
    return isinstance(old, int) and isinstance(new, int) and new in (old, max(old, floor) + 1)


def _scope(meta: Mapping[str, Any] | None) -> str | None:
    value = None if meta is None else meta.get("scope")
    return value if isinstance(value, str) else None


def _status(meta: Mapping[str, Any] | None) -> str | None:
    value = None if meta is None else meta.get("status")
    return value if isinstance(value, str) else None


def _frontmatter(text: str | None) -> str:
    from memfs.format.document import split

    if text is None:
        return ""
    try:
        return split(text).frontmatter
    except ValueError:
        return ""


def _meta(frontmatter: str) -> dict[str, Any]:
    try:
        loaded = yamlio.load(frontmatter) if frontmatter.strip() else {}
    except yamlio.YamlError:
        return {}
    return loaded if isinstance(loaded, dict) else {}


_REVISION_LINE = re.compile(r"revision:[ \t]*(\d{1,9})[ \t]*(?:#[^\n]*)?\r?\n?")


def _plain_revision(text: str | None) -> int | None:
    """The number on a plain ``revision: N`` line (``None`` for anything YAML must read)."""
    match = _REVISION_LINE.fullmatch(text or "")
    return int(match.group(1)) if match else None


def _key_texts(frontmatter: str) -> dict[str, str]:
    lines = frontmatter.splitlines(keepends=True)
    return {key: "".join(lines[a:b]) for key, (a, b) in yamlio.key_lines(frontmatter).items()}


def _tail(text: str, frontmatter: str) -> str:
    """What follows the frontmatter (the body), found where :func:`_frontmatter` found it."""
    return text[text.find(frontmatter) + len(frontmatter):] if frontmatter else text


def _added_lines(before: str | None, after: str | None) -> str:
    """The lines of ``after`` that ``before`` does not have, the others blanked: a finding's line
    and column are the file's own, and only lines added next to each other are joined."""
    if after is None:
        return ""
    if before is None:
        return after
    old = set(before.splitlines())
    return "\n".join("" if line in old else line for line in after.splitlines())
