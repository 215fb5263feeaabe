"""The ``memfs`` command. Each verb lives in its own module and is imported only when run, so
that a one-shot call (an agent running ``memfs search``) pays only for what it uses.

Every verb is one call on the library (:class:`memfs.api.MemoryRepo`); this layer only parses
arguments and prints results (:mod:`memfs.cli.output`). Errors become one line and an exit code
(:mod:`memfs.cli.exits`), for the real entry point and for ``click.testing.CliRunner`` alike.

This package's own module loads nothing: :func:`main` first lets :mod:`memfs.cli.fast` answer a
``search``, ``context`` or ``remember`` that a running live index can serve (without importing
click, the verbs' modules or the library), and otherwise runs the click application
(:mod:`memfs.cli.app`), whose names (``cli``, ``State``, ``COMMANDS``...) are also read here.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memfs.cli.app import COMMANDS as COMMANDS
    from memfs.cli.app import LazyGroup as LazyGroup
    from memfs.cli.app import State as State
    from memfs.cli.app import Verb as Verb
    from memfs.cli.app import cli as cli


def main(argv: list[str] | None = None) -> None:
    """Entry point (the ``memfs`` script and ``python -m memfs``): the fast path when it answers
    (:func:`memfs.cli.fast.run`), else the whole command line (:func:`memfs.cli.app.main`).

    Run as the process's entry (``argv`` not given: the process's own command line), it freezes
    the heap when the command is over (:func:`gc.freeze`), so the interpreter's teardown does not
    walk every object of every imported module for cycles: ~10% of a short command's CPU. Called
    with ``argv`` (tests, benchmarks, in a process that goes on), it leaves the collector alone."""
    import sys

    from memfs.cli import fast

    try:
        code = fast.run(sys.argv[1:] if argv is None else list(argv))
        if code is not None:
            sys.exit(code)
        from memfs.cli import app

        try:
            app.main(argv)
        finally:
            fast.forget()
    finally:
        if argv is None:
            import gc

            gc.freeze()


def __getattr__(name: str) -> Any:
    if name in ("COMMANDS", "LazyGroup", "State", "Verb", "cli"):
        from memfs.cli import app

        return getattr(app, name)
    raise AttributeError(f"module 'memfs.cli' has no attribute {name!r}")
