"""The memory tool as a model sees it: files under ``/memories`` whose text is the memory's body.

This is the ``memory_20250818`` tool contract (``view``, ``create``, ``str_replace``, ``insert``,
``delete``, ``rename``) served from a memfs session, with the outputs and error texts of the
Anthropic SDK's reference implementation (``BetaLocalFilesystemMemoryTool``), so a prompt written
for one works with the other. :mod:`memfs.integrations.anthropic` wraps it in the SDK's classes;
this module has no dependency on the SDK.

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

import contextlib
import posixpath
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from memfs.agents import filetext, reference, tools
from memfs.agents.filetext import NAME_KEY, RESERVED, view_text
from memfs.errors import InvalidMemory, MemfsError, PathError, Refused, UsageError, WriteRefused
from memfs.format import names, yamlio
from memfs.format.document import split
from memfs.format.model import Memory
from memfs.format.parse import load_document, parse
from memfs.policy import gate
from memfs.policy.candidate import Candidate
from memfs.store import paths
from memfs.store.repo import Store, Transaction

ROOT = "/memories"
COMMANDS = ("view", "create", "str_replace", "insert", "delete", "rename")


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


@dataclass(frozen=True)
class _Entry:
    """A memory the session sees, by the model's name for it."""

    name: str
    stored: str
    data: bytes


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
        self._lock = threading.Lock()

    # --- the commands --------------------------------------------------------------------
    def execute(self, command: Mapping[str, Any]) -> str:
        """Run one command given as the model sends it (``{"command": "view", "path": ...}``)."""
        if not isinstance(command, Mapping):
            raise MemoryToolError("the tool input must be an object with a 'command'")
        name = command.get("command")
        if name == "view":
            return self.view(_text(command, "path"), command.get("view_range"))
        if name == "create":
            return self.create(_text(command, "path"), _text(command, "file_text"))
        if name == "str_replace":
            return self.str_replace(_text(command, "path"), _text(command, "old_str"), _text(command, "new_str"))
        if name == "insert":
            return self.insert(_text(command, "path"), command.get("insert_line"), _text(command, "insert_text"))
        if name == "delete":
            return self.delete(_text(command, "path"))
        if name == "rename":
            return self.rename(_text(command, "old_path"), _text(command, "new_path"))
        raise MemoryToolError(f"Unknown command: {name}; use one of: {', '.join(COMMANDS)}")

    def view(self, path: str, view_range: Any = None) -> str:
        with self._serial():
            rel = self._model_rel(path)
            entry = self._file(rel) if rel else None
            if entry is not None:
                return reference.numbered_view(path, view_text(entry.stored, entry.data), view_range)
            entries = self._entries(rel)
            if rel and not entries:
                raise _missing(path)
            return reference.listing(path, rel, [(e.name, len(view_text(e.stored, e.data).encode())) for e in entries])

    def create(self, path: str, file_text: str) -> str:
        with self._serial():
            rel = self._model_rel(path, file=True)
            text = _checked(file_text, path)
            stored = self._stored(rel)
            with self._transaction("create", {stored: rel}) as tx:
                if self._file(rel) is not None or self._entries(rel):
                    raise MemoryToolError(f"File {path} already exists")
                self._refuse_taken(tx, stored, path)
                memory = tx.write_bytes(stored, self._new_file(rel, stored, text, tx))
                self._gate(memory, None)
            self._done(tx, "create", path)
            return f"File created successfully at: {path}"

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        with self._serial():
            rel = self._model_rel(path)
            entry = self._existing(rel, path)
            with self._transaction("edit", {entry.stored: entry.name}, tool="str_replace") as tx:
                content = view_text(entry.stored, entry.data)
                count = content.count(old_str)
                if count == 0:
                    raise MemoryToolError(
                        f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
                    )
                if count > 1:
                    lines = filetext.match_lines(content, old_str)
                    raise MemoryToolError(
                        f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
                        f"{', '.join(map(str, lines))}. Please ensure it is unique"
                    )
                changed_line = content[: content.find(old_str)].count("\n")
                new_content = _checked(content.replace(old_str, new_str), path)
                self._rewrite(tx, entry, content, new_content)
            self._done(tx, "str_replace", path)
            new_lines = new_content.split("\n")
            first, last = max(0, changed_line - 2), min(len(new_lines), changed_line + 3)
            snippet = [reference.numbered(n, new_lines[n - 1]) for n in range(first + 1, last + 1)]
            return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" + (
                "\n".join(snippet)
            )

    def insert(self, path: str, insert_line: Any, insert_text: str) -> str:
        with self._serial():
            rel = self._model_rel(path)
            entry = self._existing(rel, path)
            if not isinstance(insert_line, int) or isinstance(insert_line, bool):
                raise MemoryToolError(f"Invalid `insert_line` parameter: {insert_line!r}. It must be a line number.")
            with self._transaction("edit", {entry.stored: entry.name}, tool="insert") as tx:
                content = view_text(entry.stored, entry.data)
                count = len(filetext.lines_of(content))
                if not 0 <= insert_line <= count:
                    raise MemoryToolError(
                        f"Invalid `insert_line` parameter: {insert_line}. It should be within the range [0, {count}]."
                    )
                new_content = filetext.insert(content, insert_line, insert_text, path)
                self._rewrite(tx, entry, content, _checked(new_content, path))
            self._done(tx, "insert", path)
            return f"The file {path} has been edited."

    def delete(self, path: str) -> str:
        with self._serial():
            rel = self._model_rel(path)
            if not rel:
                raise MemoryToolError("Cannot delete the /memories directory itself")
            entry = self._file(rel)
            entries = [entry] if entry is not None else self._entries(rel)
            if not entries:
                raise MemoryToolError(f"The path {path} does not exist")
            with self._transaction("delete", {e.stored: e.name for e in entries}) as tx:
                gone = {e.stored for e in entries}
                for item in entries:
                    self._refuse_dependents(item, gone)
                    tx.delete(item.stored, check_dependents=False)
            self._done(tx, "delete", path)
            return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        with self._serial():
            old, new = self._model_rel(old_path), self._model_rel(new_path)
            if not new:
                raise MemoryToolError(f"The destination {new_path} already exists")
            if self._file(new) is not None or self._entries(new):
                raise MemoryToolError(f"The destination {new_path} already exists")
            entry = self._file(old) if old else None
            if entry is not None:
                moves = [(entry, new, self._stored(new))]
            else:
                entries = self._entries(old)
                if not entries:
                    raise MemoryToolError(f"The path {old_path} does not exist")
                if not old or new.startswith(old + "/"):
                    raise MemoryToolError(f"Cannot move {old_path} into itself ({new_path})")
                moves = []
                for item in entries:
                    name = new + item.name[len(old) :]
                    moves.append((item, name, self._stored(name)))
            named = {m[0].stored: m[0].name for m in moves} | {m[2]: m[1] for m in moves}
            with self._transaction("rename", named, subject=f"{old} -> {new}") as tx:
                gone = {m[0].stored for m in moves}
                for item, _, stored in moves:
                    if stored not in gone:
                        self._refuse_taken(tx, stored, new_path)
                    self._refuse_dependents(item, gone)
                    tx.delete(item.stored, check_dependents=False)
                for item, name, stored in moves:
                    tx.write_bytes(stored, _renamed(item, name, stored), moved_from=item.stored)
            self._done(tx, "rename", old_path)
            return f"Successfully renamed {old_path} to {new_path}"

    def files(self, folder: str = ROOT) -> dict[str, str]:
        """What the model would see under ``folder``: ``{"/memories/notes.txt": text}`` for every
        memory of the session there (for hosts and tests; no call is recorded)."""
        with self._serial():
            rel = self._model_rel(folder)
            return {f"{ROOT}/{e.name}": view_text(e.stored, e.data) for e in self._entries(rel)}

    def clear(self) -> str:
        """Delete every memory of the session's scope (not ``system/``) in one commit."""
        with self._serial():
            entries = [e for e in self._entries("") if not e.stored.startswith("system/")]
            if entries:
                with self._transaction("delete", {e.stored: e.name for e in entries}, tool="clear_all_memory") as tx:
                    gone = {e.stored for e in entries}
                    for item in entries:
                        self._refuse_dependents(item, gone)
                        tx.delete(item.stored, check_dependents=False)
                self._done(tx, "clear_all_memory", ROOT)
            return "All memory cleared"

    # --- names ---------------------------------------------------------------------------
    def _model_rel(self, path: Any, *, file: bool = False) -> str:
        """The model's path relative to ``/memories`` ('' for the root itself), checked."""
        if not isinstance(path, str):
            raise MemoryToolError(f"Path must be a string, got: {path!r}")
        if path != ROOT and not path.startswith(ROOT + "/"):
            raise MemoryToolError(f"Path must start with {ROOT}, got: {path}")
        raw = path[len(ROOT) :].lstrip("/")
        if "\\" in raw or "\x00" in raw:
            raise MemoryToolError(f"{path}: backslashes and NUL bytes are not accepted in memory paths; use '/'")
        rel = posixpath.normpath(raw) if raw else ""
        if rel == ".":
            rel = ""
        if rel == ".." or rel.startswith("../"):
            raise MemoryToolError(f"Path {path} would escape {ROOT} directory")
        rel = names.nfc(rel)
        if not rel:
            if file:
                raise MemoryToolError(f"The path {path} is a directory")
            return rel
        if any(part.startswith(".") for part in rel.split("/")):
            raise MemoryToolError(f"{path}: names starting with '.' are hidden, and memfs keeps none; rename it")
        why = names.path_problem(stored_name(rel))
        if why:
            raise MemoryToolError(f"{path}: {why}")
        try:
            paths.confine(self.repo.root, rel, must_be_memory=False, git_dir=self.repo.git.git_dir)
        except PathError as exc:
            raise MemoryToolError(f"{path}: {exc.message.removeprefix(rel + ': ')}") from None
        return rel

    def _stored(self, rel: str) -> str:
        """The memory file a model's file name is kept in (itself, or the name plus ``.md``)."""
        stored = stored_name(rel)
        try:
            return self.repo.rel(stored)
        except PathError as exc:
            raise MemoryToolError(f"{ROOT}/{rel}: {exc.message.removeprefix(stored + ': ')}") from None

    # --- reading -------------------------------------------------------------------------
    def _file(self, rel: str) -> _Entry | None:
        """The memory the model calls ``rel``, if the session sees one."""
        stored = self._stored(rel)
        data = self.repo.read_bytes(stored)
        if data is None or not self.repo.visible(stored, data):
            return None
        if model_name(stored, _meta_of(stored, data)) != rel:
            return None
        return _Entry(rel, stored, data)

    def _existing(self, rel: str, path: str) -> _Entry:
        if not rel:
            raise MemoryToolError(f"The path {path} is not a file.")
        entry = self._file(rel)
        if entry is not None:
            return entry
        if self._entries(rel):
            raise MemoryToolError(f"The path {path} is not a file.")
        raise _missing(path)

    def _entries(self, rel: str) -> list[_Entry]:
        """Every memory the session sees under the folder ``rel`` ('' = all), by model name."""
        prefix = f"{rel}/" if rel else ""
        found = []
        for stored in self.repo.memory_paths():
            if not stored.startswith(prefix):
                continue
            data, memory, _ = self.repo.load(stored)
            if data is None or memory is None or not self.repo.visible(stored, data):
                continue
            found.append(_Entry(model_name(stored, memory.meta), stored, data))
        return found

    # --- writing -------------------------------------------------------------------------
    def _new_file(self, rel: str, stored: str, text: str, tx: Transaction) -> bytes:
        """The bytes of a new memory: memfs's and the host's fields, then the model's own lines."""
        host: dict[str, Any] = {"type": "note", "scope": self.scope, "source": self.source, "source_kind": "agent"}
        host.update(self.defaults)
        name = posixpath.basename(rel) if stored != rel else None
        return filetext.new_file(text, host=host, now=tx.now, strict=False, where=f"{ROOT}/{rel}", name=name)

    def _rewrite(self, tx: Transaction, entry: _Entry, before: str, after: str) -> None:
        """Stage the memory whose text the model changed from ``before`` to ``after``."""
        if after == before:
            return
        tx.check_writable(entry.stored, entry.data)
        content = filetext.rewrite(
            entry.stored, entry.data, after, now=tx.now, strict=False, where=f"{ROOT}/{entry.name}"
        )
        if content is not None:
            self._gate(tx.write_bytes(entry.stored, content), parse(entry.stored, entry.data))

    def _gate(self, memory: Memory, existing: Memory | None) -> None:
        """The write gate over the memory a call would leave (secrets, sources, preferences)."""
        candidate = Candidate(
            scope=memory.scope or self.scope,
            body=memory.body,
            type=memory.type or "note",
            key=memory.key,
            source=memory.source,
            source_kind=memory.source_kind,
            version=memory.version,
            expires=memory.expires,
            description=memory.description,
            tags=memory.tags,
        )
        # Secrets are the core guard's to judge (it sees the path and the message too).
        refusals = [r for r in gate.check(candidate, existing) if not r.rule.startswith("secret/")]
        if refusals:
            raise WriteRefused(refusals)

    def _refuse_taken(self, tx: Transaction, stored: str, path: str) -> None:
        data = tx.current_bytes(stored)
        if data is None:
            return
        if not self.repo.visible(stored, data):
            raise MemoryToolError(f"The path {path} is taken by a memory outside this session; pick another name")
        raise MemoryToolError(
            f"The destination {path} cannot be used: {ROOT}/{model_name(stored, _meta_of(stored, data))} is "
            "stored under the same name"
        )

    def _refuse_dependents(self, entry: _Entry, leaving: set[str]) -> None:
        users = [d for d in self.repo.dependents(entry.stored) if d not in leaving]
        if users:
            raise Refused(
                f"{ROOT}/{entry.name}: {self.repo.named(users)} depend(s) on it (depends_on); "
                "it cannot be deleted or moved until they no longer do"
            )

    def _transaction(
        self, op: str, named: Mapping[str, str], *, tool: str | None = None, subject: str | None = None
    ) -> _Guarded:
        """One call's transaction; ``named`` maps the memory files it touches to the model's names."""
        trailers = {"Memfs-Tool": [tool or op], "Memfs-Client": ["memory_20250818"]}
        tx = self.repo.transaction(
            op, reason=self.reason, actor=self.repo.actor, trailers=trailers, subject=subject
        )
        return _Guarded(tx, named)

    def _done(self, tx: Transaction, command: str, path: str) -> None:
        commit = tx.result.commit
        call = Call(command, path, commit, tuple(c.path for c in tx.result.changes))
        self.last = call
        if commit:
            tools.catch_up_index(self.repo)
        if self.on_call is not None:
            self.on_call(call)

    @contextlib.contextmanager
    def _serial(self) -> Iterator[None]:
        """One call at a time per tool; memfs errors become what the model reads."""
        with self._lock:
            try:
                yield
            except MemoryToolError:
                raise
            except MemfsError as exc:
                raise MemoryToolError(str(exc)) from None


class _Guarded:
    """A transaction whose errors name the model's files (``notes.txt``) rather than the stored
    ones (``notes.txt.md``)."""

    def __init__(self, tx: Transaction, named: Mapping[str, str]) -> None:
        self.tx = tx
        self.named = named

    def __enter__(self) -> Transaction:
        return self.tx.__enter__()

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        try:
            self.tx.__exit__(exc_type, exc, tb)
        except MemoryToolError:
            raise
        except MemfsError as error:
            raise MemoryToolError(_renamed_message(str(error), self.named)) from None
        if isinstance(exc, MemfsError) and not isinstance(exc, MemoryToolError):
            raise MemoryToolError(_renamed_message(str(exc), self.named)) from None


# --- the model's names and text ---------------------------------------------------------------
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


def _meta_of(stored: str, data: bytes) -> dict[str, Any]:
    try:
        return load_document(stored, data)[1]
    except InvalidMemory:
        return {}


def _renamed(entry: _Entry, name: str, stored: str) -> bytes:
    """The bytes of ``entry`` under its new name: only ``file_name`` changes, if it must."""
    wanted = posixpath.basename(name) if stored != name else None
    meta = _meta_of(entry.stored, entry.data)
    if meta.get(NAME_KEY) == wanted or (wanted is None and NAME_KEY not in meta):
        return entry.data
    doc = split(entry.data.decode("utf-8"))
    try:
        frontmatter = yamlio.edit(doc.frontmatter, {NAME_KEY: wanted}, doc.newline)
    except ValueError as exc:
        raise InvalidMemory(f"{entry.stored}: {exc}; nothing was moved") from None
    return doc.with_frontmatter(frontmatter).render().encode("utf-8")


def _renamed_message(message: str, named: Mapping[str, str]) -> str:
    """``message`` with each stored file name (``notes.txt.md``) replaced by the model's path
    (``/memories/notes.txt``), longest names first."""
    for stored in sorted(named, key=len, reverse=True):
        pattern = r"(?<![^\s'\"(])" + re.escape(stored) + r"(?![^\s'\":,;)])"
        message = re.sub(pattern, f"{ROOT}/{named[stored]}".replace("\\", "\\\\"), message)
    return message


def _missing(path: str) -> MemoryToolError:
    return MemoryToolError(f"The path {path} does not exist. Please provide a valid path.")


def _checked(text: str, path: str) -> str:
    """Refuse text memfs would not keep (binary, not Unicode, over the size limit), naming the file."""
    try:
        return filetext.check_text(text, path)
    except Refused as exc:
        raise MemoryToolError(str(exc)) from None


def _text(command: Mapping[str, Any], name: str) -> str:
    value = command.get(name)
    if not isinstance(value, str):
        raise MemoryToolError(f"'{name}' is required and must be a string")
    return value


__all__ = ["COMMANDS", "ROOT", "Call", "MemoryTool", "MemoryToolError", "model_name", "stored_name", "view_text"]
