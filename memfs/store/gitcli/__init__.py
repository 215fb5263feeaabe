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
:mod:`.files` answers where the repository is and its HEAD from the files, without a process,
where that is provably git's answer.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from memfs.errors import GitError, NotAMemoryRepo
from memfs.store.gitcli import process
from memfs.store.gitcli.commit import PRIVATE_INDEX, Committed, Committing, refuse_secrets
from memfs.store.gitcli.files import plain_top_level
from memfs.store.gitcli.history import Commit, History
from memfs.store.gitcli.process import Identity
from memfs.store.gitcli.quarantine import Change, Incoming, Quarantine
from memfs.store.gitcli.remotes import Remotes
from memfs.store.gitcli.status import Probe, Untracked
from memfs.store.gitcli.trees import Trees, blob_id

__all__ = [
    "PRIVATE_INDEX", "Change", "Commit", "Committed", "Git", "Identity", "Incoming", "Probe", "Untracked", "blob_id",
    "create", "discover", "ere_escape", "merge_text", "plain_top_level", "refuse_secrets",
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
