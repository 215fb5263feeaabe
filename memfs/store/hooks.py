"""The client-side hooks that hold the core guard's secret rule for commits made by hand.

memfs's own commits go through the core guard (:mod:`memfs.policy.guard`); a plain ``git commit``,
``git merge`` or ``git pull`` does not. ``memfs init`` and ``memfs install-hooks`` install four
hooks that run ``memfs hook``:

* ``pre-commit``: every staged file under the memory root (memories and any other file: a
  README, notes, configuration), its added lines and its name;
* ``commit-msg``: the commit message (subject, body, trailers), for commits that touch the
  memory root (every commit, when the memory root is the top of the repository);
* ``pre-merge-commit``: what a merge commit brings into the memory root (its result against
  HEAD), before git writes it (the merged commits' own messages are judged when the branch moves,
  below);
* ``reference-transaction`` (git 2.28 and later), in its ``prepared`` state: the commits an update
  puts on a local branch for the first time. This is what sees a fast-forward ``git pull`` or
  ``git merge``, which runs no merge hook, and a ``git commit --no-verify``. A commit the two
  commit hooks have just passed goes through it with one git process (the commit-msg hook notes
  its tree in :data:`CHECKED`). Refused, the branch does not move; a fast-forward has by then
  already checked the fetched files out into the work tree and the index, uncommitted
  (``git status`` shows them; ``git reset --merge`` puts the branch's files back).

They go where git looks for hooks: ``core.hooksPath`` if set, else the repository's ``hooks``
folder (refused when that is a folder the repository tracks: a team's shared hooks are not memfs's
to move, and memfs's name this machine's Python). A hook already there that memfs did not write
is never overwritten: it is kept as
``<name>.memfs-chained`` and run first, with the same arguments, and its refusal stops the commit
as before. If that name is taken too, installing refuses and says what to do. Re-installing
rewrites memfs's own hooks only (to point at the Python memfs now runs under).

The hooks run memfs under the Python that installed them (so no ``memfs`` on PATH is needed),
else ``memfs`` from PATH, else they refuse the commit saying how to repair them: a check that
cannot run fails closed. memfs's own git processes carry ``MEMFS_HOOKS=skip`` (the guard has
judged their commits already), so the hooks start no Python for them; a user's chained hook still
runs for them, as it did before memfs's hooks were installed.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memfs.errors import ConflictError
from memfs.store import atomic, gitcli

#: The hooks memfs installs.
HOOKS = ("pre-commit", "commit-msg", "pre-merge-commit", "reference-transaction")
#: The line that marks a hook as memfs's own.
MARKER = "# memfs-hook"
CHAINED = ".memfs-chained"
#: The file (in the git directory) where the commit-msg hook notes the tree it has just passed.
CHECKED = "memfs-checked"


@dataclass
class HooksInstalled:
    """What installing the hooks did: the folder, the hooks written, and the user's hooks now run
    first (kept under ``<name>.memfs-chained``)."""

    folder: str
    installed: list[str] = field(default_factory=list)
    chained: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"folder": self.folder, "installed": self.installed, "chained": self.chained}

    def lines(self) -> list[str]:
        out = [f"hooks installed in {self.folder}: {', '.join(self.installed)}"]
        out += [f"your {name} hook is kept as {name}{CHAINED} and runs first" for name in self.chained]
        return out


def folder(git: gitcli.Git) -> Path:
    """Where git runs hooks from: ``core.hooksPath`` (relative to the work tree's top) or the
    repository's ``hooks`` folder (shared by linked work trees)."""
    configured = git.config_get("core.hooksPath")
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else git.workdir / path
    return git.hooks_dir()


def script(name: str, prefix: str, python: str | None = None) -> str:
    """The text of memfs's hook ``name`` for a memory root at ``prefix`` (from the work tree's
    top, where git runs hooks)."""
    python = shlex.quote(python or sys.executable)
    where = shlex.quote(prefix.rstrip("/") or ".")
    chained = shlex.quote(name + CHAINED)
    if name == "reference-transaction":
        first, args, feed = _transaction_shell(chained), "prepared", ' <<EOF\n$branches\nEOF'
    else:
        first, args, feed = f"""if [ -x "$hooks/"{chained} ]; then
    "$hooks/"{chained} "$@" || exit $?
fi
[ "$MEMFS_HOOKS" = skip ] && exit 0""", '"$@"', ""
    return f"""#!/bin/sh
{MARKER}: installed by 'memfs install-hooks' (or 'memfs init'); see 'memfs install-hooks --help'.
# It refuses a commit that puts a secret into the memory root or into the commit message.
hooks=$(dirname -- "$0")
{first}
if [ -x {python} ]; then
    exec {python} -m memfs -C {where} hook {name} {args}{feed}
fi
if command -v memfs >/dev/null 2>&1; then
    exec memfs -C {where} hook {name} {args}{feed}
fi
echo "memfs {name} hook: cannot run memfs ({python} is gone and memfs is not on PATH); reinstall memfs \
and run 'memfs install-hooks' again. The commit was not made." >&2
exit 1
"""


def _transaction_shell(chained: str) -> str:
    """The reference-transaction hook's shell before memfs runs: the user's hook gets git's lines
    too; only the ``prepared`` state of updates that move a local branch to a commit is judged;
    an update that brings no commit new to the local branches (a branch created or reset where
    others already are) goes through with one git process, and so does a commit the pre-commit and
    commit-msg hooks have just passed (its tree noted in :data:`CHECKED`, its parent the branch's
    old tip), with one more; only the rest start memfs."""
    return f"""updates=$(cat)
if [ -x "$hooks/"{chained} ]; then
    printf '%s\\n' "$updates" | "$hooks/"{chained} "$@" || exit $?
fi
[ "$MEMFS_HOOKS" = skip ] && exit 0
[ "$1" = prepared ] || exit 0
branches=$(printf '%s\\n' "$updates" | while read -r old new ref; do
    case "$ref:$new" in refs/heads/*:*[!0]*) echo "$old $new $ref" ;; esac
done)
[ -n "$branches" ] || exit 0
news=$(printf '%s\n' "$branches" | while read -r old new ref; do echo "$new"; done)
fresh=$(git rev-list -1 $news --not --branches 2>/dev/null) && [ -z "$fresh" ] && exit 0
case "$branches" in *"
"*) ;; *)
    read -r old new ref <<EOF
$branches
EOF
    set -- $(git rev-parse --git-dir "$new^{{tree}}" "$new^@" 2>/dev/null)
    if [ $# -ge 2 ] && [ -f "$1/{CHECKED}" ]; then
        read -r checked < "$1/{CHECKED}"
        rm -f "$1/{CHECKED}"
        tree=$2
        shift 2
        case "$old" in *[!0]*) ;; *) old="" ;; esac
        if [ "$checked" = "$tree" ] && [ "$*" = "$old" ]; then exit 0; fi
    fi ;;
esac"""


def install(git: gitcli.Git, prefix: str, python: str | None = None) -> HooksInstalled:
    """Install memfs's hooks for the memory root at ``prefix``; see the module docstring. Refuses
    (:class:`ConflictError`, nothing changed) when a user's hook cannot be kept aside."""
    where = folder(git)
    _refuse_shared(git, where, prefix)
    plan = []
    for name in HOOKS:
        path, kept = where / name, where / (name + CHAINED)
        foreign = path.exists() and MARKER not in _head(path)
        if foreign and kept.exists():
            raise ConflictError(
                f"{path}: a {name} hook memfs did not write is there, and {kept.name} too; memfs keeps your hook "
                f"under that name and runs it first, so move one of them away (or merge them into {kept.name}), "
                "then run 'memfs install-hooks' again. Nothing was changed"
            )
        plan.append((name, path, kept, foreign))
    where.mkdir(parents=True, exist_ok=True)
    done = HooksInstalled(str(where))
    for name, path, kept, foreign in plan:
        if foreign:
            os.replace(path, kept)
            done.chained.append(name)
        atomic.write_bytes(path, script(name, prefix, python).encode("utf-8"))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        done.installed.append(name)
    return done


def _refuse_shared(git: gitcli.Git, where: Path, prefix: str) -> None:
    """Refuse a hooks folder the repository tracks (``core.hooksPath`` pointing at a committed
    ``.husky/`` or ``.githooks/``): memfs's hooks name this machine's Python, so committed they
    would break every other clone, and the team's hooks are not memfs's to move."""
    try:
        inside = where.resolve().relative_to(git.workdir.resolve()).as_posix()
    except ValueError:
        return
    if inside != "." and git.head() is not None and git.tree_files("HEAD", inside):
        at = prefix.rstrip("/") or "."
        raise ConflictError(
            f"core.hooksPath is {inside}/, a folder this repository tracks (its hooks are shared by every clone), so "
            f"memfs does not write its machine-specific hooks there; add 'memfs -C {at} hook pre-commit' to your "
            f"pre-commit hook and 'memfs -C {at} hook commit-msg \"$1\"' to your commit-msg hook instead (memfs init: "
            "--no-hooks)"
        )


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(512).decode("utf-8", "replace")
    except OSError:
        return ""
