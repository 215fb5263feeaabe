"""Letta's git-backed memory (MemFS), both ways (pure).

Letta Code keeps an agent's memory as Markdown files in a git repository: everything under
``system/`` is core memory, always in the agent's context, and a file's path without ``.md`` is
its block label (``system/persona``); other folders (``reference/``...) are shown as a tree; a
skill is ``skills/<name>/SKILL.md``. Frontmatter holds ``description`` (required), ``limit``
(characters, a legacy key) and ``read_only``, and Letta's pre-commit hook refuses every other
key in ``system/`` and ``reference/`` files, and flat ``skills/<name>.md`` files.

**In.** Paths (so labels) stay as they are; ``description``, ``limit`` and ``read_only`` mean in
memfs what they mean in Letta and are kept; memfs adds its own fields (``type``: ``note``, or
``procedure`` for a skill; ``source: letta:<label>``; ``source_kind: agent``, since a Letta
agent writes its own memory; ``scope`` from the command line for files outside ``system/``).

**Out.** Each memory becomes a file the hook accepts: ``description`` (the memory's, else
its first line of text, since Letta requires one), ``limit`` and ``read_only`` in the
frontmatter, then the body byte for byte. Outside the folders the hook checks (a skill's
``SKILL.md``), the other keys that are not memfs's own (``name``, ``license``,
``allowed-tools``...) go out too, as Letta wrote them. memfs's own fields go to a sidecar,
:data:`SIDECAR` at the top of the Letta folder (a dotfile, which Letta neither injects nor
validates), holding for each file the exact text memfs had before the body and the Letta values
written. Importing an export restores those bytes, applying only what changed on Letta's side
(a new description, an edited body), so export → import gives back every byte and re-importing
an unchanged export changes nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memfs.format import yamlio
from memfs.format.document import Document, SplitError, split
from memfs.format.interop.common import (
    Converted,
    Defaults,
    NotReadable,
    SourceFile,
    Step,
    convert_note,
    digest,
    finish,
    read_note,
    unreadable,
)
from memfs.format.model import FIELDS, SYSTEM_DIR

NAME = "letta"
SIDECAR = ".memfs-letta.json"
SIDECAR_FORMAT = "memfs-letta-sidecar/1"
#: The only frontmatter keys Letta's pre-commit hook accepts.
LETTA_KEYS = ("description", "limit", "read_only")
#: Folders whose files the hook validates.
CHECKED_DIRS = ("system", "reference")
_DESCRIPTION_WIDTH = 120


def label(rel: str) -> str:
    """A file's block label: its path without ``.md``."""
    return rel.removesuffix(".md")


def letta_path(memfs_rel: str) -> str:
    """Where a memory goes in Letta: the same path, except a flat skill file, which Letta
    refuses, becomes ``skills/<name>/SKILL.md``."""
    parts = memfs_rel.split("/")
    if len(parts) == 2 and parts[0] == "skills" and parts[1] != "SKILL.md":
        return f"skills/{parts[1].removesuffix('.md')}/SKILL.md"
    return memfs_rel


def _is_skill(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) == 3 and parts[0] == "skills" and parts[2] == "SKILL.md"


# --- in -------------------------------------------------------------------------------------
def convert(
    files: Sequence[SourceFile], defaults: Defaults, sidecar: Mapping[str, Any] | None = None
) -> list[Converted]:
    """Letta files as memories; those a memfs export wrote (named in ``sidecar``) come back as
    memfs had them, with Letta's changes applied."""
    entries = (sidecar or {}).get("files", {})
    out = []
    for file in files:
        entry = entries.get(file.rel)
        if isinstance(entry, dict):
            out.append(_restore(file, entry, defaults))
            continue
        kind = "procedure" if _is_skill(file.rel) else defaults.type or "note"
        draft = convert_note(file, defaults, NAME, default_type=kind, default_kind="agent", origin=label(file.rel))
        if isinstance(draft, Converted):
            out.append(draft)
            continue
        kept = [k for k in LETTA_KEYS if k in draft.note.meta]
        if kept:
            draft.keep("Letta fields kept", ", ".join(kept))
        if file.rel.startswith(SYSTEM_DIR + "/"):
            draft.keep("core memory block", label(file.rel))
        out.append(finish(draft, defaults.dest(file.rel)))
    return out


def _restore(file: SourceFile, entry: Mapping[str, Any], defaults: Defaults) -> Converted:
    dest = defaults.dest(str(entry.get("memfs_path") or file.rel))
    head = entry.get("head")
    given = entry.get("letta")
    exported: Mapping[str, Any] = given if isinstance(given, dict) else {}
    if not isinstance(head, str):
        return unreadable(file.rel, dest, f"its {SIDECAR} entry has no 'head'")
    try:
        note = read_note(file.rel, file.data)
        original = split(head)
        before = yamlio.load(original.frontmatter) if original.frontmatter.strip() else {}
    except (NotReadable, SplitError, yamlio.YamlError) as exc:
        return unreadable(file.rel, dest, f"cannot be matched with its {SIDECAR} entry ({exc})")
    changes: dict[str, Any] = {}
    for key in LETTA_KEYS:
        if note.meta.get(key) != exported.get(key):
            changes[key] = note.meta.get(key)
    for key, value in note.meta.items():
        if key not in LETTA_KEYS and before.get(key) != value:
            changes[key] = value
    steps = [Step("restored from the export's sidecar", str(entry.get("memfs_path") or file.rel))]
    steps += [Step("changed in Letta", f"{key}: {value!s}") for key, value in changes.items()]
    try:
        frontmatter = (
            yamlio.edit_checked(original.frontmatter, changes, original.newline, before=before)[0]
            if changes else original.frontmatter
        )
    except ValueError as exc:
        return unreadable(file.rel, dest, f"Letta's changes could not be applied ({exc})")
    if note.body != original.body and original.body:
        steps.append(Step("changed in Letta", "the text"))
    content = Document(original.bom, original.opening, frontmatter, original.closing, note.body).render()
    return Converted(file.rel, dest, content.encode("utf-8"), tuple(steps), (Step("text kept byte for byte"),))


# --- out ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Exported:
    """One memory as a Letta file: its path there, its bytes, and its sidecar entry."""

    memfs_path: str
    path: str
    content: bytes
    entry: dict[str, Any]
    generated_description: bool


def export_file(rel: str, data: bytes) -> Exported:
    """The Letta file for the memory at ``rel`` (bytes ``data``, a valid memory)."""
    doc = split(data.decode("utf-8"))
    meta = yamlio.load(doc.frontmatter) if doc.frontmatter.strip() else {}
    values: dict[str, Any] = {}
    description = meta.get("description")
    generated = not (isinstance(description, str) and description.strip())
    values["description"] = first_line(doc.body) or label(rel) if generated else description
    limit = meta.get("limit")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        values["limit"] = limit
    if isinstance(meta.get("read_only"), bool):
        values["read_only"] = meta["read_only"]
    if rel.split("/", 1)[0] not in CHECKED_DIRS:
        values.update((k, v) for k, v in meta.items() if k not in FIELDS and k not in values)
    head = "---\n" + yamlio.render(values, ("name", *LETTA_KEYS)) + "---\n"
    content = (head + doc.body).encode("utf-8")
    path = letta_path(rel)
    entry = {
        "memfs_path": rel,
        "head": Document(doc.bom, doc.opening, doc.frontmatter, doc.closing, "").render(),
        "letta": values,
        "digest": digest(content),
    }
    return Exported(rel, path, content, entry, generated)


def first_line(body: str) -> str:
    """The first line of text of a body, without Markdown heading or list marks, cut to a line."""
    for line in body.splitlines():
        text = re.sub(r"^\s*(?:#+|[-*+]|>)\s*", "", line).strip()
        if text and not text.startswith("<!--"):
            return text if len(text) <= _DESCRIPTION_WIDTH else text[: _DESCRIPTION_WIDTH - 1] + "…"
    return ""


def sidecar_text(entries: Mapping[str, Mapping[str, Any]]) -> str:
    """The sidecar file: stable JSON (sorted, one entry per Letta path), so re-exports diff cleanly."""
    return json.dumps({"format": SIDECAR_FORMAT, "files": dict(sorted(entries.items()))},
                      ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def read_sidecar(text: str | None) -> dict[str, Any]:
    """A sidecar's content (empty when there is none); ``ValueError`` when it is not one."""
    if text is None:
        return {"files": {}}
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != SIDECAR_FORMAT or not isinstance(data.get("files"), dict):
        raise ValueError(f"{SIDECAR} is not a memfs export sidecar ({SIDECAR_FORMAT})")
    return data


def hook_problems(rel: str, text: str) -> list[str]:
    """What Letta's pre-commit hook would say about the file ``rel`` (empty: it passes), by its
    documented rules: flat skill files are refused; in ``system/`` and ``reference/`` the file
    starts with a ``---`` line, closes its frontmatter, names only :data:`LETTA_KEYS`, one per
    line, and has a non-empty ``description``. (The hook also refuses changing a file that is
    ``read_only: true`` in HEAD, which needs the repository's history, not the file.)"""
    parts = rel.split("/")
    if parts[0] == "memory":
        parts = parts[1:]
    found = []
    if len(parts) == 2 and parts[0] == "skills":
        found.append("invalid skill path (skills must be folders): use skills/<name>/SKILL.md")
    if parts[0] not in CHECKED_DIRS:
        return found
    lines = text.split("\n")
    if lines[0] != "---":
        return [*found, "missing frontmatter (must start with ---)"]
    try:
        closing = lines.index("---", 1)
    except ValueError:
        return [*found, "frontmatter opened but never closed (missing closing ---)"]
    has_description = False
    for line in lines[1:closing]:
        if not line or line[0] in " \t":
            continue
        key, _, value = line.partition(":")
        key = key.replace(" ", "")
        if key not in LETTA_KEYS:
            found.append(f"unknown frontmatter key {key!r} (allowed: {' '.join(LETTA_KEYS)})")
        if key == "description":
            has_description = True
            if not value.strip():
                found.append("'description' must not be empty")
    if not has_description:
        found.append("missing required field 'description'")
    return found

