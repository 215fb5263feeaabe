"""basic-memory notes, imported (pure).

A basic-memory note has frontmatter ``title``, ``type`` (default ``note``; entity types such as
``Person`` or ``Meeting``), ``permalink`` and ``tags`` (a list or a comma-separated string), and a
body whose list items are observations (``- [category] text #tag (context)``) and relations
(``- relation_type [[Target]] (context)``). Mapped:

* ``permalink`` → ``id`` (the stable identifier, as in basic-memory), ``title`` → ``description``
  (what listings show); both keys stay in the file byte for byte, so basic-memory keeps reading it;
* ``type``: a memfs type as it is, a known alias (``Meeting`` → ``episode``), anything else the
  default type, the original kept as a tag;
* relations that say the note was derived from another (:data:`DERIVATION`: ``derived_from``,
  ``based_on``, ``depends_on``, ``summarizes``...) → ``depends_on`` the target's path, when the
  target (by title, permalink or path) is among the imported notes, so lineage sees them; every
  relation and observation stays in the body as written.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from memfs.format import names
from memfs.format.interop.common import (
    Converted,
    Defaults,
    Draft,
    NotReadable,
    SourceFile,
    convert_note,
    finish,
    read_note,
)

NAME = "basic-memory"

#: Relation types (lower case, words joined by ``_``) that say "this note was derived from that one".
DERIVATION = frozenset({
    "derived_from", "derives_from", "based_on", "depends_on", "built_on", "built_from", "extracted_from",
    "summarizes", "summary_of", "source", "sourced_from", "cites", "quotes", "learned_from", "inferred_from",
})
_RELATION = re.compile(r"^[ \t]*[-*+][ \t]+(?!\[)([^\[\]\n]*?)[ \t]*\[\[([^\[\]\n|#]+)[^\[\]\n]*\]\]", re.MULTILINE)
_OBSERVATION = re.compile(r"^[ \t]*[-*+][ \t]+\[[^\[\]\n]+\][ \t]+\S", re.MULTILINE)


def relation_kind(text: str) -> str:
    return re.sub(r"[\s-]+", "_", text.strip().lower())


def convert(files: Sequence[SourceFile], defaults: Defaults) -> list[Converted]:
    targets = _targets(files)
    permalinks: dict[str, str] = {}
    out = []
    for file in files:
        draft = convert_note(file, defaults, NAME)
        if isinstance(draft, Converted):
            out.append(draft)
            continue
        dest = defaults.dest(file.rel)
        why = _identity(draft, permalinks)
        if why:
            out.append(Converted(file.rel, dest, None, problem=why))
            continue
        _relations(draft, targets, defaults, dest)
        out.append(finish(draft, dest))
    return out


def _identity(draft: Draft, permalinks: dict[str, str]) -> str | None:
    meta = draft.note.meta
    permalink = meta.get("permalink")
    if isinstance(permalink, str) and permalink.strip() and meta.get("id") is None:
        problem = names.id_problem(permalink)
        if problem:
            return f"permalink {permalink!r} cannot be an id: it {problem}"
        if permalink in permalinks:
            return f"permalink {permalink!r} is also the permalink of {permalinks[permalink]}"
        permalinks[permalink] = draft.note.rel
        draft.set("id", permalink, "permalink → id", permalink)
    title = meta.get("title")
    if isinstance(title, str) and title.strip() and meta.get("description") is None:
        draft.set("description", title, "title → description", title)
    return None


def _relations(draft: Draft, targets: dict[str, str], defaults: Defaults, dest: str) -> None:
    body = draft.note.body
    observations = len(_OBSERVATION.findall(body))
    if observations:
        draft.keep("observations kept in the body", str(observations))
    existing = draft.get("depends_on")
    deps: list[str] = list(existing) if isinstance(existing, list) else []
    added, unresolved, other = [], [], 0
    for match in _RELATION.finditer(body):
        kind, target = relation_kind(match.group(1)), match.group(2).strip()
        if kind not in DERIVATION:
            other += 1
            continue
        found = targets.get(target) or targets.get(target.lower())
        if found is None:
            unresolved.append(f"{match.group(1).strip()} [[{target}]]")
            continue
        path = defaults.dest(found)
        if path != dest and path not in deps:
            deps.append(path)
            added.append(f"{match.group(1).strip()} [[{target}]] → {path}")
    if added:
        draft.set("depends_on", deps, "relation → depends_on", "; ".join(added))
    if unresolved:
        draft.keep("relations to notes not imported, kept in the body", "; ".join(unresolved))
    if other:
        draft.keep("other relations kept in the body", str(other))


def _targets(files: Sequence[SourceFile]) -> dict[str, str]:
    """What a ``[[Target]]`` may name (title, permalink, path, file name; also in lower case) ->
    the file's path in the source folder. A name two files share names neither."""
    found: dict[str, str] = {}
    clashes: set[str] = set()

    def add(key: object, rel: str) -> None:
        if not isinstance(key, str) or not key.strip():
            return
        for name in {key.strip(), key.strip().lower()}:
            if found.get(name, rel) != rel:
                clashes.add(name)
            found[name] = rel

    for file in files:
        try:
            meta = read_note(file.rel, file.data).meta
        except NotReadable:
            meta = {}
        stem = file.rel.removesuffix(".md")
        add(meta.get("title"), file.rel)
        add(meta.get("permalink"), file.rel)
        add(stem, file.rel)
        add(posixpath.basename(stem), file.rel)
    return {k: v for k, v in found.items() if k not in clashes}
