"""Hard deletion: erase a memory from the working tree, the caches and every commit in history.

For privacy requests, where a soft ``forget`` (status change, content kept in history) is not
enough. :func:`purge`:

1. holds the write lock and refuses while tracked files have uncommitted changes (the rewrite
   resets the work tree);
2. collects every path the memory had (renames followed) and every text it ever held;
3. rewrites all refs with git-filter-repo (``--invert-paths --sensitive-data-removal --no-fetch``),
   which drops the file from every commit and prunes commits that become empty;
4. expires every reflog and runs ``git gc --prune=now``;
5. drops the search index and other caches under ``.memfs/`` (rebuilt on the next read) and the
   memory's usage statistics; the refusal log stays (it never holds a memory's content, and
   ``memfs eval`` reads it);
6. verifies that nothing in the repository still holds any of the texts or their distinctive
   fragments (:mod:`memfs.ops.purge_verify`: every object, reachable or not, ref names, the git
   directory's files, the caches, every work-tree file); anything found is listed, and the purge
   is then not verified;
7. records the audit commit (``Memfs-Op: purge``), which names only a SHA-256 of the path and,
   like a retraction, flags what was derived from the memory: every memory downstream of it
   along reverse ``depends_on`` becomes ``needs_review`` with an ``invalidated_by`` record whose
   root is ``purged:sha256:<digest>`` (what was purged, without its path or content), and the
   memories that named it drop it from ``depends_on`` (and ``distinct_from``), so none points at nothing. Without
   derived memories the audit commit is empty.

Other clones and remotes still hold the old history: the report lists the remotes and the
rewritten branches that need a force-push.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.errors import ConflictError, InvalidMemory, LockTimeout, MemfsError, MemoryNotFound, UsageError
from memfs.format.document import SplitError, split
from memfs.format.parse import parse
from memfs.index.state import LOCK_FILE as INDEX_LOCK
from memfs.ops import idempotency
from memfs.ops.purge_redact import normalized, path_pattern
from memfs.ops.purge_verify import MIN_NEEDLE, distinctive, other_files, verify
from memfs.ops.retract import derived, flag
from memfs.store import atomic, catalog, epoch, findings, gitcli, locking, refusal_log, usage
from memfs.store.commits import Message
from memfs.store.repo import Store

_SIGNATURE = re.compile(rb"-----BEGIN (PGP|SSH) SIGNATURE-----")
_DESCRIPTION = re.compile(r"^description:[ \t]*(.+)$", re.MULTILINE)
#: Locks of the caches whose writers purge waits for before it empties the folder (kept, as is
#: the epoch: a writer already waiting on a lock file holds that file, not a new one).
_CACHE_LOCKS = (findings.LOCK_FILE, catalog.LOCK_FILE, INDEX_LOCK)
_KEEP_IN_CACHE = {usage.USAGE_FILE, "usage.lock", refusal_log.LOG_FILE, epoch.EPOCH_FILE, *_CACHE_LOCKS}
#: seconds purge waits for each cache writer; past it the caches are dropped anyway (the epoch
#: still stops a later save) and verify lists anything that came back
_CACHE_WAIT = 30.0
#: Scratch files git leaves in its directory (the last message written, the last fetch, the tip
#: before the last reset): stale after a rewrite, and they may quote the purged text.
_SCRATCH = ("COMMIT_EDITMSG", "FETCH_HEAD", "ORIG_HEAD")


@dataclass(frozen=True)
class PurgePlan:
    """What a purge would touch, for the confirmation prompt."""

    path: str
    git_paths: tuple[str, ...]
    commits: tuple[str, ...]
    remotes: dict[str, str]
    texts: tuple[str, ...] = field(repr=False)
    #: The texts' distinctive fragments (:func:`memfs.ops.purge_verify.distinctive`).
    fragments: tuple[bytes, ...] = field(default=(), repr=False)

    @property
    def needles(self) -> list[bytes]:
        """What verification and redaction look for: each text whole, and its fragments."""
        return [t.encode("utf-8") for t in self.texts if t] + list(self.fragments)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "history_paths": list(self.git_paths),
            "commits": len(self.commits),
            "remotes": self.remotes,
        }


@dataclass
class PurgeReport:
    path: str
    reason: str
    history_paths: list[str]
    commits_rewritten: int = 0
    commits_removed: int = 0
    refs_rewritten: list[str] = field(default_factory=list)
    remotes: dict[str, str] = field(default_factory=dict)
    caches_dropped: list[str] = field(default_factory=list)
    remaining: list[str] = field(default_factory=list)
    #: Copies this purge cannot rewrite (remotes, signed tags): it is not verified while any exist.
    unrewritable: list[str] = field(default_factory=list)
    audit_commit: str | None = None
    flagged: list[str] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)

    @property
    def verified(self) -> bool:
        return not self.remaining and not self.unrewritable

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "reason": self.reason,
            "history_paths": self.history_paths,
            "commits_rewritten": self.commits_rewritten,
            "commits_removed": self.commits_removed,
            "refs_rewritten": self.refs_rewritten,
            "remotes_needing_force_push": self.remotes,
            "caches_dropped": self.caches_dropped,
            "verified": self.verified,
            "remaining": self.remaining,
            "unrewritable": self.unrewritable,
            "audit_commit": self.audit_commit,
            "flagged": self.flagged,
            "unlinked": self.unlinked,
        }

    def lines(self) -> list[str]:
        out = [
            f"purged {self.path} (history paths: {', '.join(self.history_paths) or 'none'})",
            f"history rewritten: {self.commits_rewritten} commit(s) rewritten, {self.commits_removed} removed "
            "(they only touched this memory)",
        ]
        if self.refs_rewritten:
            out.append("refs rewritten: " + ", ".join(self.refs_rewritten))
        out.append("reflogs expired, unreachable objects pruned (git gc --prune=now)")
        if self.caches_dropped:
            out.append("caches dropped (rebuilt on next read): " + ", ".join(self.caches_dropped))
        if self.remaining:
            out.append("NOT CLEAN, the text or its path is still in: " + "; ".join(self.remaining))
        else:
            out.append(
                "nothing in this repository (objects: commits, messages, trailers, tags, notes, stashes; ref names; "
                "the index, reflogs and other git files; memfs's caches; every work-tree file, other memories "
                "included) holds the purged text, a distinctive fragment of it (3 words, a token of 8+ characters), "
                "or its path"
            )
        if self.unrewritable:
            out.append("NOT VERIFIED, copies this purge cannot rewrite: " + "; ".join(self.unrewritable))
        else:
            out.append("verified")
        if self.remotes:
            for name, url in self.remotes.items():
                out.append(
                    f"remote {name} ({url}) still has the old history: force-push the rewritten refs, e.g. "
                    f"git push --force {name} {' '.join(_branches(self.refs_rewritten)) or '--all'}"
                )
            out.append("every other clone must be re-cloned or reset too, or the text comes back on the next push")
        else:
            out.append("no remotes configured; other copies of this repository (clones, backups) still hold it")
        if self.unlinked:
            out.append("depends_on or distinct_from entries removed from: " + ", ".join(self.unlinked))
        if self.flagged:
            out.append("flagged for review (derived from it): " + ", ".join(self.flagged))
        if self.audit_commit:
            out.append(f"audit record: commit {self.audit_commit[:10]} (names only a SHA-256 of the path)")
        return out


def _branches(refs: list[str]) -> list[str]:
    return [r[len("refs/heads/") :] for r in refs if r.startswith("refs/heads/")]


def _remotes(repo: Store) -> dict[str, str]:
    """Each remote's URL with any credentials taken out."""
    return {name: re.sub(r"://[^/@\s]+@", "://", repo.git.remote_url(name) or "") for name in repo.git.remotes()}


def _history_paths(repo: Store, rel: str) -> list[str]:
    """The memory's path and every earlier path it was renamed from (archive moves, ``git mv``).

    A rename counts only when the old file carries the same ``id``: git's similarity detection
    alone would pair small memories that merely share most of their frontmatter."""
    git_path = repo.git_path(rel)
    names = {git_path}
    if repo.git.head() is None:
        return [git_path]
    memory_id = _id_at(repo, None, git_path) or _last_id(repo, git_path)
    renames = repo.git.renames()
    changed = True
    while changed and memory_id:
        changed = False
        for sha, old, new in renames:
            if new in names and old not in names and _id_at(repo, f"{sha}^", old) == memory_id:
                names.add(old)
                changed = True
    return sorted(names)


def _id_at(repo: Store, rev: str | None, git_path: str) -> str | None:
    if rev is None:
        rel = git_path[len(repo.prefix) :]
        data = repo.read_bytes(rel)
    else:
        data = repo.git.show_file(rev, git_path)
    if data is None:
        return None
    try:
        return parse(git_path, data).id
    except InvalidMemory:
        return None


def _last_id(repo: Store, git_path: str) -> str | None:
    last = repo.git.last_commit_writing(git_path)
    return _id_at(repo, last, git_path) if last else None


def _texts(data: bytes) -> list[str]:
    """The distinctive text of one version of the file: its body, else the whole file."""
    text = data.decode("utf-8", "replace")
    body = _body(text)
    return [body] if len(body) >= MIN_NEEDLE else ([text.strip()] if text.strip() else [])


def _prose(data: bytes) -> list[str]:
    """What the fragments of one version are taken from: its body and its description, never the
    frontmatter's keys and fixed values (``type: preference`` is in every memory)."""
    text = data.decode("utf-8", "replace")
    return [t for t in (_body(text), *_DESCRIPTION.findall(text)) if t.strip()]


def _body(text: str) -> str:
    try:
        return split(text).body.strip()
    except SplitError:
        return text.strip()


def plan(repo: Store, path: str) -> PurgePlan:
    """Which paths, commits and texts a purge of ``path`` covers (reads only)."""
    rel = repo.rel(path)
    git_paths = _history_paths(repo, rel)
    commits: list[str] = []
    texts: dict[str, None] = {}
    prose: dict[str, None] = {}
    current = repo.read_bytes(rel)
    versions = [current] if current is not None else []
    commits = repo.git.commits_touching(git_paths)
    found = repo.git.read_versions([(sha, name) for sha in commits for name in git_paths])
    versions += [found[(sha, name)] for sha in commits for name in git_paths if (sha, name) in found]
    if current is None and not commits:
        raise MemoryNotFound(f"{rel}: no such memory, now or in history; nothing to purge")
    for data in versions:
        texts.update(dict.fromkeys(_texts(data)))
        prose.update(dict.fromkeys(_prose(data)))
    fragments = distinctive(list(prose), other_files(repo, git_paths))
    return PurgePlan(rel, tuple(git_paths), tuple(commits), _remotes(repo), tuple(texts), tuple(fragments))


def purge(repo: Store, path: str, *, reason: str, actor: str | None = None) -> PurgeReport:
    """Erase ``path`` everywhere this repository keeps it; see the module docstring for the steps."""
    if not (reason or "").strip():
        raise UsageError("say why: the reason goes into the audit record, without the content", param="reason")
    actor = actor or repo.actor
    repo.refuse_secrets(reason, verb="purge", actor=actor)
    with repo.locked():
        the_plan = plan(repo, path)
        _require_clean(repo, the_plan)
        derived(repo, the_plan.path)  # refuses before anything changes if a dependent cannot be parsed
        report = PurgeReport(the_plan.path, reason, list(the_plan.git_paths), remotes=the_plan.remotes)
        report.unrewritable = _unrewritable(repo, the_plan)
        tracked = bool(the_plan.commits)
        if tracked:
            _rewrite(repo, the_plan, report)
        _rewrite_notes(repo, the_plan, report, actor)
        target = repo.abspath(the_plan.path)
        if target.exists():
            target.unlink()
        repo.git.expire_reflogs()
        repo.git.prune()
        for scratch in _SCRATCH:
            (repo.git.git_dir / scratch).unlink(missing_ok=True)
        report.caches_dropped = _drop_caches(repo, the_plan)
        repo.progress("checking every object", 0, None)
        report.remaining = verify(repo, the_plan.needles, path_pattern(the_plan.git_paths))
        if repo.git.head() is not None:
            report.audit_commit = _audit(repo, the_plan, reason, actor, report)
    return report


def _require_clean(repo: Store, the_plan: PurgePlan) -> None:
    if repo.git.head() is None:
        return
    dirty = [name for name in repo.git.status_paths(untracked="no") if name not in the_plan.git_paths]
    if dirty:
        raise ConflictError(
            "purge rewrites history and resets the work tree, so commit or stash these changes first: "
            + ", ".join(dirty[:10])
            + (f" (+{len(dirty) - 10} more)" if len(dirty) > 10 else "")
        )


def _rewrite(repo: Store, the_plan: PurgePlan, report: PurgeReport) -> None:
    state = repo.git.git_dir / "filter-repo"
    shutil.rmtree(state, ignore_errors=True)
    before = repo.git.count_all()
    # --no-gc: purge expires the reflogs and prunes right after (it may rewrite notes first), so
    # git-filter-repo's own expire and gc would be done twice
    args = ["--force", "--quiet", "--sensitive-data-removal", "--no-fetch", "--no-gc", "--invert-paths"]
    for name in the_plan.git_paths:
        args += ["--path", name]
    needles = repo.git.git_dir / "memfs-purge-needles.json"
    atomic.write_bytes(needles, json.dumps(_redaction(the_plan)).encode("utf-8"))
    args += [
        "--message-callback",
        f"from memfs.ops.purge_redact import redact_message\nreturn redact_message(message, {str(needles)!r})",
    ]
    repo.progress("rewriting history", 0, None)
    try:
        repo.git.filter_repo(*args)
        commit_map = (state / "commit-map").read_text().split("\n")[1:] if (state / "commit-map").exists() else []
        ref_map = (state / "ref-map").read_text().split("\n")[1:] if (state / "ref-map").exists() else []
    finally:
        shutil.rmtree(state, ignore_errors=True)
        atomic.remove(needles)
    pairs = [line.split() for line in commit_map if line.strip()]
    report.commits_rewritten = sum(1 for old, new in pairs if old != new and set(new) != {"0"})
    report.commits_removed = max(0, before - repo.git.count_all())
    refs = [line.split() for line in ref_map if line.strip()]
    report.refs_rewritten = sorted(ref for old, new, ref in refs if old != new)
    (repo.git.git_dir / "ORIG_HEAD").unlink(missing_ok=True)


def _rewrite_notes(repo: Store, the_plan: PurgePlan, report: PurgeReport, actor: str) -> None:
    """Git notes quoting the memory: a notes ref whose history holds the text (whole or any
    fragment) is replaced by one commit without the offending notes (its history is dropped, as
    a note's history is only earlier versions of notes)."""
    needles = the_plan.needles
    if not needles:
        return

    def quotes(data: bytes) -> bool:
        return any(n in data or n in normalized(data) for n in needles)

    for ref, _ in repo.git.refs("refs/notes/"):
        history = repo.git.read_objects(repo.git.blobs_reachable(ref))
        if not any(quotes(data) for data in history.values()):
            continue
        entries = repo.git.tree_entries(ref)
        kept = [e for e in entries if not quotes(history.get(e[2], b""))]
        message = f"Notes rewritten by memfs purge ({len(entries) - len(kept)} note(s) removed)\n"
        repo.git.replace_ref_with_tree(ref, kept, message, gitcli.Identity.for_actor(actor))
        report.refs_rewritten = sorted({*report.refs_rewritten, ref})


def _drop_caches(repo: Store, the_plan: PurgePlan) -> list[str]:
    """Empty ``.memfs/`` but for what holds no memory text, with the caches' writers held off and
    the purge epoch moved first (:mod:`memfs.store.epoch`): a writer that read the erased file
    before now cannot save it back."""
    with contextlib.ExitStack() as held:
        for name in _CACHE_LOCKS:
            with contextlib.suppress(LockTimeout, OSError):
                held.enter_context(locking.exclusive(repo.cache_dir / name, timeout=_CACHE_WAIT))
        epoch.advance(repo.cache_dir)
        dropped = _emptied(repo.cache_dir)
    idempotency.drop_cache(repo)
    usage.forget_paths(repo, [p[len(repo.prefix) :] for p in the_plan.git_paths if p.startswith(repo.prefix)])
    return dropped


def _emptied(cache: Path) -> list[str]:
    dropped = []
    if cache.is_dir():
        for entry in sorted(cache.iterdir()):
            if entry.name in _KEEP_IN_CACHE:
                continue
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            dropped.append(f"{entry.name}{'/' if entry.is_dir() else ''}")
    return dropped


def _redaction(the_plan: PurgePlan) -> dict[str, Any]:
    return {
        "paths": list(the_plan.git_paths),
        "digest": hashlib.sha256(the_plan.path.encode("utf-8")).hexdigest(),
        "needles": [t for t in the_plan.texts if t],
        "fragments": [f.decode("utf-8", "surrogateescape") for f in the_plan.fragments],
    }


def _unrewritable(repo: Store, the_plan: PurgePlan) -> list[str]:
    """Copies of the history this purge cannot rewrite: remotes, and signed tags (a rewritten
    tag loses its signature, and an untouched one still points at the old history)."""
    out = [f"remote {name} ({url}) still has the old history" for name, url in the_plan.remotes.items()]
    commits = set(the_plan.commits)
    for ref, sha in repo.git.refs("refs/tags/"):
        data = repo.git.read_tag(sha)
        if data is not None and _SIGNATURE.search(data):
            target = data.split(b"\n", 1)[0].split()[-1].decode("ascii", "replace")
            if target in commits or repo.git.reaches_any(target, the_plan.commits):
                out.append(f"signed tag {ref[len('refs/tags/'):]} (its signature cannot survive the rewrite)")
    return out


def root_name(path: str) -> str:
    """What an ``invalidated_by`` record calls a purged memory: a digest of its path, the same one
    the audit commit names, never the path or the content."""
    return "purged:sha256:" + hashlib.sha256(path.encode("utf-8")).hexdigest()


def _kept_apart_from(repo: Store, rel: str) -> dict[str, list[str] | None]:
    """The memories whose ``distinct_from`` names the purged ``rel``, each with that entry cut (a
    path the audit must not leave behind); files memfs cannot read are left as they are."""
    out: dict[str, list[str] | None] = {}
    for other in repo.files_containing("distinct_from"):
        with contextlib.suppress(MemfsError):
            apart = repo.read(other).distinct_from
            if rel in apart and other != rel:
                out[other] = [d for d in apart if d != rel] or None
    return out


def _audit(repo: Store, the_plan: PurgePlan, reason: str, actor: str, report: PurgeReport) -> str | None:
    """The audit commit: the purge's record, and the flags on what was derived from the memory."""
    digest = hashlib.sha256(the_plan.path.encode("utf-8")).hexdigest()
    trailers = {"Memfs-Purged-Path-Sha256": [digest], "Memfs-Purged-Commits": [str(len(the_plan.commits))]}
    rel = the_plan.path
    with repo.transaction("purge", reason=reason, actor=actor, subject="1 memory", trailers=trailers) as tx:
        flags, members, graph = derived(repo, rel)
        children = [c for c in graph.children.get(rel, ()) if c in members]
        cut = {c: {"depends_on": [d for d in members[c].depends_on if d != rel] or None} for c in children}
        for c, kept in _kept_apart_from(repo, rel).items():
            cut[c] = {**cut.get(c, {}), "distinct_from": kept}
        flag(tx, flags, members, reason, extra=cut, root_names={rel: root_name(rel)})
        report.flagged, report.unlinked = list(flags.downstream), sorted(cut)
        if flags.downstream:
            tx.subject = f"1 memory (+{len(flags.downstream)} downstream)"
            tx.trailers["Memfs-Downstream"] = [str(len(flags.downstream))]
    if tx.result.commit is not None:
        return tx.result.commit
    message = Message("purge", "1 memory", actor, reason, (), trailers).render()
    return repo.git.commit_empty(message, gitcli.Identity.for_actor(actor))
