"""memfs: long-term memory for LLM agents as Markdown files in a git repository.

The library and the ``memfs`` command have the same power: every CLI verb is one call here.
Start with :class:`memfs.store.repo.MemoryRepo` (``MemoryRepo.open(path)`` / ``MemoryRepo.init(path)``).
"""

from memfs.errors import MemfsError
from memfs.format.model import Memory, Problem

__all__ = ["MemfsError", "Memory", "MemoryRepo", "Problem"]


def __getattr__(name: str):
    if name == "MemoryRepo":
        from memfs.store.repo import MemoryRepo

        return MemoryRepo
    raise AttributeError(name)
