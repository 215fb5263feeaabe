"""Reading memory and its git history: ``show``, ``ls``, ``log``, ``diff``, ``revert`` and ``history``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.format.declare import CLI, param
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.store.history import FileDiff, LogEntry, Revision  # noqa: F401 - results named in Request["..."]
    from memfs.store.repo import Scan  # noqa: F401

_PATH = "Memory file path relative to the memory root, e.g. facts/b17.md ('/memories/facts/b17.md' also works)."


@request("show")
class Show(Request["tuple[str, bytes]"]):
    """Print the memory at PATH (now, or as it was at a commit or time)."""

    path: str = param(help=_PATH, argument=True, complete="memory_paths", kw_only=False)
    at: str | None = param(default=None, help="A commit (sha, branch, HEAD~2) or an ISO time with zone.", kw_only=False)


@request("log", tool="memory_log")
class Log(Request["list[LogEntry]"]):
    """History of the repository, or of one memory: recent memory commits, newest first (who
    changed what, when and why)."""

    path: str | None = param(default=None, help="Only commits touching this memory (renames followed).",
                             argument=True, complete="memory_paths", kw_only=False)
    op: str | None = param(default=None, help="Only commits of this operation (the Memfs-Op trailer): create, "
                                              "update, edit, delete, rename, describe, remember, retract, reinstate, "
                                              "forget, expire, watch...")
    limit: int | None = param(default=None, help="At most this many commits.", flags=("-n",), minimum=1,
                              model_default=20, model_maximum=200)


@request("diff")
class Diff(Request["list[FileDiff]"]):
    """What changed in memory from OLD (default HEAD) to NEW (default: the working tree).

    OLD and NEW are commits or ISO times. Each file shows a summary of frontmatter changes
    (status: active → retracted) above its textual diff."""

    old: str = param(default="HEAD", help="A commit or an ISO time.", argument=True, kw_only=False)
    new: str | None = param(default=None, help="A commit or an ISO time (default: the working tree).",
                            argument=True, kw_only=False)
    path: str | None = param(default=None, help="Only this memory.", kw_only=False)


@request("revert")
class Revert(Request[str]):
    """Undo COMMIT with a new commit; on conflict nothing changes."""

    commit: str = param(help="The commit to undo.", argument=True, kw_only=False)
    reason: str | None = param(default=None, help="Why (goes into the commit message).")
    actor: str | None = param(default=None, help="Who acts (default: the repository's actor).", doors=())


@request("history", tool="memory_history")
class History(Request["list[Revision]"]):
    """Every committed revision of one memory, oldest first: its value, time, source, status,
    commit and who made it."""

    path: str = param(help=_PATH, argument=True, complete="memory_paths", kw_only=False)




@request("ls")
class Ls(Request["Scan"]):
    """List memories: path, status, scope and description."""

    include_all: bool = param(default=False, help="Include superseded, retracted, expired... memories.",
                              flags=("-a", "--all"))


__all__ = ["CLI", "Diff", "History", "Log", "Ls", "Revert", "Show"]
