"""The forms a context is rendered in (the ``context`` verb's ``format``)."""

from __future__ import annotations

from typing import Literal, TypeGuard

Format = Literal["markdown", "xml", "json"]
FORMATS: tuple[Format, ...] = ("markdown", "xml", "json")


def is_format(value: object) -> TypeGuard[Format]:
    return value in FORMATS
