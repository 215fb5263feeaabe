"""Exit codes and error lines, in one place.

=====  ==============================================================================
code   meaning
=====  ==============================================================================
0      done
1      the command ran and found problems (``memfs validate``)
2      usage error: a bad option or value (click's own, or :class:`~memfs.errors.UsageError`)
3      refused or failed: any other memfs error (not found, conflict, refused by a rule,
       invalid content, git failed) or an operating-system error; nothing was changed
130    interrupted (Ctrl-C)
=====  ==============================================================================

Every error is one line on stderr, ``memfs: error: <message>``: memfs's own, click's usage errors
(with a hint naming the verb's ``--help``) and Ctrl-C alike. A verb given ``--json`` also prints
the error as a JSON object on stdout, ``{"error": {"type": ..., "message": ..., "exit": N}}``
(:func:`memfs.cli.output.failure`), so a program reading stdout always gets JSON.

Library errors name the argument at fault in library terms (``param="reason"``); here it
becomes the option the user typed (``--reason``), and a refusal a person may override says
that ``--force`` does, when the command has that option.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

import click

from memfs.errors import MemfsError, UsageError

OK = 0
PROBLEMS = 1
USAGE = 2
FAILED = 3
INTERRUPTED = 130


#: What a refusal a person may override says where the command has ``--force``.
FORCE_HINT = " (a person may override this with --force)"
#: The ``type`` of the JSON error for Ctrl-C (or a prompt answered no).
INTERRUPTED_TYPE = "Interrupted"
#: The ``type`` of the JSON error for click's usage errors (memfs's own UsageError has the same name).
USAGE_TYPE = "UsageError"


def code(exc: BaseException) -> int:
    """The exit code for an error that ended a command."""
    return USAGE if isinstance(exc, UsageError) else FAILED


def option_name(command: click.Command | None, param: str) -> str:
    """How the user spells ``param`` on ``command``: ``--reason``, ``QUERY``, or the name itself."""
    flag = "--" + param.replace("_", "-")
    for item in command.params if command is not None else ():
        if item.name == param or (item.name or "").rstrip("_") == param or flag in item.opts:
            if isinstance(item, click.Option):
                return max(item.opts, key=len)
            return (item.metavar or item.name or param).upper()
    return param


def message(exc: MemfsError, command: click.Command | None) -> str:
    """The one line printed for ``exc`` raised by ``command``."""
    text = f"{option_name(command, exc.param)}: {exc.message}" if exc.param else str(exc)
    if exc.forceable and command is not None and any(p.name == "force" for p in command.params):
        text += FORCE_HINT
    return text


def wants_json(command: click.Command | None, args: list[str]) -> bool:
    """Whether ``command`` was asked for JSON: it has ``--json`` and ``args`` (its own, unparsed)
    give it before a ``--``. Read from the words, so that an error found while parsing the other
    options still answers in JSON."""
    if command is None or not any("--json" in p.opts for p in command.params if isinstance(p, click.Option)):
        return False
    words = args[: args.index("--")] if "--" in args else args
    return "--json" in words


def usage_line(exc: click.ClickException) -> str:
    """Click's error as one line: its message, and for a usage error, where help is."""
    text = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        text = f"{text.rstrip('.')} (see '{ctx.command_path} --help')"
    return text


class Stopper:
    """How a verb that serves until stopped (``watch``, ``serve``) stops: SIGINT and SIGTERM set
    :attr:`event`, the verb finishes cleanly, then :meth:`done` ends it as the signal asks: after
    SIGTERM (a service manager's stop) normally, after Ctrl-C as any interrupted verb does (130)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signum: int | None = None
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, self._stop)

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        self.event.set()

    def done(self) -> None:
        if self.signum == signal.SIGINT:
            raise KeyboardInterrupt
