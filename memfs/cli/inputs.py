"""What a command reads besides its words: a JSON object from a file or stdin (``memfs remember
CANDIDATE.json``, ``-``), a body from ``--body-file``. Standard library only (the fast path,
:mod:`memfs.cli.fast`, reads them as the click application does, with the same errors)."""

from __future__ import annotations

import sys
from typing import Any

from memfs.errors import UsageError


def read_json_object(where: str, param: str, what: str = "the candidate") -> dict[str, Any]:
    """The JSON object in the file ``where`` (``-``: stdin), or :class:`UsageError` saying why not."""
    from memfs.format.limits import load_json

    try:
        if where == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(where, "rb") as handle:
                raw = handle.read()
    except OSError as exc:
        raise UsageError(f"{where}: {exc.strerror}", param=param) from None
    try:
        data = load_json(raw, what=what)
    except ValueError as exc:
        raise UsageError(f"{'stdin' if where == '-' else where}: not a JSON object ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f'{what} must be one JSON object, e.g. {{"scope": "user:U5", "body": "..."}}')
    return data


def read_body(body: str | None, body_file: str | None) -> str | None:
    """The body from ``--body`` or ``--body-file`` (``-`` reads stdin; stdin is never read unasked,
    so a caller with an open but silent stdin cannot hang the command)."""
    if body is not None and body_file is not None:
        raise UsageError("give either --body or --body-file, not both")
    if body is not None:
        return body
    if body_file == "-":
        return _decode(sys.stdin.buffer.read(), "stdin")
    if body_file is not None:
        try:
            with open(body_file, "rb") as handle:
                return _decode(handle.read(), body_file)
        except OSError as exc:
            raise UsageError(f"{body_file}: {exc.strerror}", param="body_file") from None
    return None


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{where}: the body is not UTF-8 text") from None
