"""The file tools, once: every command of :data:`~memfs.agents.verbs.FILE_COMMANDS` has one
runner here, and every door runs its requests through them (``memfs tool`` and MCP through
:mod:`memfs.agents.tools`, the Anthropic memory tool through :mod:`memfs.agents.memory_tool`).

A request is read once, by :func:`parse_request`, from the declarations: the command names its
class, and the class's fields offered at the door are taken from the request, each checked
against its declared type and length; other keys are not read. The runner is found by the request's class
(:func:`runs`), so a field added to a declaration reaches its runner with nothing else written.

What differs between the doors is data in a :class:`Door`: how a model's path names a memory
file, whether a text starting with ``---`` must be frontmatter (``strict``), what the door says
(:class:`Texts`) and how it shows a file and a folder, whether folders are deleted and moved
whole, the write gate, the commit trailers and the exception a model reads. The text a model
sees and edits is :mod:`memfs.agents.filetext`'s, the same at every door; every write is one
transaction of the store, one commit.
"""

from __future__ import annotations

import contextlib
import re
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from memfs.agents import filetext
from memfs.agents.filetext import MAX_FILE_BYTES
from memfs.agents.verbs import FILE_COMMANDS, FileCommand
from memfs.errors import ConflictError, InvalidMemory, MemfsError, MemoryNotFound, Refused, UsageError, WriteRefused
from memfs.format.declare import Field, fields, fits
from memfs.format.model import Memory
from memfs.format.parse import load_document, parse
from memfs.ops import conflicts, judge
from memfs.policy import gate
from memfs.policy.candidate import Candidate
from memfs.policy.conflicts import Verdict
from memfs.store.repo import Store, Transaction

F = TypeVar("F", bound=FileCommand)
T = TypeVar("T")
Runner = Callable[["Run", Any], "Outcome"]
#: The runner of each file-tool command, by its declared class (filled by :func:`runs`).
RUNNERS: dict[type[FileCommand], Runner] = {}


#: What a door says: ``str.format`` templates by key (the keys of :data:`memfs.agents.tools.TEXTS`,
#: which every door has). A template may use ``{path}`` (the path as the model gave it) and
#: ``{where}`` (the memory as the door's messages name it), and the values its runner gives;
#: ``wrong FIELD`` replaces ``wrong`` for that field.
Texts = Mapping[str, str]


@dataclass(frozen=True)
class Door:
    """One way models reach the file tools. ``offers``: the declaration door whose commands and
    fields it takes. ``rel``: the model's path as a name below the root (``''``: the root), or
    refused; ``stored``: the memory file a name is kept in, or refused; ``name_of``: a file's
    name from its frontmatter, where names and files differ; ``where``: a name as messages say
    it. ``show`` numbers a file's text; ``listing`` lists a folder (``None``: no such folder).
    ``folders``: deleted and moved whole; ``gate``: the write gate judges every memory a call
    leaves; ``ids``: a new memory's id is written; ``reports``: a result names its commit and
    warnings; ``error``: what every memfs error becomes, its message naming the model's files."""

    offers: str
    texts: Texts
    rel: Callable[[Store, str], str]
    stored: Callable[[Store, str], str]
    where: Callable[[str], str]
    show: Callable[[str, str, list[int] | None], str]
    listing: Callable[[Run, str, str], str | None]
    strict: bool
    name_of: Callable[[str, Mapping[str, Any]], str] | None = None
    folders: bool = False
    gate: bool = False
    ids: bool = False
    reports: bool = False
    trailers: Mapping[str, list[str]] = field(default_factory=dict)
    error: type[MemfsError] | None = None

    @property
    def commands(self) -> dict[str, type[FileCommand]]:
        return {name: cls for name, cls in FILE_COMMANDS.items() if self.offers in cls.doors}


@dataclass(frozen=True)
class Host:
    """What the host decides, never the model: who acts, and the fields of new memories
    (``defaults``, then ``source``, ``scope``); ``reason`` is the commit reason of calls whose
    request gives none."""

    actor: str | None = None
    scope: str | None = None
    source: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What one request did: the text for the model, the memory file it ends at (root-relative,
    ``.`` for the root), its commit and revision, and every memory file it changed."""

    request: FileCommand
    text: str
    path: str
    commit: str | None = None
    revision: int | None = None
    changed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A memory the session sees: the model's name for it, its file and its bytes."""

    name: str
    stored: str
    data: bytes


# --- the request -----------------------------------------------------------------------------------
def parse_request(request: Any, door: Door) -> FileCommand:
    """The typed request a model's mapping makes at ``door`` (:class:`UsageError` saying what
    is wrong with it): derived from the declarations, so it takes exactly their fields."""
    texts = door.texts
    if not isinstance(request, Mapping):
        raise UsageError(texts["not_object"])
    commands, name = door.commands, request.get("command")
    cls = commands.get(name) if isinstance(name, str) else None
    if cls is None:
        raise UsageError(texts["unknown"].format(command=name, commands=", ".join(commands)))
    values = {}
    for declared in fields(cls, door.offers):
        value = request.get(declared.name)
        if value is None:
            if declared.required:
                raise UsageError(texts["required"].format(name=declared.name))
            continue
        if not fits(declared, value):
            wrong = texts.get(f"wrong {declared.name}", texts["wrong"])
            raise UsageError(wrong.format(name=declared.name, kind=_kind(declared), got=type(value).__name__,
                                          value=value))
        if declared.spec.minimum is not None and isinstance(value, str) and len(value) < declared.spec.minimum:
            raise UsageError(texts["empty"].format(name=declared.name))
        values[declared.name] = value
    return cls(**values)


_KINDS = {str: "a string", int: "a whole number", bool: "true or false", dict: "an object"}


def _kind(declared: Field) -> str:
    base = _KINDS.get(typing.get_origin(declared.base) or declared.base, "a value")
    return f"a list of {base.removeprefix('a ')}s" if declared.sequence else base


def runs(cls: type[F]) -> Callable[[Callable[[Run, F], Outcome]], Callable[[Run, F], Outcome]]:
    """Register the runner of the file-tool command ``cls`` (one per command)."""

    def register(runner: Callable[[Run, F], Outcome]) -> Callable[[Run, F], Outcome]:
        if cls in RUNNERS:
            raise TypeError(f"{cls.__name__} has a runner already")
        RUNNERS[cls] = runner
        return runner

    return register


def execute(store: Store, door: Door, host: Host, request: Any) -> Outcome:
    """Read one request at ``door`` and run it (see :func:`run`)."""
    with _as_door(door, {}, {}):
        op = parse_request(request, door)
    return run(store, door, host, op)


def run(store: Store, door: Door, host: Host, op: FileCommand) -> Outcome:
    """Run one typed request in the session ``store``."""
    return within(store, door, host, lambda call: RUNNERS[type(op)](call, op))


def within(store: Store, door: Door, host: Host, work: Callable[[Run], T]) -> T:
    """``work`` as one call at ``door``, its errors as the door raises them."""
    call = Run(store, door, host)
    with _as_door(door, call.named, call.composed):
        return work(call)


@contextlib.contextmanager
def _as_door(door: Door, named: Mapping[str, str], composed: Mapping[str, bytes]) -> Iterator[None]:
    try:
        yield
    except MemfsError as exc:
        if door.error is None:
            _cite_model_lines(exc, composed)
            raise
        if isinstance(exc, door.error):
            raise
        message = _model_line_numbers(str(exc), composed)
        raise door.error(_renamed_message(message, {k: door.where(v) for k, v in named.items()})) from None


def _cite_model_lines(exc: MemfsError, composed: Mapping[str, bytes]) -> None:
    """``exc``'s message, in place, citing the model's lines (for doors that raise memfs's own errors)."""
    message = _model_line_numbers(exc.message, composed)
    if message != exc.message:
        exc.message = message
        exc.args = (f"{exc.param}: {message}" if exc.param else message,)


def _renamed_message(message: str, named: Mapping[str, str]) -> str:
    """``message`` with each memory file (``notes.txt.md``) named as the model names it
    (``/memories/notes.txt``), longest names first."""
    for stored in sorted(named, key=len, reverse=True):
        pattern = r"(?<![^\s'\"(])" + re.escape(stored) + r"(?![^\s'\":,;)])"
        message = re.sub(pattern, named[stored].replace("\\", "\\\\"), message)
    return message


def _model_line_numbers(message: str, composed: Mapping[str, bytes]) -> str:
    """``message`` citing the lines of the text the model sent instead of the stored file's
    (:func:`memfs.agents.filetext.model_lines`): ``notes.md:10:`` after a file's name, and
    ``line 10`` too when the call wrote one file. A line of memfs's own fields is not cited."""
    for stored, data in composed.items():
        lines = filetext.model_lines(stored, data)
        if not lines:
            continue

        def cite(match: re.Match[str], lines: dict[int, int | None] = lines) -> str:
            shown = lines.get(int(match.group("n")))
            return match.group("pre") + (str(shown) if shown is not None else "?") + match.group("post")

        message = re.sub(r"(?P<pre>" + re.escape(stored) + r":)(?P<n>\d+)(?P<post>:)", cite, message)
        if len(composed) == 1:
            message = re.sub(r"(?P<pre>\bline )(?P<n>\d+)(?P<post>\b)", cite, message)
    return message


# --- one call --------------------------------------------------------------------------------------
class Run:
    """One call at a door: the session, what the door does, and the memory files the call has
    touched under the model's names (for its error messages)."""

    def __init__(self, store: Store, door: Door, host: Host) -> None:
        self.store, self.door, self.host = store, door, host
        self.named: dict[str, str] = {}
        #: the bytes the call is writing, per stored file (for the line numbers of its errors)
        self.composed: dict[str, bytes] = {}

    def say(self, key: str, **values: Any) -> str:
        return self.door.texts[key].format(**values)

    def rel(self, path: str) -> str:
        return self.door.rel(self.store, path)

    def stored(self, rel: str) -> str:
        return self.door.stored(self.store, rel)

    def file(self, rel: str) -> Entry | None:
        """The memory the model calls ``rel``, if the session sees one (a folder is none)."""
        if not rel or (self.store.root / rel).is_dir():
            return None
        stored = self.stored(rel)
        data = self.store.read_bytes(stored)
        if data is None or not self.store.visible(stored, data):
            return None
        if self.door.name_of is not None and self.door.name_of(stored, meta_of(stored, data)) != rel:
            return None
        return Entry(rel, stored, data)

    def entries(self, rel: str) -> list[Entry]:
        """Every memory the session sees in the folder ``rel`` ('' = all), by the model's name."""
        prefix = f"{rel}/" if rel else ""
        found = []
        for stored in self.store.memory_paths():
            if not stored.startswith(prefix):
                continue
            data, memory, _ = self.store.load(stored)
            if data is None or memory is None or not self.store.visible(stored, data):
                continue
            name = self.door.name_of(stored, memory.meta) if self.door.name_of is not None else stored
            found.append(Entry(name, stored, data))
        return found

    def transaction(self, op: FileCommand, verb: str, named: Mapping[str, str], *, tool: str | None = None,
                    subject: str | None = None) -> Transaction:
        self.named.update(named)
        trailers = {"Memfs-Tool": [tool or op.command], **self.door.trailers}
        reason = getattr(op, "reason", None) or self.host.reason
        actor = self.host.actor or self.store.actor
        return self.store.transaction(verb, reason=reason, actor=actor, subject=subject, trailers=trailers)

    def existing(self, tx: Transaction, rel: str, path: str) -> Entry:
        """The memory an edit changes: one the session sees, writable, not over the size limit."""
        entry = self.file(rel)
        if entry is None:
            if not rel or (self.door.folders and self.entries(rel)):
                raise UsageError(self.say("not_file", path=path, where=self.door.where(rel)))
            raise MemoryNotFound(self.say("no_memory", path=path, where=self.door.where(rel)))
        tx.check_writable(entry.stored, entry.data)
        if len(entry.data) > MAX_FILE_BYTES:
            raise Refused(f"{entry.stored}: {len(entry.data)} bytes is over the {MAX_FILE_BYTES}-byte limit; "
                          "edit it by hand")
        decoded(entry.stored, entry.data)
        self.named[entry.stored] = entry.name
        return entry

    def rewrite(self, tx: Transaction, entry: Entry, text: str) -> Memory:
        """Stage the memory whose text (by :mod:`memfs.agents.filetext`'s rule) is now ``text``."""
        content = filetext.rewrite(entry.stored, entry.data, text, now=tx.now, strict=self.door.strict,
                                   where=self.door.where(entry.name))
        if content is None:
            return parse(entry.stored, entry.data)
        return self.gated(self.write(tx, entry.stored, content), parse(entry.stored, entry.data))

    def write(self, tx: Transaction, stored: str, content: bytes, moved_from: str | None = None) -> Memory:
        """Stage ``content`` at ``stored`` (kept, so an error cites the model's own lines)."""
        self.composed[stored] = content
        return tx.write_bytes(stored, content, moved_from=moved_from)

    def gated(self, memory: Memory, existing: Memory | None) -> Memory:
        """The write gate over the memory a call would leave (secrets are the core guard's, which
        sees the path and the message too); an inferred preference is refused, since a file door
        cannot store it for review as ``remember`` does."""
        if not self.door.gate:
            return memory
        candidate = Candidate(
            scope=memory.scope or self.host.scope or "", body=memory.body, type=memory.type or "note",
            key=memory.key, source=memory.source, source_kind=memory.source_kind, version=memory.version,
            expires=memory.expires, description=memory.description, tags=memory.tags,
        )
        refusals = [r for r in gate.check(candidate, existing) if not r.rule.startswith("secret/")]
        # a file door cannot hold a memory for review, so what remember would hold as an inferred
        # preference is refused here (the single-event downgrade stays remember's)
        refusals += [r for r in gate.downgrades(candidate, frozenset()) if r.rule == "inferred-preference"]
        if refusals:
            raise WriteRefused(refusals)
        return memory

    def refuse_taken(self, tx: Transaction, stored: str, path: str) -> None:
        """A file the call would write to is held: by another scope's memory (only "taken"), or
        by one the model names otherwise."""
        data = tx.current_bytes(stored)
        if data is None:
            return
        where = self.door.where(stored)
        if not self.store.visible(stored, data):
            raise ConflictError(self.say("taken", path=path, where=where))
        other = self.door.name_of(stored, meta_of(stored, data)) if self.door.name_of is not None else stored
        raise ConflictError(self.say("same_name", path=path, where=where, other=self.door.where(other)))

    def remove(self, tx: Transaction, entries: list[Entry]) -> None:
        """Delete ``entries`` in ``tx``; refused while a memory that stays depends on one."""
        gone = {e.stored for e in entries}
        for entry in entries:
            users = [d for d in self.store.dependents(entry.stored) if d not in gone]
            if users:
                raise Refused(self.say("dependents", where=self.door.where(entry.name),
                                       named=self.store.named(users)))
            tx.delete(entry.stored, check_dependents=False)

    def done(self, op: FileCommand, tx: Transaction, key: str, stored: str, memory: Memory | None = None,
             **values: Any) -> Outcome:
        """The outcome of a call that ends at the memory file ``stored`` (``.`` or a folder when
        it took several), its search index caught up when it committed."""
        values.setdefault("path", getattr(op, "path", ""))
        text = self.say(key, where=self.door.where(stored), **values)
        commit = tx.result.commit
        changed = tuple(c.path for c in tx.result.changes)
        if self.door.reports:
            text += f" (commit {commit[:10]})" if commit else " (no change, nothing committed)"
            warnings = [str(p) for p in (memory.problems if memory else ()) if p.severity == "warning"]
            text += "\nWarnings: " + "; ".join(warnings) if warnings else ""
        if commit:
            catch_up_index(self.store)
            text += self.conflict_notice(memory) if memory is not None else ""
        revision = memory.revision if memory is not None else None
        return Outcome(op, text, stored, commit, revision, changed)


    def conflict_notice(self, memory: Memory) -> str:
        """What the model reads when the memory it wrote probably gives a new value for another
        one's subject (:mod:`memfs.policy.conflicts`): the other's name, so it edits or deletes
        one of them, and what the ``[judge] conflict`` rules on the pair, if one is set (a judge
        that cannot answer is named once, and the rules' reading stands). Then the near misses
        the rules did not pair (:mod:`memfs.policy.conflict_net`: at most a few, the most like
        it), for the model to judge, and the judge's ruling on them. The notice writes nothing:
        ignored, a probable conflict stays listed by ``memfs validate`` and ``memfs review``, and
        ``memfs context`` injects only the newer; a near miss stays as it is."""
        found, nearby = conflicts.around(self.store, memory)
        if not found and not nearby:
            return ""
        new = judge.side(memory)
        text = self._found_notice(new, found) if found else ""
        if nearby:
            text += self._near_notice(new, nearby)
        return text + "".join(f"\n{line}" for line in judge.drain())

    def _named(self, found: list[tuple[Memory, Verdict]]) -> dict[str, str]:
        names = {}
        for other, _ in found:
            name = self.door.name_of(other.path, other.meta) if self.door.name_of is not None else other.path
            names[other.path] = self.door.where(name)
        return names

    def _found_notice(self, new: judge.Side, found: list[tuple[Memory, Verdict]]) -> str:
        ruled = judge.rulings_on(self.store, new, found)
        names = self._named(found)
        one = len(names) == 1
        it = "it" if one else "them"
        ruling = next((r for r in ruled.values() if r.answer != "unrelated"), None) or next(iter(ruled.values()), None)
        text = (f"\nNote: {', '.join(names.values())} {'looks' if one else 'look'} like another value for the same "
                f"subject ({found[0][1].why}).")
        apart = self._apart_hint([m.path for m, _ in found])
        if ruling is None:
            text += (f" If this replaces {it}, delete or edit {it} so that one value stays; if both hold, say how "
                     f"they differ{apart}.")
        else:
            by, named = ruling.by[:1].upper() + ruling.by[1:], names[ruling.path]
            text += {"replace": f" {by} reads this as replacing {named}: delete or edit it so that one value stays.",
                     "keep-both": f" {by} reads this and {named} as true at once: say in one of them how they "
                                  f"differ{apart}.",
                     "unrelated": f" {by} reads this and {named} as unrelated: say in one of them what sets them "
                                  f"apart{apart}, since memfs's rules still pair them."}[ruling.answer]
        return text + " Until then only the newer is recalled."

    def _apart_hint(self, paths: list[str]) -> str:
        """At a door whose model writes frontmatter: how to record that both hold."""
        return f", or add distinct_from: [{', '.join(paths)}] to this memory's frontmatter" if self.door.strict else ""

    def _near_notice(self, new: judge.Side, nearby: list[tuple[Memory, Verdict]]) -> str:
        """The near misses, named for the model; a judge's ``replace`` or ``keep-both`` said
        beside the one it ruled on (``unrelated`` needs no word)."""
        ruled = judge.rulings_on(self.store, new, nearby, judge.NEAR_ASKS)
        names = self._named(nearby)
        text = ""
        for path, where in names.items():
            ruling = ruled.get(path)
            if ruling is not None and ruling.answer == "replace":
                by = ruling.by[:1].upper() + ruling.by[1:]
                text += (f"\nNote: similar memory {where}: {by} reads this as replacing it: delete or edit it so "
                         "that one value stays.")
            elif ruling is not None and ruling.answer == "keep-both":
                by = ruling.by[:1].upper() + ruling.by[1:]
                text += f"\nNote: similar memory {where}: {by} reads this and it as true at once: leave both."
            elif ruling is None:
                text += (f"\nNote: similar memory {where}: if this one replaces it, edit or delete it; if both "
                         "hold, leave both.")
        return text


def catch_up_index(store: Store) -> None:
    """Bring an existing search index up to date now, so the next search sees this write at once."""
    from memfs import index  # only after a write: a server's handshake does not load the index

    if (store.cache_dir / index.STATE_FILE).exists():
        with contextlib.suppress(MemfsError):
            index.sync(store)


def meta_of(stored: str, data: bytes) -> dict[str, Any]:
    try:
        return load_document(stored, data)[1]
    except InvalidMemory:
        return {}


def decoded(rel: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidMemory(f"{rel}: is not UTF-8 (byte {exc.start}); it cannot be shown or edited as text") from None
