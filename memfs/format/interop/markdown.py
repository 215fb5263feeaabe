"""A folder of plain Markdown notes, with or without frontmatter (pure).

Each file keeps its text and whatever frontmatter it has; memfs adds what it needs to recall the
note (type, scope, source, source_kind, status) from the defaults given on the command line, and
maps values it would not read (an unknown ``type`` becomes the default type and stays as a tag).
"""

from __future__ import annotations

from collections.abc import Sequence

from memfs.format.interop.common import Converted, Defaults, SourceFile, convert_note, finish

NAME = "markdown"


def convert(files: Sequence[SourceFile], defaults: Defaults) -> list[Converted]:
    out = []
    for file in files:
        draft = convert_note(file, defaults, "file")
        out.append(draft if isinstance(draft, Converted) else finish(draft, defaults.dest(file.rel)))
    return out
