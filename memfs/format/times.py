"""Times as memfs reads them, in files and as asked (``--at``, ``at``, ``--expires``).

Kept apart from :mod:`memfs.format.validate` (which loads YAML) so that a command that only reads
a time it was given, such as a ``memfs search --at`` the live server answers, loads neither.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from memfs.errors import UsageError

_DATE_ONLY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def parse_time(value: Any) -> dt.datetime | None:
    """A zoned datetime from YAML (a date, a datetime) or an ISO 8601 string; ``None`` if invalid.

    A date without a time is 00:00 UTC that day; a date-time without a zone is taken as UTC
    (:func:`is_naive` tells the caller to warn about it)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = (
                dt.date.fromisoformat(text)
                if _DATE_ONLY.fullmatch(text)
                else dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            )
        except ValueError:
            return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    return None


def is_naive(value: Any) -> bool:
    """Whether ``value`` is a date-time written without a zone (a date alone is not)."""
    if isinstance(value, str) and not _DATE_ONLY.fullmatch(value.strip()):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return False
    return isinstance(value, dt.datetime) and value.tzinfo is None


def given_time(text: Any, name: str) -> dt.datetime:
    """A time a person or a model asked for (``--at``, ``at``, ``--expires``), read as the file
    format reads times (a date alone is 00:00 UTC that day), except that a date-time without a
    zone is refused: whoever wrote it can say which zone. ``name`` is how the caller wrote the
    field, for the :class:`~memfs.errors.UsageError`."""
    value = parse_time(text) if isinstance(text, str) else None
    if value is None:
        raise UsageError(f"{name} {text!r}: not an ISO 8601 time; write it like 2026-12-31T00:00:00Z")
    if is_naive(text):
        raise UsageError(f"{name} {text!r}: has no time zone; add one, e.g. {text.strip()}Z")
    return value
