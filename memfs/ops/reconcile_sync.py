"""Sync reconciles memory, not text: what :mod:`memfs.ops.sync` does when both sides changed a memory.

When the clone's own commits and the branch it integrates both changed a memory file since their
common ancestor, a rebase would replay the clone's commits one by one and stop on a text conflict
(or, with the merge driver, quietly write a retracted file with the new value as its body). Sync
instead makes one merge commit whose memory files memfs settles (:func:`merge_settled`, the rules
in :mod:`memfs.policy.concurrent`): every value of both sides stays in history (the merge's
parents), the settled file holds at most one active value, and a change that needs a person is
held ``needs_review`` for ``memfs review`` instead of blocking the clone. Files memfs cannot settle
(a non-memory file both sides changed, a memory that does not parse) still stop the sync cleanly.

After any integration, :func:`keep_lineage` flags active memories one side derived from a memory the
other side retracted, in one ``sync`` commit, so ``invalidated_by`` and ``depends_on`` agree; and
where the two sides made one subject active in two files, it leaves the newest active and the
others ``superseded`` (:func:`memfs.policy.concurrent.duplicates`), in one ``sync`` commit.

The rules (:mod:`memfs.policy.concurrent`, and with them the gate and the conflict tables) are
imported by the function that settles: :mod:`memfs.ops.sync` imports this module, and a sync that
integrates nothing, or only fast-forwards, judges no memory.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from memfs.errors import InvalidMemory
from memfs.format.model import Memory, utcnow
from memfs.format.parse import parse
from memfs.policy.lineage import INVALIDATED_BY, Invalidation
from memfs.store import atomic, gitcli, paths
from memfs.store.commits import Message
from memfs.store.repo import Store

#: The reason recorded on a memory flagged because the other side retracted what it depends on.
ORPHAN_REASON = "derived from a memory another clone retracted concurrently (found by sync)"


@dataclass(frozen=True)
class Divergence:
    """The memory files each side changed since the common ancestor ``base``."""

    base: str | None
    local: frozenset[str]
    upstream: frozenset[str]

    #: Of those both sides changed, the ones whose contents differ between the two tips.
    differ: frozenset[str] = frozenset()

    @property
    def both(self) -> list[str]:
        return sorted(self.local & self.upstream & self.differ)


@dataclass(frozen=True)
class Settlement:
    """What sync decided for one memory: the rule (see :mod:`memfs.policy.concurrent`, or
    ``flagged`` for :func:`keep_lineage`), whose value won, why a person must look, and where a
    kept-apart local memory went."""

    path: str
    rule: str
    winner: str | None = None
    review: str | None = None
    moved_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "rule": self.rule, "winner": self.winner, "review": self.review,
                "moved_to": self.moved_to}

    def line(self) -> str:
        what = {"supersede": f"concurrent values, the {self.winner} one kept",
                "value": f"the {self.winner} value kept", "fields": "fields merged",
                "keep-both": f"two memories at one path, the local one moved to {self.moved_to}",
                "review": "held for review", "flagged": "flagged for review",
                "superseded": f"superseded: {self.winner} holds the same subject"}.get(self.rule, self.rule)
        return f"{self.path}: {what}" + (f" ({self.review})" if self.review else "")


class Unsettled(Exception):
    """Files both sides changed that memfs cannot settle; the merge was undone."""

    def __init__(self, files: list[str]) -> None:
        super().__init__(", ".join(files))
        self.files = files


def diverged(repo: Store, head: str, upstream: str, base: str | None = None) -> Divergence:
    """Which memory files the local commits and the upstream commits change (two ``git diff``);
    ``base``: their merge base when the caller has it already."""
    git = repo.git
    base = base or git.merge_base(head, upstream)
    if base is None:
        return Divergence(None, frozenset(), frozenset())

    def changed(tip: str) -> frozenset[str]:
        names = git.diff_names(base, tip, repo.pathspec)
        return frozenset(r for n in names if (r := repo.from_git_path(n)) and paths.is_memory_name(r))

    local, remote = changed(head), changed(upstream)
    if not local & remote:
        return Divergence(base, local, remote)
    tips = frozenset(r for n in git.diff_names(head, upstream, repo.pathspec) if (r := repo.from_git_path(n)))
    return Divergence(base, local, remote, tips)


def merge_settled(repo: Store, div: Divergence, head: str, upstream: str, subject: str) -> list[Settlement]:
    """Merge ``upstream`` into the branch with one merge commit whose memory files both sides
    changed are settled by memfs. Raises :class:`Unsettled` (the branch back at ``head``) when a
    file both sides changed cannot be settled."""
    git = repo.git
    identity = gitcli.Identity.for_actor(repo.actor)
    git.merge_unfinished(upstream, identity)
    try:
        settled = _settle_all(repo, div, head, upstream)
        done = {repo.git_path(s.path) for s in settled}
        left = [name for name in git.conflicted() if name not in done]
        if left:
            raise Unsettled(left)
        trailers = {"Memfs-Reconciled": [f"{s.path} {s.rule}" for s in settled]}
        message = Message("sync", subject, repo.actor, paths=tuple(s.path for s in settled), trailers=trailers)
        git.finish_merge(message.render(), identity)
    except BaseException:
        git.abort("merge")
        if git.head() != head:
            git.reset_hard(head)
        raise
    return settled


def _settle_all(repo: Store, div: Divergence, head: str, upstream: str) -> list[Settlement]:
    """Settle each memory both sides changed, in the work tree, and stage it."""
    from memfs.policy import concurrent

    rels = div.both
    base = repo.files_at(div.base, rels) if div.base else dict.fromkeys(rels)
    mine, theirs = repo.files_at(head, rels), repo.files_at(upstream, rels)
    now = utcnow()
    out: list[Settlement] = []
    staged: list[str] = []
    for rel in rels:
        local = concurrent.Side(mine[rel], _author(repo, head, rel))
        remote = concurrent.Side(theirs[rel], _author(repo, upstream, rel))
        result = concurrent.settle(rel, base[rel], local, remote, now, repo.actor)
        if result.rule == "unreadable":
            continue
        moved = None
        if result.relocate is not None:
            moved = _free_path(repo, rel, result.relocate)
            _put(repo, moved, concurrent.relocated(rel, moved, result.relocate))
            staged.append(repo.git_path(moved))
        _put(repo, rel, result.content)
        staged.append(repo.git_path(rel))
        out.append(Settlement(rel, result.rule, result.winner, result.review, moved))
    if staged:
        repo.git.stage(staged)
    return out


def _author(repo: Store, rev: str, rel: str) -> str:
    commits = repo.git.log(rev=rev, path=repo.git_path(rel), limit=1, follow=False)
    return commits[0].author if commits else ""


def _put(repo: Store, rel: str, data: bytes | None) -> None:
    target = repo.root / rel
    if data is None:
        target.unlink(missing_ok=True)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(target, data)


def _free_path(repo: Store, rel: str, data: bytes) -> str:
    """Where a local memory that collided with another subject's file goes: its default name in
    its own scope (:func:`memfs.ops.remember.scoped_stem`), numbered if that is taken too."""
    from memfs.ops.remember import scoped_stem

    folder, name = posixpath.split(rel)
    stem = name.removesuffix(".md")
    try:
        scope = parse(rel, data).scope or ""
    except InvalidMemory:
        scope = ""
    first = scoped_stem(stem, scope) if scope else f"{stem}--local"
    for candidate in (first, *(f"{first}-{n}" for n in range(2, 1000))):
        path = posixpath.join(folder, candidate + ".md")
        if not repo.exists(path):
            return path
    raise InvalidMemory(f"{rel}: no free path to keep the local memory apart")


#: The reason recorded when two files held one subject active after an integration.
DUPLICATE_REASON = "two clones made one subject active in two files; the newest value stays active (found by sync)"


def keep_lineage(repo: Store, div: Divergence) -> list[Settlement]:
    """After integrating, keep one active memory per subject, then flag the active memories
    (changed by either side) that depend on a retracted memory, or on one a retraction flagged:
    one ``sync`` commit each, nothing when none."""
    changed = _memories_at_head(repo, sorted(div.local | div.upstream))
    settled = _one_per_subject(repo, changed)
    if settled:
        changed = _memories_at_head(repo, sorted(changed))
    return settled + _flag_orphans(repo, changed)


def _one_per_subject(repo: Store, changed: dict[str, Memory]) -> list[Settlement]:
    keys = sorted({m.key for m in changed.values() if m.key and m.status == "active"})
    if not keys:
        return []
    from memfs.ops.remember import key_pattern
    from memfs.policy import concurrent

    known = repo.catalog()
    rels = {r for key in keys
            for r in (known.with_key(key) if known is not None else repo.files_matching(key_pattern("key", key)))}
    losers = concurrent.duplicates({**_memories_at_head(repo, sorted(rels - set(changed))), **changed}, changed)
    if not losers:
        return []
    subject = f"supersede {len(losers)} duplicate memories"
    with repo.transaction("sync", subject=subject, reason=DUPLICATE_REASON) as tx:
        for rel in sorted(losers):
            tx.write(rel, fields={"status": "superseded"})
    return [Settlement(rel, "superseded", winner=winner) for rel, winner in sorted(losers.items())]


def _flag_orphans(repo: Store, changed: dict[str, Memory]) -> list[Settlement]:
    # a parent the other side changed (retracted) is among ``changed`` itself: read only the others
    parents = {d for m in changed.values() for d in m.depends_on}
    if not parents:
        return []
    from memfs.policy import concurrent

    known = {**_memories_at_head(repo, sorted(parents - set(changed))), **changed}
    flagged = concurrent.orphans(changed, known)
    if not flagged:
        return []
    with repo.transaction("sync", subject=f"flag {len(flagged)} memories", reason=ORPHAN_REASON) as tx:
        for rel, roots in sorted(flagged.items()):
            memory = tx.read(rel)
            raw = memory.meta.get(INVALIDATED_BY)
            old = raw if isinstance(raw, list) else []
            known_roots = {r.get("root") for r in old if isinstance(r, dict)}
            new = [Invalidation(r, ORPHAN_REASON, tx.now, tx.actor).to_yaml() for r in roots if r not in known_roots]
            tx.write(rel, fields={"status": "needs_review", INVALIDATED_BY: [*old, *new]})
    return [Settlement(rel, "flagged", review=f"depends on {', '.join(r)}") for rel, r in sorted(flagged.items())]


def _memories_at_head(repo: Store, rels: list[str]) -> dict[str, Memory]:
    found: dict[str, Memory] = {}
    for rel, data in repo.files_at("HEAD", rels).items():
        if data is None:
            continue
        try:
            found[rel] = parse(rel, data)
        except InvalidMemory:
            continue
    return found


def broken_by_merge(repo: Store, before: str, upstream: str) -> list[str]:
    """Memory files invalid after integration although valid on both sides (a bad text merge)."""
    git = repo.git
    names = git.diff_names(upstream, "HEAD", repo.pathspec)
    rels = [rel for n in names if (rel := repo.from_git_path(n)) and paths.is_memory_name(rel)]
    found = []
    for rel in rels:
        after = repo.peek(rel)
        if after is None or not _errors(rel, after):
            continue
        sides = [git.show_file(rev, repo.git_path(rel)) for rev in (before, upstream)]
        if all(side is None or not _errors(rel, side) for side in sides):
            found.append(f"{rel}: {_errors(rel, after)[0]}")
    return found


def _errors(rel: str, data: bytes) -> list[str]:
    try:
        memory = parse(rel, data)
    except InvalidMemory as exc:
        return [str(p) for p in exc.problems] or [str(exc)]
    return [str(p) for p in memory.errors]
