"""What ``memfs sync`` lets in: the remote branch fetched into quarantine and judged before any of
it becomes part of this repository.

:func:`fetch` fetches the remote branch with its new objects written to a quarantine folder
(:mod:`memfs.store.gitcli.quarantine`), judges every commit it brings that this repository does
not have (:mod:`memfs.ops.entry`): its message and trailers, and every file it changes under the
memory root, memories or not. Only then are the objects moved in and the remote-tracking ref
(``origin/main``) set. A refusal removes the quarantine: the secret is in no object of this
repository and on no ref, reachable or not, so nothing is left for a ``gc`` to find or a clone of
this one to copy.

Where the memory root is a sub-folder of a larger repository, the messages of all incoming
commits are judged (they enter this branch's history whatever they change), and files outside
the memory root are not (they are the repository's own business, not memory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memfs.errors import SyncRefused
from memfs.ops import entry
from memfs.store.repo import Store

#: How many refusals the error names before saying how many more there are.
SHOWN = 5


def fetch(repo: Store, remote: str, branch: str, tracking: str, known: Sequence[str] = ("--all",)) -> str | None:
    """Fetch ``remote``'s ``branch`` into ``tracking`` once every commit it brings is judged clean:
    its tip, or ``None`` if the branch does not exist. Raises :class:`SyncRefused`, with nothing
    fetched kept, when a commit carries a secret. The commits judged are those none of ``known``
    reaches (default: no ref here; the integrator names only refs it has judged itself, so a
    checkout that fetched writer branches without memfs does not vouch for them)."""
    tips = fetch_many(repo, remote, {branch: tracking}, known)
    return None if tips is None else tips[branch]


def fetch_many(
    repo: Store, remote: str, branches: Mapping[str, str], known: Sequence[str] = ("--all",)
) -> dict[str, str] | None:
    """:func:`fetch` of several branches (branch -> its tracking ref) in one fetch, judged together:
    all or nothing. Each branch's tip, or ``None`` when any of them does not exist; a secret in any
    commit refuses them all (the caller fetches them one by one to learn whose it is)."""
    git = repo.git
    objects = git.quarantine_dir()
    named = ", ".join(f"{remote}/{branch}" for branch in branches)
    try:
        tips = git.fetch_quarantined_many(remote, list(branches), objects)
        if tips is None:
            return None
        if known == ("--all",) and all(git.ref_from_files(branches[b]) == tip for b, tip in tips.items()):
            # each tip is already its tracking ref's: no commit comes that no ref here reaches, and
            # setting the refs to what they hold changes nothing (not even a reflog)
            git.adopt(objects)
            return tips
        found = entry.judged(repo, sorted(set(tips.values())), objects, known)
        if found:
            more = f" (+{len(found) - SHOWN} more)" if len(found) > SHOWN else ""
            raise SyncRefused(
                f"the commits on {named} carry a secret: {'; '.join(found[:SHOWN])}{more}. Nothing was "
                f"fetched or integrated ({named} here is unchanged and none of its objects were kept). Have "
                "it erased where it was committed (memfs purge there, then a force-push by an administrator), then "
                "sync again", problems=found,
            )
        git.adopt(objects)
        git.update_refs({branches[branch]: tip for branch, tip in tips.items()}, f"memfs sync: fetched {named}")
        return tips
    finally:
        git.discard(objects)
