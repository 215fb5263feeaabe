"""``MODULE:FUNCTION`` settings (the summariser, the judge) turned into the callables they name.

Its own module, with nothing but the standard library under it, so a command that only parses
its options (``memfs search`` answered by the live index) loads neither YAML nor the gate.
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from typing import Any

from memfs.errors import UsageError


def load_callable(spec: str, param: str, *, outside: Path | None = None) -> Any:
    """The callable ``MODULE:FUNCTION`` names, imported from this Python's path; with ``outside``,
    a module whose file lies under that folder is refused (the repository's own code).
    :class:`UsageError` naming ``param`` otherwise."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise UsageError(f"{spec!r}: give it as MODULE:FUNCTION, e.g. mytools.summaries:summarise", param=param)
    parts = module.split(".")
    for end in range(1, len(parts) + 1):
        found_spec = importlib.util.find_spec(".".join(parts[:end]))
        if found_spec is None:
            raise UsageError(f"{spec!r}: no module {'.'.join(parts[:end])!r} in this Python", param=param)
        origin = found_spec.origin
        if outside is not None and origin and Path(origin).resolve().is_relative_to(outside.resolve()):
            raise UsageError(f"{spec!r}: {origin} is inside the memory repository; memfs does not run code a "
                             "repository brings with it", param=param)
    found = getattr(importlib.import_module(module), name, None)
    if found is None:
        raise UsageError(f"{spec!r}: {module} has no {name!r}", param=param)
    if not callable(found):
        raise UsageError(f"{spec!r}: is not callable", param=param)
    return found
