"""Every git call memfs makes goes through this module.

memfs drives the real ``git`` binary with :mod:`subprocess`: it has git's exact semantics
(racy-git, hooks, ``gc --auto``, revert, rename detection), starts no long-lived helper
processes and costs nothing to import. See the README's dependency section for why this replaced
GitPython's ``repo.git`` wrapper (the same CLI, plus 75 ms of import on every command).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memfs.errors import GitError, NotAMemoryRepo

_BASE_ENV = {
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_MERGE_AUTOEDIT": "no",
    "LC_ALL": "C",
}
_CONFIG = ("-c", "core.quotepath=off", "-c", "advice.detachedHead=false")


@dataclass(frozen=True)
class Identity:
    """Who a commit is by: memfs writes the actor (``agent:release-bot``) as the author."""

    name: str
    email: str

    @classmethod
    def for_actor(cls, actor: str) -> Identity:
        local = "".join(c if c.isalnum() or c in "._-" else "-" for c in actor).strip("-") or "memfs"
        return cls(actor, f"{local}@memfs.invalid")


def _env(identity: Identity | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(_BASE_ENV)
    if identity is not None:
        env.update(
            GIT_AUTHOR_NAME=identity.name,
            GIT_AUTHOR_EMAIL=identity.email,
            GIT_COMMITTER_NAME=identity.name,
            GIT_COMMITTER_EMAIL=identity.email,
        )
    return env


def run_in(
    cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git ARGS`` in ``cwd``; raise :class:`GitError` with git's message when ``check``."""
    try:
        proc = subprocess.run(
            ["git", *_CONFIG, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=_env(identity),
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git 2.x") from None
    if check and proc.returncode != 0:
        message = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()
        raise GitError(f"git {args[0]} failed: {message}")
    return proc


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
        proc = run_in(Path(tmp), *args, *names, check=False)
    if not 0 <= proc.returncode < 128:
        raise GitError(f"git merge-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout, proc.returncode


def ere_escape(text: str) -> str:
    """``text`` as a literal inside a POSIX extended regex (``git grep -E``, ``git log -E --grep``)."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)


def discover(start: Path) -> tuple[Path, Path]:
    """(work tree top level, git dir) of the repository containing ``start``."""
    if not start.is_dir():
        raise NotAMemoryRepo(f"{start}: no such directory")
    proc = run_in(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", check=False)
    if proc.returncode != 0:
        raise NotAMemoryRepo(f"{start}: not inside a git repository; run 'memfs init' there first")
    top, git_dir = proc.stdout.decode().splitlines()[:2]
    return Path(top), Path(git_dir)


@dataclass(frozen=True)
class Commit:
    sha: str
    author: str
    email: str
    time: str
    subject: str
    body: str
    files: tuple[str, ...]


class Git:
    """The git repository a memory root lives in. Paths given to it are work-tree-relative."""

    def __init__(self, workdir: Path, git_dir: Path) -> None:
        self.workdir = workdir
        self.git_dir = git_dir
        self._head_seen = False

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None) -> str:
        proc = run_in(self.workdir, *args, stdin=stdin, check=check, identity=identity)
        return proc.stdout.decode("utf-8", "replace")

    def ok(self, *args: str, identity: Identity | None = None) -> bool:
        return run_in(self.workdir, *args, check=False, identity=identity).returncode == 0

    def head(self) -> str | None:
        proc = run_in(self.workdir, "rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def resolve(self, rev: str) -> str:
        proc = run_in(self.workdir, "rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}", check=False)
        sha = proc.stdout.decode().strip()
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
        out = self.run("log", "--first-parent", "--format=%H %ct", "HEAD")
        for entry in out.splitlines():
            sha, _, seconds = entry.partition(" ")
            if int(seconds) <= epoch:
                return sha
        return None

    def branch(self) -> str | None:
        """The checked-out branch's short name; ``None`` on a detached HEAD."""
        proc = run_in(self.workdir, "symbolic-ref", "-q", "--short", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def rev(self, name: str) -> str | None:
        """The commit ``name`` points to, or ``None`` if there is no such ref/commit."""
        proc = run_in(self.workdir, "rev-parse", "--verify", "-q", "--end-of-options", name + "^{commit}", check=False)
        return proc.stdout.decode().strip() or None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self.ok("merge-base", "--is-ancestor", older, newer)

    def merge_base(self, a: str, b: str) -> str | None:
        return self.run("merge-base", a, b, check=False).strip() or None

    def count(self, revision_range: str) -> int:
        return int(self.run("rev-list", "--count", revision_range).strip() or 0)

    def config_get(self, key: str) -> str | None:
        proc = run_in(self.workdir, "config", "--get", key, check=False)
        return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else None

    def config_set(self, key: str, value: str) -> None:
        self.run("config", key, value)

    def update_ref(self, ref: str, sha: str, message: str = "memfs") -> None:
        self.run("update-ref", "-m", message, ref, sha)

    def read_blobs(self, rev: str, paths: list[str]) -> dict[str, bytes]:
        """The contents of ``paths`` at ``rev`` in one ``git cat-file --batch`` (missing paths left out)."""
        if not paths:
            return {}
        request = "".join(f"{rev}:{p}\n" for p in paths).encode("utf-8")
        out = run_in(self.workdir, "cat-file", "--batch", stdin=request).stdout
        found: dict[str, bytes] = {}
        pos = 0
        for path in paths:
            end = out.index(b"\n", pos)
            header = out[pos:end].split()
            pos = end + 1
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                found[path] = out[pos : pos + size]
                pos += size + 1
        return found

    def show_file(self, rev: str, path: str) -> bytes | None:
        proc = run_in(self.workdir, "cat-file", "blob", f"{rev}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def changed(self, paths: list[str]) -> list[str]:
        """Those of ``paths`` whose work-tree state differs from HEAD (untracked included)."""
        if not paths:
            return []
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
        return _porcelain_paths(out)

    def commit_paths(self, paths: list[str], message: str, identity: Identity) -> str | None:
        """Commit exactly ``paths`` (additions, edits, deletions); other changes stay as they are.

        Returns the new commit, or ``None`` when none of the paths differs from HEAD. Three git
        processes in the common case (add, commit, rev-parse); ``git status`` only when a path
        is unknown to git. For many paths with nothing else staged, the index is committed as it
        is instead of through ``--only`` pathspecs, which make git rebuild a temporary index.
        """
        if not paths:
            return None
        whole_index = len(paths) > 8 and self._has_head() and not self.run("diff", "--cached", "--name-only").strip()
        if not self.ok("add", "-A", "--", *paths):
            paths = self.changed(paths)
            if not paths:
                return None
            self.run("add", "-A", "--", *paths)
        args = ["commit", "-q", "--no-edit", "-F", "-"]
        if self._has_head() and not whole_index:
            args += ["--only", "--", *paths]
        proc = run_in(self.workdir, *args, stdin=message.encode("utf-8"), identity=identity, check=False)
        if proc.returncode != 0:
            output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
            if "nothing to commit" in output or "nothing added to commit" in output or "no changes added" in output:
                return None
            raise GitError(f"git commit failed: {output.strip()}")
        return self.head()

    def _has_head(self) -> bool:
        if not self._head_seen:
            self._head_seen = self.head() is not None
        return self._head_seen

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
            args += (["--follow"] if follow else []) + ["--", path]
        return _parse_log(self.run(*args))


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


def _parse_log(out: str) -> list[Commit]:
    commits = []
    for record in out.split("\x1e")[1:]:
        sha, author, email, time, subject, body, files = record.split("\x1f", 6)
        names = tuple(f for f in files.strip("\n\0").split("\0") if f.strip("\n"))
        commits.append(Commit(sha, author, email, time, subject, body.strip(), tuple(n.strip("\n") for n in names)))
    return commits


def filter_repo(workdir: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run git-filter-repo (the ``git-filter-repo`` PyPI package, under this Python) in ``workdir``.

    It rewrites history: callers hold the write lock and have checked the work tree is clean.
    """
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "git_filter_repo", *args],
        cwd=workdir,
        capture_output=True,
        env=_env(None),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if proc.returncode != 0:
        message = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()
        if "No module named git_filter_repo" in message:
            raise GitError("git-filter-repo is not installed; pip install git-filter-repo (a memfs dependency)")
        raise GitError(f"git filter-repo failed: {message}")
    return proc


def iter_objects(workdir: Path) -> Iterator[tuple[str, str, bytes]]:
    """Every object in the repository, reachable or not, loose or packed: (sha, type, content)."""
    proc = subprocess.Popen(
        ["git", *_CONFIG, "cat-file", "--batch-all-objects", "--batch", "--unordered"],
        cwd=workdir,
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
