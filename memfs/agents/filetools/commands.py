"""One runner per file-tool command (:func:`~memfs.agents.filetools.engine.runs`), for every door:
what each command reads, checks and writes. What a door says and shows is its own
(:class:`~memfs.agents.filetools.engine.Door`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from typing import Any

from memfs.agents import filetext
from memfs.agents.filetext import MAX_FILE_BYTES, NAME_KEY, check_text, view_text
from memfs.agents.filetools.engine import Entry, Outcome, Run, decoded, meta_of, runs
from memfs.agents.reference import numbered
from memfs.agents.verbs import (
    Append,
    Create,
    Delete,
    FileCommand,
    Insert,
    Rename,
    ReplaceSection,
    StrReplace,
    UpdateDescription,
    View,
)
from memfs.errors import ConflictError, InvalidMemory, MemoryNotFound, Refused, UsageError
from memfs.format import yamlio
from memfs.format.document import split
from memfs.format.names import default_id
from memfs.format.parse import load_document, parse


@runs(View)
def _view(run: Run, op: View) -> Outcome:
    rel = run.rel(op.path)
    entry = run.file(rel)
    if entry is None:
        listed = run.door.listing(run, op.path, rel)
        if listed is None:
            raise MemoryNotFound(run.say("not_found", path=op.path, where=run.door.where(rel)))
        return Outcome(op, listed, rel or ".")
    if len(entry.data) > MAX_FILE_BYTES and op.view_range is None:
        raise UsageError(run.say("too_large", path=op.path, where=run.door.where(rel), size=len(entry.data)))
    decoded(entry.stored, entry.data)
    shown = run.door.show(op.path, view_text(entry.stored, entry.data), op.view_range)
    try:
        revision: int | None = parse(entry.stored, entry.data).revision
    except InvalidMemory:
        revision = None
    return Outcome(op, shown, entry.stored, revision=revision)


@runs(Create)
def _create(run: Run, op: Create) -> Outcome:
    rel = run.rel(op.path)
    if not rel:
        raise UsageError(run.say("is_folder", path=op.path, where=run.door.where(rel)))
    where = run.door.where(rel)
    text = check_text(op.file_text, where)
    stored = run.stored(rel)
    with run.transaction(op, "create", {stored: rel}) as tx:
        entry = run.file(rel)
        if (entry is not None and not op.overwrite) or (run.door.folders and entry is None and run.entries(rel)):
            raise ConflictError(run.say("exists", path=op.path, where=where))
        if entry is None:
            run.refuse_taken(tx, stored, op.path)
        model = filetext.read_text(text, strict=run.door.strict, where=where)
        if run.door.strict and not model.meta and text and not text.endswith(("\n", "\r")):
            text += "\n"  # a bare body ends with a newline, as memfs's writer ends one
        if entry is not None:
            tx.check_writable(stored, entry.data)
            if not model.meta:  # a bare body replaces the body; the model's own block stays
                text = filetext.stored_text(*load_document(stored, entry.data)).with_body(text).render()
            memory = run.rewrite(tx, entry, text)
        else:
            name = posixpath.basename(rel) if stored != rel else None
            content = filetext.new_file(text, host=_host(run, op, stored, tx.actor), now=tx.now,
                                        strict=run.door.strict, where=where, name=name)
            memory = run.gated(run.write(tx, stored, content), None)
    return run.done(op, tx, "overwrote" if entry is not None else "created", stored, memory)


def _host(run: Run, op: Create, stored: str, actor: str) -> dict[str, Any]:
    """The host's frontmatter for a new memory (a model's own block overrides it)."""
    host: dict[str, Any] = {"type": "note", "source_kind": "agent", "scope": run.host.scope,
                            "source": run.host.source or actor, **run.host.defaults}
    if run.door.ids:
        host["id"] = default_id(stored)
    if op.description is not None:
        host["description"] = op.description
    host.update(op.fields or {})
    if "read_only" in host:
        raise Refused(f"{run.door.where(stored)}: agents may not set read_only")
    return host


Change = Callable[[str, str], tuple[str, dict[str, Any]]]


def _edit(run: Run, op: FileCommand, path: str, key: str, change: Change) -> Outcome:
    """Change a memory's text (:mod:`memfs.agents.filetext`) by ``change`` (given the text and
    the memory as messages name it), which also gives the values of the door's text ``key``."""
    rel = run.rel(path)
    with run.transaction(op, "edit", {}) as tx:
        entry = run.existing(tx, rel, path)
        where = run.door.where(rel)
        text, values = change(view_text(entry.stored, entry.data), where)
        memory = run.rewrite(tx, entry, check_text(text, where))
    return run.done(op, tx, key, entry.stored, memory, **values)


@runs(StrReplace)
def _str_replace(run: Run, op: StrReplace) -> Outcome:
    def change(text: str, where: str) -> tuple[str, dict[str, Any]]:
        count = text.count(op.old_str)
        if count != 1:
            lines = ", ".join(map(str, filetext.match_lines(text, op.old_str)))
            key = "no_match" if count == 0 else "many"
            raise UsageError(run.say(key, path=op.path, where=where, old=op.old_str, count=count, lines=lines))
        line = text[: text.find(op.old_str)].count("\n")
        after = text.replace(op.old_str, op.new_str)
        shown = after.split("\n")
        first, last = max(0, line - 2), min(len(shown), line + 3)
        snippet = "\n".join(numbered(n, shown[n - 1]) for n in range(first + 1, last + 1))
        return after, {"snippet": snippet}

    return _edit(run, op, op.path, "replaced", change)


@runs(Insert)
def _insert(run: Run, op: Insert) -> Outcome:
    def change(text: str, where: str) -> tuple[str, dict[str, Any]]:
        count = len(filetext.lines_of(text))
        if not 0 <= op.insert_line <= count:
            raise UsageError(run.say("line_range", path=op.path, where=where, line=op.insert_line, count=count))
        return filetext.insert(text, op.insert_line, op.insert_text, where), {}

    return _edit(run, op, op.path, "edited", change)


@runs(Append)
def _append(run: Run, op: Append) -> Outcome:
    def change(current: str, where: str) -> tuple[str, dict[str, Any]]:
        doc = filetext.read_text(current, strict=run.door.strict, where=where)
        body = doc.body
        if body and not body.endswith(("\n", "\r")):
            body += doc.newline
        return doc.with_body(body + _line_ended(op.text, doc.newline)).render(), {}

    return _edit(run, op, op.path, "edited", change)


_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"(```|~~~)")


@runs(ReplaceSection)
def _replace_section(run: Run, op: ReplaceSection) -> Outcome:
    asked = op.heading.strip()
    wanted = _HEADING.fullmatch(asked)
    level, title = (len(wanted.group(1)), wanted.group(2)) if wanted else (2, asked.lstrip("#").strip())
    if not title or "\n" in title or "\r" in title:
        raise UsageError("'heading' must be the text of one heading line, e.g. '## Decisions' or 'Decisions'")

    def change(current: str, where: str) -> tuple[str, dict[str, Any]]:
        doc = filetext.read_text(current, strict=run.door.strict, where=where)
        lines = doc.body.splitlines(keepends=True)
        start, end = _section(lines, title, level if wanted else None)
        new = _line_ended(op.content, doc.newline) if op.content else ""
        if start is None:
            body = doc.body
            if body and not body.endswith(("\n", "\r")):
                body += doc.newline
            gap = doc.newline if body.strip() and not body.endswith(doc.newline * 2) else ""
            return doc.with_body(body + gap + "#" * level + " " + title + doc.newline + new).render(), {}
        if end < len(lines) and new and not new.endswith(doc.newline * 2):
            new += doc.newline
        return doc.with_body("".join(lines[: start + 1]) + new + "".join(lines[end:])).render(), {}

    return _edit(run, op, op.path, "edited", change)


def _section(lines: list[str], title: str, level: int | None) -> tuple[int | None, int]:
    """(the heading's line, the line its section ends before) of the first heading titled
    ``title`` (of ``level``, if given), outside fenced code; ``(None, 0)`` if there is none."""
    fenced, start, own = False, None, 0
    for n, line in enumerate(lines):
        text = line.rstrip("\r\n")
        if _FENCE.match(text.lstrip()):
            fenced = not fenced
            continue
        found = None if fenced else _HEADING.fullmatch(text)
        if found is None:
            continue
        depth = len(found.group(1))
        if start is not None and depth <= own:
            return start, n
        if start is None and found.group(2) == title and level in (None, depth):
            start, own = n, depth
    return (start, len(lines)) if start is not None else (None, 0)


def _line_ended(text: str, newline: str) -> str:
    return text if text.endswith(("\n", "\r")) else text + newline


@runs(UpdateDescription)
def _update_description(run: Run, op: UpdateDescription) -> Outcome:
    description = check_text(op.description, "description")
    if "\n" in description or "\r" in description:
        raise UsageError("'description' must be one line")
    rel = run.rel(op.path)
    with run.transaction(op, "describe", {}) as tx:
        entry = run.existing(tx, rel, op.path)
        memory = tx.write(entry.stored, fields={"description": description})
    return run.done(op, tx, "described", entry.stored, memory)


@runs(Delete)
def _delete(run: Run, op: Delete) -> Outcome:
    rel = run.rel(op.path)
    if not rel:
        raise UsageError(run.say("root_delete", path=op.path, where=run.door.where(rel)))
    entries = _targets(run, rel, op.path)
    with run.transaction(op, "delete", {e.stored: e.name for e in entries}) as tx:
        run.remove(tx, entries)
    return run.done(op, tx, "deleted", entries[0].stored if len(entries) == 1 else rel)


def _targets(run: Run, rel: str, path: str) -> list[Entry]:
    """The memories a delete or a move of ``rel`` takes: the file, or (where folders go whole)
    every memory the session sees in the folder."""
    entry = run.file(rel)
    if entry is not None:
        return [entry]
    entries = run.entries(rel) if run.door.folders else []
    if not entries and not run.door.folders and (run.store.root / rel).is_dir():
        raise UsageError(run.say("is_folder", path=path, where=run.door.where(rel)))
    if not entries:
        raise MemoryNotFound(run.say("no_path", path=path, where=run.door.where(rel)))
    return entries


@runs(Rename)
def _rename(run: Run, op: Rename) -> Outcome:
    old, new = run.rel(op.old_path), run.rel(op.new_path)
    paths = {"old_path": op.old_path, "new_path": op.new_path, "path": op.new_path, "old": run.door.where(old)}
    if old == new:
        raise UsageError(run.say("same", where=run.door.where(old), **paths))
    if not new or run.file(new) is not None or (run.door.folders and run.entries(new)):
        raise ConflictError(run.say("dest_exists", where=run.door.where(new), **paths))
    entries = _targets(run, old, op.old_path)
    folder = len(entries) > 1 or entries[0].name != old
    if folder and (not old or new.startswith(old + "/")):
        raise UsageError(run.say("into_itself", where=run.door.where(old), **paths))
    moves = [(e, new + e.name[len(old):]) for e in entries]
    targets = [(e, name, run.stored(name)) for e, name in moves]
    named = {e.stored: e.name for e in entries} | {stored: name for _, name, stored in targets}
    with run.transaction(op, "rename", named, subject=f"{old} -> {new}") as tx:
        gone = {e.stored for e in entries}
        for _, _, stored in targets:
            if stored not in gone:
                run.refuse_taken(tx, stored, op.new_path)
        run.remove(tx, entries)
        memory = None
        for entry, name, stored in targets:
            memory = run.write(tx, stored, _renamed(entry, name, stored), moved_from=entry.stored)
    final = targets[0][2] if len(targets) == 1 else new
    return run.done(op, tx, "renamed", final, memory if len(targets) == 1 else None, **paths)


def _renamed(entry: Entry, name: str, stored: str) -> bytes:
    """The bytes of ``entry`` under its new name: only ``file_name`` changes, if it must."""
    wanted = posixpath.basename(name) if stored != name else None
    meta = meta_of(entry.stored, entry.data)
    if meta.get(NAME_KEY) == wanted or (wanted is None and NAME_KEY not in meta):
        return entry.data
    doc = split(entry.data.decode("utf-8"))
    try:
        frontmatter = yamlio.edit(doc.frontmatter, {NAME_KEY: wanted}, doc.newline)
    except ValueError as exc:
        raise InvalidMemory(f"{entry.stored}: {exc}; nothing was moved") from None
    return doc.with_frontmatter(frontmatter).render().encode("utf-8")


def clear(run: Run) -> Outcome | None:
    """Delete every memory the session sees outside ``system/``, in one commit (``None``: there
    was none)."""
    op = Delete(path=".")
    entries = [e for e in run.entries("") if not e.stored.startswith("system/")]
    if not entries:
        return None
    with run.transaction(op, "delete", {e.stored: e.name for e in entries}, tool="clear_all_memory") as tx:
        run.remove(tx, entries)
    return run.done(op, tx, "deleted", ".")

