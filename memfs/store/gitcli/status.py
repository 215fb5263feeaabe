"""The work tree and the index: ``git status`` (the probe caches are validated against), what
changed, and putting paths back."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from memfs.errors import GitError
from memfs.store.gitcli import process
from memfs.store.gitcli.process import Base
from memfs.store.gitcli.watch import TreeWatch, committed_over, git_identity

#: the most changed paths one probe asks ``git status`` about alone (more: the whole tree)
REFRESH_PATHS = 200
#: whole-tree probes of one repository object before it keeps a watch: a command that probes
#: once (the CLI) does not pay for watching every folder
ARM_AFTER = 1


@dataclass(frozen=True)
class Probe:
    """What one ``git status`` says about a path: HEAD, and every changed, untracked or ignored
    path under it (``ignored``: those git ignores, also in ``listed``). Equal probes plus equal
    file stats mean nothing changed in between."""

    head: str | None
    listed: tuple[str, ...]
    ignored: tuple[str, ...] = ()
    #: Whether the index differs from HEAD for some path under it (staged or unmerged).
    staged: bool = False


Untracked = Literal["no", "all"]


@dataclass
class _Kept:
    """A whole-tree probe and what has watched the work tree since it was taken."""

    watch: TreeWatch
    identity: tuple[object, ...]
    probe: Probe
    pid: int
    #: paths memfs committed since the probe (:meth:`WorkTree.advance_kept`): asked about again
    recheck: set[str] = field(default_factory=set)


class WorkTree(Base):
    """Status, the index, resets."""

    _kept: _Kept | None = None
    _whole_probes = 0
    _kept_lock = threading.Lock()

    def status_paths(self, pathspec: str | None = None, *, untracked: Untracked = "all") -> list[str]:
        """Paths whose working-tree or index state differs from HEAD (both names of a rename)."""
        args = ["status", "--porcelain=v1", "-z", f"--untracked-files={untracked}"]
        out = self._text(*args, *(["--", *process.literal(pathspec)] if pathspec else []))
        return _porcelain_paths(out)

    def status_entries(self) -> list[tuple[str, str]]:
        """(``XY`` code, path) of every path of the work tree whose state differs from HEAD,
        untracked ones (``??``) included, one by one: both names of a rename, each with its code."""
        out = self._text("status", "--porcelain=v1", "-z", "--untracked-files=all")
        entries = out.split("\0")
        found: list[tuple[str, str]] = []
        i = 0
        while i < len(entries):
            entry = entries[i]
            if len(entry) > 3:
                found.append((entry[:2], entry[3:]))
                if entry[0] in "RC":
                    found.append((entry[:2], entries[i + 1]))
                    i += 1
            i += 1
        return found

    def changed(self, paths: list[str]) -> list[str]:
        """Those of ``paths`` whose work-tree state differs from HEAD (untracked included)."""
        if not paths:
            return []
        return _porcelain_paths(
            self._text("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *process.literal(*paths))
        )

    def probe(self, pathspec: str) -> Probe | None:
        """HEAD and the paths git reports as changed, untracked or ignored under ``pathspec``, from
        one ``git status`` (with ``--no-optional-locks``, so it never takes the lock a concurrent
        commit needs, and ``--no-ahead-behind``: only HEAD is read of the branch header, so a branch
        far from its upstream costs no history walk). ``None`` when git cannot answer.

        A probe of the whole tree (``.``) that finds nothing staged also notes the index file's
        identity as it was just before, for the next commit (:meth:`_commit_private`)."""
        index = file_identity(self.git_dir / "index") if pathspec == "." else None
        self._clean_index = None
        found = self._whole_probe() if pathspec == "." else self._status(pathspec)
        if found is not None and index is not None and found.head is not None and not found.staged:
            self._clean_index = (index, found.head)
        return found

    def shared_whole_probe(self) -> Probe | None:
        """:meth:`probe` of the whole tree for another reader of this repository (the live index
        of a server writing through this git): this git's kept probe, without touching what
        :meth:`probe` notes for this git's next commit."""
        return self._whole_probe()

    def _whole_probe(self) -> Probe | None:
        """The whole tree's probe, from the kept one when nothing git reads besides the work tree
        changed (:func:`~.watch.git_identity`) and the watch (:class:`~.watch.TreeWatch`) names
        the files that changed since: ``git status`` of just those, merged into it, or none at
        all. Otherwise (nothing kept, the watch lost track, too many paths, HEAD moved, an ignored
        file involved) one ``git status`` of the whole tree, after which a watch is kept."""
        with self._kept_lock:
            kept, self._kept = self._kept, None
            if kept is not None:
                found = self._from_kept(kept)
                if found is not None:
                    self._kept = kept
                    return found
                kept.watch.close()
            self._whole_probes += 1
            if self._whole_probes <= ARM_AFTER or (identity := git_identity(self.git_dir)) is None:
                return self._status(".")
            watch = TreeWatch.open(self.workdir)
            found = self._status(".")
            if watch is not None and found is not None and git_identity(self.git_dir) == identity:
                self._kept = _Kept(watch, identity, found, os.getpid())
            elif watch is not None:
                watch.close()
            return found

    def _from_kept(self, kept: _Kept) -> Probe | None:
        """The whole-tree probe brought up to date from ``kept``, or ``None`` when it cannot be."""
        if kept.pid != os.getpid() or git_identity(self.git_dir) != kept.identity:
            return None
        changed = kept.watch.changes(kept.probe.ignored)
        if changed is None or len(changed | kept.recheck) > REFRESH_PATHS:
            return None
        changed |= kept.recheck
        if not changed:
            return kept.probe
        old = kept.probe
        found = self._status(*sorted(changed))
        if found is None or found.head != old.head or found.ignored or git_identity(self.git_dir) != kept.identity:
            return None
        listed = tuple(sorted({*(p for p in old.listed if p not in changed), *found.listed}))
        ignored = tuple(p for p in old.ignored if p not in changed)
        kept.probe = Probe(old.head, listed, ignored, old.staged or found.staged)
        kept.recheck = set()
        return kept.probe

    def advance_kept(self, parent: str, sha: str, paths: Sequence[str], index: tuple[int, int, int, int],
                     head: Callable[[], str | None]) -> None:
        """Carry the kept whole-tree probe over memfs's own commit ``sha`` of ``paths`` on ``parent``
        (its only parent), made from an index installed as the file ``index`` describes: without
        this, the commit's new index and ref make the next probe a whole-tree ``git status`` (an
        lstat of every tracked file: the per-write cost that grew with the repository). Kept only
        when git's files show nothing but that commit (:func:`~.watch.committed_over`) and HEAD
        (``head()``) names ``sha``; the committed paths are asked about again at the next probe."""
        with self._kept_lock:
            kept, self._kept = self._kept, None
            if kept is None:
                return
            after = git_identity(self.git_dir)
            if (kept.pid != os.getpid() or kept.probe.head != parent or after is None
                    or not committed_over(kept.identity, after, index) or head() != sha):
                kept.watch.close()
                return
            kept.identity, kept.probe = after, replace(kept.probe, head=sha)
            kept.recheck.update(paths)
            self._kept = kept

    def probe_paths(self, paths: Sequence[str]) -> Probe | None:
        """:meth:`probe` of just ``paths`` (git paths, taken literally): what a whole-tree probe
        would list of them, for a caller that knows nothing else changed."""
        return self._status(*paths)

    def _status(self, *pathspecs: str) -> Probe | None:
        try:
            out = self._text(
                "--no-optional-locks", "status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
                "--untracked-files=all", "--ignored=matching", "--", *process.literal(*pathspecs),
            )
        except GitError:
            return None
        return parse_probe(out)

    def untracked(self, pathspec: str) -> list[str]:
        out = self._text("ls-files", "-z", "--others", "--exclude-standard", "--", *process.literal(pathspec))
        return process.nul_list(out)

    def listed_files(self) -> list[str]:
        """Every tracked or untracked (not ignored) file of the work tree."""
        return process.nul_list(self._text("ls-files", "-z", "--cached", "--others", "--exclude-standard"))

    def has_staged_changes(self) -> bool:
        return bool(self._text("diff", "--cached", "--name-only").strip())

    def conflicted(self) -> list[str]:
        return process.nul_list(self._text("diff", "--name-only", "-z", "--diff-filter=U"))

    def diff_names(self, old: str, new: str | None, pathspec: str) -> list[str]:
        """Paths that differ between ``old`` and ``new`` (``None``: the working tree), no renames."""
        args = ["diff", "--name-only", "-z", "--no-renames", old, *([new] if new else [])]
        args += ["--", *process.literal(pathspec)]
        return process.nul_list(self._text(*args))

    def staged_paths(self) -> list[str]:
        """Paths whose index state differs from HEAD (no rename detection)."""
        return process.nul_list(self._text("diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"))

    def unstage(self, paths: list[str]) -> None:
        self._ok("reset", "-q", "--", *process.literal(*paths))

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
        self._ok("reset", "-q", "HEAD", "--", *process.literal(*paths))
        listed = self._text("ls-tree", "-z", "--name-only", "HEAD", "--", *process.literal(*paths))
        in_head = set(process.nul_list(listed))
        if in_head:
            self._text("checkout", "-q", "HEAD", "--", *process.literal(*sorted(in_head)))
        for path in paths:
            if path not in in_head:
                (self.workdir / path).unlink(missing_ok=True)


def _porcelain_paths(out: str) -> list[str]:
    entries = out.split("\0")
    paths: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        if len(entry) > 3:
            paths.append(entry[3:])
            if entry[0] in "RC":
                paths.append(entries[i + 1])
                i += 1
        i += 1
    return paths


def parse_probe(out: str) -> Probe:
    head = None
    listed: list[str] = []
    ignored: list[str] = []
    staged = False
    records = out.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if record.startswith("# branch.oid "):
            oid = record[len("# branch.oid ") :]
            head = None if oid == "(initial)" else oid
        elif record[:2] in ("? ", "! "):
            listed.append(record[2:])
            if record[0] == "!":
                ignored.append(record[2:])
        elif record.startswith("1 "):
            listed.append(record.split(" ", 8)[8])
            staged = staged or record[2] != "."
        elif record.startswith("2 "):
            listed.append(record.split(" ", 9)[9])
            listed.append(records[i])
            staged = staged or record[2] != "."
            i += 1
        elif record.startswith("u "):
            listed.append(record.split(" ", 10)[10])
            staged = True
    return Probe(head, tuple(listed), tuple(ignored), staged)


def file_identity(path: Path) -> tuple[int, ...] | None:
    """What changes whenever git rewrites a file (it writes a new one and renames it over the old):
    device, inode, size, mtime and ctime; ``None`` when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
