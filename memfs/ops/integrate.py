"""``memfs integrate``: bring every writer's own ref into the shared branch, the only pusher of it.

Writers on the ``writer-ref`` route (:mod:`memfs.ops.sync`) push to
``refs/heads/memfs/writers/<writer>``, a ref only each writer writes, so no writer races another
for ``main``. The integrator, in a clone of its own (a CI job's checkout, or a clone next to a bare
repository), runs rounds of:

1. fetch ``main`` through the quarantine (:mod:`memfs.ops.incoming`) and integrate it into the
   local branch (another integrator may have pushed);
2. list the writer refs (``git ls-remote``), fetch each that moved through the quarantine (the
   secret gate judges every commit none of the refs it judged before reaches), and merge each
   into the local branch with sync's rules (:func:`memfs.ops.sync.integrate`: a fast-forward, a
   merge, or one reconcile merge commit whose memory files memfs settles; a change that needs a
   person is held ``needs_review`` for ``memfs review``), then, once for all of them, the lineage
   check (:func:`memfs.ops.reconcile_sync.keep_lineage`);
3. push the branch as a plain fast-forward: the server's compare-and-swap of the ref, so two
   integrators never lose each other's work (the loser fetches, integrates and pushes again
   after a random wait that doubles, :mod:`memfs.policy.retry`).

A writer whose ref cannot be integrated (a conflict on a file memfs cannot settle, a secret) is
*held*: reported, left as it is, retried next round; the others flow. A writer ref deleted on the
remote is forgotten once everything it held is on ``main``; what it held that ``main`` lacks is
integrated from the copy fetched before. A ``main`` that no longer contains what this integrator
saw there (force-pushed) stops the round with nothing pushed.

Idempotent: a round with nothing new makes no commit and pushes nothing. Crash-safe: every step
is a git ref update or a commit; a merge in progress is announced by a marker file in the git
directory, and the next run (which holds the write lock, so the previous one is dead) aborts that
merge and resets the work tree to the branch's last commit before starting; the writer refs on
the remote are never changed, so a killed round loses nothing and the next one redoes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from memfs.errors import ConflictError, GitError, MemfsError, SyncRefused
from memfs.ops import incoming, sync
from memfs.ops.reconcile_sync import Divergence, Settlement, keep_lineage
from memfs.policy.retry import Backoff
from memfs.store import crashpoint
from memfs.store.repo import Store

#: In the git directory while a writer's ref is being merged; found by the next run: a killed merge.
MARKER = "memfs-integrating"
#: ``refs/memfs/writers/<remote>/<writer>``: each writer ref as last fetched and judged here.
FETCHED = "refs/memfs/writers/"
#: In the git directory: the writer tips the secret gate refused, one per line, so the next rounds
#: fetch them alone rather than make every fetch of the others fail (a hint: losing it costs a fetch).
REFUSED = "memfs-refused-tips"
#: ``refs/memfs/integrated/<remote>/<branch>``: the shared branch as last seen on the remote; a
#: later tip that does not contain it was force-pushed.
SEEN = "refs/memfs/integrated/"


@dataclass(frozen=True)
class WriterOutcome:
    """What a round did with one writer's ref: ``none`` (already on the branch), ``fast-forward``,
    ``merge``, ``reconcile``, ``held`` (not integrated, ``detail`` says why) or ``gone`` (deleted
    on the remote, everything it held on the branch)."""

    writer: str
    tip: str
    outcome: str
    detail: str = ""
    reconciled: tuple[Settlement, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"writer": self.writer, "tip": self.tip, "outcome": self.outcome, "detail": self.detail,
                "reconciled": [s.to_json() for s in self.reconciled]}

    def lines(self) -> list[str]:
        head = f"{sync.WRITERS}{self.writer} ({self.tip[:10]}): {self.outcome}"
        found = [head + (f": {self.detail}" if self.detail else "")]
        found += [f"  needs review (memfs review): {s.line()}" for s in self.reconciled if s.review]
        found += [f"  reconciled {s.line()}" for s in self.reconciled if not s.review]
        return found


@dataclass(frozen=True)
class IntegrateResult:
    remote: str
    branch: str
    before: str | None
    after: str | None
    pushed: int
    attempts: int
    writers: tuple[WriterOutcome, ...] = ()
    #: Whether this run first cleaned up after an integrator killed in the middle of a merge.
    recovered: bool = False

    @property
    def held(self) -> tuple[WriterOutcome, ...]:
        return tuple(w for w in self.writers if w.outcome == "held")

    def to_json(self) -> dict[str, Any]:
        return {"remote": self.remote, "branch": self.branch, "before": self.before, "after": self.after,
                "pushed": self.pushed, "attempts": self.attempts, "recovered": self.recovered,
                "writers": [w.to_json() for w in self.writers]}

    def summary(self) -> list[str]:
        moved = [w for w in self.writers if w.outcome != "none"]
        lines = ["recovered from an integrator killed mid-merge: the merge was undone and is redone"] * self.recovered
        if self.pushed:
            lines.append(f"pushed {self.pushed} commit(s) to {self.remote}/{self.branch}: now {self.after or '':.10}")
        else:
            lines.append(f"{self.remote}/{self.branch} is up to date ({self.after or '':.10}): nothing to integrate")
        for outcome in moved:
            lines += outcome.lines()
        return lines


def integrate(
    repo: Store,
    *,
    remote: str | None = None,
    branch: str | None = None,
    attempts: int | None = None,
    budget: float | None = None,
    waiting: sync.Waiting | None = None,
) -> IntegrateResult:
    """One round: every writer ref brought into the current branch, which is pushed to the remote
    branch (``[sync] remote`` and ``branch`` by default, as for sync)."""
    conf = repo.config().sync
    retry = Backoff(attempts or conf.attempts, conf.budget if budget is None else budget, conf.backoff)
    with repo.locked():
        recovered = _recover(repo)
        target = sync.resolve_target(repo.git, remote, branch, conf)
        sync.check_quiet(repo)
        return _rounds_locked(repo, target, retry, waiting or sync.Waiting(), recovered)


def _rounds_locked(
    repo: Store, target: sync.Target, retry: Backoff, waiting: sync.Waiting, recovered: bool
) -> IntegrateResult:
    git = repo.git
    before, started, attempt = git.head(), waiting.clock(), 0
    outcomes: dict[str, WriterOutcome] = {}
    while True:
        attempt += 1
        upstream = _take_branch(repo, target)
        crashpoint.reached("integrate-fetched")
        for outcome in _writers(repo, target, upstream):
            if outcome.outcome != "none" or outcome.writer not in outcomes:
                outcomes[outcome.writer] = outcome
        head = git.head()
        found = tuple(outcomes[w] for w in sorted(outcomes))
        if head is None or head == upstream:
            return IntegrateResult(target.remote, target.branch, before, head, 0, attempt, found, recovered)
        sent = git.count(f"{upstream}..{head}") if upstream else git.count(head)
        if _push(repo, target, head):
            crashpoint.reached("integrate-pushed")
            git.update_refs({target.tracking: head, _seen_ref(target): head},
                            f"memfs integrate: pushed {target.branch}")
            sync.prune_backups(git, head, keep=[])
            return IntegrateResult(target.remote, target.branch, before, head, sent, attempt, found, recovered)
        wait, elapsed = retry.delay(attempt, waiting.rng), waiting.clock() - started
        if not retry.another(attempt, elapsed, wait):
            raise ConflictError(
                f"{target.label} kept changing while integrating ({attempt} attempts in {elapsed:.1f} s): another "
                f"integrator is pushing it. Nothing was lost: {target.local} here holds the integration, and the "
                "writer refs are unchanged; run 'memfs integrate' again")
        waiting.sleep(wait)


def _seen_ref(target: sync.Target) -> str:
    return f"{SEEN}{target.remote}/{target.branch}"


def _take_branch(repo: Store, target: sync.Target) -> str | None:
    """Fetch the shared branch, refuse one that was rewritten, and integrate it here (merging
    what another integrator pushed); its tip, or ``None`` if the remote has no such branch yet."""
    git = repo.git
    seen = git.rev(_seen_ref(target))
    upstream = sync.fetch_target(repo, target)
    if upstream is None:
        return None
    if seen is not None and seen != upstream and not git.is_ancestor(seen, upstream):
        head = git.head() or seen
        raise SyncRefused(
            f"{target.label} was rewritten (force-pushed): it no longer contains {seen[:10]}, which it held when "
            f"this integrator last saw it. Nothing was pushed and nothing was lost ({target.local} here is at "
            f"{head[:10]}). If the rewrite was meant (a purge), delete the writer refs that still hold the removed "
            f"commits, then here: git update-ref -d {_seen_ref(target)}; git reset --hard {target.label}; "
            "memfs integrate. Otherwise push the lost commits back first.")
    if seen != upstream:
        git.update_ref(_seen_ref(target), upstream, f"memfs integrate: seen {target.branch}")
    sync.integrate(repo, target, upstream, "merge")
    return upstream


def _writers(repo: Store, target: sync.Target, upstream: str | None) -> list[WriterOutcome]:
    """Every writer ref on the remote (and every one fetched here before) brought in, in name order."""
    git = repo.git
    prefix = f"{FETCHED}{target.remote}/"
    tips = git.remote_heads(target.remote, sync.WRITERS)
    fetched = {ref.removeprefix(prefix): sha for ref, sha in git.refs(prefix)}
    head = git.head() if fetched else None
    on_branch = {ref.removeprefix(prefix) for ref, _ in git.refs(prefix, merged=head)} if head else set()
    judged = ("HEAD", f"--glob={prefix}")
    lineage: dict[str, list[Divergence]] = {}
    together = _fetch_together(repo, target, {w: tip for w, tip in tips.items() if tip != fetched.get(w)}, judged)
    out = []
    for writer in sorted(set(tips) | set(fetched)):
        ref = prefix + writer
        tip = tips.get(writer)
        if tip is not None and tip == fetched.get(writer) and writer in on_branch:
            out.append(WriterOutcome(writer, tip, "none"))
            continue
        if writer in together:
            tip = together[writer]
        elif tip is not None and tip != fetched.get(writer):
            try:
                tip = incoming.fetch(repo, target.remote, sync.WRITERS + writer, ref, known=judged)
            except SyncRefused as exc:
                _note_refused(repo, tips[writer])
                out.append(WriterOutcome(writer, tips[writer], "held", str(exc)))
                continue
        if tip is None:
            out.append(_gone(repo, target, writer, fetched.get(writer) or git.rev(ref) or "", upstream, lineage))
            continue
        out.append(_merge_writer(repo, target, writer, tip, lineage))
    return _keep_lineage(repo, out, lineage)


def _keep_lineage(repo: Store, out: list[WriterOutcome], lineage: dict[str, list[Divergence]]) -> list[WriterOutcome]:
    """One :func:`memfs.ops.reconcile_sync.keep_lineage` for the round's merges (not one per
    writer: each reads the changed memories and brings the catalog up to date), each settlement
    reported with the writer whose merge changed its file (else the last one merged)."""
    found = [div for writer in sorted(lineage) for div in lineage[writer]]
    if not found:
        return out
    union = Divergence(None, frozenset().union(*(d.local for d in found)),
                       frozenset().union(*(d.upstream for d in found)))
    settled = keep_lineage(repo, union)
    if not settled:
        return out
    changed = {w: frozenset().union(*(d.local | d.upstream for d in lineage[w])) for w in lineage if lineage[w]}
    last = max(changed, key=lambda w: max(i for i, o in enumerate(out) if o.writer == w))
    owners = {s.path: next((w for w in changed if s.path in changed[w]), last) for s in settled}
    return [replace(o, reconciled=o.reconciled + tuple(s for s in settled if owners[s.path] == o.writer))
            if o.writer in changed else o for o in out]


def _fetch_together(
    repo: Store, target: sync.Target, moved: dict[str, str], judged: tuple[str, ...]
) -> dict[str, str]:
    """The writer refs that moved, fetched and judged in one go (one connection, one pack, one
    reading of their commits), ``moved`` being writer -> tip as listed: writer -> tip fetched. Empty
    when there are fewer than two, or when that fails (a secret in one of them, a ref deleted since
    it was listed): then each is fetched alone, which says whose it is and holds that writer only.
    A tip refused before is left out (fetched alone, refused again) so it fails no fetch of others."""
    refused = _refused(repo)
    writers = [w for w, tip in moved.items() if tip not in refused]
    if len(writers) < 2:
        return {}
    prefix = f"{FETCHED}{target.remote}/"
    try:
        tips = incoming.fetch_many(repo, target.remote, {sync.WRITERS + w: prefix + w for w in writers}, judged)
    except (SyncRefused, GitError):
        return {}
    return {branch.removeprefix(sync.WRITERS): tip for branch, tip in (tips or {}).items()}


def _refused(repo: Store) -> set[str]:
    try:
        return set((repo.git.git_dir / REFUSED).read_text(encoding="ascii").split())
    except (OSError, UnicodeDecodeError):
        return set()


def _note_refused(repo: Store, tip: str) -> None:
    known = sorted(_refused(repo) | {tip})[-1000:]
    (repo.git.git_dir / REFUSED).write_text("".join(f"{sha}\n" for sha in known), encoding="ascii")


def _gone(
    repo: Store, target: sync.Target, writer: str, sha: str, upstream: str | None,
    lineage: dict[str, list[Divergence]],
) -> WriterOutcome:
    """A writer ref deleted on the remote: forgotten here once the remote branch holds all of it,
    else what it held is integrated from the copy fetched before."""
    git = repo.git
    if not sha or (upstream is not None and git.is_ancestor(sha, upstream)):
        git.delete_refs([f"{FETCHED}{target.remote}/{writer}"])
        return WriterOutcome(writer, sha, "gone", "deleted on the remote; everything it held is on the branch")
    merged = _merge_writer(repo, target, writer, sha, lineage)
    note = "deleted on the remote; what it held that the branch lacked comes from the copy fetched before"
    return WriterOutcome(writer, sha, merged.outcome, f"{note}. {merged.detail}".strip(), merged.reconciled)


def _merge_writer(
    repo: Store, target: sync.Target, writer: str, tip: str, lineage: dict[str, list[Divergence]]
) -> WriterOutcome:
    """Merge one writer's tip into the branch (:func:`memfs.ops.sync.integrate`, no backup ref: a
    merge rewrites nothing); a conflict memfs cannot settle leaves the branch as it was and holds
    this writer alone. What each side changed goes to ``lineage`` for the round's one check."""
    git = repo.git
    head = git.head()
    marker = git.git_dir / MARKER
    marker.write_text(f"{head or ''} {writer} {tip}\n", encoding="utf-8")
    crashpoint.reached("integrate-merging")
    try:
        how, _, settled = sync.integrate(repo, sync.Target(target.local, target.remote, sync.WRITERS + writer),
                                         tip, "merge", backup=False, lineage=lineage.setdefault(writer, []))
    except (ConflictError, SyncRefused, GitError) as exc:
        return WriterOutcome(writer, tip, "held", f"not integrated, retried each round: {exc}".split("\n")[0])
    finally:
        marker.unlink(missing_ok=True)
    crashpoint.reached("integrate-merged")
    return WriterOutcome(writer, tip, how, reconciled=tuple(settled))


def _push(repo: Store, target: sync.Target, head: str) -> bool:
    """Push ``head`` to the remote branch as a fast-forward: ``False`` when another push won the race."""
    try:
        pushed, _ = sync.push_to(repo.git, target.remote, head, target.branch)
    except GitError as exc:
        raise GitError(
            f"{target.remote} refused the push of {target.branch} ({exc}). Nothing was lost: {target.local} here "
            f"holds the integrated writers at {head[:10]} and the writer refs are unchanged. Allow this integrator "
            f"to push {target.branch} (a protected branch needs its account allowed), then run 'memfs integrate' "
            "again") from None
    return pushed


def _recover(repo: Store) -> bool:
    """After an integrator killed while merging (the marker is there and the lock was free):
    abort the merge, put the work tree back at the branch's last commit, remove the marker."""
    git = repo.git
    marker = git.git_dir / MARKER
    if not marker.exists():
        return False
    if (git.git_dir / "MERGE_HEAD").exists():
        git.abort("merge")
    if git.head() is not None:
        git.reset_hard("HEAD")
    marker.unlink(missing_ok=True)
    return True


@dataclass(frozen=True)
class Rounds:
    """How ``--watch`` runs: every ``interval`` seconds it lists the remote's branch and writer
    refs (one ``git ls-remote``) and runs a round when that listing differs from the one after
    the last good round, ``rounds`` polls at most (``None``: until stopped)."""

    interval: float = 30.0
    rounds: int | None = None
    waiting: sync.Waiting = field(default_factory=sync.Waiting)


def watch(
    repo: Store, how: Rounds, report: Callable[[IntegrateResult | MemfsError], None] | None = None, **options: Any
) -> IntegrateResult:
    """Run :func:`integrate` in rounds; the last round's result. A poll whose listing of the remote
    (the branch and every writer ref, one ``ls-remote``) is the one the last good round left runs
    no round: nothing new could be integrated, and a held writer can only become integrable when
    its ref or the branch moves. So the interval can be short, and a write reaches the branch
    about one interval after its writer pushed. With ``report``, each round's result or error goes
    to it and a failed round does not stop the next (a remote down for a while; the last error is
    raised if the last round failed); without, the first error raises."""
    done, last, quiet = 0, None, None
    while True:
        done += 1
        listed = _listing(repo, options)
        if listed is None or listed != quiet or last is None:
            try:
                last = integrate(repo, waiting=how.waiting, **options)
            except MemfsError as exc:
                quiet = None
                if report is None or done == how.rounds:
                    raise
                report(exc)
            else:
                quiet = _after_round(listed, last)
                if report is not None:
                    report(last)
        if done == how.rounds and last is not None:
            return last
        how.waiting.sleep(how.interval)


def _listing(repo: Store, options: dict[str, Any]) -> dict[str, str] | None:
    """The remote's branch and writer refs (full name -> commit), or ``None`` when they cannot be
    listed (the round that follows says why)."""
    try:
        target = sync.resolve_target(repo.git, options.get("remote"), options.get("branch"), repo.config().sync)
        return repo.git.remote_refs(target.remote, f"refs/heads/{target.branch}", f"refs/heads/{sync.WRITERS}*")
    except MemfsError:
        return None


def _after_round(listed: dict[str, str] | None, result: IntegrateResult) -> dict[str, str] | None:
    """What the remote lists once ``result``'s round is done, as far as this integrator knows: the
    listing from before it, with the branch where the round pushed it."""
    if listed is None or result.after is None:
        return None
    return {**listed, f"refs/heads/{result.branch}": result.after}
