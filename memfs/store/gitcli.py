"""Every git call memfs makes goes through this module, as a typed method of :class:`Git`.

memfs drives the real ``git`` binary with :mod:`subprocess`: it has git's exact semantics
(racy-git, hooks, ``gc --auto``, revert, rename detection), starts no long-lived helper
processes and costs nothing to import. See the README's dependency section for why this replaced
GitPython's ``repo.git`` wrapper (the same CLI, plus 75 ms of import on every command).

Command lines live only here: other modules ask for what they need (``git.remotes()``,
``git.status_paths()``), never for ``git.run("…")``, so each git invocation has one owner, one
parser for its output and one place to fix when git changes. A layer test checks it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from memfs.errors import GitError, NotAMemoryRepo, WriteRefused
from memfs.store import crashpoint, locking

_BASE_ENV = {
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_MERGE_AUTOEDIT": "no",
    "LC_ALL": "C",
}
_CONFIG = ("-c", "core.quotepath=off", "-c", "advice.detachedHead=false")
_COMMIT = ("commit", "-q", "--no-edit", "-F", "-")
#: The private copy of the index an exact commit is made from (see :meth:`Git.commit_exact`).
PRIVATE_INDEX = "memfs-index"
#: Variables that make git use another repository, work tree, index, object store, ref namespace
#: or config file than the one memfs names by its working directory, or read pathspecs another
#: way. A git hook runs with some of them set (``GIT_DIR``, ``GIT_INDEX_FILE``); inherited, they
#: would send memfs's reads and commits to that repository. Configuration given for every
#: repository (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_COUNT``...) and
#: ``GIT_CEILING_DIRECTORIES`` (which only stops the search for a repository) are kept.
_REDIRECTING = frozenset({
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_QUARANTINE_PATH",
    "GIT_SHALLOW_FILE",
    "GIT_GRAFT_FILE",
    "GIT_REPLACE_REF_BASE",
    "GIT_CONFIG",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
})


@dataclass(frozen=True)
class Identity:
    """Who a commit is by, and optionally when: memfs writes the actor (``agent:release-bot``) as
    the author and committer."""

    name: str
    email: str
    date: dt.datetime | None = None

    @classmethod
    def for_actor(cls, actor: str, date: dt.datetime | None = None) -> Identity:
        local = "".join(c if c.isalnum() or c in "._-" else "-" for c in actor).strip("-") or "memfs"
        return cls(actor, f"{local}@memfs.invalid", date)


def _env(identity: Identity | None) -> dict[str, str]:
    """The environment of every git process: the caller's, without :data:`_REDIRECTING`, so the
    repository is always the one the process's working directory is in."""
    env = {name: value for name, value in os.environ.items() if name not in _REDIRECTING}
    env.update(_BASE_ENV)
    if identity is not None:
        env.update(
            GIT_AUTHOR_NAME=identity.name,
            GIT_AUTHOR_EMAIL=identity.email,
            GIT_COMMITTER_NAME=identity.name,
            GIT_COMMITTER_EMAIL=identity.email,
        )
        if identity.date is not None:
            stamp = identity.date.isoformat()
            env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return env


def _run(
    cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None,
    index: Path | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS`` in ``cwd``; raise :class:`GitError` with git's message when ``check``.
    ``index``: the index file git uses instead of the repository's own (``GIT_INDEX_FILE``)."""
    env = _env(identity)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    try:
        proc = subprocess.run(
            ["git", *_CONFIG, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=env,
            check=False,
            pass_fds=locking.held_fds(),
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git 2.x") from None
    if check and proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {_output(proc)}")
    return proc


def _output(proc: subprocess.CompletedProcess[bytes]) -> str:
    return (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()


def blob_id(data: bytes, like: str) -> str:
    """The id git gives a blob of ``data``, in the hash of the id ``like`` (SHA-1, or SHA-256 in a
    repository made with ``--object-format=sha256``)."""
    digest = hashlib.sha256() if len(like) == 64 else hashlib.sha1(usedforsecurity=False)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _nul_list(out: str) -> list[str]:
    return [entry for entry in out.split("\0") if entry]


def _literal(*paths: str) -> list[str]:
    """Paths as pathspecs that match exactly those paths: without ``:(literal)`` git reads
    ``notes/a[1].md`` as a pattern that also matches ``notes/a1.md``, and ``:x.md`` as ``x.md``."""
    return [f":(literal){path}" for path in paths]


# --- repository discovery and creation ---------------------------------------------------------
def discover(start: Path) -> tuple[Path, Path]:
    """(work tree top level, git dir) of the repository containing ``start``."""
    if not start.is_dir():
        raise NotAMemoryRepo(f"{start}: no such directory")
    proc = _run(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", check=False)
    if proc.returncode != 0:
        raise NotAMemoryRepo(f"{start}: not inside a git repository; run 'memfs init' there first")
    top, git_dir = proc.stdout.decode().splitlines()[:2]
    return Path(top), Path(git_dir)


def create(directory: Path) -> Git:
    """A new repository at ``directory`` whose first branch is ``main``, even when ``directory``
    lies inside another repository (it gets its own ``.git``)."""
    _run(directory, "init", "-q")
    _run(directory, "symbolic-ref", "HEAD", "refs/heads/main")
    top, git_dir = discover(directory)
    if Path(os.path.realpath(top)) != Path(os.path.realpath(directory)):
        raise GitError(f"{directory}: git did not create a repository of its own there")
    return Git(top, git_dir)


# --- helpers that need no repository -----------------------------------------------------------
def merge_text(
    ours: bytes,
    base: bytes,
    theirs: bytes,
    *,
    labels: tuple[str, str, str] = ("ours", "base", "theirs"),
    marker_size: int = 7,
) -> tuple[bytes, int]:
    """Three-way text merge by ``git merge-file``: (result, number of conflicts; 0 = clean).

    Conflicts leave git's standard markers (``<<<<<<< ours`` ... ``>>>>>>> theirs``) in the result.
    """
    with tempfile.TemporaryDirectory(prefix="memfs-merge-") as tmp:
        names = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            (Path(tmp) / name).write_bytes(data)
            names.append(name)
        args = ["merge-file", "-p", f"--marker-size={marker_size}"]
        for label in labels:
            args += ["-L", label]
        proc = _run(Path(tmp), *args, *names, check=False)
    if not 0 <= proc.returncode < 128:
        raise GitError(f"git merge-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout, proc.returncode


def ere_escape(text: str) -> str:
    """``text`` as a literal inside a POSIX extended regex (``git grep -E``, ``git log -E --grep``)."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str
    email: str
    time: str
    subject: str
    body: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Committed:
    """A commit memfs made: its id, its parents, and the paths it may have changed against them
    (``None``: git committed the whole index, so other staged paths may be in it too)."""

    sha: str
    parents: tuple[str, ...]
    paths: tuple[str, ...] | None


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


class Git:
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

    def _text(
        self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None
    ) -> str:
        proc = _run(self.workdir, *args, stdin=stdin, check=check, identity=identity)
        return proc.stdout.decode("utf-8", "replace")

    def _ok(self, *args: str, identity: Identity | None = None) -> bool:
        return _run(self.workdir, *args, check=False, identity=identity).returncode == 0

    # --- refs and commits ----------------------------------------------------------------------
    def head(self) -> str | None:
        proc = _run(self.workdir, "rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def head_quick(self) -> str | None:
        """HEAD read from the git directory's files when it is a loose ref or detached (no process),
        else from git: for caches keyed by HEAD, read on every write."""
        try:
            text = (self.git_dir / "HEAD").read_text(encoding="ascii").strip()
            if not text.startswith("ref: "):
                return text if _is_sha(text) else self.head()
            ref = text[len("ref: "):]
            for base in dict.fromkeys((self.git_dir, self._common_dir())):
                found = base / ref
                if found.is_file():
                    sha = found.read_text(encoding="ascii").strip()
                    return sha if _is_sha(sha) else self.head()
        except (OSError, UnicodeDecodeError):
            pass
        return self.head()

    def _common_dir(self) -> Path:
        """Where refs and objects shared by every work tree live (the git directory itself unless
        this is a linked work tree). Raises :class:`OSError`."""
        if (self.git_dir / "commondir").is_file():
            return self.git_dir / (self.git_dir / "commondir").read_text(encoding="ascii").strip()
        return self.git_dir

    def head_and_parents(self) -> tuple[str, tuple[str, ...]]:
        """HEAD and its parents, right after a commit: read from the files when HEAD is a loose ref
        and the commit a loose object (as ``git commit`` leaves them; no process), else from one
        ``rev-parse``. Raises :class:`GitError` without HEAD."""
        head = self.head_quick()
        if head is not None:
            try:
                data = (self._common_dir() / "objects" / head[:2] / head[2:]).read_bytes()
                return head, _commit_parents(zlib.decompress(data))
            except (OSError, zlib.error, ValueError):
                pass
        sha, *parents = self._text("rev-parse", "HEAD", "HEAD^@").split()
        return sha, tuple(parents)

    def rev(self, name: str) -> str | None:
        """The commit ``name`` points to, or ``None`` if there is no such ref/commit."""
        proc = _run(self.workdir, "rev-parse", "--verify", "-q", "--end-of-options", name + "^{commit}", check=False)
        return proc.stdout.decode().strip() or None

    def resolve(self, rev: str) -> str:
        """The commit ``rev`` names; :class:`GitError` if there is none."""
        sha = self.rev(rev)
        if not sha:
            raise GitError(f"{rev!r} is not a commit in this repository")
        return sha

    def rev_before(self, epoch: float) -> str | None:
        """The commit HEAD pointed to at Unix time ``epoch`` (first-parent history), if any.

        Compared in Python rather than with ``--before``, whose date parser misreads small and
        far-future timestamps.
        """
        if self.head() is None:
            return None
        for entry in self._text("log", "--first-parent", "--format=%H %ct", "HEAD").splitlines():
            sha, _, seconds = entry.partition(" ")
            if int(seconds) <= epoch:
                return sha
        return None

    def branch(self) -> str | None:
        """The checked-out branch's short name; ``None`` on a detached HEAD."""
        proc = _run(self.workdir, "symbolic-ref", "-q", "--short", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self._ok("merge-base", "--is-ancestor", older, newer)

    def merge_base(self, a: str, b: str) -> str | None:
        return self._text("merge-base", a, b, check=False).strip() or None

    def count(self, revision_range: str) -> int:
        return int(self._text("rev-list", "--count", revision_range).strip() or 0)

    def count_all(self) -> int:
        """Commits reachable from any ref."""
        return int(self._text("rev-list", "--all", "--count").strip() or 0) if self.head() else 0

    def update_ref(self, ref: str, sha: str, message: str = "memfs") -> None:
        self._text("update-ref", "-m", message, ref, sha)

    def refs(self, prefix: str) -> list[tuple[str, str]]:
        """(ref, commit) of every ref under ``prefix``, sorted by name."""
        out = self._text("for-each-ref", "--sort=refname", "--format=%(refname) %(objectname)", prefix)
        return [(ref, sha) for ref, _, sha in (line.partition(" ") for line in out.splitlines() if line)]

    def read_tag(self, sha: str) -> bytes | None:
        """The raw annotated tag object ``sha`` (``None`` for a lightweight tag's commit)."""
        proc = _run(self.workdir, "cat-file", "tag", sha, check=False)
        return proc.stdout if proc.returncode == 0 else None

    def blobs_reachable(self, rev: str) -> list[str]:
        """Every blob in the history of ``rev``."""
        out = self._text("rev-list", "--objects", "--filter=object:type=blob", rev)
        return [line.split()[0] for line in out.splitlines() if len(line.split(maxsplit=1)) == 2]  # commits: no path

    def tree_entries(self, rev: str) -> list[tuple[str, str, str, str]]:
        """(mode, type, sha, path) of every file in ``rev``'s tree, recursively."""
        out = self._text("ls-tree", "-r", "-z", rev)
        entries = []
        for item in _nul_list(out):
            meta, _, path = item.partition("\t")
            mode, kind, sha = meta.split()
            entries.append((mode, kind, sha, path))
        return entries

    def replace_ref_with_tree(
        self, ref: str, entries: list[tuple[str, str, str, str]], message: str, identity: Identity
    ) -> None:
        """Point ``ref`` at a new parentless commit of a tree holding ``entries`` (its old history dropped)."""
        listing = "".join(f"{mode} {kind} {sha}\t{path}\0" for mode, kind, sha, path in entries)
        tree = _run(self.workdir, "mktree", "-z", "--missing", stdin=listing.encode("utf-8")).stdout.decode().strip()
        commit = self._text("commit-tree", tree, "-F", "-", stdin=message.encode("utf-8"), identity=identity).strip()
        self._text("update-ref", ref, commit)

    def reaches_any(self, rev: str, commits: Sequence[str]) -> bool:
        """Whether any of ``commits`` is ``rev`` or in its history."""
        if not commits:
            return False
        proc = _run(self.workdir, "rev-list", rev, check=False)
        return proc.returncode == 0 and not set(proc.stdout.decode().split()).isdisjoint(commits)

    def valid_branch_name(self, name: str) -> bool:
        return self._ok("check-ref-format", "--branch", name)

    def create_branch(self, name: str, start: str) -> None:
        self._text("branch", "--no-track", name, start)

    def delete_branch(self, name: str) -> None:
        self._text("branch", "-D", name)

    # --- configuration -------------------------------------------------------------------------
    def config_get(self, key: str) -> str | None:
        proc = _run(self.workdir, "config", "--get", key, check=False)
        return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else None

    def config_set(self, key: str, value: str) -> None:
        self._text("config", key, value)

    def remotes(self) -> list[str]:
        return self._text("remote").split()

    def remote_url(self, name: str) -> str | None:
        return self._text("remote", "get-url", name, check=False).strip() or None

    # --- reading files and trees ---------------------------------------------------------------
    def read_blobs(self, rev: str, paths: list[str]) -> dict[str, bytes]:
        """The contents of ``paths`` at ``rev`` in one ``git cat-file --batch`` (missing paths left out)."""
        if not paths:
            return {}
        request = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8")
        return _blobs(paths, _run(self.workdir, "cat-file", "--batch", stdin=request).stdout)

    def blob_ids(self, rev: str, folders: Sequence[str]) -> dict[str, str]:
        """Path -> blob id of every file at ``rev`` in ``folders`` and below, one ``git ls-tree``
        (it walks only those trees): which committed copies a caller already holds, by hashing
        its bytes (:func:`blob_id`), before it reads the others."""
        if not folders:
            return {}
        out = self._text("ls-tree", "-r", "-z", rev, "--", *_literal(*folders))
        ids = {}
        for item in _nul_list(out):
            meta, _, path = item.partition("\t")
            _, kind, sha = meta.split(" ")
            if kind == "blob":
                ids[path] = sha
        return ids

    def show_file(self, rev: str, path: str) -> bytes | None:
        proc = _run(self.workdir, "cat-file", "blob", f"{rev}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def head_file(self, path: str) -> bytes | None:
        """``path`` as committed at HEAD (``None`` without HEAD or without the file)."""
        return self.show_file("HEAD", path) if self._has_head() else None

    def tree_files(self, rev: str, pathspec: str) -> list[str]:
        """Every file under ``pathspec`` at ``rev`` (``ls-tree -r``)."""
        return _nul_list(self._text("ls-tree", "-r", "-z", "--name-only", rev, "--", *_literal(pathspec)))

    def grep_files(self, pattern: str, pathspec: str, *, fixed: bool) -> list[str]:
        """Files under ``pathspec`` (working tree, untracked too) with a line matching ``pattern``
        (a fixed string, or a POSIX extended regex)."""
        mode = "-F" if fixed else "-E"
        out = self._text("grep", "-l", "-z", "--untracked", mode, "-e", pattern, "--", pathspec, check=False)
        return _nul_list(out)

    def grep_files_at(self, rev: str, patterns: Sequence[str], pathspec: str) -> list[str]:
        """Files committed at ``rev`` under ``pathspec`` that contain any of the fixed strings
        ``patterns`` (one ``git grep`` over the tree, no checkout)."""
        if not patterns:
            return []
        args = [arg for p in patterns for arg in ("-e", p)]
        out = self._text("grep", "-l", "-z", "-F", *args, rev, "--", pathspec, check=False)
        return [name.split(":", 1)[1] if name.startswith(rev + ":") else name for name in _nul_list(out)]

    def grep_lines(self, patterns: Sequence[str], pathspec: str, *, fixed: bool) -> list[tuple[str, str]]:
        """(file, line) for each line matching any of ``patterns`` (working tree, untracked too)."""
        mode = "-F" if fixed else "-E"
        args = [arg for p in patterns for arg in ("-e", p)]
        out = self._text("grep", "-z", "--untracked", mode, *args, "--", pathspec, check=False)
        found = []
        for entry in out.split("\n"):
            name, sep, text = entry.partition("\0")
            if sep:
                found.append((name, text))
        return found

    # --- the working tree ----------------------------------------------------------------------
    def status_paths(self, pathspec: str | None = None, *, untracked: Untracked = "all") -> list[str]:
        """Paths whose working-tree or index state differs from HEAD (both names of a rename)."""
        args = ["status", "--porcelain=v1", "-z", f"--untracked-files={untracked}"]
        out = self._text(*args, *(["--", *_literal(pathspec)] if pathspec else []))
        return _porcelain_paths(out)

    def changed(self, paths: list[str]) -> list[str]:
        """Those of ``paths`` whose work-tree state differs from HEAD (untracked included)."""
        if not paths:
            return []
        return _porcelain_paths(
            self._text("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *_literal(*paths))
        )

    def probe(self, pathspec: str) -> Probe | None:
        """HEAD and the paths git reports as changed, untracked or ignored under ``pathspec``, from
        one ``git status`` (with ``--no-optional-locks``, so it never takes the lock a concurrent
        commit needs, and ``--no-ahead-behind``: only HEAD is read of the branch header, so a branch
        far from its upstream costs no history walk). ``None`` when git cannot answer.

        A probe of the whole tree (``.``) that finds nothing staged also notes the index file's
        identity as it was just before, for the next commit (:meth:`_commit_private`)."""
        index = _file_identity(self.git_dir / "index") if pathspec == "." else None
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
                "--untracked-files=all", "--ignored=matching", "--", *_literal(*pathspecs),
            )
        except GitError:
            return None
        return _parse_probe(out)

    def untracked(self, pathspec: str) -> list[str]:
        return _nul_list(self._text("ls-files", "-z", "--others", "--exclude-standard", "--", *_literal(pathspec)))

    def listed_files(self) -> list[str]:
        """Every tracked or untracked (not ignored) file of the work tree."""
        return _nul_list(self._text("ls-files", "-z", "--cached", "--others", "--exclude-standard"))

    def has_staged_changes(self) -> bool:
        return bool(self._text("diff", "--cached", "--name-only").strip())

    def conflicted(self) -> list[str]:
        return _nul_list(self._text("diff", "--name-only", "-z", "--diff-filter=U"))

    def diff_names(self, old: str, new: str | None, pathspec: str) -> list[str]:
        """Paths that differ between ``old`` and ``new`` (``None``: the working tree), no renames."""
        args = ["diff", "--name-only", "-z", "--no-renames", old, *([new] if new else []), "--", *_literal(pathspec)]
        return _nul_list(self._text(*args))

    def unstage(self, paths: list[str]) -> None:
        self._ok("reset", "-q", "--", *_literal(*paths))

    def reset_hard(self, rev: str) -> None:
        self._text("reset", "--hard", "--quiet", rev)

    def reset_keep(self, rev: str) -> bool:
        """Move the branch to ``rev`` keeping uncommitted changes; ``False`` if git refused."""
        return self._ok("reset", "--keep", "--quiet", rev)

    # --- committing ----------------------------------------------------------------------------
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
            if not tracked and not self._ok("add", "-A", "--", *_literal(*paths)):
                paths = self.changed(paths)
                if not paths:
                    return None
                self._text("add", "-A", "--", *_literal(*paths))
            crashpoint.reached("git-added")
            if self._has_head() and not whole_index:
                proc = self._commit_only(paths, message, identity)
            else:
                proc = self._commit(message, identity)
        crashpoint.reached("git-committed")
        if not _committed(proc):
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
            if _file_identity(index) != clean[0] or self.head_quick() != head:
                return False, None
            Path(f"{private}.lock").unlink(missing_ok=True)
            shutil.copy2(index, private)  # its mtime too: git's racy-file check compares against it
            crashpoint.reached("index-copied")
            new = [path for path in paths if path not in tracked]
            if new and _run(self.workdir, "add", "-A", "--", *_literal(*new), index=private, check=False).returncode:
                return False, None
            crashpoint.reached("git-added")
            staged = self._stage_tracked([path for path in paths if path in tracked], private)
            named = () if staged else ("-i", "--", *_literal(*paths))
            proc = self._commit(message, identity, *named, index=private)
            crashpoint.reached("git-committed")
            if not _committed(proc):
                return True, None
            sha, parents = self.head_and_parents()
            if parents != (head,):
                self._text("update-ref", "-m", "memfs: take back a commit made on a moved HEAD", "HEAD",
                           parents[0] if parents else "", sha)
                return False, None
            os.replace(private, lock)
            crashpoint.reached("index-ready")
            os.replace(lock, index)
            installed = True
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
        proc = _run(self.workdir, "update-index", "--remove", "-z", "--stdin", stdin=names, check=False, index=index)
        return proc.returncode == 0

    def _commit_only(self, paths: list[str], message: str, identity: Identity) -> subprocess.CompletedProcess[bytes]:
        return self._commit(message, identity, "--only", "--", *_literal(*paths))

    def _commit(self, message: str, identity: Identity, *args: str,
                index: Path | None = None) -> subprocess.CompletedProcess[bytes]:
        """``git commit`` of ``message`` with ``args`` (unchecked: see :func:`_committed`)."""
        return _run(self.workdir, *_COMMIT, *args, stdin=message.encode("utf-8"), identity=identity, check=False,
                    index=index)

    def commit_empty(self, message: str, identity: Identity) -> str | None:
        """A commit that changes no file (an audit record), skipping hooks; leaves the index alone."""
        refuse_secrets(message)
        self._text(
            "commit", "-q", "--allow-empty", "--only", "--no-verify", "-F", "-",
            stdin=message.encode("utf-8"), identity=identity,
        )
        return self.head()

    def _has_head(self) -> bool:
        if not self._head_seen:
            self._head_seen = self.head() is not None
        return self._head_seen

    def revert(self, sha: str, message: str, identity: Identity) -> tuple[bool, str]:
        """``git revert`` of ``sha`` with ``message``; on failure aborts it and returns git's output."""
        refuse_secrets(message)
        proc = _run(self.workdir, "revert", "--no-edit", sha, check=False, identity=identity)
        if proc.returncode != 0:
            self._ok("revert", "--abort")
            return False, (proc.stdout + proc.stderr).decode("utf-8", "replace")
        self._text("commit", "--amend", "--only", "-q", "-F", "-", stdin=message.encode(), identity=identity)
        return True, ""

    def revert_apply(self, sha: str) -> tuple[bool, str]:
        """Apply the inverse of ``sha`` to the work tree and index without committing (``git revert
        --no-commit``), then forget the operation so nothing is left in progress: (succeeded, git's
        output). A failed attempt is aborted, leaving everything as it was."""
        proc = _run(self.workdir, "revert", "--no-commit", sha, check=False)
        if proc.returncode != 0:
            self._ok("revert", "--abort")
            return False, (proc.stdout + proc.stderr).decode("utf-8", "replace")
        self._ok("revert", "--quit")
        return True, ""

    def staged_paths(self) -> list[str]:
        """Paths whose index state differs from HEAD (no rename detection)."""
        return _nul_list(self._text("diff", "--cached", "--name-only", "-z", "--no-renames", "HEAD"))

    def restore_from_head(self, paths: list[str]) -> None:
        """Put ``paths`` back as HEAD has them, in the index and the work tree; a path HEAD does not
        have is unstaged and deleted. For undoing what :meth:`revert_apply` changed."""
        if not paths:
            return
        self._ok("reset", "-q", "HEAD", "--", *_literal(*paths))
        in_head = set(_nul_list(self._text("ls-tree", "-z", "--name-only", "HEAD", "--", *_literal(*paths))))
        if in_head:
            self._text("checkout", "-q", "HEAD", "--", *_literal(*sorted(in_head)))
        for path in paths:
            if path not in in_head:
                (self.workdir / path).unlink(missing_ok=True)

    # --- history -------------------------------------------------------------------------------
    def file_versions(self, rev_range: str, pathspec: str) -> list[tuple[str, str]]:
        """(path, blob) of every version of every file under ``pathspec`` that a commit in
        ``rev_range`` wrote or replaced (merges against each parent; renames not followed)."""
        out = self._text(
            "log", "-m", "--raw", "-z", "--no-renames", "--no-abbrev", "--format=%x1e", rev_range,
            "--", *_literal(pathspec),
        )
        found: list[tuple[str, str]] = []
        tokens = out.split("\0")
        i = 0
        while i < len(tokens):
            token = tokens[i].lstrip("\n\x1e")
            if token.startswith(":") and i + 1 < len(tokens):
                fields = token.split()
                for blob in fields[2:4]:
                    if blob.strip("0"):
                        found.append((tokens[i + 1], blob))
                i += 2
            else:
                i += 1
        return found

    def read_objects(self, shas: Sequence[str]) -> dict[str, bytes]:
        """The contents of the blobs ``shas`` in one ``git cat-file --batch`` (missing ones left out)."""
        wanted = list(dict.fromkeys(shas))
        if not wanted:
            return {}
        out = _run(self.workdir, "cat-file", "--batch", stdin="".join(f"{s}\n" for s in wanted).encode()).stdout
        return _blobs(wanted, out)

    def log(
        self,
        *,
        path: str | None = None,
        grep: str | None = None,
        limit: int | None = None,
        rev: str = "HEAD",
        follow: bool = True,
    ) -> list[Commit]:
        if self.head() is None:
            return []
        args = ["log", "-z", "--name-only", "--format=%x1e%H%x1f%an%x1f%ae%x1f%aI%x1f%s%x1f%b%x1f"]
        if limit:
            args.append(f"-n{limit}")
        if grep:
            args += ["-E", f"--grep={grep}"]
        args.append(rev)
        if path is not None:
            args += (["--follow"] if follow else []) + ["--", *_literal(path)]
        return _parse_log(self._text(*args))

    def messages(self, rev_range: str, grep: str) -> list[tuple[str, str]]:
        """(commit, full message) of every commit in ``rev_range`` whose message matches the
        extended regex ``grep``, newest first."""
        if self.head() is None:
            return []
        out = self._text("log", "-E", f"--grep={grep}", "--format=%x1e%H%x1f%B", rev_range)
        return [(sha, body) for sha, _, body in (r.partition("\x1f") for r in out.split("\x1e")[1:])]

    def commits_touching(self, paths: Sequence[str]) -> list[str]:
        """Every commit on any ref that touches one of ``paths``, newest first."""
        if self.head() is None:
            return []
        return self._text("log", "--all", "--format=%H", "--", *_literal(*paths)).split()

    def last_commit_writing(self, path: str) -> str | None:
        """The newest commit on any ref that added or modified ``path``."""
        out = self._text("log", "--all", "-n1", "--format=%H", "--diff-filter=AM", "--", *_literal(path))
        return out.strip() or None

    def renames(self) -> list[tuple[str, str, str]]:
        """(commit, old path, new path) of every rename git detects on any ref."""
        if self.head() is None:
            return []
        out = self._text("log", "--all", "-M", "--diff-filter=R", "--name-status", "-z", "--format=%x1e%H")
        found = []
        for record in out.split("\x1e")[1:]:
            sha, *fields = record.split("\0")
            i = 0
            while i < len(fields):
                status = fields[i].lstrip("\n")
                if status.startswith(("R", "C")) and i + 2 < len(fields):
                    if status.startswith("R"):
                        found.append((sha.strip(), fields[i + 1], fields[i + 2]))
                    i += 3
                else:
                    i += 1 if not status else 2
        return found

    # --- remotes and integration ---------------------------------------------------------------
    def fetch_branch(self, remote: str, branch: str, tracking: str) -> str | None:
        """Fetch ``remote``'s ``branch`` into ``tracking``; its tip, or ``None`` if it does not exist."""
        refspec = f"+refs/heads/{branch}:{tracking}"
        proc = _run(self.workdir, "fetch", "--quiet", "--no-tags", remote, refspec, check=False)
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip()
            if "couldn't find remote ref" in message:
                return None
            raise GitError(f"fetching {remote}/{branch} failed, nothing was changed: {message}")
        return self.rev(tracking)

    def push(self, remote: str, source: str, branch: str) -> tuple[int, str, str]:
        """``git push --porcelain REMOTE SOURCE:refs/heads/BRANCH`` (never forced):
        (exit status, porcelain output, server messages)."""
        proc = _run(self.workdir, "push", "--porcelain", remote, f"{source}:refs/heads/{branch}", check=False)
        return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")

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

    def _attempt(self, args: tuple[str, ...], identity: Identity) -> tuple[bool, str]:
        proc = _run(self.workdir, *args, check=False, identity=identity)
        return proc.returncode == 0, _output(proc)

    def abort(self, operation: Literal["rebase", "merge"]) -> None:
        self._ok(operation, "--abort")

    # --- maintenance ---------------------------------------------------------------------------
    def expire_reflogs(self) -> None:
        self._text("reflog", "expire", "--expire=now", "--all")

    def prune(self) -> None:
        """``git gc --prune=now``: unreachable objects are deleted now, not in two weeks."""
        self._text("gc", "--quiet", "--prune=now")

    def filter_repo(self, *args: str) -> None:
        """Run git-filter-repo (the ``git-filter-repo`` PyPI package, under this Python) here.

        It rewrites history: callers hold the write lock and have checked the work tree is clean.
        """
        proc = subprocess.run(
            [sys.executable, "-m", "git_filter_repo", *args],
            cwd=self.workdir,
            capture_output=True,
            env=_env(None),
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if proc.returncode != 0:
            message = _output(proc)
            if "No module named git_filter_repo" in message:
                raise GitError("git-filter-repo is not installed; pip install git-filter-repo (a memfs dependency)")
            raise GitError(f"git filter-repo failed: {message}")

    def objects(self) -> Iterator[tuple[str, str, bytes]]:
        """Every object in the repository, reachable or not, loose or packed: (sha, type, content)."""
        proc = subprocess.Popen(
            ["git", *_CONFIG, "cat-file", "--batch-all-objects", "--batch", "--unordered"],
            cwd=self.workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_env(None),
        )
        assert proc.stdout is not None
        try:
            while header := proc.stdout.readline():
                sha, kind, size = header.decode().split()
                content = proc.stdout.read(int(size))
                proc.stdout.read(1)
                yield sha, kind, content
        finally:
            proc.stdout.close()
            proc.wait()


def _blobs(keys: Sequence[str], out: bytes) -> dict[str, bytes]:
    """``git cat-file --batch`` output for the requests ``keys``, in order: the blobs' contents by
    key. Every object's content is stepped over, whatever its type (a tree or commit answering a
    request is skipped, not read as the next header); missing objects have no content."""
    found: dict[str, bytes] = {}
    pos = 0
    for key in keys:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if header[1] == b"blob":
                found[key] = out[pos : pos + size]
            pos += size + 1
    return found


def _committed(proc: subprocess.CompletedProcess[bytes]) -> bool:
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


def _commit_parents(raw: bytes) -> tuple[str, ...]:
    """The parents named by a loose commit object (header, NUL, then ``tree``/``parent`` lines);
    :class:`ValueError` if it is not a commit."""
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit "):
        raise ValueError("not a commit")
    parents = []
    for line in body.split(b"\n"):
        if line.startswith(b"parent "):
            parents.append(line[len(b"parent "):].decode("ascii"))
        elif not line.startswith(b"tree "):
            break
    if not all(_is_sha(p) for p in parents):
        raise ValueError("bad parent")
    return tuple(parents)


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


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


def _parse_probe(out: str) -> Probe:
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


def _file_identity(path: Path) -> tuple[int, ...] | None:
    """What changes whenever git rewrites a file (it writes a new one and renames it over the old):
    device, inode, size, mtime and ctime; ``None`` when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _parse_log(out: str) -> list[Commit]:
    commits = []
    for record in out.split("\x1e")[1:]:
        sha, author, email, time, subject, body, files = record.split("\x1f", 6)
        names = tuple(f for f in files.strip("\n\0").split("\0") if f.strip("\n"))
        commits.append(Commit(sha, author, email, time, subject, body.strip(), tuple(n.strip("\n") for n in names)))
    return commits
