"""memfs: long-term memory for LLM agents as Markdown files in a git repository.

The library and the ``memfs`` command have the same power: every CLI verb is one method of
:class:`MemoryRepo` (``memfs.MemoryRepo.open(path)`` / ``memfs.MemoryRepo.init(path)``).
Names are loaded on first use, so ``import memfs`` costs almost nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: public name -> module that defines it
_EXPORTS = {
    "MemoryRepo": "memfs.api",
    "MemoryRepos": "memfs.repos",
    # records
    "Memory": "memfs.format.model",
    "Problem": "memfs.format.model",
    "Candidate": "memfs.policy.candidate",
    "CommitResult": "memfs.store.repo",
    "Transaction": "memfs.store.repo",
    "LogEntry": "memfs.store.history",
    "FileDiff": "memfs.store.history",
    "Revision": "memfs.store.history",
    "SearchResult": "memfs.index.results",
    "Hit": "memfs.index.results",
    "Outcome": "memfs.ops.remember",
    "RetractResult": "memfs.ops.retract",
    "Context": "memfs.agents.context",
    "ToolContext": "memfs.agents.tools",
    "ToolResult": "memfs.agents.tools",
    "Grants": "memfs.policy.guard",
}
_ERRORS = (
    "MemfsError UsageError NotFound MemoryNotFound NotAMemoryRepo ConflictError LockTimeout Refused PathError "
    "WriteRefused SyncRefused InvalidMemory TranscriptError InvalidConfig GitError"
).split()
_EXPORTS.update(dict.fromkeys(_ERRORS, "memfs.errors"))

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'memfs' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__
