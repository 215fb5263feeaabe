"""File tools for agents, as ``memfs tool`` and MCP serve them: the memfs door of the one file-tool
implementation (:mod:`memfs.agents.filetools`), confined to the memory root, one commit a call.

The commands are those of Anthropic's memory tool (``view``, ``create``, ``str_replace``,
``insert``, ``delete``, ``rename``) plus Letta's ``update_description`` and two body edits other
memory servers offer: ``append`` (text at the end of the body) and ``replace_section`` (the
Markdown section under a heading, added if missing). A request is a JSON object
``{"command": ..., "path": ..., "reason": ...}`` with the fields the commands declare
(:mod:`memfs.agents.verbs`); :func:`handle` returns a :class:`ToolResult`
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

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memfs.agents import filetext
from memfs.agents.filetext import MAX_FILE_BYTES
from memfs.agents.filetools import Door, Host, Run, Texts, execute
from memfs.agents.verbs import FILE_COMMANDS
from memfs.errors import MemfsError, PathError, UsageError, one_line, without_host_paths
from memfs.format import limits, names
from memfs.format.declare import MCP
from memfs.store import paths
from memfs.store.repo import Store

#: Longest directory listing ``view`` returns before saying how many were left out.
MAX_LISTING = 200
VIRTUAL_ROOT = "/memories"
COMMANDS = tuple(name for name, cls in FILE_COMMANDS.items() if MCP in cls.doors)
__all__ = ["COMMANDS", "MAX_FILE_BYTES", "ToolContext", "ToolResult", "handle", "request_from_json"]


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
    scope = repo.binding.scope if repo.binding is not None else context.scope
    command = str(request.get("command", "")) if isinstance(request, Mapping) else ""
    try:
        if isinstance(request, Mapping):
            try:
                limits.check(dict(request), strings=limits.DEFAULT.file_bytes, finite=True)
            except limits.LimitError as exc:
                raise UsageError(f"the request {exc}") from None
        done = execute(repo, DOOR, Host(actor=context.actor, scope=scope, source=context.source), request)
    except MemfsError as exc:
        text = without_host_paths(str(exc), repo.root)
        return ToolResult(False, command, f"Error: {text}", error=text, error_type=type(exc).__name__)
    except Exception as exc:  # a tool loop gets one error line, never a traceback
        text = without_host_paths(one_line(exc, roots=(repo.root,)), repo.root)
        return ToolResult(False, command, f"Error: {text}", error=text, error_type=type(exc).__name__)
    return ToolResult(True, command, done.text, path=done.path, commit=done.commit, revision=done.revision)


def request_from_json(data: bytes) -> Any:
    """Decode a JSON request from raw bytes (stdin), refusing non-UTF-8 input clearly."""
    try:
        return limits.load_json(data)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


# --- the door --------------------------------------------------------------------------------
def _rel(repo: Store, raw: str) -> str:
    """The root-relative path a tool argument names ('' for the root), or :class:`PathError`."""
    text = raw.strip()
    if "\\" in text:
        raise PathError(f"{raw!r}: backslashes are not accepted in memory paths; use '/'")
    if text == VIRTUAL_ROOT or text.startswith(VIRTUAL_ROOT + "/"):
        text = text[len(VIRTUAL_ROOT) :].lstrip("/") or "."
    if text.startswith("~"):
        raise PathError(f"{raw!r}: '~' paths are outside the memory root; give a path relative to it")
    rel = paths.confine(repo.root, text or ".", must_be_memory=False, git_dir=repo.git.git_dir)
    return "" if rel == "." else rel


def _numbered(path: str, text: str, view_range: list[int] | None) -> str:
    lines = [line.removesuffix("\r") for line in filetext.lines_of(text)]
    first, last = 1, len(lines)
    if view_range is not None:
        if len(view_range) != 2:
            raise UsageError("'view_range' must be [first_line, last_line] (last -1 means to the end)")
        first, last = view_range
        last = len(lines) if last == -1 else last
        if not 1 <= first <= max(len(lines), 1) or last < first:
            raise UsageError(f"'view_range' {list(view_range)} is outside the file's {len(lines)} lines")
    return "\n".join(f"{n:6d}\t{lines[n - 1]}" for n in range(first, min(last, len(lines)) + 1))


def _listing(run: Run, path: str, rel: str) -> str | None:
    repo = run.store
    if rel and not (repo.root / rel).is_dir():
        return None
    found = [p for p in repo.memory_paths(under=rel) if _listed(repo, p)]
    shown = found[:MAX_LISTING]
    lines = [f"{VIRTUAL_ROOT}/{rel}".rstrip("/") + "/" + f" ({len(found)} memories)"]
    for name in shown:
        _, memory, why = repo.load(name)
        if memory is not None:
            about = memory.description or _first_line(memory.body)
            flags = "" if memory.status in (None, "active") else f" [{memory.status}]"
            flags += " [read-only]" if memory.read_only else ""
        else:
            about, flags = (f"(invalid: {why})" if why else ""), ""
        lines.append(f"- {names.shown(name)}{flags}" + (f": {about}" if about else ""))
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


TEXTS: Texts = {
    "not_object": "the request must be a JSON object with a 'command'",
    "unknown": "unknown command {command!r}; use one of: {commands}",
    "required": "'{name}' is required",
    "wrong": "'{name}' must be {kind}, got {got}",
    "empty": "'{name}' may not be empty",
    "not_found": "{where}: no such memory; view the directory to see what exists",
    "no_memory": "{where}: no such memory; create it first",
    "no_path": "{where}: no such memory; create it first",
    "not_file": "{path}: is a directory; give the path of a memory file",
    "is_folder": "{path}: is a directory; delete the memories in it one by one",
    "root_delete": "{path}: is a directory; delete the memories in it one by one",
    "exists": "{where}: already exists; use str_replace/insert to edit it, or pass overwrite: true",
    "dest_exists": "{where}: already exists; pick another name or delete it first",
    "taken": "{where}: this path is taken; pick another path",
    "same_name": "{where}: this path is taken by {other}; pick another path",
    "same": "{where}: old_path and new_path are the same",
    "into_itself": "{old_path}: cannot be moved into itself ({new_path})",
    "dependents": "{where}: cannot be deleted or moved, {named} depend(s) on it; update their depends_on first",
    "no_match": "{where}: old_str must match exactly once, found no match; include more surrounding text",
    "many": "{where}: old_str must match exactly once, found {count} matches; include more surrounding text",
    "line_range": "{where}: insert_line {line} is outside the file's {count} lines",
    "too_large": "{where}: {size} bytes is too large to show whole; pass view_range [first, last]",
    "created": "Created {where}",
    "overwrote": "Overwrote {where}",
    "replaced": "Edited {where}",
    "edited": "Edited {where}",
    "deleted": "Deleted {where} (it stays in git history)",
    "renamed": "Renamed {old} to {where}",
    "described": "Updated the description of {where}",
    "wrong view_range": "'view_range' must be [first_line, last_line] (last -1 means to the end)",
}
#: ``memfs tool`` and MCP: every command, paths relative to the root ('/memories' optional),
#: whole files strict, results with their commit.
DOOR = Door(
    offers=MCP, texts=TEXTS, rel=_rel, stored=lambda repo, rel: repo.rel(rel), where=lambda rel: rel,
    show=_numbered, listing=_listing, strict=True, ids=True, reports=True,
)
