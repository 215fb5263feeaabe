"""History of memories: log, a memory as of a commit or date, semantic diffs, and revert.

Everything here reads git; :func:`revert` is the only writer and it either makes one revert
commit or leaves the repository exactly as it was.
"""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import GitError, InvalidMemory, MemfsError, MemoryNotFound
from memfs.format.model import Memory, _jsonable
from memfs.format.parse import load_document, parse
from memfs.store import commits, gitcli, locking
from memfs.store.repo import MemoryRepo


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


def log(
    repo: MemoryRepo, path: str | None = None, *, op: str | None = None, limit: int | None = None
) -> list[LogEntry]:
    """Commits touching the memory root (or one memory), newest first, optionally by ``Memfs-Op``."""
    git_path = repo.git_path(repo.rel(path)) if path else (repo.prefix.rstrip("/") or ".")
    grep = f"^Memfs-Op: {gitcli.ere_escape(op)}$" if op else None
    entries = []
    for c in repo.git.log(path=git_path, grep=grep, limit=limit, follow=path is not None):
        tr = commits.trailers(c.body)
        mine = tuple(f[len(repo.prefix) :] for f in c.files if f.startswith(repo.prefix))
        entries.append(
            LogEntry(
                c.sha, c.author, c.time, c.subject, (tr.get("Memfs-Op") or [None])[0], commits.reason(c.body), mine, tr
            )
        )
    return entries


def resolve_at(repo: MemoryRepo, at: str) -> str:
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
        raise MemfsError(f"--at {text}: give a time zone, e.g. {text}Z, so the moment is unambiguous")
    return value


def show_at(repo: MemoryRepo, path: str, at: str) -> Memory:
    """The memory at ``path`` as it was at commit/date ``at``."""
    return parse(*file_at(repo, path, at))


def file_at(repo: MemoryRepo, path: str, at: str) -> tuple[str, bytes]:
    """(root-relative path, exact bytes) of the memory at ``path`` at commit/date ``at``."""
    rel = repo.rel(path)
    sha = resolve_at(repo, at)
    data = repo.git.show_file(sha, repo.git_path(rel))
    if data is None:
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
    value = _jsonable(value)
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
            "fields": [{"field": f.field, "old": _jsonable(f.old), "new": _jsonable(f.new)} for f in self.fields],
            "body_changed": self.body_changed,
            "diff": self.text,
        }


def files_at(repo: MemoryRepo, rev: str | None, rels: list[str]) -> dict[str, bytes | None]:
    """Each file's bytes at ``rev`` (one ``git cat-file --batch``), or in the working tree."""
    if rev is None:
        return {rel: repo.read_bytes(rel) for rel in rels}
    blobs = repo.git.read_blobs(rev, [repo.git_path(rel) for rel in rels])
    return {rel: blobs.get(repo.git_path(rel)) for rel in rels}


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


def diff(repo: MemoryRepo, old_rev: str, new_rev: str | None = None, path: str | None = None) -> list[FileDiff]:
    """Per-memory changes from ``old_rev`` to ``new_rev`` (``None``: the working tree)."""
    old_sha = resolve_at(repo, old_rev)
    new_sha = None if new_rev is None else resolve_at(repo, new_rev)
    scope = repo.git_path(repo.rel(path)) if path else (repo.prefix.rstrip("/") or ".")
    args = ["diff", "--name-only", "-z", "--no-renames", old_sha] + ([new_sha] if new_sha else []) + ["--", scope]
    names = [n for n in repo.git.run(*args).split("\0") if n]
    if new_sha is None:
        untracked = repo.git.run("ls-files", "-z", "--others", "--exclude-standard", "--", scope).split("\0")
        names += [n for n in untracked if n]
    rels = [n[len(repo.prefix) :] for n in sorted(set(names)) if n.endswith(".md")]
    old_files, new_files = files_at(repo, old_sha, rels), files_at(repo, new_sha, rels)
    out = []
    for rel in rels:
        before, after = old_files[rel], new_files[rel]
        if before == after:
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


def revert(repo: MemoryRepo, rev: str, *, reason: str | None = None, actor: str | None = None) -> str:
    """Undo commit ``rev`` with one new commit; on any conflict, leave everything as it was."""
    actor = actor or repo.actor
    sha = repo.git.resolve(rev)
    original = repo.git.log(rev=sha, limit=1, follow=False)
    subject = original[0].subject if original else sha[:10]
    identity = gitcli.Identity.for_actor(actor)
    with locking.exclusive(repo.lock_path):
        if repo.git.run("diff", "--cached", "--name-only").strip():
            raise MemfsError("cannot revert while changes are staged in git; commit or unstage them first")
        proc = gitcli.run_in(repo.git.workdir, "revert", "--no-edit", sha, check=False, identity=identity)
        if proc.returncode != 0:
            repo.git.ok("revert", "--abort")
            detail = (proc.stdout + proc.stderr).decode("utf-8", "replace")
            conflicted = [ln.split("in ", 1)[-1] for ln in detail.splitlines() if ln.startswith("CONFLICT")]
            if conflicted:
                raise GitError(
                    f"reverting {sha[:10]} conflicts with later changes to {', '.join(conflicted)}; nothing was "
                    "changed. Revert the later commits first, or edit the files by hand."
                )
            raise GitError(f"git revert {sha[:10]} failed, nothing was changed: {detail.strip()}")
        message = commits.Message(
            "revert", f"{sha[:10]} ({subject})", actor, reason, trailers={"Memfs-Reverts": [sha]}
        ).render()
        message = message.replace("\n\n", f"\n\nThis reverts commit {sha}.\n\n", 1)
        repo.git.run("commit", "--amend", "--only", "-q", "-F", "-", stdin=message.encode(), identity=identity)
        return repo.git.head() or ""
