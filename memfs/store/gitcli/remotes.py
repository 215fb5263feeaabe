"""Remotes and integration (fetch, push, rebase, merge) and maintenance (reflogs, gc, rewriting
history, every object)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from memfs.errors import GitError
from memfs.store.gitcli import process
from memfs.store.gitcli.commit import refuse_secrets
from memfs.store.gitcli.process import Identity
from memfs.store.gitcli.refs import Refs


class Remotes(Refs):
    """Other repositories, and upkeep of this one."""

    def push(self, remote: str, source: str, branch: str) -> tuple[int, str, str]:
        """``git push --porcelain REMOTE SOURCE:refs/heads/BRANCH`` (never forced):
        (exit status, porcelain output, server messages)."""
        proc = self._run("push", "--porcelain", remote, f"{source}:refs/heads/{branch}", check=False)
        return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")

    def remote_heads(self, remote: str, prefix: str) -> dict[str, str]:
        """The remote's branches under ``prefix`` (``git ls-remote --heads``): name after the
        prefix -> commit. One round trip; nothing is fetched."""
        proc = self._run("ls-remote", "--heads", remote, f"refs/heads/{prefix}*", check=False)
        if proc.returncode != 0:
            raise GitError(f"listing the branches {prefix}* of {remote} failed: {process.output(proc)}")
        found = {}
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            sha, _, ref = line.partition("\t")
            name = ref.removeprefix(f"refs/heads/{prefix}")
            if ref.startswith(f"refs/heads/{prefix}") and name:
                found[name] = sha
        return found

    def remote_refs(self, remote: str, *patterns: str) -> dict[str, str]:
        """The remote's refs matching ``patterns`` (``git ls-remote``'s, such as
        ``refs/heads/main`` or ``refs/heads/memfs/writers/*``): full name -> commit. One round
        trip; nothing is fetched."""
        proc = self._run("ls-remote", remote, *patterns, check=False)
        if proc.returncode != 0:
            raise GitError(f"listing the refs of {remote} failed: {process.output(proc)}")
        return {ref: sha for sha, _, ref in (line.partition("\t") for line in
                                              proc.stdout.decode("utf-8", "replace").splitlines()) if ref}

    def fast_forward(self, rev: str) -> None:
        self._text("merge", "--ff-only", "--quiet", rev)

    def rebase(self, upstream: str, identity: Identity) -> tuple[bool, str]:
        """Rebase the current branch onto ``upstream``: (succeeded, git's output). Leaves a
        failed rebase in progress for the caller to inspect and :meth:`abort`."""
        args = ("rebase", "--no-autostash", "--no-autosquash", "--quiet", upstream)
        return self._attempt(args, identity)

    def merge(self, upstream: str, message: str, identity: Identity) -> tuple[bool, str]:
        """Merge ``upstream`` with a merge commit: (succeeded, git's output); see :meth:`rebase`."""
        refuse_secrets(message)
        return self._attempt(("merge", "--no-ff", "--no-edit", "--quiet", "-m", message, upstream), identity)

    def merge_unfinished(self, upstream: str, identity: Identity) -> tuple[bool, str]:
        """Merge ``upstream`` without committing (``--no-ff --no-commit``), so the caller can settle
        files before :meth:`finish_merge`: (merged without conflicts, git's output)."""
        return self._attempt(("merge", "--no-ff", "--no-commit", "--quiet", upstream), identity)

    def stage(self, paths: list[str]) -> None:
        """``git add -A`` of ``paths`` (work-tree additions, edits and deletions, conflicts resolved)."""
        self._text("add", "-A", "--", *process.literal(*paths))

    def finish_merge(self, message: str, identity: Identity) -> str | None:
        """Commit the merge in progress with everything staged (no hooks): the new commit."""
        refuse_secrets(message)
        self._text("commit", "-q", "--no-verify", "-F", "-", stdin=message.encode("utf-8"), identity=identity)
        return self.head()

    def _attempt(self, args: tuple[str, ...], identity: Identity) -> tuple[bool, str]:
        proc = self._run(*args, check=False, identity=identity)
        return proc.returncode == 0, process.output(proc)

    def abort(self, operation: Literal["rebase", "merge"]) -> None:
        self._ok(operation, "--abort")

    def expire_reflogs(self) -> None:
        self._text("reflog", "expire", "--expire=now", "--all")

    def prune(self) -> None:
        """``git gc --prune=now``: unreachable objects are deleted now, not in two weeks."""
        self.forget_ancestry()
        self._text("gc", "--quiet", "--prune=now")

    def filter_repo(self, *args: str) -> None:
        """Run git-filter-repo (the ``git-filter-repo`` PyPI package, under this Python) here.

        It rewrites history: callers hold the write lock and have checked the work tree is clean.
        """
        self.forget_ancestry()
        proc = process.run_python_module(self.workdir, "git_filter_repo", *args)
        if proc.returncode != 0:
            message = process.output(proc)
            if "No module named git_filter_repo" in message:
                raise GitError("git-filter-repo is not installed; pip install git-filter-repo (a memfs dependency)")
            raise GitError(f"git filter-repo failed: {message}")

    def objects(self) -> Iterator[tuple[str, str, bytes]]:
        """Every object in the repository, reachable or not, loose or packed: (sha, type, content)."""
        batch = ("cat-file", "--batch-all-objects", "--batch", "--unordered")
        for header, content in process.stream(self.workdir, *batch):
            sha, kind, _ = header.decode().split()
            yield sha, kind, content

    def object_paths(self) -> dict[str, str]:
        """The path each object reachable from a ref, the index or a reflog has in some tree
        (``git rev-list --objects``): to name a blob in a report."""
        out = self._text("rev-list", "--all", "--objects", "--indexed-objects", "--reflog")
        return {sha: name for sha, _, name in (line.partition(" ") for line in out.splitlines()) if name}
