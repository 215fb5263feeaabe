"""How long operations tell someone how far they are (the CLI draws a bar from it).

An operation that may take more than a second on a large repository (building or catching up
the search index, validating, importing, exporting, purging) calls the store's reporter, a
:data:`Progress`, as it goes: ``progress(label, done, total)``, where ``total`` is ``None`` for a
step whose length is unknown (git rewriting history, the index writing its segments). The
library's default reporter does nothing; the caller decides whether and how to show it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

Progress = Callable[[str, int, "int | None"], None]


def silent(label: str, done: int, total: int | None) -> None:
    """The default reporter: nobody is watching."""


def counted(progress: Progress, label: str, items: Iterable[T], total: int) -> Iterator[T]:
    """``items`` unchanged, reporting each one done to ``progress`` under ``label``."""
    progress(label, 0, total)
    for done, item in enumerate(items, start=1):
        yield item
        progress(label, done, total)
