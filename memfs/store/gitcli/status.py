"""The work tree and the index: ``git status`` (the probe caches are validated against), what
changed, and putting paths back."""

from __future__ import annotations

from collections.abc import Sequence

from memfs.errors import GitError
from memfs.store.gitcli import parse
from memfs.store.gitcli.base import Base
from memfs.store.gitcli.parse import Probe, Untracked


class WorkTree(Base):
    """Status, the index, resets."""

    def status_paths(self, pathspec: str | None = None, *, untracked: Untracked = "all") -> list[str]:
        """Paths whose working-tree or index state differs from HEAD (both names of a rename)."""
        args = ["status", "--porcelain=v1", "-z", f"--untracked-files={untracked}"]
        out = self._text(*args, *(["--", *parse.literal(pathspec)] if pathspec else []))
        return parse.porcelain_paths(out)

    def changed(self, paths: list[str]) -> list[str]:
        """Those of ``paths`` whose work-tree state differs from HEAD (untracked included)."""
        if not paths:
            return []
        return parse.porcelain_paths(
            self._text("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *parse.literal(*paths))
        )

    def probe(self, pathspec: str) -> Probe | None:
        """HEAD and the paths git reports as changed, untracked or ignored under ``pathspec``, from
        one ``git status`` (with ``--no-optional-locks``, so it never takes the lock a concurrent
        commit needs, and ``--no-ahead-behind``: only HEAD is read of the branch header, so a branch
        far from its upstream costs no history walk). ``None`` when git cannot answer.

        A probe of the whole tree (``.``) that finds nothing staged also notes the index file's
        identity as it was just before, for the next commit (:meth:`_commit_private`)."""
        index = parse.file_identity(self.git_dir / "index") if pathspec == "." else None
        self._clean_index = None
        found = self._status(pathspec)
        if found is not None and index is not None and found.head is not None and not found.staged:
            self._clean_index = (index, found.head)
        return found

    def probe_paths(self, paths: Sequence[str]) -> Probe | None:
        """:meth:`probe` of just ``paths`` (git paths, taken literally): what a whole-tree probe
        would list of them, for a caller that knows nothing else changed."""
        return self._status(*paths)

    def _status(self, *pathspecs: str) -> Probe | None:
        try:
            out = self._text(
                "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
                "--untracked-files=all", "--ignored=matching", "--", *parse.literal(*pathspecs),
            )
        except GitError:
            return None
        return parse.probe(out)

    def untracked(self, pathspec: str) -> list[str]:
        out = self._text("ls-files", "-z", "--others", "--exclude-standard", "--", *parse.literal(pathspec))
        return parse.nul_list(out)

    def listed_files(self) -> list[str]:
        """Every tracked or untracked (not ignored) file of the work tree."""
        return parse.nul_list(self._text("ls-files", "-z", "--cached", "--others", "--exclude-standard"))

    def has_staged_changes(self) -> bool:
        return bool(self._text("diff", "--cached", "--name-only").strip())

    def conflicted(self) -> list[str]:
        return parse.nul_list(self._text("diff", "--name-only", "-z", "--diff-filter=U"))

    def diff_names(self, old: str, new: str | None, pathspec: str) -> list[str]:
        """Paths that differ between ``old`` and ``new`` (``None``: the working tree), no renames."""
        args = ["diff", "--name-only", "-z", "--no-renames", old, *([new] if new else [])]
        args += ["--", *parse.literal(pathspec)]
        return parse.nul_list(self._text(*args))

    def staged_paths(self) -> list[str]:
        """Paths whose index state differs from HEAD (no rename detection)."""
        return parse.nul_list(self._text("diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"))

    def unstage(self, paths: list[str]) -> None:
        self._ok("reset", "-q", "--", *parse.literal(*paths))

    def reset_hard(self, rev: str) -> None:
        self._text("reset", "--hard", "--quiet", rev)

    def reset_keep(self, rev: str) -> bool:
        """Move the branch to ``rev`` keeping uncommitted changes; ``False`` if git refused."""
        return self._ok("reset", "--keep", "--quiet", rev)

    def restore_from_head(self, paths: list[str]) -> None:
        """Put ``paths`` back as HEAD has them, in the index and the work tree; a path HEAD does not
        have is unstaged and deleted. For undoing what :meth:`revert_apply` changed."""
        if not paths:
            return
        self._ok("reset", "-q", "HEAD", "--", *parse.literal(*paths))
        in_head = set(parse.nul_list(self._text("ls-tree", "-z", "--name-only", "HEAD", "--", *parse.literal(*paths))))
        if in_head:
            self._text("checkout", "-q", "HEAD", "--", *parse.literal(*sorted(in_head)))
        for path in paths:
            if path not in in_head:
                (self.workdir / path).unlink(missing_ok=True)
