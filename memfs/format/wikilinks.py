"""``[[wikilinks]]`` as Obsidian, Letta and basic-memory write them (pure).

Obsidian wants a link in a property quoted: ``depends_on: ["[[facts/b17-status]]"]``; memfs reads
such an entry as the path it names (``facts/b17-status.md``) and leaves the text as the user
wrote it, so the vault keeps showing the link. Reading a file alone can only take the link as a
path from the memory root (Obsidian's "absolute path in vault" link format); a bare name
(``[[b17-status]]`` for ``facts/b17-status.md``) needs the list of files, which only an import
has: :func:`resolve` applies Obsidian's rules there, and the importer rewrites such a link to
its full form so that every later reader needs nothing but the file.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

_LINK = re.compile(r"\[\[([^\[\]|#^]*)((?:#[^\[\]|]*)?)((?:\|[^\[\]]*)?)\]\]")


def is_link(text: str) -> bool:
    """Whether ``text`` is exactly one wikilink (``[[target]]``, ``[[target|alias]]``,
    ``[[target#heading]]``), surrounding spaces aside."""
    return _LINK.fullmatch(text.strip()) is not None


def target(text: str) -> str | None:
    """The note a wikilink names, without heading or alias (``None`` if ``text`` is not one)."""
    match = _LINK.fullmatch(text.strip())
    return match.group(1).strip() if match else None


def as_path(link_target: str) -> str:
    """The root-relative path a link target names when read alone: ``facts/b17`` -> ``facts/b17.md``."""
    name = link_target.strip().lstrip("/")
    return name if name.lower().endswith(".md") else name + ".md"


def dependency_path(entry: str) -> str:
    """A ``depends_on`` entry as a path: a wikilink becomes the path it names, anything else is
    the path as written."""
    found = target(entry)
    return as_path(found) if found else entry


def rewrite(text: str, new_target: str) -> str:
    """``text`` (one wikilink) pointing at ``new_target``, its heading and alias kept."""
    match = _LINK.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a wikilink")
    return f"[[{new_target}{match.group(2)}{match.group(3)}]]"


def links_in(text: str) -> list[str]:
    """Every wikilink target in a text, in order (for relations in a note's body)."""
    return [m.group(1).strip() for m in _LINK.finditer(text) if m.group(1).strip()]


def resolve(link_target: str, from_path: str, paths: Iterable[str]) -> str | None:
    """The file a link from ``from_path`` means among ``paths`` (root-relative ``.md`` paths), by
    Obsidian's rules: the path from the root; else relative to the linking note's folder; else
    the one file with that name (the shortest path when several share it, as Obsidian's
    "shortest path when possible" links assume the name is unique). Case-insensitive like
    Obsidian on macOS and Windows only when nothing matches exactly. ``None``: no such note."""
    wanted = as_path(link_target)
    known = list(paths)
    exact = set(known)
    folder = posixpath.dirname(from_path)
    for candidate in (posixpath.normpath(wanted), posixpath.normpath(posixpath.join(folder, wanted))):
        if candidate in exact:
            return candidate
    if "/" not in wanted.rstrip("/"):
        named = sorted((p for p in known if posixpath.basename(p) == wanted), key=lambda p: (p.count("/"), p))
        if named:
            return named[0]
    lowered = {p.lower(): p for p in sorted(known, key=lambda p: (p.count("/"), p), reverse=True)}
    hit = lowered.get(posixpath.normpath(wanted).lower())
    if hit is None and "/" not in wanted:
        hit = next((p for p in sorted(known, key=lambda p: (p.count("/"), p))
                    if posixpath.basename(p).lower() == wanted.lower()), None)
    return hit
