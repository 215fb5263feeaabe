"""The exceptions memfs raises on purpose.

Every error a user can cause is a :class:`MemfsError`: the CLI prints its message on one line and
exits with code 2, without a traceback. Anything else escaping is a bug in memfs.
"""

from __future__ import annotations


class MemfsError(Exception):
    """Base class: a problem the user can fix, with a message that says how."""

    exit_code = 2


class NotAMemoryRepo(MemfsError):
    """The directory is not inside a git repository holding memories."""


class PathError(MemfsError):
    """A path is outside the memory root, inside `.git/` or `.memfs/`, or not a memory file."""


class MemoryNotFound(MemfsError):
    """No memory file at that path (or at that commit)."""


class InvalidMemory(MemfsError):
    """A memory file (or a write) fails validation; ``problems`` holds every finding."""

    def __init__(self, message: str, problems: list | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


class ConflictError(MemfsError):
    """Optimistic concurrency failed: the memory changed since the caller read it."""


class GitError(MemfsError):
    """A git command failed; the message carries git's own explanation."""


class LockTimeout(MemfsError):
    """Another memfs process held the repository's write lock for too long."""
