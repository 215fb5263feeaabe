"""Committing: exactly the given paths (from a private copy of the index when that is exact), empty
audit commits, reverts. Every message passes :func:`refuse_secrets`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from memfs.errors import GitError, WriteRefused
from memfs.store import crashpoint
from memfs.store.gitcli import process
from memfs.store.gitcli.process import Identity
from memfs.store.gitcli.refs import Refs
from memfs.store.gitcli.status import WorkTree, file_identity

_COMMIT = ("commit", "-q", "--no-edit", "-F", "-")
#: The private copy of the index an exact commit is made from (see :meth:`Committing.commit_exact`).
PRIVATE_INDEX = "memfs-index"


@dataclass(frozen=True)
class Committed:
    """A commit memfs made: its id, its parents, and the paths it may have changed against them
    (``None``: git committed the whole index, so other staged paths may be in it too)."""

    sha: str
    parents: tuple[str, ...]
    paths: tuple[str, ...] | None


class Committing(WorkTree, Refs):
    """Commits of exact paths."""

    def commit_paths(self, paths: list[str], message: str, identity: Identity) -> str | None:
        """Commit exactly ``paths`` (additions, edits, deletions); other changes stay as they are.

        Returns the new commit, or ``None`` when none of the paths differs from HEAD. See
        :meth:`commit_exact`, which also says the commit's parents."""
        done = self.commit_exact(paths, message, identity)
        return None if done is None else done.sha

    def commit_exact(
        self, paths: list[str], message: str, identity: Identity, *, untracked: Sequence[str] | None = None,
        in_head: tuple[str, Collection[str]] | None = None,
    ) -> Committed | None:
        """Commit exactly ``paths`` (additions, edits, deletions); other changes stay as they are.

        ``None`` when none of the paths differs from HEAD. ``in_head`` is (HEAD as the caller read
        it, those of ``paths`` it has): with it, the commit is made from a private copy of the index
        when that is exact (:meth:`_commit_private`). Otherwise: ``untracked`` are the paths that
        may be unknown to git (``None``: any of them). With none, ``git commit --only`` alone
        records them (it takes edits and deletions of tracked paths from the work tree itself);
        else, or when git says a path is unknown after all, ``git add -A`` of the paths comes first,
        since ``--only`` refuses paths git does not know. ``git status`` only when the add fails (a
        path unknown to git and gone). For many paths with nothing else staged, the index is
        committed as it is instead of through ``--only`` pathspecs, which make git rebuild a
        temporary index. The commit and its parents are then read from the files git wrote
        (:meth:`head_and_parents`).
        """
        if not paths:
            return None
        refuse_secrets(message)
        crashpoint.reached("git-add")
        if in_head is not None:
            handled, done = self._commit_private(paths, message, identity, *in_head)
            if handled:
                return done
        whole_index = len(paths) > 8 and self._has_head() and not self.has_staged_changes()
        direct = untracked is not None and not untracked and not whole_index and self._has_head()
        proc = self._commit_only(paths, message, identity) if direct else None
        if proc is None or b"did not match any file(s) known to git" in proc.stderr:
            tracked = whole_index and untracked is not None and not untracked and self._stage_tracked(paths)
            if not tracked and not self._ok("add", "-A", "--", *process.literal(*paths)):
                paths = self.changed(paths)
                if not paths:
                    return None
                self._text("add", "-A", "--", *process.literal(*paths))
            crashpoint.reached("git-added")
            if self._has_head() and not whole_index:
                proc = self._commit_only(paths, message, identity)
            else:
                proc = self._commit(message, identity)
        crashpoint.reached("git-committed")
        if not committed(proc):
            return None
        sha, parents = self.head_and_parents()
        return Committed(sha, parents, None if whole_index else tuple(paths))

    def _commit_private(
        self, paths: list[str], message: str, identity: Identity, head: str, tracked: Collection[str]
    ) -> tuple[bool, Committed | None]:
        """Commit ``paths`` from a private copy of the index, as ``git commit --only`` would but
        without the temporary index git builds from HEAD's tree for it (~7 ms at 10k files):
        (whether it was done this way, the commit or ``None`` when nothing differed).

        Exact only while the index equals HEAD (nothing staged), so it is done only when the last
        whole-tree probe (:meth:`probe`) found nothing staged, and, under git's own ``index.lock``
        (created as git creates it, so no other git command can stage meanwhile), the index file is
        still the one that probe saw and HEAD still the one it and the caller read (``head``; the
        caller found ``tracked`` of ``paths`` in it). Then the copy gets ``git add -A`` of the
        other paths (new files) and ``git commit -i`` of all of them (hooks, reflog and HEAD's
        update as for any ``git commit``; more than 8 tracked paths are staged by name first,
        :meth:`_stage_tracked`, and the copy committed as it is), and is installed as the index by renaming it over the
        lock, as git installs an index. If HEAD moved between the check and git reading it, the
        commit is taken back (``update-ref`` from it to its parent) and ``False`` returned, as
        when any condition fails: the caller then commits the usual way. A crash leaves a stale
        ``index.lock``, which recovery removes (``Store._recover``), and the copy, removed by the
        next commit made this way (memfs's write lock is held, so no git of an earlier memfs is
        still using it)."""
        clean, self._clean_index = self._clean_index, None
        if clean is None or clean[1] != head:
            return False, None
        lock, index, private = self.git_dir / "index.lock", self.git_dir / "index", self.git_dir / PRIVATE_INDEX
        try:
            os.close(os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except OSError:
            return False, None
        installed = False
        try:
            if file_identity(index) != clean[0] or self.head() != head:
                return False, None
            Path(f"{private}.lock").unlink(missing_ok=True)
            shutil.copy2(index, private)  # its mtime too: git's racy-file check compares against it
            crashpoint.reached("index-copied")
            new = [path for path in paths if path not in tracked]
            if new and self._run("add", "-A", "--", *process.literal(*new), index=private, check=False).returncode:
                return False, None
            crashpoint.reached("git-added")
            staged = self._stage_tracked([path for path in paths if path in tracked], private)
            named = () if staged else ("-i", "--", *process.literal(*paths))
            proc = self._commit(message, identity, *named, index=private)
            crashpoint.reached("git-committed")
            if not committed(proc):
                return True, None
            sha, parents = self.head_and_parents()
            if parents != (head,):
                self._text("update-ref", "-m", "memfs: take back a commit made on a moved HEAD", "HEAD",
                           parents[0] if parents else "", sha)
                return False, None
            st = os.stat(private)
            os.replace(private, lock)
            crashpoint.reached("index-ready")
            os.replace(lock, index)
            installed = True
            self.advance_kept(head, sha, paths, (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns), self.head)
            return True, Committed(sha, parents, tuple(paths))
        finally:
            if not installed:
                private.unlink(missing_ok=True)
                lock.unlink(missing_ok=True)

    def _stage_tracked(self, paths: list[str], index: Path | None = None) -> bool:
        """Stage the work-tree state of ``paths``, each one git tracks, as ``git add -A`` of them
        does (edits and deletions), by exact names on stdin: ``update-index`` matches no pathspecs
        and walks no folders for untracked files, which made ``add -A`` of 1,000 paths cost
        ~110 ms of CPU against ~15 (a 10k repository). ``False``, with the index untouched (git
        writes it only once every path went in), when git refuses one: a path it does not track,
        a folder; the caller then adds them with ``add -A``. ``index``: that index file instead of
        git's own (a private copy, :meth:`_commit_private`). Only for more than 8 paths: below,
        the extra process costs more than the pathspecs."""
        if len(paths) <= 8:
            return False
        names = b"".join(path.encode("utf-8") + b"\0" for path in paths)
        proc = self._run("update-index", "--remove", "-z", "--stdin", stdin=names, check=False, index=index)
        return proc.returncode == 0

    def _commit_only(self, paths: list[str], message: str, identity: Identity) -> process.Completed:
        return self._commit(message, identity, "--only", "--", *process.literal(*paths))

    def _commit(self, message: str, identity: Identity, *args: str,
                index: Path | None = None) -> process.Completed:
        """``git commit`` of ``message`` with ``args`` (unchecked: see :func:`_committed`)."""
        return self._run(*_COMMIT, *args, stdin=message.encode("utf-8"), identity=identity, check=False,
                    index=index)

    def commit_empty(self, message: str, identity: Identity) -> str | None:
        """A commit that changes no file (an audit record), skipping hooks; leaves the index alone."""
        refuse_secrets(message)
        self._text(
            "commit", "-q", "--allow-empty", "--only", "--no-verify", "-F", "-",
            stdin=message.encode("utf-8"), identity=identity,
        )
        return self.head()

    def revert(self, sha: str, message: str, identity: Identity) -> tuple[bool, str]:
        """``git revert`` of ``sha`` with ``message``; on failure aborts it and returns git's output."""
        refuse_secrets(message)
        proc = self._run("revert", "--no-edit", sha, check=False, identity=identity)
        if proc.returncode != 0:
            self._ok("revert", "--abort")
            return False, (proc.stdout + proc.stderr).decode("utf-8", "replace")
        self._text("commit", "--amend", "--only", "-q", "-F", "-", stdin=message.encode(), identity=identity)
        return True, ""

    def revert_apply(self, sha: str) -> tuple[bool, str]:
        """Apply the inverse of ``sha`` to the work tree and index without committing (``git revert
        --no-commit``), then forget the operation so nothing is left in progress: (succeeded, git's
        output). A failed attempt is aborted, leaving everything as it was."""
        proc = self._run("revert", "--no-commit", sha, check=False)
        if proc.returncode != 0:
            self._ok("revert", "--abort")
            return False, (proc.stdout + proc.stderr).decode("utf-8", "replace")
        self._ok("revert", "--quit")
        return True, ""


def committed(proc: process.Completed) -> bool:
    """Whether ``git commit`` made a commit: ``False`` when it found nothing to commit, else
    :class:`GitError` with git's output."""
    if proc.returncode == 0:
        return True
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    if "nothing to commit" in output or "nothing added to commit" in output or "no changes added" in output:
        return False
    raise GitError(f"git commit failed: {output.strip()}")


def refuse_secrets(message: str) -> None:
    """:class:`WriteRefused` if a commit message carries a secret (a ``--reason``, a trailer): every
    message memfs hands to git passes here, whichever verb wrote it (the core guard's rule for
    commit messages, :func:`memfs.policy.guard.check_message`)."""
    from memfs.policy.guard import check_message

    refusals = check_message(message)
    if refusals:
        raise WriteRefused(refusals)
