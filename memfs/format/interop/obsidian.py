"""An Obsidian vault, imported or converted in place (pure).

Obsidian keeps notes as Markdown with YAML properties; its own settings live in ``.obsidian/``
(hidden, so never a memory). What needs mapping:

* **Links in ``depends_on``.** Obsidian shows a property value as a link only when it is a
  quoted wikilink (``depends_on: ["[[facts/b17-status]]"]``). memfs reads such an entry as the
  path it names and leaves the text as written. A link by bare name (``[[b17-status]]``) is
  resolved here with Obsidian's rules against the vault's notes and rewritten with its folder
  (``[[facts/b17-status]]``, alias and heading kept), so it stays a link in Obsidian and names
  one file for every later reader; a link to no note makes the file unimportable (memfs would
  report the missing dependency anyway). A single link written as text becomes a list of one.
* **Dates.** Obsidian's date property (``2020-08-21``) and date-time property
  (``2020-08-21T10:30:00``, no zone) are read by memfs as they are (00:00 UTC; UTC with a
  warning), so they are kept as written.
* **Tags** written as text (``tags: a, b`` or with ``#``) become a list.
* Everything else (``aliases``, ``cssclasses``, any property) is kept untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memfs.format import wikilinks
from memfs.format.interop.common import Converted, Defaults, Draft, SourceFile, convert_note, finish, unreadable

NAME = "obsidian"


def convert(files: Sequence[SourceFile], defaults: Defaults) -> list[Converted]:
    vault = [f.rel for f in files]
    out = []
    for file in files:
        draft = convert_note(file, defaults, NAME)
        if isinstance(draft, Converted):
            out.append(draft)
            continue
        why = _links(draft, vault, defaults)
        dest = defaults.dest(file.rel)
        out.append(unreadable(file.rel, dest, why) if why else finish(draft, dest))
    return out


def _links(draft: Draft, vault: list[str], defaults: Defaults) -> str | None:
    """Resolve the ``depends_on`` wikilinks of ``draft``; why the note cannot be imported, or ``None``."""
    value: Any = draft.get("depends_on")
    if value is None:
        return None
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        return None
    rel = draft.note.rel
    out: list[str] = []
    rewritten: list[str] = []
    for entry in entries:
        target = wikilinks.target(entry)
        if target is None:
            out.append(entry)
            continue
        found = wikilinks.resolve(target, rel, vault)
        if found is None:
            return f"depends_on {entry}: no such note in the vault"
        dest = defaults.dest(found)
        if wikilinks.as_path(target) == dest:
            out.append(entry)
        else:
            new = wikilinks.rewrite(entry, dest.removesuffix(".md"))
            rewritten.append(f"{entry} → {new}")
            out.append(new)
    if rewritten or isinstance(value, str):
        detail = "; ".join(rewritten) if rewritten else "one link written as a list"
        draft.set("depends_on", out, "depends_on links", detail)
    elif any(wikilinks.is_link(e) for e in out):
        draft.keep("depends_on links kept as written", ", ".join(e for e in out if wikilinks.is_link(e)))
    return None
