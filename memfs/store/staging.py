"""Staging a change: what one transaction will commit, as it sees the files, and whether it may.

:class:`Staging` holds the staged bytes of each path and the file as it was, runs the
``read_only`` rule and the core guard (:mod:`memfs.policy.guard`) on what is staged, and finds
the errors that keep memories out of a commit (field errors, missing ``depends_on`` targets, ids
another memory uses): as each change is staged, and for all of them against HEAD's copies at
commit (:meth:`Staging._check`). :class:`memfs.store.transaction.Transaction` adds the commit
itself.

What a transaction needs of its store is :class:`Services`, and nothing else.
"""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from memfs.errors import ConflictError, InvalidMemory, MemfsError, MemoryNotFound, Refused, WriteRefused
from memfs.format import edit, yamlio
from memfs.format.document import Document
from memfs.format.limits import Limits
from memfs.format.model import Memory, Problem, utcnow
from memfs.format.parse import build, check_bytes, load_document, parse
from memfs.policy import guard
from memfs.policy.recall import ScopeRule
from memfs.policy.refusal import Refusal
from memfs.store import gitcli, paths, progress, revisions
from memfs.store.catalog import Catalog
from memfs.store.commits import Action, Change, CommitResult
from memfs.store.reading import says_read_only


class Services(Protocol):
    """What a transaction uses of its store (:class:`memfs.store.repo.Store`): where the files
    are and how their paths map to git's, the lock and journal, the session it runs in, and the
    lookups its checks make."""

    root: Path
    prefix: str
    git: gitcli.Git
    pathspec: str
    cache_dir: Path
    journal_path: Path
    binding: ScopeRule | None
    grants: guard.Grants
    #: What the running transaction's path confinement already checked (set while it runs).
    checked: paths.Checked | None
    #: Commits (or attempts) this store's transactions made: what invalidates a catalog.
    commits_made: int
    #: Who is told the steps of a long commit (checking it, writing and committing).
    progress: progress.Progress

    def locked(self) -> AbstractContextManager[None]: ...

    def limits(self) -> Limits: ...

    def rel(self, path: str) -> str: ...

    def abspath(self, rel: str) -> Path: ...

    def git_path(self, rel: str) -> str: ...

    def from_git_path(self, name: str) -> str | None: ...

    def exists(self, rel: str) -> bool: ...

    def read_bytes(self, rel: str) -> bytes | None: ...

    def files_at(self, rev: str | None, rels: list[str]) -> dict[str, bytes | None]: ...

    def visible(self, rel: str, data: bytes | None = None) -> bool: ...

    def named(self, rels: Iterable[str]) -> str: ...

    def is_read_only(self, rel: str, current: bytes | None = None) -> bool: ...

    def dependents(self, rel: str) -> list[str]: ...

    def repo_problems(self, memories: list[Memory], exists: Callable[[str], bool]) -> list[Problem]: ...

    def catalog(self) -> Catalog | None: ...

    def ids_in_use(self, only: Iterable[str] | None = None) -> dict[str, list[str]]: ...

    def id_users(self, memory_id: str, exclude: Iterable[str] = (),
                 candidates: dict[str, list[str]] | None = None) -> list[str]: ...


#: From this many changed paths on, a commit finds the committed copies it already holds by blob
#: id before reading the others (:meth:`Staging._held_committed`).
_MANY_COMMITTED = 64


class Staging:
    """The changes of one transaction, staged and judged; :class:`~memfs.store.transaction.Transaction`
    commits them."""

    def __init__(
        self,
        repo: Services,
        op: str,
        *,
        reason: str | None,
        actor: str,
        subject: str | None,
        trailers: Mapping[str, list[str]] | None,
        when: dt.datetime | None = None,
        force: bool = False,
        verb: str | None = None,
    ) -> None:
        self.repo = repo
        self.op = op
        self.verb = verb or op
        self.reason = reason
        self.actor = actor
        self.subject = subject
        self.trailers = dict(trailers or {})
        #: A paragraph of the commit message between the subject and the reason, if any.
        self.note: str | None = None
        self.when = when
        self.now = (when or utcnow()).astimezone(dt.UTC).replace(microsecond=0)
        self.force = force
        self.result = CommitResult(None, (), op)
        self._pending: dict[str, bytes | None] = {}
        self._refused: list[list[Refusal]] = []
        self._before: dict[str, bytes | None] = {}
        self._actions: dict[str, Change] = {}
        self._parsed: dict[str, Memory] = {}
        self._plain: set[str] = set()
        self._adopted: set[str] = set()
        self._judged: dict[str, bytes | None] = {}
        self._moves: dict[str, str] = {}
        self._free_ids: set[str] = set()
        self._catalog: tuple[int, Catalog | None] | None = None
        self._loaded: dict[str, tuple[bytes, Document, dict[str, Any], Memory]] = {}
        self._marks: dict[str, int] | None = None
        self._marks_head: str | None = None
        self._lock: AbstractContextManager[None] | None = None
        self._outer_checked: paths.Checked | None = None

    def note_refused(self, refusals: Sequence[Refusal]) -> None:
        """Count one refused write, broken ``refusals``, in the refusal log
        (:mod:`memfs.store.refusal_log`) when this transaction ends. The guard's refusals (staging
        and commit) and any :class:`WriteRefused` raised out of the ``with`` block are counted
        without this; a caller that catches one and goes on (a batch skipping a candidate) calls it."""
        fresh = [r for r in refusals if not any(r is seen for write in self._refused for seen in write)]
        if fresh:
            self._refused.append(fresh)

    def _head_before(self) -> str | None:
        """The commit HEAD was on before this transaction (its own commit's parent, if it made one)."""
        if self.result.commit is None:
            return self.repo.git.head()
        return self.result.parent or self.repo.git.rev(f"{self.result.commit}^") or None

    def _refuse(self, refusals: list[Refusal]) -> MemfsError:
        self.note_refused(refusals)
        return _guard_error(refusals)

    # --- staging -------------------------------------------------------------------------
    def floor(self, rel: str) -> int:
        """The highest revision the memory at ``rel`` ever had in HEAD's history (0: none): every
        new revision this transaction writes is above it (:mod:`memfs.store.revisions`)."""
        if self._marks is None:
            self._marks_head, self._marks = revisions.marks(self.repo.git, self.repo.pathspec)
        return self._marks.get(self.repo.git_path(rel), 0)

    def current_bytes(self, rel: str) -> bytes | None:
        if rel in self._pending:
            return self._pending[rel]
        return self.repo.read_bytes(rel)

    def read(self, path: str) -> Memory:
        rel = self.repo.rel(path)
        memory = self.memory(rel)
        if memory is None:
            raise MemoryNotFound(f"{rel}: no such memory")
        return memory

    def memory(self, rel: str) -> Memory | None:
        """The memory at root-relative ``rel`` as this transaction sees it (``None``: no file;
        :class:`InvalidMemory` if it does not parse). The parse is kept: a later :meth:`write` of
        the same file, while its bytes are still these, edits it without reading the YAML again
        (a retraction parses its closure once, to plan, and edits from that parse)."""
        data = self.current_bytes(rel)
        if data is None:
            return None
        doc, meta = load_document(rel, data)
        memory = build(rel, meta, doc.body, doc.frontmatter)
        self._loaded[rel] = (data, doc, meta, memory)
        return memory

    def write(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        expected_revision: int | None = None,
        create_only: bool = False,
    ) -> Memory:
        """Create or change the memory at ``path``: only the given fields' lines change, plus
        ``revision`` and ``updated``."""
        rel = self.repo.rel(path)
        current = self.current_bytes(rel)
        fields = dict(fields or {})
        if current is None:
            if expected_revision not in (None, 0):
                raise ConflictError(f"{rel}: expected revision {expected_revision}, but the memory does not exist")
            result = edit.new_file(rel, fields, body or "", self.now, floor=self.floor(rel))
        elif create_only:
            raise ConflictError(f"{rel}: already exists; change it with write, or pick another path")
        else:
            self._check_staged_writable(rel, current)
            cached = self._loaded.get(rel)
            if cached is not None and cached[0] != current:
                cached = None
            result = edit.update_file(
                rel, current, fields, body, self.now, expected_revision, floor=self.floor(rel),
                loaded=None if cached is None else cached[1:3], old=None if cached is None else cached[3],
            )
        if result.content is not None:
            self._stage(rel, result.content, "create" if current is None else "update", result.memory.revision, current)
            self._parsed[rel] = result.memory
        return result.memory

    def write_bytes(self, rel: str, content: bytes, *, moved_from: str | None = None) -> Memory:
        """Stage exact bytes of a memory file (for operations that build files themselves).
        ``moved_from`` says the file is ``moved_from`` renamed (deleted in the same transaction),
        so the guard compares it with that file instead of judging it a new memory."""
        rel = self.repo.rel(rel)
        if moved_from is not None:
            self._moves[rel] = moved_from
        current = self.current_bytes(rel)
        if current is not None:
            self._check_staged_writable(rel, current)
        content = self._above_floor(rel, content, current if moved_from is None else self._before.get(moved_from))
        memory = parse(rel, content)
        self._stage(rel, content, "update" if current is not None else "create", memory.revision, current)
        self._parsed[rel] = memory
        return memory

    def _above_floor(self, rel: str, content: bytes, before: bytes | None) -> bytes:
        """``content`` with its revision moved above the memory's high-water mark when it is a new
        revision (a bump, or a file created) that the mark already holds: bytes built elsewhere
        (the file tools, a revert) count from the file as it is, which after a revert says an
        older number. Unchanged revisions (a move, a reinforcement) are left as they are."""
        old = 0 if before is None else revisions.revision_in(before) or 0
        new = revisions.revision_in(content)
        if new is None or (before is not None and new <= old):
            return content
        floor = self.floor(rel)
        if new > floor:
            return content
        doc, _ = load_document(rel, content)
        frontmatter = yamlio.edit(doc.frontmatter, {"revision": max(old, floor) + 1}, doc.newline)
        return doc.with_frontmatter(frontmatter).render().encode("utf-8")

    def write_file(self, rel: str, content: bytes) -> None:
        """Stage a file of the root that is not a memory (configuration, ``.gitattributes``, a
        README): confined to the root like a memory, committed with the rest, never parsed."""
        rel = paths.confine(self.repo.root, rel, must_be_memory=False)
        self._stage(rel, content, "update" if self.current_bytes(rel) is not None else "create", None)
        self._plain.add(rel)

    def delete(self, path: str, *, expected_revision: int | None = None, check_dependents: bool = True) -> None:
        """Delete the memory at ``path``; refused while others depend on it (unless
        ``check_dependents`` is off: a move that rewrites them, or a person forcing it)."""
        rel = self.repo.rel(path)
        current = self.current_bytes(rel)
        if current is None:
            raise MemoryNotFound(f"{rel}: no such memory")
        self._check_staged_writable(rel, current)
        if expected_revision is not None:
            edit.check_revision(rel, parse(rel, current).revision, expected_revision, then="before deleting")
        if check_dependents:
            self._refuse_if_depended_on(rel)
        self._stage(rel, None, "delete", None, current)

    def adopt(self, path: str, at_head: tuple[bytes | None] | None = None) -> Memory | None:
        """Commit the memory file at ``path`` as it is on disk now (someone else wrote or deleted
        it): validated like any write, :class:`InvalidMemory` if it is not valid, refused if the
        committed copy is ``read_only`` or the core guard refuses it (judged now, so one refused
        file leaves the others of the batch to commit). Returns the parsed memory (``None`` for a
        deletion). ``at_head``: the file as committed at HEAD, ``(bytes or None,)``, when the caller has
        just read it (else it is read here)."""
        rel = self.repo.rel(path)
        data = self.repo.read_bytes(rel)
        committed = self.repo.git.head_file(self.repo.git_path(rel)) if at_head is None else at_head[0]
        if not self.forced and says_read_only(rel, committed):
            raise read_only_refusal(rel)
        if data is None:
            self._refuse_if_depended_on(rel)
            memory = None
        else:
            memory = parse(rel, data)
            problems = self.problems([memory])
            if problems:
                raise InvalidMemory("; ".join(str(p) for p in problems[:5]), problems)
            self._parsed[rel] = memory
        action: Action = "delete" if data is None else "create" if committed is None else "update"
        self._pending[rel] = data
        refusals = self._judge(rel, committed, self.access)
        if refusals:
            del self._pending[rel]
            self._parsed.pop(rel, None)
            raise self._refuse(refusals)
        self._judged[rel] = data
        self._before[rel] = data
        self._actions[rel] = Change(rel, action, memory.revision if memory else None)
        self._adopted.add(rel)
        return memory

    def admit(self, path: str, content: bytes, committed: bytes | None) -> Memory:
        """Stage exact bytes of a memory file and judge them at once, as :meth:`adopt` judges a
        file someone else wrote: field errors raise :class:`InvalidMemory`, a ``read_only`` copy
        or the core guard refuses it, and then nothing stays staged for it. So a bulk load (an
        import) reports this file and goes on with the others. ``committed`` is the file's copy
        in HEAD (:meth:`committed` reads many in one batch). ``depends_on`` targets and ids are
        checked over the whole transaction at commit, and the guard runs again there."""
        rel = self.repo.rel(path)
        current = self.current_bytes(rel)
        if not self.forced and (says_read_only(rel, committed) or says_read_only(rel, current)):
            raise read_only_refusal(rel)
        memory = parse(rel, content)
        errors = [p for p in memory.problems if p.severity == "error"]
        if errors:
            raise InvalidMemory("; ".join(str(p) for p in errors[:5]), errors)
        self._stage(rel, content, "update" if current is not None else "create", memory.revision, current)
        self._parsed[rel] = memory
        refusals = self._judge(rel, committed, self.access)
        if refusals:
            self.discard(rel)
            raise self._refuse(refusals)
        self._judged[rel] = self._pending[rel]
        return memory

    def discard(self, path: str) -> None:
        """Take back whatever this transaction staged for ``path`` (the file on disk is untouched)."""
        rel = self.repo.rel(path)
        for staged in (self._pending, self._actions, self._parsed, self._before, self._judged):
            staged.pop(rel, None)

    def _refuse_if_depended_on(self, rel: str) -> None:
        users = [d for d in self.repo.dependents(rel) if self._pending.get(d, b"") is not None]
        if users:
            raise Refused(
                f"{rel}: cannot be deleted, {self.repo.named(users)} depend(s) on it; remove those depends_on "
                "entries first",
                forceable=True,
            )

    @property
    def forced(self) -> bool:
        """Whether a person forces this change (an agent's ``force`` counts for nothing)."""
        return self.force and guard.actor_kind(self.actor) == guard.PERSON

    @property
    def access(self) -> guard.Access:
        """Who makes this change, by which verb, in which session: what the guard judges."""
        return guard.Access(self.actor, self.verb, self.repo.binding, self.repo.grants, self.force, self.now)

    def check_writable(self, rel: str, current: bytes | None = None) -> None:
        """Refuse (:class:`~memfs.errors.Refused`) to change a ``read_only: true`` memory (its
        working copy or its committed copy) unless a person forces this transaction. Every change
        is checked (the working copy when staged, the committed copies in one batch at commit);
        callers that prepare a change before staging it call this first, so the refusal is what
        their caller sees."""
        if not self.forced and self.repo.is_read_only(rel, current):
            raise read_only_refusal(rel)

    def _check_staged_writable(self, rel: str, current: bytes) -> None:
        if not self.forced and says_read_only(rel, current):
            raise read_only_refusal(rel)

    def _guard(self, rels: list[str], committed: Mapping[str, bytes | None], message: str) -> None:
        """The core guard (:mod:`memfs.policy.guard`) over every change against its committed copy,
        and over the commit message: the same rules whichever door staged the change."""
        access = self.access
        refusals = guard.check_message(message)
        sources = set(self._moves.values())
        for rel in rels:
            if (self._pending[rel] is None and rel in sources) or self._already_judged(rel):
                continue
            refusals += self._judge(rel, committed.get(self._moves.get(rel) or rel), access)
        if refusals:
            raise self._refuse(refusals)

    def _already_judged(self, rel: str) -> bool:
        """Whether ``rel`` is staged exactly as :meth:`adopt` or :meth:`admit` judged it (any later
        staging replaces the bytes, so it is judged again at commit)."""
        return rel in self._judged and self._judged[rel] is self._pending[rel]

    def _judge(self, rel: str, committed: bytes | None, access: guard.Access) -> list[Refusal]:
        """The guard's refusals for the staged change of ``rel`` against its committed copy."""
        source = self._moves.get(rel)
        parsed = None if rel in self._plain else self._parsed.get(rel)
        floor = 0 if self._marks is None else max(self.floor(rel), self.floor(source) if source else 0)
        change = guard.describe(
            rel, _loose_text(committed), _loose_text(self._pending[rel]),
            after_meta=None if parsed is None else parsed.meta, moved_from=source, floor=floor,
            owned=guard.owned_fields(access),
        )
        return guard.secrets(change) if rel in self._plain else guard.check(change, access)

    def _stage(
        self, rel: str, content: bytes | None, action: Action, revision: int | None, on_disk: bytes | None = b""
    ) -> None:
        """Stage ``content`` for ``rel``; ``on_disk`` is the file as the caller just read it (the
        default ``b""`` means "not read": it is read here)."""
        if rel not in self._before:
            self._before[rel] = self.repo.read_bytes(rel) if on_disk == b"" else on_disk
        self._parsed.pop(rel, None)
        if self._before[rel] is None and content is None:
            self._pending.pop(rel, None)
            self._actions.pop(rel, None)
            return
        self._pending[rel] = content
        self._actions[rel] = Change(rel, "create" if self._before[rel] is None else action, revision)

    # --- checking ------------------------------------------------------------------------
    def problems(self, staged: list[Memory]) -> list[Problem]:
        """The errors that keep ``staged`` memories out of a commit: their own field errors,
        ``depends_on`` targets that do not exist, ids another memory already uses."""
        found = [p for m in staged for p in m.problems if p.severity == "error"]
        found.extend(p for p in self.repo.repo_problems(staged, self._exists) if p.severity == "error")
        found.extend(self._id_clashes(staged))
        return found

    def committed(self, rels: list[str]) -> dict[str, bytes | None]:
        """The committed copy of each of ``rels`` (``None``: not in HEAD), in one ``git cat-file --batch``."""
        return self._committed(rels, self.repo.git.head())

    def _committed(self, rels: list[str], head: str | None) -> dict[str, bytes | None]:
        """The committed copy of each changed file (``None``: not in HEAD), one ``git cat-file --batch``;
        ``head`` is HEAD as the caller just read it (``None``: there is none yet). Read through
        what the repository keeps of HEAD's commit (:meth:`Reader.files_at`), so a kept repository
        (a server, a session) asks git once per commit and path, however many writes are tried and
        refused at that commit."""
        if head is None:
            return dict.fromkeys(rels)
        names = {self.repo.git_path(rel): rel for rel in rels}
        held = self._held_committed(names, head)
        wanted = [rel for rel in rels if rel not in held]
        if head == self.repo.git.head():
            found = self.repo.files_at("HEAD", wanted)
        else:
            blobs = self.repo.git.read_blobs(head, [self.repo.git_path(rel) for rel in wanted])
            found = {rel: blobs.get(self.repo.git_path(rel)) for rel in wanted}
        return {rel: held[rel] if rel in held else found.get(rel) for rel in rels}

    def _held_committed(self, names: Mapping[str, str], head: str) -> dict[str, bytes]:
        """The committed copies this transaction already holds: the bytes it read of a file
        (before changing it) are HEAD's copy when they hash to the blob id HEAD has at that path.
        Only for many paths (:data:`_MANY_COMMITTED`): one ``ls-tree`` of their folders then
        replaces looking each one up in ``cat-file`` (981 files at 10k: ~40 ms of git and the
        parse of its output saved)."""
        if len(names) < _MANY_COMMITTED:
            return {}
        ids = self.repo.git.blob_ids(head, sorted({posixpath.dirname(name) or name for name in names}))
        held = {}
        for name, rel in names.items():
            data, sha = self._before.get(rel), ids.get(name)
            if data is not None and sha is not None and gitcli.blob_id(data, sha) == sha:
                held[rel] = data
        return held

    def _check_committed_writable(self, committed: Mapping[str, bytes | None]) -> None:
        if self.forced:
            return
        for rel, data in committed.items():
            if rel not in self._plain and says_read_only(rel, data):
                raise read_only_refusal(rel)

    def _check(self, rels: list[str], message: str, head: str | None) -> dict[str, bytes | None]:
        """Refuse what may not be committed; returns each path's committed copy (``None``: not in HEAD)."""
        self._refuse_oversized()
        committed = self._committed(rels, head)
        self._check_committed_writable(committed)
        self._guard(rels, committed, message)
        problems: list[Problem] = []
        staged: list[Memory] = []
        limits = self.repo.limits()
        for rel, content in self._pending.items():
            if content is None or rel in self._plain:
                continue
            try:  # the exact bytes: a memory parsed earlier may since have gained a body edit
                cached = self._parsed.get(rel)
                if cached is not None:
                    check_bytes(rel, content, limits)
                staged.append(cached or parse(rel, content, limits))
            except InvalidMemory as exc:
                problems.extend(exc.problems)
        problems.extend(self.problems(staged))
        if problems:
            detail = "; ".join(str(p) for p in problems[:5])
            more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
            raise InvalidMemory(f"nothing was written: {detail}{more}", problems)
        return committed

    def _refuse_oversized(self) -> None:
        """A memory over the size limit is refused before anything reads it closely (the guard's
        scan, the parse): a 100 MB body costs a length check, not minutes."""
        most = self.repo.limits().file_bytes
        big = [(rel, len(c)) for rel, c in self._pending.items() if c is not None and len(c) > most]
        if big:
            problems = [Problem(rel, None, f"is {size} bytes, over the {most}-byte limit for one memory",
                                "split it into several memories") for rel, size in big]
            raise InvalidMemory(f"nothing was written: {problems[0]}", problems)

    # --- committing ----------------------------------------------------------------------

    def _id_clashes(self, staged: list[Memory]) -> list[Problem]:
        """Ids this transaction introduces that another (untouched) memory already uses.

        One ``git grep`` for all ``id:`` lines, however many files the transaction creates.
        """
        new = [m for m in staged if m.id and not self._keeps_id(m) and m.id not in self._free_ids]
        if not new:
            return []
        candidates = self._ids_in_use(m.id for m in new if m.id)
        found = []
        for memory in new:
            for other in self.repo.id_users(memory.id or "", exclude=[memory.path, *self._pending],
                                            candidates=candidates):
                found.append(Problem(memory.path, "id", f"{memory.id!r} is already used by {self.repo.named([other])}",
                                     "give each memory its own id"))
        return found

    def id_is_free(self, memory_id: str) -> bool:
        """Whether no memory file uses ``memory_id`` (checked once, under this transaction's lock,
        so the commit need not grep for it again)."""
        if memory_id in self._free_ids:
            return True
        if self.repo.id_users(memory_id, exclude=self._pending, candidates=self._ids_in_use([memory_id])):
            return False
        self._free_ids.add(memory_id)
        return True

    def catalog(self) -> Catalog | None:
        """:meth:`Store.catalog`, validated once per transaction until a commit: within one
        transaction memfs changes files only by committing (a retraction inside it commits through
        a transaction of its own, so the cache is validated again), the same bound as the one
        ``git grep`` at one moment it replaces."""
        made = self.repo.commits_made
        if self._catalog is None or self._catalog[0] != made:
            self._catalog = (made, self.repo.catalog())
        return self._catalog[1]

    def _ids_in_use(self, ids: Iterable[str]) -> dict[str, list[str]]:
        wanted = set(ids)
        known = self.catalog() if wanted else None
        return known.ids(wanted) if known is not None else self.repo.ids_in_use(wanted)

    def _keeps_id(self, memory: Memory) -> bool:
        before = self._before.get(memory.path)
        if memory.path in self._adopted:
            before = self.repo.git.head_file(self.repo.git_path(memory.path))
        return before is not None and (memory.id or "").encode() in before

    def _exists(self, rel: str) -> bool:
        if rel in self._pending:
            return self._pending[rel] is not None
        return self.repo.exists(rel)


def _guard_error(refusals: list[Refusal]) -> MemfsError:
    """What the guard's refusals raise: "no such memory" for another scope's file (a bound session
    learns nothing about it), else :class:`WriteRefused` listing every rule."""
    for refusal in refusals:
        if refusal.rule == "scope-boundary" and refusal.field is None:
            return MemoryNotFound(refusal.message)
    return WriteRefused(refusals)



def _loose_text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


def read_only_refusal(rel: str) -> Refused:
    return Refused(f"{rel}: is read_only: true (core memory that agents may not change)", forceable=True)

