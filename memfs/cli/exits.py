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

Library errors name the argument at fault in library terms (``param="reason"``); here it
becomes the option the user typed (``--reason``), and a refusal a person may override says
that ``--force`` does, when the command has that option.
"""

from __future__ import annotations

import click

from memfs.errors import MemfsError, UsageError

OK = 0
PROBLEMS = 1
USAGE = 2
FAILED = 3
INTERRUPTED = 130


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
        text += " (a person may override this with --force)"
    return text
