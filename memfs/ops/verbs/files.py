"""Memory files by path: ``write`` (and ``add``), ``new``, ``rm``, ``validate``; and
``install-merge-driver`` and ``install-hooks``."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from memfs.format.declare import param
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.format.model import Problem  # noqa: F401 - results named in Request["..."]
    from memfs.ops.mergedriver import Installed  # noqa: F401
    from memfs.store.hooks import HooksInstalled  # noqa: F401
    from memfs.store.reading import Scan
    from memfs.store.repo import CommitResult  # noqa: F401

_PATH = "The memory's path relative to the memory root."
_FIELDS = "Frontmatter fields to set (only these change)."
_BODY = "The Markdown body."
_REVISION = "Fail if the memory is no longer at this revision."
_REASON = "Why (goes into the commit message)."
_ACTOR = "Who acts (default: the repository's actor)."


@request("write")
class Write(Request["CommitResult"]):
    """Create or update the memory at PATH (one commit). Only the given fields change."""

    path: str | os.PathLike[str] = param(help=_PATH, argument=True, complete="memory_paths", kw_only=False)
    fields: Mapping[str, Any] | None = param(default=None, help=_FIELDS, wire="fields")
    body: str | None = param(default=None, help=_BODY, file_flag="--body-file")
    expected_revision: int | None = param(default=None, help=_REVISION, flags=("--expect-revision",))
    create_only: bool = param(default=False, help="Refuse to overwrite an existing memory (memfs add).", doors=())
    reason: str | None = param(default=None, help=_REASON)
    actor: str | None = param(default=None, help=_ACTOR, doors=())
    force: bool = param(default=False, help="Change it even if it is read_only: true (people only).")


@request("new")
class New(Request["CommitResult"]):
    """Create PATH from TEMPLATE (preference, fact, episode, procedure, summary, note, system)."""

    template: str = param(help="The template's name.", argument=True, complete="templates", kw_only=False)
    path: str = param(help=_PATH, argument=True, complete="memory_paths", kw_only=False)
    fields: Mapping[str, Any] | None = param(default=None, help=_FIELDS, wire="fields")
    body: str | None = param(default=None, help=_BODY + " (default: the template's guide)", file_flag="--body-file")
    reason: str | None = param(default=None, help=_REASON)
    actor: str | None = param(default=None, help=_ACTOR, doors=())


@request("rm", method="delete")
class Delete(Request["CommitResult"]):
    """Delete the memory at PATH (one commit; it stays in git history)."""

    path: str | os.PathLike[str] = param(help=_PATH, argument=True, complete="memory_paths", kw_only=False)
    expected_revision: int | None = param(default=None, help=_REVISION, flags=("--expect-revision",))
    reason: str | None = param(default=None, help=_REASON)
    actor: str | None = param(default=None, help=_ACTOR, doors=())
    force: bool = param(default=False, help="Delete even if other memories depend on it, or it is read_only.")


@request("install-merge-driver")
class InstallMergeDriver(Request["Installed"]):
    """Register memfs's frontmatter-aware merge driver in this clone (git config is per clone)."""

    command: str | None = param(default=None, help="Driver command line for git (default: this Python's -m memfs).")


@request("install-hooks")
class InstallHooks(Request["HooksInstalled"]):
    """Install the git hooks that check commits made by hand in this clone (memfs init does it too).

    pre-commit refuses a commit that puts a secret into any staged file under the memory root
    (memories and every other file, and their names); commit-msg refuses one in the commit
    message or its trailers; pre-merge-commit refuses a merge that brings one; and
    reference-transaction refuses to move a local branch onto commits that carry one (a
    fast-forward git pull or git merge, git commit --no-verify). They go where git runs hooks
    (core.hooksPath, else .git/hooks). A hook of yours already there is kept as
    NAME.memfs-chained and runs first; if that name is taken too, nothing is changed and the
    message says what to move. Hooks are per clone, like
    the merge driver: run this in every clone. MEMFS_HOOKS=skip in the environment passes them by."""


@request("validate")
class Validate(Request["list[Problem]"]):
    """Validate memory files: frontmatter, fields, ids, depends_on."""

    only: Sequence[str] | None = param(
        default=None, help="Check only these files (as a pre-commit hook passes them; other files are skipped).",
        argument=True, variadic=True, metavar="[FILES]...", complete="memory_paths")
    scan: Scan | None = param(default=None, help="A scan of the repository already made (saves reading it again).",
                              doors=())
