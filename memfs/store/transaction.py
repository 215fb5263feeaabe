"""The commit protocol: one transaction, one exact commit, or nothing.

A :class:`Transaction` holds the repository's write lock from entry to exit. On a clean exit it
checks what :class:`~memfs.store.staging.Staging` staged against HEAD (``read_only`` copies, the
core guard, field errors), records a journal (:mod:`memfs.store.journal`), writes the files
atomically and commits exactly those paths; then it moves the caches keyed by HEAD (revision
marks, the catalog) to the new commit without asking git what changed. A commit git refuses puts
every file back as it was.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from types import TracebackType

from memfs.errors import GitError, MemfsError, WriteRefused
from memfs.store import atomic, catalog, crashpoint, gitcli, journal, paths, refusal_log, revisions
from memfs.store.commits import Change, CommitResult, Message, subject_for
from memfs.store.staging import Staging


class Transaction(Staging):
    """Many changes, one commit. Use as a context manager; leaving with an exception writes nothing.

    The write lock is held from entry to exit, so revision checks and the commit see the same
    state. ``read`` sees the transaction's own pending changes. Memory files are validated at
    commit; other files of the root (``.memfs.toml``, ``.gitattributes``, a README) are written
    with :meth:`write_file` and committed alongside.
    """

    def __enter__(self) -> Transaction:
        self._lock = self.repo.locked()
        self._lock.__enter__()
        self._outer_checked = self.repo.checked
        self.repo.checked = paths.Checked()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc_type is None:
                self.result = self._commit()
        finally:
            self.repo.checked = self._outer_checked
            if isinstance(exc, WriteRefused):
                self.note_refused(exc.refusals)
            if self._refused:
                refusal_log.record(self.repo.cache_dir, self._refused, op=self.verb, actor=self.actor,
                                   head=self._head_before())
            assert self._lock is not None
            self._lock.__exit__(exc_type, exc, tb)

    def _head_before(self) -> str | None:
        """The commit HEAD was on before this transaction (its own commit's parent, if it made one)."""
        if self.result.commit is None:
            return self.repo.git.head()
        return self.result.parent or self.repo.git.rev(f"{self.result.commit}^") or None


    def _commit(self) -> CommitResult:
        changes = [
            c for rel, c in self._actions.items() if rel in self._adopted or self._pending[rel] != self._before[rel]
        ]
        if not changes:
            return CommitResult(None, (), self.op)
        repo = self.repo
        rels = [c.path for c in changes]
        message = Message(
            self.op, self.subject or subject_for(rels), self.actor, self.reason, tuple(rels), self.trailers, self.note
        ).render()
        head = repo.git.head()
        repo.progress("checking the commit", 0, None)
        committed = self._check(rels, message, head)
        written = [rel for rel in rels if rel not in self._adopted]
        where = {rel: repo.abspath(rel) for rel in rels}
        temps = {where[r]: atomic.temp_name(where[r]) for r in written if self._pending[r] is not None}
        pending = journal.Journal(
            message,
            self.actor,
            tuple(
                journal.PendingFile(
                    repo.git_path(rel),
                    _text(self._pending[rel]),
                    journal.digest(self._before[rel]),
                    _beside(repo.git_path(rel), temps.get(where[rel])),
                )
                for rel in rels
            ),
        )
        pending.save(repo.journal_path)
        crashpoint.reached("journal-saved")
        repo.progress("writing and committing", 0, None)
        try:
            atomic.write_many({where[r]: self._pending[r] for r in written}, temps)
            known = {repo.git_path(r) for r, c in committed.items() if c is not None}
            in_head = None if head is None else (head, known)
            done = repo.git.commit_exact([repo.git_path(r) for r in rels], message, self._identity(),
                                         untracked=[repo.git_path(r) for r in rels if self._maybe_untracked(r)],
                                         in_head=in_head)
        except (MemfsError, OSError) as exc:
            repo.commits_made += 1
            self._roll_back(rels)
            failed = GitError if isinstance(exc, GitError) else MemfsError
            raise failed(f"nothing was changed: {exc}") from exc
        repo.commits_made += 1
        crashpoint.reached("journal-removing")
        atomic.remove(repo.journal_path)
        if done is None:
            return CommitResult(None, tuple(changes), self.op)
        parent = done.parents[0] if len(done.parents) == 1 else None
        if head is not None and parent == head:
            self._advance_caches(head, done, changes)
        return CommitResult(done.sha, tuple(changes), self.op, parent)

    def _maybe_untracked(self, rel: str) -> bool:
        """Whether git may not know ``rel`` yet: a file this transaction creates, or one someone
        else wrote (adopted). A file that was on disk may be untracked too; git says so, and the
        commit then adds it first (:meth:`memfs.store.gitcli.Git.commit_exact`)."""
        return rel in self._adopted or self._before.get(rel) is None

    def _advance_caches(self, parent: str, done: gitcli.Committed, changes: list[Change]) -> None:
        """Move the caches keyed by HEAD from ``parent`` to this transaction's commit, its only
        child, without asking git what changed: the revision marks (:func:`revisions.note`) and
        the write-path cache (:func:`catalog.note`, only when the commit holds no more than the
        transaction's own paths)."""
        repo = self.repo
        numbers = {repo.git_path(c.path): c.revision for c in changes if c.revision is not None}
        known = self._marks if self._marks_head == parent else None
        revisions.note(repo.git, repo.pathspec, parent, done.sha, known, numbers)
        if done.paths is not None:
            catalog.note(repo, parent, done.sha, done.paths)

    def _identity(self) -> gitcli.Identity:
        return gitcli.Identity.for_actor(self.actor, self.when)

    def _roll_back(self, rels: list[str]) -> None:
        """A commit git refused (a hook, a full disk): put every file back as it was."""
        atomic.write_many({self.repo.abspath(r): self._before[r] for r in rels if r not in self._adopted})
        self.repo.git.unstage([self.repo.git_path(r) for r in rels])
        atomic.remove(self.repo.journal_path)




def _beside(git_path: str, temp: Path | None) -> str | None:
    """The work-tree path of ``temp``, the temporary staged beside ``git_path``."""
    return None if temp is None else posixpath.join(posixpath.dirname(git_path), temp.name)


def _text(content: bytes | None) -> str | None:
    return None if content is None else content.decode("utf-8")
