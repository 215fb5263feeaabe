"""Which literal strings every match of a regular expression must contain (pure), read off the
standard library's own parse tree: the secret scanner searches a text only with the rules whose
required strings occur in it (:func:`memfs.policy.secrets_scan._candidates`), which skips most
rules for most texts without ever skipping one that could match."""

from __future__ import annotations

import importlib
import re
from typing import Any

#: The standard library's own regex parser (no typing stubs): what :func:`_required` reads.
_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")


def required(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Strings one of which every match of ``pattern`` contains, or ``None`` when none is known."""
    return _required(_parser.parse(pattern.pattern, pattern.flags))


def _required(items: Any) -> frozenset[str] | None:
    """Strings one of which every match of the parsed regex ``items`` contains (each a run of
    literal characters it must match in a row), or ``None`` when no such set is known. Read off
    the parse tree: a run of literals in sequence (joined to the literal start of every branch
    right after it), a group, a repeat of at least one, or one alternative of each branch;
    lookarounds and anything optional are never relied on."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def keep(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and (best is None or min(map(len, found)) > min(map(len, best))):
            best = found

    for op, arg in [*items, (None, None)]:
        if op is _sre.LITERAL:
            run.append(chr(arg))
            continue
        before = "".join(run)
        keep(frozenset([before]) if before else None)
        run = []
        if op is _sre.SUBPATTERN:
            keep(_required(arg[-1]))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and arg[0] >= 1:
            keep(_required(arg[2]))
        elif op is _sre.BRANCH:
            alternatives = [_required(branch) for branch in arg[1]]
            if all(alternatives):
                keep(frozenset().union(*alternatives))  # type: ignore[arg-type]
            heads = [_leading_literals(branch) for branch in arg[1]]
            if before and all(heads):
                keep(frozenset(before + head for head in heads))
    return best


def _leading_literals(items: Any) -> str:
    """The literal characters a parsed regex sequence starts with (``""`` if none)."""
    head = []
    for op, arg in items:
        if op is not _sre.LITERAL:
            break
        head.append(chr(arg))
    return "".join(head)


