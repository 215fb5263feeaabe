"""Split a memory file into its exact parts and join them back byte for byte.

python-frontmatter strips the body, normalises line endings and loses a UTF-8 BOM (see
``shared/notes/dependencies.md`` §4), so memfs keeps its own splitter: the frontmatter text and
the body are kept exactly as they are on disk, and :meth:`Document.render` reproduces the input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

BOM = "\ufeff"
_FENCE = re.compile(r"---[ \t]*(\r\n|\n|\r)?")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r\n|\n|\r|$)", re.MULTILINE)


class SplitError(ValueError):
    """The text has no frontmatter block, or it is not closed; ``line`` is 1-based."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class Document:
    """The exact text of a memory file, cut into frontmatter and body.

    ``opening`` and ``closing`` are the fence lines including their line endings; ``frontmatter``
    is the YAML between them (ending with its last newline); ``body`` is everything after.
    """

    bom: bool
    opening: str
    frontmatter: str
    closing: str
    body: str

    @property
    def newline(self) -> str:
        """The line ending the file uses, so edits keep CRLF files CRLF."""
        for ending in ("\r\n", "\n", "\r"):
            if self.opening.endswith(ending):
                return ending
        return "\n"

    @property
    def body_line(self) -> int:
        """1-based line number where the body starts (for error messages)."""
        return 2 + _count_lines(self.frontmatter) + (1 if self.closing else 0)

    def render(self) -> str:
        return (BOM if self.bom else "") + self.opening + self.frontmatter + self.closing + self.body

    def with_frontmatter(self, frontmatter: str) -> Document:
        return replace(self, frontmatter=frontmatter)

    def with_body(self, body: str) -> Document:
        return replace(self, body=body)


def _count_lines(text: str) -> int:
    return len(text.splitlines())


def split(text: str) -> Document:
    """Cut ``text`` into a :class:`Document`; raise :class:`SplitError` if there is no frontmatter."""
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    opening = _FENCE.match(text)
    if opening is None or opening.group(1) is None:
        raise SplitError("the file does not start with a '---' frontmatter line", 1)
    rest = text[opening.end() :]
    closing = _CLOSE.search(rest)
    if closing is None:
        raise SplitError("the frontmatter block is never closed with a '---' line", 1)
    return Document(
        bom=bom,
        opening=opening.group(0),
        frontmatter=rest[: closing.start()],
        closing=closing.group(0),
        body=rest[closing.end() :],
    )


_CONFLICT_OPEN = re.compile(r"^<{7,}(?:[ \t].*)?$", re.MULTILINE)
_CONFLICT_SEP = re.compile(r"^={7,}[ \t]*$", re.MULTILINE)
_CONFLICT_CLOSE = re.compile(r"^>{7,}(?:[ \t].*)?$", re.MULTILINE)


def conflict_marker_line(text: str) -> int | None:
    """1-based line of the first unresolved git conflict (``<<<<<<<`` then ``=======`` then
    ``>>>>>>>`` at line starts), or ``None``. Such a file is never a valid memory."""
    if "<<<<<<<" not in text:
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for opening in _CONFLICT_OPEN.finditer(text):
        sep = _CONFLICT_SEP.search(text, opening.end())
        if sep is not None and _CONFLICT_CLOSE.search(text, sep.end()) is not None:
            return text.count("\n", 0, opening.start()) + 1
    return None


def compose(frontmatter: str, body: str) -> Document:
    """A new document with LF line endings, as the canonical writer makes them."""
    if frontmatter and not frontmatter.endswith("\n"):
        frontmatter += "\n"
    return Document(bom=False, opening="---\n", frontmatter=frontmatter, closing="---\n", body=body)
