"""The memory tool as a model sees it: files under ``/memories`` whose text is the memory's body.

This is the ``memory_20250818`` tool contract (``view``, ``create``, ``str_replace``, ``insert``,
``delete``, ``rename``) served from a memfs session, with the outputs and error texts of the
Anthropic SDK's reference implementation (``BetaLocalFilesystemMemoryTool``), so a prompt written
for one works with the other. :mod:`memfs.integrations.anthropic` wraps it in the SDK's classes;
this module has no dependency on the SDK. It is a door of the one file-tool implementation
(:mod:`memfs.agents.filetools`): the commands run there, and what is this tool's own (its names,
texts, listings, folders, the write gate) is its :data:`DOOR`.

What the model sees, and how it is stored:

* **The text of a file is the memory's body.** memfs's frontmatter (scope, source, revision...)
  is memfs's business and never shown, so line numbers in ``view``, ``str_replace`` snippets
  and ``insert`` are the lines the model wrote. When the model writes a frontmatter block of
  its own (``---`` / ``title: ...`` / ``---`` at the top), its keys are merged into the memory's
  frontmatter (they override the host's defaults; unknown keys are fine), their lines are kept
  as written, and ``view`` shows them back as the model wrote them; ``agent_fields`` records
  which keys are the model's. This is the rule of :mod:`memfs.agents.filetext`, the same for
  ``memfs tool`` and MCP; this door is not ``strict`` (a ``---`` block that is not plainly
  frontmatter stays text, as in the reference tool) and prints as :mod:`memfs.agents.reference`.
* **Any file name works and keeps its name.** A name that is a memory file name (``notes.md``)
  is stored as itself; any other (``progress.xml``, ``notes.txt``, ``会议 笔记.json``,
  ``README.md``) is stored as that name plus ``.md`` (``progress.xml.md``) with
  ``file_name: progress.xml`` in the frontmatter, and listed and viewed under the model's name.
* **One call, one commit**, made by the session's actor through the one commit path (so the
  core guard judges it: secrets, ``system/``, protected fields, the session's scope), after the
  write gate (:func:`memfs.policy.gate.check`) accepted the memory it would write. Directory
  ``delete`` and ``rename`` are one commit each. ``view`` never commits.
* **The session is the boundary.** Another scope's memory does not exist for the model (a path
  it holds is only "taken"); directories are the folders that hold memories the session sees.

Where memfs deliberately differs from the reference tool (each is tested and listed in the
README): secrets, ``system/`` writes, other scopes, protected fields and invalid memfs fields
are refused; names that are hidden (``.x``) or that no file system or git can hold are refused;
files over 100 KB or with binary content are refused; a memory others ``depends_on`` cannot be
deleted or moved; folders without memories are not listed (git keeps no empty folders); and
``revision``, ``updated``, ``file_name`` and ``agent_fields`` (memfs keeps them) and
``read_only`` (agents may not set it) cannot be written in a model's own frontmatter.
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.agents import reference
from memfs.agents.filetext import NAME_KEY, RESERVED, view_text
from memfs.agents.filetools import Door, Host, Outcome, Run, Texts, commands, execute, within
from memfs.agents.verbs import REFERENCE
from memfs.errors import MemfsError, PathError, UsageError
from memfs.format import names
from memfs.format.model import SYSTEM_DIR
from memfs.store import paths
from memfs.store.repo import Store

ROOT = "/memories"


class MemoryToolError(MemfsError):
    """A call the model should read about: the message is what it is shown."""


@dataclass(frozen=True)
class Call:
    """What one call did, for the host: the command, the model's path, its commit (``None`` when
    nothing was written) and the memory files it changed."""

    command: str
    path: str
    commit: str | None
    changed: tuple[str, ...] = ()


class MemoryTool:
    """The memory tool over ``repo``, a session bound to one scope (``Store.session``).

    ``source`` is the ``source`` of memories the model creates (default: the session's actor);
    ``defaults`` are further frontmatter fields for them (``type``, ``tags``, ``version``...),
    which the model's own frontmatter overrides. ``reason`` goes into every commit message.
    ``on_call`` is told about every call that succeeded.
    """

    def __init__(
        self,
        repo: Store,
        *,
        source: str | None = None,
        defaults: Mapping[str, Any] | None = None,
        reason: str | None = None,
        on_call: Callable[[Call], None] | None = None,
    ) -> None:
        if repo.binding is None or repo.binding.scope is None:
            raise UsageError(
                "the memory tool needs a session bound to one scope: repo.session('user:U5', actor=...)",
                param="scope",
            )
        defaults = dict(defaults or {})
        bad = sorted(k for k in defaults if k in RESERVED or k in ("scope", "id", "status", "created"))
        if bad:
            raise UsageError(f"{', '.join(bad)}: memfs sets these itself; leave them out of defaults", param="defaults")
        self.repo = repo
        self.scope = repo.binding.scope
        self.source = source or repo.actor
        self.defaults = defaults
        self.reason = reason
        self.on_call = on_call
        self.last: Call | None = None
        self._host = Host(scope=self.scope, source=self.source, defaults=defaults, reason=reason)
        self._lock = threading.Lock()

    # --- the commands --------------------------------------------------------------------
    def execute(self, command: Mapping[str, Any]) -> str:
        """Run one command given as the model sends it (``{"command": "view", "path": ...}``)."""
        with self._lock:
            done = execute(self.repo, DOOR, self._host, command)
            if done.request.writes:
                request: Any = done.request
                self._called(done, done.request.command, getattr(request, "path", None) or request.old_path)
            return done.text

    def view(self, path: str, view_range: Any = None) -> str:
        return self.execute({"command": "view", "path": path, "view_range": view_range})

    def create(self, path: str, file_text: str) -> str:
        return self.execute({"command": "create", "path": path, "file_text": file_text})

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        return self.execute({"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str})

    def insert(self, path: str, insert_line: Any, insert_text: str) -> str:
        return self.execute({"command": "insert", "path": path, "insert_line": insert_line,
                             "insert_text": insert_text})

    def delete(self, path: str) -> str:
        return self.execute({"command": "delete", "path": path})

    def rename(self, old_path: str, new_path: str) -> str:
        return self.execute({"command": "rename", "old_path": old_path, "new_path": new_path})

    def files(self, folder: str = ROOT) -> dict[str, str]:
        """What the model would see under ``folder``: ``{"/memories/notes.txt": text}`` for every
        memory of the session there (for hosts and tests; no call is recorded)."""
        with self._lock:
            entries = within(self.repo, DOOR, self._host, lambda run: run.entries(_model_rel(self.repo, folder)))
            return {f"{ROOT}/{e.name}": view_text(e.stored, e.data) for e in entries}

    def clear(self) -> str:
        """Delete every memory of the session's scope (not ``system/``) in one commit."""
        with self._lock:
            done = within(self.repo, DOOR, self._host, commands.clear)
            if done is not None:
                self._called(done, "clear_all_memory", ROOT)
            count = len(done.changed) if done is not None else 0
            return (f"Cleared {count} memory file(s) of this session; core memory under {ROOT}/{SYSTEM_DIR}/ "
                    "stays (only a person changes it)")

    def _called(self, done: Outcome, command: str, path: str) -> None:
        call = Call(command, path, done.commit, done.changed)
        self.last = call
        if self.on_call is not None:
            self.on_call(call)


# --- the door: the model's names --------------------------------------------------------------
def _model_rel(repo: Store, path: str) -> str:
    """The model's path relative to ``/memories`` ('' for the root itself), checked."""
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise MemoryToolError(f"Path must start with {ROOT}, got: {path}")
    raw = path[len(ROOT) :].lstrip("/")
    if "\\" in raw or "\x00" in raw:
        raise MemoryToolError(f"{path}: backslashes and NUL bytes are not accepted in memory paths; use '/'")
    _refuse_dot_dot_after_a_file(repo, path, raw)
    rel = posixpath.normpath(raw) if raw else ""
    rel = "" if rel == "." else rel
    if rel == ".." or rel.startswith("../"):
        raise MemoryToolError(f"Path {path} would escape {ROOT} directory")
    rel = names.nfc(rel)
    if not rel:
        return rel
    if any(part.startswith(".") for part in rel.split("/")):
        raise MemoryToolError(f"{path}: names starting with '.' are hidden, and memfs keeps none; rename it")
    why = names.path_problem(stored_name(rel))
    if why:
        raise MemoryToolError(f"{path}: {why}")
    try:
        paths.confine(repo.root, rel, must_be_memory=False, git_dir=repo.git.git_dir)
    except PathError as exc:
        raise MemoryToolError(f"{path}: {exc.message.removeprefix(rel + ': ')}") from None
    return rel


def _refuse_dot_dot_after_a_file(repo: Store, path: str, raw: str) -> None:
    """A ``..`` goes up from a folder, as the file system takes it: ``/memories/d/x.md/..`` is not
    ``/memories/d`` (a lexical normalisation, which the reference tool's ``Path.resolve`` does,
    would let ``delete`` of a file's name remove its whole folder), so ``..`` after anything but
    an existing folder (inside the root) is refused."""
    if ".." not in raw.split("/"):
        return
    here: list[str] = []
    for part in raw.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            folder = "/".join(here)
            if here and not (paths.is_plain_folder(repo.root, folder)):
                raise MemoryToolError(f"{path}: {ROOT}/{folder} is not a folder, so '..' after it names nothing")
            if here:
                here.pop()
            continue
        here.append(part)


def _stored(repo: Store, rel: str) -> str:
    """The memory file a model's file name is kept in (itself, or the name plus ``.md``)."""
    stored = stored_name(rel)
    try:
        return repo.rel(stored)
    except PathError as exc:
        raise MemoryToolError(f"{ROOT}/{rel}: {exc.message.removeprefix(stored + ': ')}") from None


def stored_name(rel: str) -> str:
    """The memory file that holds the model's file ``rel``: ``rel`` itself if it is a memory file
    name (``notes.md``), else ``rel`` plus ``.md`` (``progress.xml.md``, ``README.md.md``)."""
    stored = rel
    while not paths.is_memory_name(stored) and len(stored) < len(rel) + 6:
        stored += ".md"
    return stored


def model_name(stored: str, meta: Mapping[str, Any] | None) -> str:
    """The model's name for the memory file ``stored``: what ``file_name`` says, if it maps back
    to ``stored``; else the file's own path."""
    name = (meta or {}).get(NAME_KEY)
    if isinstance(name, str) and name and "/" not in name:
        folder = posixpath.dirname(stored)
        candidate = f"{folder}/{name}" if folder else name
        if stored_name(candidate) == stored and candidate != stored:
            return candidate
    return stored


def _listing(run: Run, path: str, rel: str) -> str | None:
    entries = run.entries(rel)
    if rel and not entries:
        return None
    return reference.listing(path, rel, [(e.name, len(view_text(e.stored, e.data).encode())) for e in entries])


_EXISTS = "The destination {new_path} already exists"
_MISSING = "The path {path} does not exist. Please provide a valid path."
_STRING = "'{name}' is required and must be a string"
#: The reference tool's texts (``BetaLocalFilesystemMemoryTool``), and memfs's own where it refuses more.
TEXTS: Texts = {
    "not_object": "the tool input must be an object with a 'command'",
    "unknown": "Unknown command: {command}; use one of: {commands}",
    "required": _STRING,
    "wrong": _STRING,
    "empty": "'{name}' may not be empty",
    "not_found": _MISSING,
    "no_memory": _MISSING,
    "no_path": "The path {path} does not exist",
    "not_file": "The path {path} is not a file.",
    "is_folder": "The path {path} is a directory",
    "root_delete": f"Cannot delete the {ROOT} directory itself",
    "exists": "File {path} already exists",
    "dest_exists": _EXISTS,
    "taken": "The path {path} is taken by a memory outside this session; pick another name",
    "same_name": "The destination {path} cannot be used: {other} is stored under the same name",
    "same": _EXISTS,
    "into_itself": "Cannot move {old_path} into itself ({new_path})",
    "dependents": "{where}: {named} depend(s) on it (depends_on); it cannot be deleted or moved until they no "
                  "longer do",
    "no_match": "No replacement was performed, old_str `{old}` did not appear verbatim in {path}.",
    "many": "No replacement was performed. Multiple occurrences of old_str `{old}` in lines: {lines}. "
            "Please ensure it is unique",
    "line_range": "Invalid `insert_line` parameter: {line}. It should be within the range [0, {count}].",
    "too_large": "{path}: {size} bytes is too large to show whole; pass view_range [first, last]",
    "created": "File created successfully at: {path}",
    "overwrote": "File created successfully at: {path}",
    "replaced": "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                "{snippet}",
    "edited": "The file {path} has been edited.",
    "deleted": "Successfully deleted {path}",
    "renamed": "Successfully renamed {old_path} to {new_path}",
    "described": "The file {path} has been edited.",
    "wrong insert_line": "Invalid `insert_line` parameter: {value!r}. It must be a line number.",
    "wrong view_range": "`view_range` must be two line numbers [first, last] (last -1 = the end)",
}
#: The Anthropic memory tool: paths under /memories, any file name, folders deleted and moved
#: whole, a '---' block that is not plainly frontmatter kept as text, the write gate on every write.
DOOR = Door(
    offers=REFERENCE, texts=TEXTS, rel=_model_rel, stored=_stored, where=lambda rel: f"{ROOT}/{rel}",
    show=reference.numbered_view, listing=_listing, strict=False, name_of=model_name, folders=True, gate=True,
    trailers={"Memfs-Client": [REFERENCE]}, error=MemoryToolError,
)
COMMANDS = tuple(DOOR.commands)

__all__ = ["COMMANDS", "ROOT", "Call", "MemoryTool", "MemoryToolError", "model_name", "stored_name", "view_text"]
