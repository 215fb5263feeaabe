"""File tools for agents: the memory-tool command shape, confined to the memory root, one commit a call.

The commands are those of Anthropic's memory tool (``view``, ``create``, ``str_replace``,
``insert``, ``delete``, ``rename``) plus Letta's ``update_description`` and two body edits other
memory servers offer: ``append`` (text at the end of the body) and ``replace_section`` (the
Markdown section under a heading, added if missing). A request is a JSON object
``{"command": ..., "path": ..., "reason": ...}``; :func:`handle` returns a :class:`ToolResult`
whose ``output`` is text for the model and whose JSON form is for programs. Failures are results
with ``ok: false`` and a message that says what to do, never exceptions, so a tool loop can hand
them straight back to the model.

Contract (each is tested):

* Paths are relative to the memory root; ``/memories/...`` (the Anthropic tool's virtual root)
  means the same. :func:`memfs.store.paths.confine` refuses NUL bytes, ``..``, absolute paths
  elsewhere, URL-encoded traversal, any symlink below the root, ``.git/`` and ``.memfs/`` (by
  name or by what a path resolves to). Backslashes are refused too: on POSIX ``..\\x`` is a
  file name, elsewhere it is traversal. Files are read only through the store
  (:meth:`~memfs.store.repo.Store.read_bytes`): a symlink, FIFO, device or oversized file is
  refused with what it is, never followed or read whole. Names in any script (``笔记/会议.md``,
  ``notes/a b.md``) are accepted, taken in Unicode NFC; names no file system or git can hold are
  refused (:mod:`memfs.format.names`).
* ``str_replace`` needs exactly one match; ``create`` refuses an existing file unless
  ``overwrite: true`` (a bare body then replaces the body, a text with a block the whole text);
  files whose working copy or committed copy says ``read_only: true`` are refused (by the
  transaction, as for every door), and an agent may not add, change or remove ``read_only``.
* The agent edits the file's text as :mod:`memfs.agents.filetext` defines it, the same at every
  door: the frontmatter block it wrote itself (if any) and the body. ``view`` numbers those
  lines and ``view_range``/``insert_line`` count them; memfs's own fields are not shown, and
  change only in ``revision``, ``updated`` and ``agent_fields``. A text starting with ``---``
  must be such a block (this door is ``strict``); its fields are validated like any other.
* Every mutating call is validated and committed before it returns (the request's ``reason`` is
  the commit reason, the actor is the author); the search index catches up on its next read.
* Content over :data:`MAX_FILE_BYTES`, binary content (NUL or other C0 control bytes) and text
  that cannot be UTF-8 (lone surrogates) are refused before anything is written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, overload

from memfs import index
from memfs.agents import filetext
from memfs.agents.filetext import MAX_FILE_BYTES, check_text, view_text
from memfs.errors import (
    ConflictError,
    InvalidMemory,
    MemfsError,
    MemoryNotFound,
    PathError,
    Refused,
    UsageError,
    one_line,
)
from memfs.format import limits
from memfs.format.model import Memory
from memfs.format.names import default_id
from memfs.format.parse import load_document, parse
from memfs.store import paths
from memfs.store.repo import Store, Transaction

#: Longest directory listing ``view`` returns before saying how many were left out.
MAX_LISTING = 200
VIRTUAL_ROOT = "/memories"
COMMANDS = (
    "view", "create", "str_replace", "insert", "delete", "rename", "update_description", "append", "replace_section",
)


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call. ``output`` is what to show the model."""

    ok: bool
    command: str
    output: str
    path: str | None = None
    commit: str | None = None
    revision: int | None = None
    error: str | None = None
    error_type: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class ToolContext:
    """Defaults the host fills in: who acts, and fields for files created from a bare body."""

    actor: str | None = None
    scope: str | None = None
    source: str | None = None


def handle(repo: Store, request: Mapping[str, Any], context: ToolContext | None = None) -> ToolResult:
    """Run one tool request; never raises for a bad request (``ok: false`` with the reason)."""
    context = context or ToolContext()
    if repo.binding is not None:
        context = dataclasses.replace(context, scope=repo.binding.scope)
    command = str(request.get("command", "")) if isinstance(request, Mapping) else ""
    try:
        if not isinstance(request, Mapping):
            raise UsageError("the request must be a JSON object with a 'command'")
        try:
            limits.check(dict(request), strings=limits.DEFAULT.file_bytes, finite=True)
        except limits.LimitError as exc:
            raise UsageError(f"the request {exc}") from None
        handler = _HANDLERS.get(command)
        if handler is None:
            raise UsageError(f"unknown command {command!r}; use one of: {', '.join(COMMANDS)}")
        result = handler(repo, request, context)
    except MemfsError as exc:
        return ToolResult(False, command, f"Error: {exc}", error=str(exc), error_type=type(exc).__name__)
    except Exception as exc:  # a tool loop gets one error line, never a traceback
        text = one_line(exc)
        return ToolResult(False, command, f"Error: {text}", error=text, error_type=type(exc).__name__)
    if result.commit:
        catch_up_index(repo)
    return result


def catch_up_index(repo: Store) -> None:
    """Bring an existing search index up to date now, so the next search sees this write at once."""
    if (repo.cache_dir / index.STATE_FILE).exists():
        with contextlib.suppress(MemfsError):
            index.sync(repo)


# --- request fields --------------------------------------------------------------------------
@overload
def _str(request: Mapping[str, Any], name: str, *, required: Literal[True] = ..., empty: bool = ...) -> str: ...
@overload
def _str(request: Mapping[str, Any], name: str, *, required: bool, empty: bool = ...) -> str | None: ...
def _str(request: Mapping[str, Any], name: str, *, required: bool = True, empty: bool = False) -> str | None:
    value = request.get(name)
    if value is None:
        if required:
            raise UsageError(f"'{name}' is required")
        return None
    if not isinstance(value, str):
        raise UsageError(f"'{name}' must be a string, got {type(value).__name__}")
    if not empty and required and not value:
        raise UsageError(f"'{name}' may not be empty")
    return value


def tool_path(repo: Store, raw: str, *, memory: bool = True) -> str:
    """The root-relative path for a tool argument, or :class:`PathError` saying why not."""
    text = raw.strip()
    if "\\" in text:
        raise PathError(f"{raw!r}: backslashes are not accepted in memory paths; use '/'")
    if text == VIRTUAL_ROOT or text.startswith(VIRTUAL_ROOT + "/"):
        text = text[len(VIRTUAL_ROOT) :].lstrip("/") or "."
    if text.startswith("~"):
        raise PathError(f"{raw!r}: '~' paths are outside the memory root; give a path relative to it")
    if not memory:
        rel = paths.confine(repo.root, text or ".", must_be_memory=False, git_dir=repo.git.git_dir)
        return "" if rel == "." else rel
    return repo.rel(text)


# --- commands --------------------------------------------------------------------------------
def _view(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    raw = _str(request, "path", required=False) or "."
    rel = tool_path(repo, raw, memory=False)
    target = repo.root / rel if rel else repo.root
    if target.is_dir():
        return ToolResult(True, "view", _listing(repo, rel), path=rel or ".")
    rel = tool_path(repo, raw)
    data = repo.read_bytes(rel)
    if data is None or not repo.visible(rel, data):
        raise MemoryNotFound(f"{rel}: no such memory; view the directory to see what exists")
    if len(data) > MAX_FILE_BYTES and request.get("view_range") is None:
        raise UsageError(f"{rel}: {len(data)} bytes is too large to show whole; pass view_range [first, last]")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(f"{rel}: is not UTF-8 (byte {exc.start}); it cannot be shown or edited as text") from None
    lines = [line.removesuffix("\r") for line in filetext.lines_of(view_text(rel, data))]
    first, last = _range(request.get("view_range"), len(lines))
    numbered = "\n".join(f"{n:6d}\t{lines[n - 1]}" for n in range(first, last + 1))
    revision = _revision(rel, data)
    return ToolResult(True, "view", numbered, path=rel, revision=revision)


def _range(value: Any, count: int) -> tuple[int, int]:
    if value is None:
        return 1, count
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise UsageError("'view_range' must be [first_line, last_line] (last -1 means to the end)")
    first, last = value
    last = count if last == -1 else last
    if not 1 <= first <= max(count, 1) or last < first:
        raise UsageError(f"'view_range' {list(value)} is outside the file's {count} lines")
    return first, min(last, count)


def _revision(rel: str, data: bytes) -> int | None:
    try:
        return parse(rel, data).revision
    except InvalidMemory:
        return None


def _listing(repo: Store, rel_dir: str) -> str:
    found = [p for p in repo.memory_paths(under=rel_dir) if _listed(repo, p)]
    shown = found[:MAX_LISTING]
    lines = [f"{VIRTUAL_ROOT}/{rel_dir}".rstrip("/") + "/" + f" ({len(found)} memories)"]
    for rel in shown:
        _, memory, why = repo.load(rel)
        if memory is not None:
            about = memory.description or _first_line(memory.body)
            flags = "" if memory.status in (None, "active") else f" [{memory.status}]"
            flags += " [read-only]" if memory.read_only else ""
        else:
            about, flags = (f"(invalid: {why})" if why else ""), ""
        lines.append(f"- {rel}{flags}: {about}" if about else f"- {rel}{flags}")
    if len(found) > len(shown):
        lines.append(f"... and {len(found) - len(shown)} more; view a subdirectory to narrow it down")
    return "\n".join(lines)


def _listed(repo: Store, rel: str) -> bool:
    """Whether a listing names ``rel``: a file this session sees, or (unbound) one memfs cannot
    read, so that it is reported. Only the bytes are read: the listing parses the ones it shows."""
    data = paths.read_file(repo.root, rel)
    if isinstance(data, bytes):
        return repo.visible(rel, data)
    return data is not None and repo.binding is None


def _first_line(body: str) -> str:
    for line in body.splitlines():
        if line.strip() and not line.lstrip().startswith("<!--"):
            return line.strip()[:100]
    return ""


def _create(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    file_text = check_text(_str(request, "file_text", empty=True) or "", rel)
    overwrite = request.get("overwrite") is True
    with _transaction(repo, "create", request, context) as tx:
        current = tx.current_bytes(rel)
        _refuse_hidden(repo, rel, current)
        if current is not None and not overwrite:
            raise ConflictError(f"{rel}: already exists; use str_replace/insert to edit it, or pass overwrite: true")
        model = filetext.read_text(file_text, strict=True, where=rel)
        if not model.meta and file_text and not file_text.endswith(("\n", "\r")):
            file_text += "\n"  # a bare body ends with a newline, as the canonical writer ends one
        if current is not None:
            tx.check_writable(rel, current)
            if not model.meta:  # a bare body replaces the body; the model's own block stays
                file_text = filetext.stored_text(*load_document(rel, current)).with_body(file_text).render()
            memory = _write_text(tx, rel, current, file_text)
        else:
            host = {"id": default_id(rel)} | _defaults(rel, request, context, tx.actor)
            content = filetext.new_file(file_text, host=host, now=tx.now, strict=True, where=rel)
            memory = tx.write_bytes(rel, content)
    return _done(tx, "create", rel, memory, f"{'Overwrote' if current is not None else 'Created'} {rel}")


def _defaults(rel: str, request: Mapping[str, Any], context: ToolContext, actor: str) -> dict[str, Any]:
    """The host's frontmatter for a new file (a model's own block overrides it): explicit request
    fields, else the context's."""
    fields = request.get("fields") or {}
    if not isinstance(fields, Mapping):
        raise UsageError("'fields' must be an object of frontmatter fields")
    out: dict[str, Any] = {"type": "note", "source_kind": "agent"}
    if context.scope:
        out["scope"] = context.scope
    out["source"] = context.source or actor
    for name in ("description",):
        if request.get(name) is not None:
            out[name] = request[name]
    out.update(fields)
    if "read_only" in out:
        raise Refused(f"{rel}: agents may not set read_only")
    return out


def _str_replace(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    old = _str(request, "old_str")
    new = check_text(_str(request, "new_str", empty=True) or "", "new_str")

    def change(text: str) -> str:
        return filetext.replace_once(text, old, new, rel)

    return _edit_text(repo, request, context, "str_replace", rel, change)


def _insert(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    line = request.get("insert_line")
    text = check_text(_str(request, "insert_text", empty=True) or "", "insert_text")
    if not isinstance(line, int) or isinstance(line, bool):
        raise UsageError("'insert_line' must be a line number (0 inserts at the top)")

    def change(current: str) -> str:
        return filetext.insert(current, line, text, rel)

    return _edit_text(repo, request, context, "insert", rel, change)


def _edit_text(
    repo: Store,
    request: Mapping[str, Any],
    context: ToolContext,
    command: str,
    rel: str,
    change: Callable[[str], str],
) -> ToolResult:
    with _transaction(repo, "edit", request, context, tool=command) as tx:
        current = _existing(tx, rel)
        _decoded(rel, current)
        new_text = check_text(change(view_text(rel, current)), rel)
        memory = _write_text(tx, rel, current, new_text)
    return _done(tx, command, rel, memory, f"Edited {rel}")


def _write_text(tx: Transaction, rel: str, current: bytes, text: str) -> Memory:
    """Stage the memory whose text (by the rule of :mod:`memfs.agents.filetext`) is now ``text``."""
    content = filetext.rewrite(rel, current, text, now=tx.now, strict=True, where=rel)
    return parse(rel, current) if content is None else tx.write_bytes(rel, content)


def _delete(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    raw = _str(request, "path")
    rel = tool_path(repo, raw, memory=False)
    if rel == "" or (repo.root / rel).is_dir():
        raise UsageError(f"{raw}: is a directory; delete the memories in it one by one")
    rel = tool_path(repo, raw)
    with _transaction(repo, "delete", request, context) as tx:
        _existing(tx, rel)
        tx.delete(rel)
    return _done(tx, "delete", rel, None, f"Deleted {rel} (it stays in git history)")


def _rename(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    old = tool_path(repo, _str(request, "old_path"))
    new = tool_path(repo, _str(request, "new_path"))
    if old == new:
        raise UsageError(f"{old}: old_path and new_path are the same")
    with _transaction(repo, "rename", request, context, subject=f"{old} -> {new}") as tx:
        current = _existing(tx, old)
        _refuse_hidden(repo, new, tx.current_bytes(new))
        if tx.current_bytes(new) is not None:
            raise ConflictError(f"{new}: already exists; pick another name or delete it first")
        users = repo.dependents(old)
        if users:
            raise Refused(f"{old}: cannot rename, {repo.named(users)} depend(s) on it; update their depends_on first")
        tx.delete(old, check_dependents=False)
        memory = tx.write_bytes(new, current, moved_from=old)
    return _done(tx, "rename", new, memory, f"Renamed {old} to {new}")


def _update_description(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    description = check_text(_str(request, "description", empty=True) or "", "description")
    if "\n" in description or "\r" in description:
        raise UsageError("'description' must be one line")
    with _transaction(repo, "describe", request, context, tool="update_description") as tx:
        _existing(tx, rel)
        memory = tx.write(rel, fields={"description": description})
    return _done(tx, "update_description", rel, memory, f"Updated the description of {rel}")


def _append(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    text = check_text(_str(request, "text"), "text")

    def change(current: str) -> str:
        doc = filetext.read_text(current, strict=True, where=rel)
        body = doc.body
        if body and not body.endswith(("\n", "\r")):
            body += doc.newline
        return doc.with_body(body + _line_ended(text, doc.newline)).render()

    return _edit_text(repo, request, context, "append", rel, change)


_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"(```|~~~)")


def _replace_section(repo: Store, request: Mapping[str, Any], context: ToolContext) -> ToolResult:
    rel = tool_path(repo, _str(request, "path"))
    asked = _str(request, "heading").strip()
    content = check_text(_str(request, "content", empty=True) or "", "content")
    wanted = _HEADING.fullmatch(asked)
    level, title = (len(wanted.group(1)), wanted.group(2)) if wanted else (2, asked.lstrip("#").strip())
    if not title or "\n" in title or "\r" in title:
        raise UsageError("'heading' must be the text of one heading line, e.g. '## Decisions' or 'Decisions'")

    def change(current: str) -> str:
        doc = filetext.read_text(current, strict=True, where=rel)
        lines = doc.body.splitlines(keepends=True)
        start, end = _section(lines, title, level if wanted else None)
        new = _line_ended(content, doc.newline) if content else ""
        if start is None:
            body = doc.body
            if body and not body.endswith(("\n", "\r")):
                body += doc.newline
            gap = doc.newline if body.strip() and not body.endswith(doc.newline * 2) else ""
            return doc.with_body(body + gap + "#" * level + " " + title + doc.newline + new).render()
        if end < len(lines) and new and not new.endswith(doc.newline * 2):
            new += doc.newline
        return doc.with_body("".join(lines[: start + 1]) + new + "".join(lines[end:])).render()

    return _edit_text(repo, request, context, "replace_section", rel, change)


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


_HANDLERS: dict[str, Callable[[Store, Mapping[str, Any], ToolContext], ToolResult]] = {
    "view": _view,
    "create": _create,
    "str_replace": _str_replace,
    "insert": _insert,
    "delete": _delete,
    "rename": _rename,
    "update_description": _update_description,
    "append": _append,
    "replace_section": _replace_section,
}


# --- shared steps ----------------------------------------------------------------------------
def _transaction(
    repo: Store,
    op: str,
    request: Mapping[str, Any],
    context: ToolContext,
    *,
    tool: str | None = None,
    subject: str | None = None,
) -> Transaction:
    reason = request.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise UsageError("'reason' must be a string")
    actor = context.actor or repo.actor
    return repo.transaction(
        op, reason=reason, actor=actor, subject=subject, trailers={"Memfs-Tool": [tool or str(request["command"])]}
    )


def _existing(tx: Transaction, rel: str) -> bytes:
    current = tx.current_bytes(rel)
    if current is None or not tx.repo.visible(rel, current):
        raise MemoryNotFound(f"{rel}: no such memory; create it first")
    tx.check_writable(rel, current)
    if len(current) > MAX_FILE_BYTES:
        raise Refused(f"{rel}: {len(current)} bytes is over the {MAX_FILE_BYTES}-byte limit; edit it by hand")
    return current


def _refuse_hidden(repo: Store, rel: str, current: bytes | None) -> None:
    """A path another scope's memory holds cannot be written by a bound session; the refusal
    says the path is taken and nothing about the memory there."""
    if current is not None and not repo.visible(rel, current):
        raise ConflictError(f"{rel}: this path is taken; pick another path")


def _decoded(rel: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(f"{rel}: is not UTF-8 (byte {exc.start}); fix the file's encoding by hand first") from None


def _done(tx: Transaction, command: str, rel: str, memory: Memory | None, message: str) -> ToolResult:
    commit = tx.result.commit
    if commit is None:
        message += " (no change, nothing committed)"
    else:
        message += f" (commit {commit[:10]})"
    if memory is not None and memory.problems:
        warnings = [str(p) for p in memory.problems if p.severity == "warning"]
        if warnings:
            message += "\nWarnings: " + "; ".join(warnings)
    revision = memory.revision if memory is not None else None
    return ToolResult(True, command, message, path=rel, commit=commit, revision=revision)


def request_from_json(data: bytes) -> Any:
    """Decode a JSON request from raw bytes (stdin), refusing non-UTF-8 input clearly."""

    try:
        return limits.load_json(data)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
