"""Starting git: the one module of memfs that starts processes (a layer test checks it).

Every git process gets the same environment (:func:`env`): the caller's, without the variables
that would send it to another repository, with no editor or prompt, and the actor as author and
committer when one is given. Paths go to git as ``:(literal)`` pathspecs (:func:`literal`) and
come back NUL-separated (:func:`nul_list`). :class:`Base` is what every section of
:class:`memfs.store.gitcli.Git` runs git through; the sections know the commands.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

from memfs.errors import GitError
from memfs.store import locking
from memfs.store.gitcli.files import head_from_files

#: What :func:`run` returns: git's exit status and its captured output.
Completed: TypeAlias = "subprocess.CompletedProcess[bytes]"

_BASE_ENV = {
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    # memfs's own commits were judged by the core guard already: its hooks need not start Python
    # again for them (a user's own hooks, chained before memfs's, still run).
    "MEMFS_HOOKS": "skip",
    "GIT_MERGE_AUTOEDIT": "no",
    "LC_ALL": "C",
}
CONFIG = ("-c", "core.quotepath=off", "-c", "advice.detachedHead=false")
#: Variables that make git use another repository, work tree, index, object store, ref namespace
#: or config file than the one memfs names by its working directory, or read pathspecs another
#: way. A git hook runs with some of them set (``GIT_DIR``, ``GIT_INDEX_FILE``); inherited, they
#: would send memfs's reads and commits to that repository. Also dropped: the variables that carry
#: configuration or programs (``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``,
#: ``GIT_CONFIG_PARAMETERS``, ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM``, ``GIT_EXEC_PATH``,
#: ``GIT_EXTERNAL_DIFF``): through them whoever sets memfs's environment (an agent's tool runner)
#: would make memfs's own commits run its hooks (``core.hooksPath``) and commands
#: (``core.fsmonitor``). git then reads only the repository's, the user's (``~/.gitconfig``) and
#: the system's config files. ``GIT_CONFIG_NOSYSTEM`` (it only reads less) and
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
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_EXEC_PATH",
    "GIT_EXTERNAL_DIFF",
})
#: The numbered halves of ``GIT_CONFIG_COUNT``'s entries, dropped with it.
_NUMBERED = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")


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


def env(identity: Identity | None) -> dict[str, str]:
    """The environment of every git process: the caller's, without :data:`_REDIRECTING`, so the
    repository is always the one the process's working directory is in, and with no configuration
    but the config files'."""
    env = {name: value for name, value in os.environ.items()
           if name not in _REDIRECTING and not name.startswith(_NUMBERED)}
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


def run(
    cwd: Path, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None,
    index: Path | None = None, objects: tuple[Path, Path] | None = None,
) -> Completed:
    """Run ``git ARGS`` in ``cwd``; raise :class:`GitError` with git's message when ``check``.
    ``index``: the index file git uses instead of the repository's own (``GIT_INDEX_FILE``);
    ``objects``: (quarantine, the repository's object folder): new objects are written to the
    quarantine only, existing ones read from both (as ``git receive-pack`` quarantines a push)."""
    environment = env(identity)
    if index is not None:
        environment["GIT_INDEX_FILE"] = str(index)
    if objects is not None:
        environment["GIT_OBJECT_DIRECTORY"] = str(objects[0])
        environment["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(objects[1])
    try:
        proc = subprocess.run(
            ["git", *CONFIG, *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=environment,
            check=False,
            pass_fds=locking.held_fds(),
        )
    except FileNotFoundError:
        raise GitError("git is not installed or not on PATH; install git 2.x") from None
    if check and proc.returncode != 0:
        raise GitError(f"git {args[0]} failed: {output(proc)}")
    return proc


def output(proc: Completed) -> str:
    return (proc.stderr or proc.stdout).decode("utf-8", "replace").strip()


def run_python_module(cwd: Path, module: str, *args: str) -> Completed:
    """Run ``python -m MODULE ARGS`` under this Python in ``cwd`` (git-filter-repo), with git's
    environment; unchecked."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd, capture_output=True, env=env(None), stdin=subprocess.DEVNULL, check=False,
    )


#: What :func:`start_detached` runs: it starts the command in a session of its own, says its pid
#: and exits, so the command is nobody's child in the caller's process tree.
_LAUNCHER = """import os, subprocess, sys
out = open(sys.argv[1], "ab") if sys.argv[1] else subprocess.DEVNULL
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
print(child.pid, flush=True)
os._exit(0)
"""


def start_detached(cwd: Path, module: str, *args: str, log: Path | None = None) -> int:
    """Start ``python -m MODULE ARGS`` under this Python in ``cwd``, detached: in a session of its
    own (a terminal's Ctrl-C or hang-up does not reach it), its output appended to ``log``, and
    through a launcher that exits at once, so it outlives this process and never becomes its
    zombie. The caller's environment without :data:`_REDIRECTING`. Its pid; :class:`OSError`
    when it could not be started."""
    environment = {name: value for name, value in os.environ.items()
                   if name not in _REDIRECTING and not name.startswith(_NUMBERED)}
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, os.fspath(log) if log else "", sys.executable, "-m", module, *args],
        cwd=cwd, capture_output=True, env=environment, stdin=subprocess.DEVNULL, check=False, timeout=60,
    )
    pid = done.stdout.decode("ascii", "replace").strip()
    if done.returncode != 0 or not pid.isdigit():
        raise OSError(f"could not start python -m {module}: {done.stderr.decode('utf-8', 'replace').strip()}")
    return int(pid)


def stream(cwd: Path, *args: str) -> Iterator[tuple[bytes, bytes]]:
    """Run ``git ARGS`` whose output is ``--batch`` records (a header line, the content, a
    newline), yielding (header, content) as git writes them, without holding all of it."""
    proc = subprocess.Popen(
        ["git", *CONFIG, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env(None),
    )
    assert proc.stdout is not None
    try:
        while header := proc.stdout.readline():
            size = int(header.split()[2])
            content = proc.stdout.read(size)
            proc.stdout.read(1)
            yield header, content
    finally:
        proc.stdout.close()
        proc.wait()


def nul_list(out: str) -> list[str]:
    return [entry for entry in out.split("\0") if entry]


def literal(*paths: str) -> list[str]:
    """Paths as pathspecs that match exactly those paths: without ``:(literal)`` git reads
    ``notes/a[1].md`` as a pattern that also matches ``notes/a1.md``, and ``:x.md`` as ``x.md``."""
    return [f":(literal){path}" for path in paths]


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
        #: (older, newer) commit ids git has shown to be ancestor and descendant: see :meth:`Refs.is_ancestor`.
        self._ancestry: set[tuple[str, str]] = set()

    def _run(
        self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None,
        index: Path | None = None, objects: tuple[Path, Path] | None = None,
    ) -> Completed:
        """``git ARGS`` in the work tree (:func:`run`)."""
        return run(self.workdir, *args, stdin=stdin, check=check, identity=identity, index=index, objects=objects)

    def _text(
        self, *args: str, stdin: bytes | None = None, check: bool = True, identity: Identity | None = None
    ) -> str:
        proc = self._run(*args, stdin=stdin, check=check, identity=identity)
        return proc.stdout.decode("utf-8", "replace")

    def _ok(self, *args: str, identity: Identity | None = None) -> bool:
        return self._run(*args, check=False, identity=identity).returncode == 0

    def head(self) -> str | None:
        found = head_from_files(self.git_dir)
        if found is not None:
            return found or None
        proc = self._run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.decode().strip() or None

    def _has_head(self) -> bool:
        if not self._head_seen:
            self._head_seen = self.head() is not None
        return self._head_seen
