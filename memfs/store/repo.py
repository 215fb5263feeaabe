"""The git-backed memory store: open a memory root, read memories, change them in commits.

Every change to the repository goes through a :class:`Transaction`, the one commit path: it
holds the repository's write lock, checks revisions and the ``read_only`` rule, validates every
memory file it would commit, records a journal, writes the files atomically and commits exactly
those paths with a structured message whose author is the actor. One operation is one commit;
a failure before the commit leaves the working tree as it was, and a crash in between is
finished by the next memfs command (:mod:`memfs.store.journal`). Files written by someone else
(an editor saving under ``memfs watch``, pending edits a ``propose`` publishes) are committed
through the same path with :meth:`Transaction.adopt`.

:class:`Store` is the three parts together: repository upkeep (:mod:`memfs.store.upkeep`),
reading and validation (:mod:`memfs.store.reading`) and the commit protocol
(:mod:`memfs.store.staging`, :mod:`memfs.store.transaction`), which receives the store as the
few services it uses. The verbs built on it are :class:`memfs.api.MemoryRepo`'s methods, which
hold a store; code below the API layer takes a :class:`Store`.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from memfs.errors import Refused
from memfs.store import hooks as store_hooks
from memfs.store import init, paths
from memfs.store.commits import Change, CommitResult
from memfs.store.hooks import HooksInstalled
from memfs.store.reading import Reader, Scan
from memfs.store.transaction import Transaction
from memfs.store.upkeep import default_actor

__all__ = ["Change", "CommitResult", "Scan", "Store", "Transaction", "default_actor"]

T = TypeVar("T", bound="Store")


class Store(Reader):
    """A memory root inside a git work tree (:class:`~memfs.store.upkeep.Repository`), read
    through :class:`~memfs.store.reading.Reader` and changed only by :meth:`transaction`."""

    @classmethod
    def init(cls: type[T], directory: str | os.PathLike[str], actor: str | None = None, *, hooks: bool = True) -> T:
        """Make ``directory`` a memory repository (see :mod:`memfs.store.init`) and open it; with
        ``hooks``, install the hooks that check hand commits (:mod:`memfs.store.hooks`)."""
        root = Path(directory)
        git = init.prepare(root)
        store = cls(root.resolve(), git, actor)
        with store.transaction("init", subject="memory repository") as tx:
            for rel, data in init.starter_files(store.root).items():
                if paths.is_memory_name(rel):
                    tx.write_bytes(rel, data)
                else:
                    tx.write_file(rel, data)
        if hooks:
            store.install_hooks()
        return cls.open(store.root, store.actor)

    def install_hooks(self) -> HooksInstalled:
        """Install the hooks that check hand commits in this clone (:mod:`memfs.store.hooks`)."""
        return store_hooks.install(self.git, self.prefix)

    def add_ci(self, kind: str) -> CommitResult:
        """Add the CI set-up ``kind`` (:data:`memfs.store.init.CI`: ``github`` writes
        ``.github/workflows/memfs.yml``, ``gitlab`` writes ``.gitlab-ci.yml``) in one commit
        (``memfs init --ci``). A file already there that runs ``memfs review`` is left as it is;
        any other file there is the repository's own pipeline, which memfs does not edit: the
        refusal says what to add to it. GitHub and GitLab read these files only from the top of
        the repository, so a memory root in a sub-folder gets a refusal saying what to copy where."""
        dest, data = init.ci_file(kind)
        template = f"templates/{init.CI[kind][0]}"
        if self.prefix:
            raise Refused(
                f"the memory root is the sub-folder {self.prefix.rstrip('/')} of the repository; copy memfs's "
                f"{template} to {dest} at the top of the repository and set MEMFS_DIR: "
                f"{self.prefix.rstrip('/')} in it", param="ci",
            )
        existing = self.root / dest
        if existing.exists():
            if b"memfs review" in existing.read_bytes():
                return CommitResult(None, (), "init")
            raise Refused(
                f"{dest} is this repository's own pipeline; add the job of memfs's {template} to it "
                "(on GitLab: save that file under another name and include it)", param="ci",
            )
        with self.transaction("init", subject=f"{kind} CI: validate and review memory in change requests") as tx:
            tx.write_file(dest, data)
        return tx.result

    # --- writing -------------------------------------------------------------------------
    def transaction(
        self,
        op: str = "transaction",
        *,
        reason: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        trailers: Mapping[str, list[str]] | None = None,
        when: dt.datetime | None = None,
        force: bool = False,
        verb: str | None = None,
    ) -> Transaction:
        """Many changes, one commit (see :class:`Transaction`). ``when`` dates the commit and the
        ``updated`` fields (a replay of past events); ``force`` lets a person override the rules a
        person may (``read_only``, protected fields); ``verb`` is the memfs verb making the change,
        which the core guard judges (default ``op``; a replay's events say ``demo``)."""
        return Transaction(
            self, op, reason=reason, actor=actor or self.actor, subject=subject, trailers=trailers, when=when,
            force=force, verb=verb,
        )

    def write(
        self,
        path: str | os.PathLike[str],
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        expected_revision: int | None = None,
        create_only: bool = False,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """Create or update one memory in one commit. Unchanged content makes no commit.

        A file marked ``read_only: true`` is refused unless ``force`` (a person overriding it)."""
        rel = self.rel(path)
        op = "create" if not self.exists(rel) else "update"
        with self.transaction(op, reason=reason, actor=actor, force=force) as tx:
            tx.write(rel, fields=fields, body=body, expected_revision=expected_revision, create_only=create_only)
        return tx.result

    def delete(
        self,
        path: str | os.PathLike[str],
        *,
        expected_revision: int | None = None,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """Delete one memory in one commit; refused while other memories depend on it, or while it
        is ``read_only: true`` (``force`` overrides both)."""
        rel = self.rel(path)
        with self.transaction("delete", reason=reason, actor=actor, force=force) as tx:
            tx.delete(rel, expected_revision=expected_revision, check_dependents=not force)
        return tx.result
