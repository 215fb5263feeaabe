"""The limits every input is held to, and the one safe loader for JSON requests.

A file or a request is data from anyone: an agent, a merge, a hand edit. Whatever it holds, reading
it must end quickly with a value or with one error naming the limit it broke, never with an
exception from deep inside a parser (a 5,000-digit integer, a self-referencing YAML anchor, an
alias bomb that expands to millions of values, JSON nested 3,000 levels deep, ``NaN``, a lone
surrogate). :func:`check` walks a loaded value iteratively with a budget, so it cannot itself be
made slow or recursive; :mod:`memfs.format.yamlio` runs it after every YAML load and
:func:`load_json` after every JSON load. The numbers are :class:`Limits` (the defaults below, or
``[limits]`` in ``.memfs.toml``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one memory file, one frontmatter and one request may hold."""

    #: bytes of one memory file (read and written)
    file_bytes: int = 1_000_000
    #: characters of one frontmatter string value (JSON request strings may be ``file_bytes``)
    value_chars: int = 100_000
    #: nesting of lists and mappings
    depth: int = 32
    #: values in one document, counted with every alias expanded
    nodes: int = 10_000
    #: digits of one integer
    int_digits: int = 100


DEFAULT = Limits()

#: the names of the settings, for ``[limits]`` in ``.memfs.toml`` and the README
FIELDS = ("file_bytes", "value_chars", "depth", "nodes", "int_digits")


class LimitError(ValueError):
    """A value breaks one of the :class:`Limits`; the message names the limit."""


def check(value: Any, limits: Limits = DEFAULT, *, strings: int | None = None, finite: bool = False) -> None:
    """Raise :class:`LimitError` if ``value`` (lists, dicts, scalars; shared or cyclic
    references counted every time they are reached) is nested too deeply, has too many values,
    too long a string (``strings`` characters, default ``limits.value_chars``), too large an
    integer, a string that is not valid Unicode (a lone surrogate) or, with ``finite``, a
    float that is NaN or infinite."""
    max_chars = limits.value_chars if strings is None else strings
    max_bits = int(limits.int_digits * 3.33)  # a little under the digits' worth of bits
    budget = limits.nodes
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if budget < 0:
            raise LimitError(f"has more than {limits.nodes} values (limits.nodes; YAML aliases count each time)")
        if isinstance(item, str):
            if len(item) > max_chars:
                raise LimitError(f"has a text value of {len(item)} characters, over the {max_chars}-character limit")
            if item.isascii():
                continue
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise LimitError("has text that is not valid Unicode (a lone surrogate)") from None
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int):
            if item.bit_length() > max_bits:
                raise LimitError(f"has an integer over the {limits.int_digits}-digit limit (limits.int_digits)")
        elif isinstance(item, float):
            if finite and not math.isfinite(item):
                raise LimitError(f"has a number that is not finite ({item!r})")
        elif isinstance(item, dict | list | tuple | set):
            if depth >= limits.depth:
                raise LimitError(f"is nested deeper than {limits.depth} levels (limits.depth), or refers to itself")
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else list(item)
            stack.extend((child, depth + 1) for child in children)


def digits_ok(text: str, limits: Limits = DEFAULT) -> bool:
    """Whether the written integer ``text`` (sign, ``_`` and a ``0x``/``0o``/``0b`` prefix allowed)
    is within ``limits.int_digits``: checked before converting, since Python refuses to convert
    more than 4,300 digits and a conversion of a million digits takes seconds."""
    return sum(c.isalnum() for c in text) <= limits.int_digits + 2


def load_json(data: bytes | str, limits: Limits = DEFAULT, what: str = "the request") -> Any:
    """Parse a JSON request safely: ``ValueError`` (a :class:`LimitError` for a broken limit)
    with one line saying why, for anything that is not UTF-8 JSON within the limits. ``NaN`` and
    ``Infinity`` are refused; a string may be as long as a whole file."""
    if len(data) > 4 * limits.file_bytes:
        raise LimitError(f"{what} is {len(data)} bytes, over the {4 * limits.file_bytes}-byte limit")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{what} is not UTF-8 (byte {exc.start}); send JSON as UTF-8") from None

    def constant(name: str) -> Any:
        raise LimitError(f"{what} has {name}, which is not a number JSON allows")

    def integer(text: str) -> int:
        if not digits_ok(text, limits):
            raise LimitError(f"{what} has an integer over the {limits.int_digits}-digit limit")
        return int(text)

    try:
        value = json.loads(data, parse_constant=constant, parse_int=integer)
    except LimitError:
        raise
    except RecursionError:
        raise LimitError(f"{what} is nested deeper than {limits.depth} levels") from None
    except ValueError as exc:
        raise ValueError(f"{what} is not valid JSON: {exc}") from None
    try:
        check(value, limits, strings=limits.file_bytes, finite=True)
    except LimitError as exc:
        raise LimitError(f"{what} {exc}") from None
    return value
