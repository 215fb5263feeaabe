"""``memfs propose``: put pending memory changes on a review branch and push it, for a pull request.

It shares sync's rules (:mod:`memfs.ops.sync`): no force-push, a backup ref before the local
branch moves back, and every fetch through the quarantine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memfs.errors import ConflictError, InvalidMemory, NotFound, UsageError
from memfs.format.model import utcnow
from memfs.ops import sync
from memfs.store import gitcli
from memfs.store.repo import Store


@dataclass(frozen=True)
class ProposeResult:
    remote: str
    branch: str
    base: str
    commits: tuple[tuple[str, str], ...]
    committed: str | None
    main_reset: bool
    backups: tuple[str, ...] = ()
    links: tuple[str, ...] = field(default=())

    @property
    def review_command(self) -> str:
        return f"memfs review {self.remote}/{self.base}..{self.branch}"

    def to_json(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "base": self.base,
            "commits": [{"commit": sha, "subject": subject} for sha, subject in self.commits],
            "committed": self.committed,
            "main_reset": self.main_reset,
            "backups": list(self.backups),
            "links": list(self.links),
            "review": self.review_command,
        }


def _commit_pending(repo: Store, reason: str | None) -> str | None:
    """Commit uncommitted memory files (validated first) in one commit; other files stay as they are."""
    rels = sync.uncommitted_memories(repo)
    if not rels:
        return None
    problems: list[str] = []
    with repo.transaction("commit", reason=reason) as tx:
        for rel in rels:
            try:
                tx.adopt(rel)
            except InvalidMemory as exc:
                problems.extend(str(p) for p in exc.problems) if exc.problems else problems.append(str(exc))
        if problems:
            raise InvalidMemory(
                "nothing was proposed: uncommitted memory files are invalid: "
                + "; ".join(problems[:5])
                + ("" if len(problems) <= 5 else f" (+{len(problems) - 5} more)")
                + ". Fix them ('memfs validate') and propose again.",
            )
    return tx.result.commit


def default_branch_name(actor: str, head: str, taken: Callable[[str], bool]) -> str:
    """``memfs/<actor>/<UTC time>-<head's short id>``, and ``-2``, ``-3``… after it while ``taken``.

    The commit id keeps two proposals of one actor within one second apart (the time alone has
    one-second resolution); the counter only matters when the same head is proposed twice.
    """
    stem = f"memfs/{sync.actor_slug(actor)}/{utcnow().strftime('%Y%m%d-%H%M%S')}-{head[:7]}"
    name, n = stem, 1
    while taken(name):
        n += 1
        name = f"{stem}-{n}"
    return name


def _check_branch_name(git: gitcli.Git, name: str, local: str) -> None:
    """Refuse a name the caller chose before anything is committed for it."""
    if not git.valid_branch_name(name):
        raise UsageError(f"{name!r} is not a valid branch name", param="branch")
    if name == local or git.rev(f"refs/heads/{name}") is not None:
        raise ConflictError(f"branch {name!r} already exists here; pick another name", param="branch")


def propose(
    repo: Store,
    *,
    branch: str | None = None,
    remote: str | None = None,
    base: str | None = None,
    keep_main: bool = False,
    reason: str | None = None,
) -> ProposeResult:
    """Put pending memory changes on a review branch and push it, for a pull request.

    Pending = uncommitted memory files (committed first, validated) plus local commits that are
    not on the remote base branch. After the review branch is pushed, the local base branch goes
    back to the remote's tip (a backup ref saves the old tip), so a later ``memfs sync`` cannot
    publish the unreviewed commits directly; ``keep_main`` leaves it alone.
    """
    git = repo.git
    with repo.locked():
        target = sync.resolve_target(git, remote, base, repo.config().sync)
        sync.check_no_operation(repo)
        upstream = sync.fetch_target(repo, target)
        if upstream is None:
            raise NotFound(
                f"{target.label} does not exist yet, so there is nothing to review against; publish the shared "
                "history first with 'memfs sync'"
            )
        if branch is not None:
            _check_branch_name(git, branch, target.local)
        committed = _commit_pending(repo, reason)
        head = git.head()
        pending = git.log(rev=f"{upstream}..{head}", follow=False) if head else []
        if not pending or head is None:
            raise NotFound(f"nothing to propose: no memory changes beyond {target.label}")
        name = branch or default_branch_name(repo.actor, head, lambda n: git.rev(f"refs/heads/{n}") is not None)
        git.create_branch(name, head)
        pushed, messages = sync.push_to(git, target.remote, f"refs/heads/{name}", name)
        if not pushed:
            git.delete_branch(name)
            raise ConflictError(
                f"{target.remote} already has a different branch {name!r}; nothing was changed, pick another name",
                param="branch",
            )
        git.config_set(f"branch.{name}.remote", target.remote)
        git.config_set(f"branch.{name}.merge", f"refs/heads/{name}")
        backups_made: list[str] = []
        reset = False
        if not keep_main and head != upstream:
            backups_made.append(sync.make_backup(git, head, f"propose {name}"))
            reset = git.reset_keep(upstream)
        links = tuple(m.group(0) for m in re.finditer(r"https?://\S+", messages))
        return ProposeResult(
            target.remote,
            name,
            target.branch,
            tuple((c.sha, c.subject) for c in pending),
            committed,
            reset,
            tuple(backups_made),
            links,
        )
