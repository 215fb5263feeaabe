"""Reading the docs' Markdown as GitHub renders it: the prose outside code blocks, and the anchors
its headings get. Shared by the tests that hold the docs to the code (tests/unit/test_docs.py,
tests/cli/test_commands.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from pathlib import Path


def prose(text: str) -> Iterator[str]:
    """The lines of a Markdown page outside fenced code blocks (``` or ~~~, any length)."""
    fence: str | None = None
    for line in text.splitlines():
        opened = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and re.fullmatch(rf"\s*{fence[0]}{{{len(fence)},}}\s*", line):
            fence = None
        elif fence is None:
            yield line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces
    to hyphens."""
    text = heading.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in prose(page.read_text(encoding="utf-8")):
        heading = re.match(r"#{1,6} (.*)", line)
        if heading:
            base = slug(heading.group(1))
            found.add(base if base not in seen else f"{base}-{seen[base]}")
            seen[base] = seen.get(base, 0) + 1
    return frozenset(found)
