"""What every part of :class:`memfs.store.gitcli.Git` stands on: the work tree and git directory it
runs in, git run there (:meth:`Base._run`), and whether the repository has a HEAD yet."""

from __future__ import annotations

from pathlib import Path

from memfs.errors import WriteRefused
from memfs.store.gitcli import process
from memfs.store.gitcli.process import Identity


class Base:
    """The git repository a memory root lives in. Paths given to it are work-tree-relative and
    match only themselves (``:(literal)``), except the ``pathspec`` of the grep methods, a glob
    such as ``*.md``. Paths git lists are read NUL-separated, never C-quoted."""

    def __init__(self, workdir: Path, git_dir: Path) -> None:
        self.workdir = workdir
        self.git_dir = git_dir
        self._head_seen = False
        #: (identity of the index file, HEAD) when the last whole-tree probe found nothing staged
        #: and the index had that identity just before it: see :meth:`_commit_private`.
        self._clean_index: tuple[tuple[int, ...], str] | None = None

    def _run(
        self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None,
        index: Path | None = None,
    ) -> process.Completed:
        """``git ARGS`` in the work tree (:func:`memfs.store.gitcli.process.run`)."""
        return process.run(self.workdir, *args, stdin=stdin, check=check, identity=identity, index=index)

    def _text(
        self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None
    ) -> str:
        proc = self._run(*args, stdin=stdin, check=check, identity=identity)
        return proc.stdout.decode("utf-8", "replace")

    def _ok(self, *args: str, identity: Identity | None = None) -> bool:
        return self._run(*args, check=False, identity=identity).returncode == 0

    def head(self) -> str | None:
        proc = self._run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def _has_head(self) -> bool:
        if not self._head_seen:
            self._head_seen = self.head() is not None
        return self._head_seen


def refuse_secrets(message: str) -> None:
    """:class:`WriteRefused` if a commit message carries a secret (a ``--reason``, a trailer): every
    message memfs hands to git passes here, whichever verb wrote it (the core guard's rule for
    commit messages, :func:`memfs.policy.guard.check_message`)."""
    from memfs.policy.guard import check_message

    refusals = check_message(message)
    if refusals:
        raise WriteRefused(refusals)
