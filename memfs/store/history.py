"""History of memories: log, a memory as of a commit or date, semantic diffs, and revert.

Everything here reads git; :func:`revert` is the only writer and it either makes one revert
commit or leaves the repository exactly as it was.
"""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass, field, replace
from typing import Any

from memfs.errors import ConflictError, GitError, InvalidMemory, MemoryNotFound, Refused, UsageError
from memfs.format import yamlio
from memfs.format.model import Memory, jsonable
from memfs.format.parse import load_document, parse
from memfs.store import commits, gitcli, paths
from memfs.store.repo import Store, Transaction
from memfs.store.revisions import revision_in


@dataclass(frozen=True)
class LogEntry:
    commit: str
    actor: str
    time: str
    subject: str
    op: str | None
    reason: str | None
    paths: tuple[str, ...]
    trailers: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, repo: Store, c: gitcli.Commit) -> LogEntry:
        """The entry for commit ``c``: its trailers parsed, its paths relative to the memory root."""
        tr = commits.trailers(c.body)
        mine = tuple(rel for f in c.files if (rel := repo.from_git_path(f)) is not None)
        return cls(c.sha, c.author, c.time, c.subject, _op(tr), commits.reason(c.body), mine, tr)

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "actor": self.actor,
            "time": self.time,
            "subject": self.subject,
            "op": self.op,
            "reason": self.reason,
            "paths": list(self.paths),
            "trailers": self.trailers,
        }


def _op(trailers: dict[str, list[str]]) -> str | None:
    """The operation a commit records in its first ``Memfs-Op`` trailer, if it has one."""
    ops = trailers.get("Memfs-Op")
    return ops[0] if ops else None


def log(
    repo: Store, path: str | None = None, *, op: str | None = None, limit: int | None = None
) -> list[LogEntry]:
    """Commits touching the memory root (or one memory), newest first, optionally by ``Memfs-Op``.

    A session bound to a scope (:meth:`Store.session`) sees one memory's log only if it sees the
    memory now, and the whole log reduced to the commits that touch a memory it sees; a commit
    that also touched other scopes' files keeps only the visible paths, and its subject and reason
    (which may name the others) are replaced."""
    if path and repo.binding is not None:
        repo.read_file(path)
    git_path = repo.git_path(repo.rel(path)) if path else repo.pathspec
    grep = f"^Memfs-Op: {gitcli.ere_escape(op)}$" if op else None
    follow = path is not None
    if repo.binding is None:
        return [LogEntry.of(repo, c) for c in repo.log_at_head(git_path, grep, limit, follow)]
    found: list[LogEntry] = []
    for commit in repo.log_at_head(git_path, grep, None, follow):
        entry = _visible_part(repo, LogEntry.of(repo, commit))
        if entry is not None:
            found.append(entry)
        if limit is not None and len(found) >= limit:
            break
    return found


def _visible_part(repo: Store, entry: LogEntry) -> LogEntry | None:
    shown = tuple(rel for rel in entry.paths if repo.visible(rel))
    if not shown:
        return None
    if len(shown) == len(entry.paths):
        return entry
    hidden = len(entry.paths) - len(shown)
    trailers = {k: v for k, v in entry.trailers.items() if k not in ("Memfs-Path", "Memfs-Root", "Reason")}
    subject = f"{entry.op or 'change'} {', '.join(shown)} (and {hidden} other file(s))"
    return replace(entry, subject=subject, reason=None, paths=shown, trailers=trailers)


def resolve_at(repo: Store, at: str) -> str:
    """A commit for ``at``: a revision (``HEAD~2``, a sha, a branch) or an ISO date/time."""
    when = _as_time(at)
    if when is not None:
        sha = repo.git.rev_before(when.timestamp())
        if sha is None:
            raise MemoryNotFound(f"the repository has no commit as old as {at}")
        return sha
    return repo.git.resolve(at)


def _as_time(text: str) -> dt.datetime | None:
    try:
        value = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if value.tzinfo is None:
        raise UsageError(f"{text}: give a time zone, e.g. {text}Z, so the moment is unambiguous", param="at")
    return value


def show_at(repo: Store, path: str, at: str) -> Memory:
    """The memory at ``path`` as it was at commit/date ``at``."""
    return parse(*file_at(repo, path, at))


def file_at(repo: Store, path: str, at: str) -> tuple[str, bytes]:
    """(root-relative path, exact bytes) of the memory at ``path`` at commit/date ``at``."""
    rel = repo.rel(path)
    sha = resolve_at(repo, at)
    data = repo.git.show_file(sha, repo.git_path(rel))
    if data is None or not repo.visible(rel, data):
        raise MemoryNotFound(f"{rel}: did not exist at {at} (commit {sha[:10]})")
    return rel, data


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: Any
    new: Any

    def __str__(self) -> str:
        if self.old is None:
            return f"{self.field}: + {_show(self.new)}"
        if self.new is None:
            return f"{self.field}: - {_show(self.old)}"
        return f"{self.field}: {_show(self.old)} → {_show(self.new)}"


def _show(value: Any) -> str:
    value = jsonable(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


@dataclass(frozen=True)
class FileDiff:
    path: str
    change: str  # added | deleted | modified
    fields: tuple[FieldChange, ...]
    body_changed: bool
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "fields": [{"field": f.field, "old": jsonable(f.old), "new": jsonable(f.new)} for f in self.fields],
            "body_changed": self.body_changed,
            "diff": self.text,
        }


def _meta_body(rel: str, data: bytes | None) -> tuple[dict[str, Any], str | None]:
    if data is None:
        return {}, None
    try:
        doc, meta = load_document(rel, data)
    except InvalidMemory:
        return {}, data.decode("utf-8", "replace")
    return meta, doc.body


def field_changes(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    """Added, removed and changed frontmatter keys, in the newer file's key order."""
    keys = list(new) + [k for k in old if k not in new]
    return [FieldChange(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]


def diff(repo: Store, old_rev: str, new_rev: str | None = None, path: str | None = None) -> list[FileDiff]:
    """Per-memory changes from ``old_rev`` to ``new_rev`` (``None``: the working tree)."""
    old_sha = resolve_at(repo, old_rev)
    new_sha = None if new_rev is None else resolve_at(repo, new_rev)
    scope = repo.git_path(repo.rel(path)) if path else repo.pathspec
    names = repo.git.diff_names(old_sha, new_sha, scope)
    if new_sha is None:
        names += repo.git.untracked(scope)
    rels = [rel for n in sorted(set(names)) if n.endswith(".md") and (rel := repo.from_git_path(n)) is not None]
    old_files, new_files = repo.files_at(old_sha, rels), repo.files_at(new_sha, rels)
    out = []
    for rel in rels:
        before, after = old_files[rel], new_files[rel]
        if before == after or not all(repo.visible(rel, d) for d in (before, after) if d is not None):
            continue
        (old_meta, old_body), (new_meta, new_body) = _meta_body(rel, before), _meta_body(rel, after)
        change = "added" if before is None else "deleted" if after is None else "modified"
        text = "".join(
            difflib.unified_diff(
                _lines(before), _lines(after), f"a/{rel}", f"b/{rel}" if after is not None else "/dev/null"
            )
        )
        out.append(FileDiff(rel, change, tuple(field_changes(old_meta, new_meta)), old_body != new_body, text))
    return out


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines(keepends=True)


def revert(repo: Store, rev: str, *, reason: str | None = None, actor: str | None = None) -> str:
    """Undo commit ``rev`` with one new commit; on any conflict, leave everything as it was.

    git computes the undone content (``git revert --no-commit``); the commit is then made through
    the one commit path like any change, so it is validated (a revert that would leave a
    ``depends_on`` pointing at nothing is refused) and guarded. A revert is a new revision: every
    memory it changes gets a revision above every revision it ever had, so a writer who read the
    undone value cannot pass ``expected_revision`` afterwards (:mod:`memfs.store.revisions`); all
    other bytes are those the reverted commit started from."""
    actor = actor or repo.actor
    sha = repo.git.resolve(rev)
    original = repo.git.log(rev=sha, limit=1, follow=False)
    subject = original[0].subject if original else sha[:10]
    with repo.locked():
        if repo.git.has_staged_changes():
            raise ConflictError("cannot revert while changes are staged in git; commit or unstage them first")
        repo.refuse_secrets(reason or "", verb="revert", actor=actor)
        done, detail = repo.git.revert_apply(sha)
        if not done:
            conflicted = [ln.split("in ", 1)[-1] for ln in detail.splitlines() if ln.startswith("CONFLICT")]
            if conflicted:
                raise ConflictError(
                    f"reverting {sha[:10]} conflicts with later changes to {', '.join(conflicted)}; nothing was "
                    "changed. Revert the later commits first, or edit the files by hand."
                )
            raise GitError(f"git revert {sha[:10]} failed, nothing was changed: {detail.strip()}")
        names = repo.git.staged_paths()
        undone = {name: _work_tree_bytes(repo, name) for name in names}
        repo.git.restore_from_head(names)
        return _commit_revert(repo, sha, subject, undone, reason, actor)


def _work_tree_bytes(repo: Store, name: str) -> bytes | None:
    path = repo.git.workdir / name
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


def _commit_revert(
    repo: Store, sha: str, subject: str, undone: dict[str, bytes | None], reason: str | None, actor: str
) -> str:
    outside = [name for name in undone if repo.from_git_path(name) is None]
    if outside:
        raise Refused(
            f"reverting {sha[:10]} also changes {', '.join(outside)}, outside the memory root; nothing was changed. "
            "Use git revert for it"
        )
    trailers = {"Memfs-Reverts": [sha]}
    with repo.transaction("revert", subject=f"{sha[:10]} ({subject})", reason=reason, actor=actor,
                          trailers=trailers, force=True) as tx:
        tx.note = f"This reverts commit {sha}."
        for name, data in undone.items():
            rel = repo.from_git_path(name)
            assert rel is not None
            if not paths.is_memory_name(rel) or paths.is_ignored(repo.root, rel):
                if data is None:
                    raise Refused(f"reverting {sha[:10]} deletes {rel}, which is not a memory; use git revert for it")
                tx.write_file(rel, data)
            elif data is None:
                tx.delete(rel)
            else:
                tx.write_bytes(rel, _new_revision(tx, rel, data))
    return tx.result.commit or repo.git.head() or ""


def _new_revision(tx: Transaction, rel: str, data: bytes) -> bytes:
    """The undone bytes of ``rel`` as a new revision: above its current one and every one it had."""
    current = tx.current_bytes(rel)
    if current is None or revision_in(data) is None:
        return data  # a file the revert brings back: write_bytes numbers it above its history
    number = max(revision_in(current) or 0, tx.floor(rel)) + 1
    try:
        doc, _ = load_document(rel, data)
    except InvalidMemory:
        return data  # validation reports it
    return doc.with_frontmatter(yamlio.edit(doc.frontmatter, {"revision": number}, doc.newline)).render().encode()


# --- every revision of one memory ----------------------------------------------------------
@dataclass(frozen=True)
class Revision:
    revision: int | None
    value: str
    time: str | None
    source: str | None
    source_kind: str | None
    status: str | None
    commit: str
    op: str | None
    actor: str
    path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "value": self.value,
            "time": self.time,
            "source": self.source,
            "source_kind": self.source_kind,
            "status": self.status,
            "commit": self.commit,
            "op": self.op,
            "actor": self.actor,
            "path": self.path,
        }


def revisions(repo: Store, path: str) -> list[Revision]:
    """Every committed state of the memory at ``path``, oldest first (renames followed)."""
    rel = repo.rel(path)
    out: list[Revision] = []
    current = repo.read_bytes(rel)
    if repo.binding is not None:
        repo.read_file(rel)
    wanted_id = _id_of(rel, current)
    for entry in reversed(repo.git.log(path=repo.git_path(rel), follow=True)):
        name = next((f for f in entry.files if f.endswith(".md")), repo.git_path(rel))
        data = repo.git.show_file(entry.sha, name)
        if data is None:
            continue
        short = name[len(repo.prefix) :] if name.startswith(repo.prefix) else name
        try:
            memory = parse(short, data)
        except InvalidMemory:
            continue
        if not repo.visible(short, data):
            continue
        if short != rel and wanted_id is not None and memory.id != wanted_id:
            continue  # git's rename guess paired this file with another memory of similar frontmatter
        time = memory.updated or memory.created
        out.append(
            Revision(
                memory.revision,
                memory.body,
                jsonable(time) if time else entry.time,
                memory.source,
                memory.source_kind,
                memory.status,
                entry.sha,
                _op(commits.trailers(entry.body)),
                entry.author,
                short,
            )
        )
    if not out and not repo.exists(rel):
        raise MemoryNotFound(f"{rel}: no such memory, now or in history")
    return out


def _id_of(rel: str, data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return parse(rel, data).id
    except InvalidMemory:
        return None
