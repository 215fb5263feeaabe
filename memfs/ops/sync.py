"""``memfs sync``: share memory through a git remote without ever losing it.

A writer reads the shared branch (``main``) and, by its ``[sync] route``, pushes its commits
either to that branch (``direct``: every writer races for one ref) or to a ref of its own,
``refs/heads/memfs/writers/<writer>`` (``writer-ref``), which only it writes and which
``memfs integrate`` (:mod:`memfs.ops.integrate`) brings into the branch. A writer's own ref only
ever moves forward: while it holds commits the branch does not have yet, the branch is merged
into the writer's work rather than the published commits rebased; once the branch has them all,
new local commits are rebased onto it as usual, and the tip still descends from the old one.

Invariants (each has a test):

* **No force-push.** Every push is a plain fast-forward of the remote branch (or of the writer's
  own ref); before pushing, sync checks that the remote tip it knows is an ancestor of what it sends. A rejected push
  (someone pushed in between) means fetch and integrate again, never overwrite.
* **A backup ref before any history-changing step.** Before a rebase, a merge, or moving a branch
  back, the current tip is saved as ``refs/memfs/backup/<UTC time>-<sha>``
  (``git for-each-ref refs/memfs/backup`` lists them). A backup is deleted only by a later sync
  that succeeded, and only once everything it holds is on the remote branch: its commit is
  reachable from there, or each of its commits has an equal change there (``git cherry``, as
  after a rebase). So backups do not pile up, and one that holds anything else stays.
* **Retries spread out.** A push that lost a race is fetched, integrated and pushed again after a
  random wait that doubles with each loss (:mod:`memfs.policy.retry`), at most ``[sync]
  attempts`` tries and none started after ``budget`` seconds.
* **Memory is reconciled, not text-merged.** When both sides changed a memory file, integration is
  one merge commit whose memory files memfs settles (:mod:`memfs.ops.reconcile_sync`); a change
  that needs a person is held ``needs_review`` and reported, never a blocked clone.
* **Any other conflict stops cleanly.** If integration conflicts on a file memfs cannot settle (or
  would produce an invalid memory), the rebase/merge is aborted, the branch is exactly where it
  was, nothing is pushed, and the error says which files and what to do.

The whole operation holds the repository's write lock, so no memfs write interleaves with it.
The search index needs nothing from here: every read brings it up to date with HEAD.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from memfs.errors import ConflictError, GitError, NotFound, SyncRefused, UsageError
from memfs.format.config import SyncConfig, is_sync_mode, is_sync_route
from memfs.format.config import SyncMode as Mode
from memfs.ops import incoming, reconcile_sync
from memfs.ops.reconcile_sync import Settlement
from memfs.policy.retry import Backoff
from memfs.store import gitcli, paths
from memfs.store.commits import Message
from memfs.store.repo import Store

BACKUP_PREFIX = "refs/memfs/backup/"
#: Where writers on the ``writer-ref`` route push: ``refs/heads/memfs/writers/<writer id>``, a
#: branch namespace, so git hosts can run CI on it and grant each writer its own branch.
WRITERS = "memfs/writers/"


def actor_slug(actor: str) -> str:
    """``agent:release-bot`` -> ``agent-release-bot``: an actor as one ref-name segment."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", actor).strip("-.").removesuffix(".lock") or "memfs"


_WRITER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def writer_id(repo: Store, conf: SyncConfig, given: str | None = None) -> str:
    """The writer id: given, else ``[sync] writer``, else the actor's slug. Stable as long as the
    actor is: the same writer always pushes the same ref."""
    writer = given or conf.writer or actor_slug(repo.actor)
    if not _WRITER_ID.fullmatch(writer) or ".." in writer or writer.endswith(".lock"):
        raise UsageError(f"{writer!r} is not usable as a writer id (one ref-name segment: letters, digits, . _ -)",
                         param="writer")
    return writer


_HOW = {"reconcile": ", reconciled", "rebase": ", rebased", "merge": ", merged", "fast-forward": ", fast-forward"}


# --- results ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class SyncResult:
    remote: str
    branch: str
    mode: Mode
    before: str | None
    after: str | None
    integrated: str  # none | fast-forward | rebase | merge | reconcile
    pulled: int
    pushed: int
    backups: tuple[str, ...] = ()
    attempts: int = 1
    uncommitted: tuple[str, ...] = ()
    #: Memories memfs settled while integrating (both sides changed them), and those it flagged.
    reconciled: tuple[Settlement, ...] = ()
    #: The remote branch the commits went to: ``branch``, or the writer's own ``memfs/writers/<id>``.
    pushed_to: str = ""
    #: On the writer-ref route: commits on the writer's own branch that ``branch`` does not have
    #: yet (they wait for ``memfs integrate``).
    waiting: int = 0

    @property
    def review(self) -> tuple[Settlement, ...]:
        """What this sync handed to a person: memories now ``needs_review`` (see ``memfs review``)."""
        return tuple(s for s in self.reconciled if s.review)

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "mode": self.mode,
            "before": self.before,
            "after": self.after,
            "integrated": self.integrated,
            "pulled": self.pulled,
            "pushed": self.pushed,
            "backups": list(self.backups),
            "attempts": self.attempts,
            "uncommitted": list(self.uncommitted),
            "reconciled": [s.to_json() for s in self.reconciled],
            "pushed_to": self.pushed_to or self.branch,
            "waiting": self.waiting,
        }

    def summary(self) -> list[str]:
        target = f"{self.remote}/{self.branch}"
        if not self.pulled and not self.pushed:
            mine = f"{self.remote}/{self.pushed_to}" if self.waiting else target
            lines = [f"up to date with {mine} ({(self.after or '')[:10]})"]
        else:
            how = _HOW.get(self.integrated, "")
            out = f" to {self.remote}/{self.pushed_to}" if self.pushed_to not in ("", self.branch) else ""
            lines = [f"synced with {target}: {self.pulled} commit(s) in{how}, {self.pushed} commit(s) out{out}"]
            lines.append(f"HEAD is now {(self.after or '')[:10]}")
        if self.waiting:
            lines.append(f"{self.waiting} commit(s) on {self.remote}/{self.pushed_to} wait for 'memfs integrate' to "
                         f"bring them into {target}")
        lines += [f"backup of the previous tip: {ref}" for ref in self.backups]
        lines += [f"reconciled {s.line()}" for s in self.reconciled if not s.review]
        lines += [f"needs review (memfs review): {s.line()}" for s in self.review]
        if self.uncommitted:
            lines.append(
                f"not synced, not committed yet: {', '.join(self.uncommitted[:5])}"
                + (f" (+{len(self.uncommitted) - 5} more)" if len(self.uncommitted) > 5 else "")
            )
        return lines


# --- helpers ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    local: str
    remote: str
    branch: str
    #: The writer id on the ``writer-ref`` route (commits go to :attr:`pushes`), else ``None``.
    writer: str | None = None
    #: Whether the local branch has an upstream remote configured (else sync records one).
    tracked: bool = True

    @property
    def tracking(self) -> str:
        return f"refs/remotes/{self.remote}/{self.branch}"

    @property
    def pushes(self) -> str:
        """The remote branch this clone pushes: the shared one, or its own writer branch."""
        return f"{WRITERS}{self.writer}" if self.writer else self.branch

    @property
    def own_tracking(self) -> str:
        return f"refs/remotes/{self.remote}/{self.pushes}"

    @property
    def label(self) -> str:
        return f"{self.remote}/{self.branch}"


def resolve_target(git: gitcli.Git, remote: str | None, branch: str | None, conf: SyncConfig) -> Target:
    local = git.branch()
    if local is None:
        raise ConflictError("HEAD is detached; switch to your branch first (git switch main), then sync again")
    # the remotes and this branch's upstream from one reading of the config; ``git remote``
    # only when that names none (it also knows remotes from the old .git/remotes files)
    config = git.config_matching(r"^(remote|branch)\.")
    remotes = sorted({key[len("remote."):key.rindex(".")] for key in config
                      if key.startswith("remote.") and key.count(".") >= 2})
    upstream = config.get(f"branch.{local}.remote")
    remote = remote or conf.remote or upstream
    if remote is None or remote not in remotes:
        remotes = git.remotes()
    if remote is None:
        remote = "origin" if "origin" in remotes else remotes[0] if len(remotes) == 1 else None
    if remote is None:
        raise NotFound("no remote to sync with; add one with 'git remote add origin URL', or name one", param="remote")
    if remote not in remotes:
        raise NotFound(f"there is no git remote named {remote!r} (remotes: {', '.join(remotes) or 'none'})",
                       param="remote")
    if config.get(f"remote.{remote}.mirror") == "true":
        raise SyncRefused(f"remote {remote!r} is configured as a mirror, so every push would be a force-push; refused")
    merge_ref = config.get(f"branch.{local}.merge") if remote == upstream else None
    branch = branch or conf.branch or (merge_ref.removeprefix("refs/heads/") if merge_ref else None) or local
    return Target(local, remote, branch, tracked=upstream is not None)


def check_no_operation(repo: Store) -> None:
    """Refuse to start in the middle of another git operation (a rebase, merge, cherry-pick...)."""
    git_dir = repo.git.git_dir
    for name, what, fix in (
        ("rebase-merge", "a rebase", "git rebase --continue or git rebase --abort"),
        ("rebase-apply", "a rebase", "git rebase --continue or git rebase --abort"),
        ("MERGE_HEAD", "a merge", "git commit or git merge --abort"),
        ("CHERRY_PICK_HEAD", "a cherry-pick", "git cherry-pick --continue or --abort"),
        ("REVERT_HEAD", "a revert", "git revert --continue or --abort"),
    ):
        if (git_dir / name).exists():
            raise ConflictError(f"the repository is in the middle of {what}; finish it first ({fix}), then try again")


def check_quiet(repo: Store) -> list[str]:
    """Also refuse uncommitted changes to tracked files: a rebase or merge needs a clean tree. The
    memory files that are not committed yet (untracked: the rest is refused), from the same
    ``git status``; a sync leaves them as they are, so they are what it did not share."""
    check_no_operation(repo)
    entries = repo.git.status_entries()
    dirty = [path for code, path in entries if code != "??"]
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" (+{len(dirty) - 5} more)" if len(dirty) > 5 else "")
        raise ConflictError(
            f"uncommitted changes in {shown}; commit them (git commit, or 'memfs propose' for memories) or set them "
            "aside (git stash), then sync again. Nothing was changed."
        )
    return _memory_files(repo, [path for _, path in entries])


def uncommitted_memories(repo: Store) -> list[str]:
    return _memory_files(repo, repo.git.status_paths(repo.pathspec, untracked="all"))


def _memory_files(repo: Store, names: list[str]) -> list[str]:
    """Of ``names`` (paths from the work tree's top), the memory files under the root, sorted."""
    found = []
    for name in names:
        rel = repo.from_git_path(name)
        if rel and paths.is_memory_name(rel) and not paths.is_ignored(repo.root, rel):
            found.append(rel)
    return sorted(set(found))


def fetch_target(repo: Store, target: Target) -> str | None:
    """Fetch the remote branch into its tracking ref once what it brings is judged clean
    (:mod:`memfs.ops.incoming`); its tip, or ``None`` if it does not exist yet."""
    return incoming.fetch(repo, target.remote, target.branch, target.tracking)


def make_backup(git: gitcli.Git, sha: str, why: str) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    ref = f"{BACKUP_PREFIX}{stamp}-{sha[:10]}"
    git.update_ref(ref, sha, f"memfs: backup before {why}")
    return ref


#: A push that lost a race: the remote branch moved since we fetched (checked by the client, or by
#: the server's compare-and-swap of the ref when two pushes cross). Fetching again is the answer.
_REJECTED = re.compile(
    r"^!\t[^\t]*\t\[(?:rejected\] \((?:fetch first|non-fast-forward)|remote rejected\] \((?:failed to update ref"
    r"|incorrect old value provided))\)",
    re.MULTILINE,
)


def push_to(git: gitcli.Git, remote: str, source: str, branch: str) -> tuple[bool, str]:
    """Push ``source`` to ``refs/heads/<branch>`` as a fast-forward only. (pushed?, server messages);
    a non-fast-forward rejection returns ``False``; any other failure raises."""
    status, out, err = git.push(remote, source, branch)
    if status == 0:
        return True, err
    if _REJECTED.search(out):
        return False, err
    # a server's lines (``remote: ...``) come padded with spaces that clear git's progress display
    detail = "\n".join(line.rstrip() for line in (err or out).strip().splitlines())
    raise GitError(f"pushing to {remote}/{branch} failed: {detail}")


# --- integration -----------------------------------------------------------------------------
def integrate(
    repo: Store, target: Target, upstream: str, mode: Mode, *, backup: bool = True,
    lineage: list[reconcile_sync.Divergence] | None = None,
) -> tuple[str, str | None, list[Settlement]]:
    """Bring ``upstream`` into the current branch; (how, backup ref, what memfs settled). Memory
    files both sides changed are reconciled (:mod:`memfs.ops.reconcile_sync`); raises on any other
    conflict, leaving the branch where it was. ``backup=False``: no backup ref (a merge that only
    adds a commit on top, as the integrator's, rewrites nothing); ``lineage``: what each side
    changed is appended there for the caller's one :func:`reconcile_sync.keep_lineage` after
    several integrations, instead of one here."""
    git = repo.git
    head = git.head()
    if head == upstream:
        return "none", None, []
    # one merge base answers all three questions: it is ``head`` when head is an ancestor of
    # upstream (then the only best common ancestor), ``upstream`` the other way round, and none
    # when the histories are unrelated
    base = git.merge_base(head, upstream) if head is not None else None
    if head is None or base == head:
        git.fast_forward(upstream)
        return "fast-forward", None, []
    if base == upstream:
        return "none", None, []
    if base is None:
        raise SyncRefused(
            f"your {target.local} and {target.label} share no history, so syncing would mean discarding one "
            f"of them (a force-push); memfs refuses. To combine them, run 'git merge --allow-unrelated-histories "
            f"{target.label}', resolve, commit, then 'memfs sync'."
        )
    saved = make_backup(git, head, f"sync {mode} onto {target.label}") if backup else head
    diverged = reconcile_sync.diverged(repo, head, upstream, base)
    if diverged.both:
        how, settled = "reconcile", _reconcile(repo, target, head, upstream, saved, mode, diverged)
    else:
        how, settled = mode, []
        _replay(repo, target, head, upstream, saved, mode)
    if diverged.local & diverged.upstream:
        # a file only one side changed is that side's version, valid if it was: only files both
        # changed can come out of a merge broken
        _undo_if_broken(repo, target, head, upstream, saved, mode)
    if lineage is not None:
        lineage.append(diverged)
        return how, saved if backup else None, settled
    return how, saved if backup else None, settled + reconcile_sync.keep_lineage(repo, diverged)


def _replay(repo: Store, target: Target, head: str, upstream: str, backup: str, mode: Mode) -> None:
    """Rebase onto, or merge, ``upstream`` with git (no memory file changed on both sides)."""
    git = repo.git
    identity = gitcli.Identity.for_actor(repo.actor)
    if mode == "rebase":
        done, detail = git.rebase(upstream, identity)
    else:
        message = Message("sync", f"merge {target.label} into {target.local}", repo.actor).render()
        done, detail = git.merge(upstream, message, identity)
    if not done:
        files = git.conflicted()
        git.abort(mode)
        if git.head() != head:
            git.reset_hard(head)
        if files:
            raise ConflictError(_conflict_message(git, target, head, upstream, backup, mode, files))
        raise GitError(
            f"git {mode} onto {target.label} failed; nothing was changed (your branch is back at {head[:10]}, "
            f"saved as {backup}): {detail}"
        )


def _reconcile(
    repo: Store, target: Target, head: str, upstream: str, backup: str, mode: Mode,
    diverged: reconcile_sync.Divergence,
) -> list[Settlement]:
    """One merge commit whose memory files both sides changed memfs settles."""
    subject = f"reconcile {target.label} into {target.local}"
    try:
        return reconcile_sync.merge_settled(repo, diverged, head, upstream, subject)
    except reconcile_sync.Unsettled as exc:
        raise ConflictError(_conflict_message(repo.git, target, head, upstream, backup, mode, exc.files)) from None


def _undo_if_broken(repo: Store, target: Target, head: str, upstream: str, backup: str, mode: Mode) -> None:
    broken = reconcile_sync.broken_by_merge(repo, head, upstream)
    if broken:
        repo.git.reset_hard(head)
        raise ConflictError(
            f"integrating {target.label} produced invalid memory files ({'; '.join(broken[:3])}); it was undone, "
            f"your branch is back at {head[:10]} (saved as {backup}) and nothing was pushed. Integrate by hand: "
            f"git {'pull --rebase' if mode == 'rebase' else 'pull --no-rebase'} {target.remote} {target.branch}, "
            "fix the files until 'memfs validate' passes, commit, then 'memfs sync'."
        )


def _conflict_message(
    git: gitcli.Git, target: Target, head: str, upstream: str, backup: str, mode: Mode, files: list[str]
) -> str:
    mine = git.count(f"{upstream}..{head}")
    theirs = git.count(f"{head}..{upstream}")
    continue_step = "git rebase --continue" if mode == "rebase" else "git commit"
    pull = "git pull --rebase" if mode == "rebase" else "git pull --no-rebase"
    return (
        f"sync stopped: your {mine} local commit(s) and {theirs} new commit(s) on {target.label} change "
        f"{', '.join(files)} in ways that cannot be merged automatically.\n"
        f"Nothing was lost and nothing was pushed: {target.local} is back at {head[:10]} (also saved as {backup}).\n"
        f"To resolve: {pull} {target.remote} {target.branch}; in each file above keep the right lines between "
        f"'<<<<<<<' and '>>>>>>>' and delete the markers; 'memfs validate'; git add <files>; {continue_step}; "
        "then 'memfs sync'.\n"
        "Or put your changes up for review instead: 'memfs propose'."
    )


# --- sync ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Waiting:
    """How a sync waits between tries: the clock, the sleep and the random source (tests pass
    their own; nothing here reads the wall clock)."""

    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)


def sync(
    repo: Store,
    *,
    remote: str | None = None,
    branch: str | None = None,
    mode: str | None = None,
    push: bool = True,
    attempts: int | None = None,
    budget: float | None = None,
    route: str | None = None,
    writer: str | None = None,
    waiting: Waiting | None = None,
) -> SyncResult:
    """Fetch, integrate (rebase or merge) and push the current branch, to the shared branch or,
    on the ``writer-ref`` route, to the writer's own ref. Never force-pushes; saves a backup ref
    before a rebase or merge; on conflict stops with the branch unchanged; a push that lost a race
    is tried again after a wait (``attempts`` and ``budget`` default to ``[sync]``'s); once pushed,
    or up to date, prunes the older backups the remote holds."""
    conf = repo.config().sync
    mode = mode or conf.mode
    if not is_sync_mode(mode):
        raise UsageError(f"{mode!r}: use 'rebase' or 'merge'", param="mode")
    route = route or conf.route
    if not is_sync_route(route):
        raise UsageError(f"{route!r}: use 'direct' or 'writer-ref'", param="route")
    retry = Backoff(attempts or conf.attempts, conf.budget if budget is None else budget, conf.backoff)
    waiting = waiting or Waiting()
    with repo.locked():
        target = resolve_target(repo.git, remote, branch, conf)
        if route == "writer-ref":
            target = replace(target, writer=writer_id(repo, conf, writer))
        uncommitted = check_quiet(repo)
        return replace(_sync_locked(repo, target, mode, push, retry, waiting), uncommitted=tuple(uncommitted))


def _sync_locked(repo: Store, target: Target, mode: Mode, push: bool, retry: Backoff, waiting: Waiting) -> SyncResult:
    git = repo.git
    before, started = git.head(), waiting.clock()
    backups: list[str] = []
    settled: list[Settlement] = []
    how, pulled, attempt, lost = "none", 0, 0, False
    while True:
        attempt += 1
        upstream = fetch_target(repo, target)
        own = _own_tip(repo, target, fetch=lost)
        for tip, step_mode in _upstreams(git, upstream, own, mode):
            start = git.head()
            step, backup, found = integrate(repo, target, tip, step_mode)
            settled += found
            if step != "none":
                how = step if how in ("none", "fast-forward") else how
                pulled += git.count(f"{start}..{tip}") if start else git.count(tip)
            backups += [backup] if backup else []
        head = git.head()
        if not push or head is None or head in (upstream, own):
            prune_backups(git, head if head == own else upstream, keep=backups)
            result = _result(target, mode, before, head, how, pulled, 0, backups, attempt, settled)
            if target.writer and upstream and head and head != upstream:
                return replace(result, waiting=git.count(f"{upstream}..{head}"))
            return result
        sent = _sendable(git, target, upstream, own, head)
        pushed = _push_tip(git, target, head)
        if pushed:
            _track(git, target)
            if target.writer:
                git.update_ref(target.own_tracking, head, f"memfs sync: pushed {target.pushes}")
            prune_backups(git, head, keep=backups)
            result = _result(target, mode, before, head, how, pulled, sent, backups, attempt, settled)
            return replace(result, waiting=sent) if target.writer else result
        lost = True
        wait, elapsed = retry.delay(attempt, waiting.rng), waiting.clock() - started
        if not retry.another(attempt, elapsed, wait):
            raise ConflictError(
                f"{target.remote}/{target.pushes} kept changing while syncing ({attempt} attempts in "
                f"{elapsed:.1f} s); nothing was lost, your commits are integrated locally; "
                "run 'memfs sync' again (or raise [sync] attempts / budget)"
            )
        waiting.sleep(wait)


def _sendable(git: gitcli.Git, target: Target, upstream: str | None, own: str | None, head: str) -> int:
    """How many commits ``head`` has that the remote branch lacks, once checked that the tip this
    clone knows of where it pushes (``own`` on the writer-ref route, else ``upstream``) is in
    ``head``'s history: else :class:`SyncRefused` (pushing would need a force). One git process
    when both are the same tip (:meth:`~memfs.store.gitcli.refs.Refs.count_over`)."""
    base = own if target.writer else upstream
    if base is not None and base == upstream:
        sent = git.count_over(base, head)
    elif base is None or git.is_ancestor(base, head):
        sent = git.count(f"{upstream}..{head}") if upstream else git.count(head)
    else:
        sent = None
    if sent is None:
        raise SyncRefused(f"pushing would overwrite commits on {target.remote}/{target.pushes}; refused "
                          "(no force-push)")
    return sent


def _push_tip(git: gitcli.Git, target: Target, head: str) -> bool:
    """Push ``head`` where this clone pushes; ``False`` when another push won the race. A refusal
    says what the server must allow (nothing is lost: the commits stay here)."""
    try:
        return push_to(git, target.remote, head, target.pushes)[0]
    except GitError as exc:
        allow = f"refs/heads/{target.pushes} to this writer" if target.writer else f"{target.branch} to you"
        raise GitError(f"{exc} Nothing was lost: your commits stay here ({head[:10]}); have the server allow "
                       f"pushing {allow}, then sync again") from None


def _own_tip(repo: Store, target: Target, fetch: bool) -> str | None:
    """The tip of the writer's own ref (``None`` on the direct route or when it does not exist):
    as this clone last pushed it, or fetched through the quarantine after a push was refused
    (another process wrote it: the same writer id twice). A ref deleted on the remote is simply
    pushed again: everything it held is in this clone's branch or on the shared branch."""
    if target.writer is None:
        return None
    if not fetch:
        return repo.git.rev(target.own_tracking)
    tip = incoming.fetch(repo, target.remote, target.pushes, target.own_tracking)
    if tip is None and repo.git.rev(target.own_tracking) is not None:
        repo.git.delete_refs([target.own_tracking])
    return tip


def _upstreams(git: gitcli.Git, upstream: str | None, own: str | None, mode: Mode) -> list[tuple[str, Mode]]:
    """What to integrate, in order, and how. The writer's own ref first (merged: it only has what
    this clone pushed, unless another process wrote it too), then the shared branch, merged
    rather than rebased onto while the own ref holds commits the shared branch does not, so
    published commits are never rewritten and the own ref only moves forward."""
    found: list[tuple[str, Mode]] = [(own, "merge")] if own is not None else []
    if upstream is not None:
        published = own is not None and not git.is_ancestor(own, upstream)
        found.append((upstream, "merge" if published else mode))
    return found


def prune_backups(git: gitcli.Git, tip: str | None, keep: list[str]) -> None:
    """Delete the backup refs (other than ``keep``, this sync's own) whose every commit is on the
    branch at ``tip``: reachable from it (one ``for-each-ref``), or each with an equal change there.
    No git process when git's files show no other backup."""
    if tip is None or git.no_refs_under(BACKUP_PREFIX, but=keep):
        return
    others = [(ref, sha) for ref, sha in git.refs(BACKUP_PREFIX) if ref not in keep]
    if not others:
        return
    reachable = {ref for ref, _ in git.refs(BACKUP_PREFIX, merged=tip)}
    gone = [ref for ref, sha in others if ref in reachable or git.changes_on(tip, sha)]
    if gone:
        git.delete_refs(gone)


def _result(
    target: Target,
    mode: Mode,
    before: str | None,
    after: str | None,
    how: str,
    pulled: int,
    pushed: int,
    backups: list[str],
    attempts: int,
    settled: list[Settlement],
) -> SyncResult:
    return SyncResult(
        target.remote,
        target.branch,
        mode,
        before,
        after,
        how,
        pulled,
        pushed,
        tuple(backups),
        attempts,
        (),
        tuple(settled),
        target.pushes,
    )


def _track(git: gitcli.Git, target: Target) -> None:
    """Record the remote branch as the upstream (like ``push -u``) if none is set yet."""
    if not target.tracked:
        git.config_set(f"branch.{target.local}.remote", target.remote)
        git.config_set(f"branch.{target.local}.merge", f"refs/heads/{target.branch}")


def backups(repo: Store) -> list[tuple[str, str]]:
    """(ref, commit) of every backup memfs has made, oldest first."""
    return repo.git.refs(BACKUP_PREFIX)
