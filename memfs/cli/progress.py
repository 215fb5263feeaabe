"""The progress bar on stderr, for operations that may take more than a second.

Shown only on a terminal, never when stderr is piped or redirected (a script's log stays clean)
and never with ``--quiet``; and only once an operation has run for :data:`DELAY` seconds, so a
quick command prints nothing at all (the delay counts from the first step the command reports).
Each step the library reports (``indexing``, ``writing the
index``, ``validating``...) gets its own line, drawn as it starts (so each step of a long
operation is named, also the short ones after a counted step); a step of unknown length (git rewriting history,
the index writing its segments) shows a spinner instead of a bar sitting at 100%. The bar is
transient: it disappears when the command ends, leaving only the command's output.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from memfs.store.repo import Store

#: Seconds an operation runs before its bar appears.
DELAY = 0.8


class Bar:
    """A :data:`memfs.store.progress.Progress` reporter drawing rich progress bars on stderr."""

    def __init__(self, delay: float | None = None) -> None:
        self.delay = DELAY if delay is None else delay
        self.started: float | None = None
        self.rich: Progress | None = None
        self.tasks: dict[str, TaskID] = {}
        self.current: str | None = None
        #: The last step drawn at once: a new step is shown when it starts, not at the next tick.
        self.drawn: str | None = None

    def __call__(self, label: str, done: int, total: int | None) -> None:
        if self.rich is None:
            now = time.monotonic()
            if self.started is None:
                self.started = now
            if now - self.started < self.delay:
                return
            self.rich = self._start()
        if label != self.current:
            self._finish_current()
            self.current = label
            self.tasks[label] = self.rich.add_task(label, total=total)
        self.rich.update(self.tasks[label], completed=done, total=total, refresh=label != self.drawn)
        self.drawn = label

    def _start(self) -> Progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        bar = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True,
        )
        bar.start()
        return bar

    def _finish_current(self) -> None:
        if self.rich is not None and self.current is not None:
            task = self.tasks[self.current]
            total = self.rich.tasks[task].total
            self.rich.update(task, completed=total if total is not None else 1, total=total or 1)

    def stop(self) -> None:
        if self.rich is not None:
            self.rich.stop()
            self.rich = None


def wanted(quiet: bool) -> bool:
    """Whether to draw progress: not asked to be quiet, and stderr is a terminal."""
    return not quiet and sys.stderr.isatty()


#: Verbs that serve for a long time (or are git's): a bar there would outlive the operation.
SERVING = frozenset({"watch", "mcp", "merge-driver"})


def install(repo: Store, ctx: click.Context, quiet: bool) -> None:
    """Give ``repo`` a bar for this command (when :func:`wanted`, and not for a serving verb),
    removed when it ends."""
    if not wanted(quiet) or ctx.command.name in SERVING:
        return
    bar = Bar()
    repo.progress = bar
    ctx.call_on_close(bar.stop)


def silence(repo: Store) -> None:
    """No bar for the rest of this command (its own ``--quiet``, or JSON for a program)."""
    from memfs.store.progress import silent

    if isinstance(repo.progress, Bar):
        repo.progress.stop()
    repo.progress = silent
