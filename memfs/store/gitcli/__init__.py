"""Every git call memfs makes goes through this package, as a typed method of :class:`Git`.

memfs drives the real ``git`` binary with :mod:`subprocess`: it has git's exact semantics
(racy-git, hooks, ``gc --auto``, revert, rename detection), starts no long-lived helper
processes and costs nothing to import. See the README's dependency section for why this replaced
GitPython's ``repo.git`` wrapper (the same CLI, plus 75 ms of import on every command).

Command lines live only here: other modules ask for what they need (``git.remotes()``,
``git.status_paths()``), never for ``git.run("…")``, so each git invocation has one owner, one
parser for its output and one place to fix when git changes. A layer test checks it.

The package by section: :mod:`.process` starts git (the only module that starts processes; its
:class:`~.process.Base` is what every section runs git through), and :class:`Git` is made of
the sections, each with the parser of its own output: :mod:`.refs` (HEAD, refs, config),
:mod:`.trees` (blobs, trees, grep), :mod:`.status` (the work tree and index), :mod:`.commit`
(exact commits), :mod:`.history` (log), :mod:`.remotes` (fetch, push, maintenance) and :mod:`.quarantine` (what
comes in: a quarantined fetch, the commits it brought, a hand commit's staged changes).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path

from memfs.errors import GitError, NotAMemoryRepo
from memfs.store.gitcli import process
from memfs.store.gitcli.commit import PRIVATE_INDEX, Committed, Committing, refuse_secrets
from memfs.store.gitcli.history import Commit, History
from memfs.store.gitcli.process import Identity
from memfs.store.gitcli.quarantine import Change, Incoming, Quarantine
from memfs.store.gitcli.remotes import Remotes
from memfs.store.gitcli.status import Probe, Untracked
from memfs.store.gitcli.trees import Trees, blob_id

__all__ = [
    "PRIVATE_INDEX", "Change", "Commit", "Committed", "Git", "Identity", "Incoming", "Probe", "Untracked", "blob_id",
    "create", "discover", "ere_escape", "merge_text", "refuse_secrets",
]


class Git(Committing, History, Quarantine, Remotes, Trees):
    """The git repository a memory root lives in, every section together. Paths given to it are
    work-tree-relative and match only themselves (``:(literal)``), except the ``pathspec`` of the
    grep methods, a glob such as ``*.md``. Paths git lists are read NUL-separated, never C-quoted."""


def discover(start: Path) -> tuple[Path, Path]:
    """(work tree top level, git dir) of the repository containing ``start``."""
    if not start.is_dir():
        raise NotAMemoryRepo(f"{start}: no such directory")
    found = plain_top_level(start)
    if found is not None:
        return found
    proc = process.run(start, "rev-parse", "--show-toplevel", "--absolute-git-dir", check=False)
    if proc.returncode != 0:
        raise NotAMemoryRepo(f"{start}: not inside a git repository; run 'memfs init' there first")
    top, git_dir = proc.stdout.decode().splitlines()[:2]
    return Path(top), Path(git_dir)


#: Variables that change where git looks for the repository or how it reads it: with any set, ask git.
_DISCOVERY_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "SUDO_UID",
)
_SECTION = re.compile(rb"\s*\[([^\]\\]*)\]\s*")
#: The ``[core]`` lines ``git init`` writes that do not bear on where the work tree is.
_PLAIN_CORE = re.compile(rb"\s*(repositoryformatversion\s*=\s*0|bare\s*=\s*false|"
                         rb"(filemode|logallrefupdates|ignorecase|precomposeunicode|symlinks)\s*=\s*\w+)?\s*", re.I)
_HEAD = re.compile(rb"(ref: refs/[^\s]+|[0-9a-f]{40}|[0-9a-f]{64})\n?")


def plain_top_level(start: Path) -> tuple[Path, Path] | None:
    """What :func:`discover` asks ``git rev-parse`` for, read from the files when ``start`` is the
    top level of a plain repository, so opening one starts no process; ``None``: ask git.

    Plain means every case where git's answer is (real path of ``start``, its ``.git``): no
    variable that moves or configures discovery; ``.git`` a real folder (no gitfile, no symlink)
    that git accepts as a repository (a valid ``HEAD`` file, ``objects/`` and ``refs/``, no
    ``commondir``); both owned by this user (git's safe.directory check passes); and a ``config``
    whose ``[core]`` has only the lines ``git init`` writes, format 0 and not bare (no
    ``core.worktree``, no includes, no extensions).
    Anything else, however harmless, goes to git."""
    if any(name in os.environ for name in _DISCOVERY_ENV):
        return None
    top = Path(os.path.realpath(start))
    git_dir = top / ".git"
    try:
        owners = {os.lstat(top).st_uid, os.lstat(git_dir).st_uid}
        if owners != {os.geteuid()} or not stat.S_ISDIR(os.lstat(git_dir).st_mode):
            return None
        if not ((git_dir / "objects").is_dir() and (git_dir / "refs").is_dir()):
            return None
        if os.path.lexists(git_dir / "commondir") or not stat.S_ISREG(os.lstat(git_dir / "HEAD").st_mode):
            return None
        head = (git_dir / "HEAD").read_bytes()
        config = (git_dir / "config").read_bytes()
    except OSError:
        return None
    if not _HEAD.fullmatch(head) or not _plain_config(config):
        return None
    return top, git_dir


def _plain_config(config: bytes) -> bool:
    """Whether a repository's ``config`` says nothing that moves its work tree: ``[core]`` holds only
    :data:`_PLAIN_CORE` lines, there is no include and no extension, and no line continues on the
    next (other sections, ``[user]`` or ``[merge "memfs"]``, do not bear on discovery)."""
    section = b""
    for line in config.splitlines():
        if line.rstrip().endswith(b"\\"):
            return False
        if line.lstrip().startswith(b"["):
            header = _SECTION.fullmatch(line)
            if header is None:
                return False
            section = header.group(1).strip().lower()
            if section.startswith((b"include", b"extensions")):
                return False
        elif section.startswith(b"core") and not _PLAIN_CORE.fullmatch(line):
            return False
    return True


def create(directory: Path) -> Git:
    """A new repository at ``directory`` whose first branch is ``main``, even when ``directory``
    lies inside another repository (it gets its own ``.git``)."""
    process.run(directory, "init", "-q")
    process.run(directory, "symbolic-ref", "HEAD", "refs/heads/main")
    top, git_dir = discover(directory)
    if Path(os.path.realpath(top)) != Path(os.path.realpath(directory)):
        raise GitError(f"{directory}: git did not create a repository of its own there")
    return Git(top, git_dir)


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
        proc = process.run(Path(tmp), *args, *names, check=False)
    if not 0 <= proc.returncode < 128:
        raise GitError(f"git merge-file failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.stdout, proc.returncode


def ere_escape(text: str) -> str:
    """``text`` as a literal inside a POSIX extended regex (``git grep -E``, ``git log -E --grep``)."""
    return "".join("\\" + c if c in ".^$*+?()[]{}|\\" else c for c in text)
