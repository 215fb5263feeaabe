"""The git-backed memory store: open or init a repository, read memories, write them in commits.

Every change goes through a :class:`Transaction`: it holds the repository's write lock, checks
revisions, validates every file it would write, records a journal, writes the files atomically
and commits exactly those paths with a structured message whose author is the actor. One
operation is one commit; a failure before the commit leaves the working tree as it was.
"""

from __future__ import annotations

import getpass
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memfs.errors import ConflictError, InvalidMemory, MemfsError, MemoryNotFound, PathError
from memfs.format import edit, validate, yamlio
from memfs.format.document import Document
from memfs.format.model import Memory, Problem, utcnow
from memfs.format.parse import build, load_document, parse
from memfs.store import atomic, gitcli, journal, locking, paths
from memfs.store.commits import Message, subject_for

CONFIG_FILE = ".memfs.toml"
Action = Literal["create", "update", "delete"]


def default_actor() -> str:
    """``$MEMFS_ACTOR``, else ``user:<login name>``."""
    actor = os.environ.get("MEMFS_ACTOR", "").strip()
    if actor:
        return actor
    try:
        return f"user:{getpass.getuser()}"
    except (KeyError, OSError):
        return "user:unknown"


@dataclass(frozen=True)
class Change:
    path: str
    action: Action
    revision: int | None = None


@dataclass(frozen=True)
class CommitResult:
    """What one operation did: its commit (``None`` if nothing changed) and the file changes."""

    commit: str | None
    changes: tuple[Change, ...] = ()
    op: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "op": self.op,
            "changes": [{"path": c.path, "action": c.action, "revision": c.revision} for c in self.changes],
        }


@dataclass
class Scan:
    """Every memory file under the root: the parsed ones and the findings for broken ones."""

    memories: list[Memory] = field(default_factory=list)
    broken: list[Problem] = field(default_factory=list)


class MemoryRepo:
    """A memory root inside a git work tree. Paths in the API are relative to the memory root."""

    def __init__(self, root: Path, git: gitcli.Git, actor: str | None = None) -> None:
        self.root = root
        self.git = git
        self.actor = actor or default_actor()
        rel = os.path.relpath(root, git.workdir)
        self.prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        self.notices: list[str] = []
        self._recover()

    # --- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls, start: str | os.PathLike[str] = ".", actor: str | None = None) -> MemoryRepo:
        """The memory repository containing ``start``: the nearest folder with a ``.memfs.toml``
        up to the git top level, else the top level itself."""
        start_path = Path(os.path.abspath(start))
        top, git_dir = gitcli.discover(start_path)
        root = top
        here = Path(os.path.realpath(start_path))
        top_real = Path(os.path.realpath(top))
        for candidate in (here, *here.parents):
            if (candidate / CONFIG_FILE).is_file():
                root = top / os.path.relpath(candidate, top_real)
                break
            if candidate == top_real:
                break
        return cls(Path(os.path.normpath(root)), gitcli.Git(top, git_dir), actor)

    @classmethod
    def init(cls, directory: str | os.PathLike[str], actor: str | None = None) -> MemoryRepo:
        from memfs.store.init import init_repo

        return init_repo(Path(directory), actor or default_actor())

    # --- paths ---------------------------------------------------------------------------
    @property
    def cache_dir(self) -> Path:
        return self.root / paths.CACHE_DIR

    @property
    def lock_path(self) -> Path:
        return self.git.git_dir / "memfs.lock"

    @property
    def journal_path(self) -> Path:
        return self.git.git_dir / "memfs-journal.json"

    def rel(self, path: str | os.PathLike[str]) -> str:
        """The memory-root-relative form of ``path``; :class:`PathError` if it is not a memory path."""
        rel = paths.confine(self.root, path)
        if paths.is_ignored(self.root, rel):
            raise PathError(f"{rel}: is excluded by {paths.IGNORE_FILE}, so it is not a memory")
        return rel

    def abspath(self, rel: str) -> Path:
        return self.root / rel

    def git_path(self, rel: str) -> str:
        return self.prefix + rel

    def exists(self, rel: str) -> bool:
        return self.abspath(rel).is_file()

    # --- reading -------------------------------------------------------------------------
    def read_bytes(self, rel: str) -> bytes | None:
        try:
            return self.abspath(rel).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def read(self, path: str | os.PathLike[str]) -> Memory:
        return parse(*self.read_file(path))

    def read_file(self, path: str | os.PathLike[str]) -> tuple[str, bytes]:
        """(root-relative path, exact bytes) of a memory file; :class:`MemoryNotFound` if absent."""
        rel = self.rel(path)
        data = self.read_bytes(rel)
        if data is None:
            raise MemoryNotFound(f"{rel}: no such memory in {self.root}")
        return rel, data

    def memory_paths(self) -> list[str]:
        return list(paths.iter_memory_paths(self.root))

    def scan(self) -> Scan:
        """Parse every memory file; broken files become findings, never silently skipped."""
        result = Scan()
        for rel in self.memory_paths():
            data = self.read_bytes(rel)
            if data is None:
                continue
            try:
                result.memories.append(parse(rel, data))
            except InvalidMemory as exc:
                result.broken.extend(exc.problems)
        return result

    def validate(self, scan: Scan | None = None, only: list[str] | None = None) -> list[Problem]:
        """Every finding in the repository: broken files, field problems, cross-file problems.

        With ``only`` (root-relative paths, as a pre-commit hook passes them) just those files are
        parsed; duplicate ids are still found repository-wide, by one ``git grep``.
        """
        if only is not None:
            return self._validate_only(only)
        scan = scan or self.scan()
        found = list(scan.broken)
        for memory in scan.memories:
            found.extend(memory.problems)
        found.extend(validate.check_repo(scan.memories, self.exists))
        return _ordered(found)

    def _validate_only(self, rels: list[str]) -> list[Problem]:
        scan = Scan()
        for rel in dict.fromkeys(rels):
            data = self.read_bytes(rel)
            try:
                if data is not None:
                    scan.memories.append(parse(rel, data))
            except InvalidMemory as exc:
                scan.broken.extend(exc.problems)
        found = [p for p in self.validate(scan) if "is also used by" not in p.message]
        in_use = self.ids_in_use(m.id for m in scan.memories if m.id)
        for memory in scan.memories:
            others = self.id_users(memory.id, exclude=[memory.path], candidates=in_use) if memory.id else []
            if others:
                found.append(Problem(memory.path, "id", f"{memory.id!r} is also used by {', '.join(others)}",
                                     "give each memory its own id"))
        return _ordered(found)

    # --- writing -------------------------------------------------------------------------
    def transaction(
        self,
        op: str = "transaction",
        *,
        reason: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        trailers: Mapping[str, list[str]] | None = None,
    ) -> Transaction:
        return Transaction(self, op, reason=reason, actor=actor or self.actor, subject=subject, trailers=trailers)

    def write(
        self,
        path: str | os.PathLike[str],
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        expected_revision: int | None = None,
        create_only: bool = False,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """Create or update one memory in one commit. Unchanged content makes no commit.

        A file marked ``read_only: true`` is refused unless ``force`` (a person overriding it)."""
        rel = self.rel(path)
        self._guard_read_only(rel, force)
        op = "create" if not self.exists(rel) else "update"
        with self.transaction(op, reason=reason, actor=actor) as tx:
            tx.write(rel, fields=fields, body=body, expected_revision=expected_revision, create_only=create_only)
        return tx.result

    def delete(
        self,
        path: str | os.PathLike[str],
        *,
        expected_revision: int | None = None,
        reason: str | None = None,
        actor: str | None = None,
        force: bool = False,
    ) -> CommitResult:
        """Delete one memory in one commit; refused while other memories depend on it, or while it
        is ``read_only: true`` (unless ``force``)."""
        rel = self.rel(path)
        self._guard_read_only(rel, force)
        with self.transaction("delete", reason=reason, actor=actor) as tx:
            tx.delete(rel, expected_revision=expected_revision, force=force)
        return tx.result

    def _guard_read_only(self, rel: str, force: bool) -> None:
        data = None if force else self.read_bytes(rel)
        try:
            read_only = data is not None and parse(rel, data).read_only
        except InvalidMemory:
            return
        if read_only:
            raise MemfsError(
                f"{rel}: is read_only: true (core memory that agents may not change); "
                "a person who means to change it can pass --force"
            )

    def dependents(self, rel: str) -> list[str]:
        """Memories whose ``depends_on`` names ``rel`` (a fast ``git grep`` prefilter, then parsed)."""
        found = []
        for other in self._grep("-F", rel):
            if other == rel:
                continue
            data = self.read_bytes(other)
            try:
                memory = parse(other, data) if data is not None else None
            except InvalidMemory:
                continue
            if memory is not None and rel in memory.depends_on:
                found.append(other)
        return found

    def files_matching(self, regex: str) -> list[str]:
        """Memory paths with a line matching the POSIX extended ``regex`` (one ``git grep``,
        untracked files included): a prefilter, parse to be sure."""
        return self._grep("-E", regex)

    def files_containing(self, text: str) -> list[str]:
        """Memory paths whose file contains ``text`` anywhere (one ``git grep`` over the working
        tree, untracked files included; ``.memfsignore`` is not applied): a prefilter, parse to be sure."""
        return self._grep("-F", text)

    def ids_in_use(self, only: Iterable[str] | None = None) -> dict[str, list[str]]:
        """{id: [paths]} from the ``id:`` lines of every memory file, by one ``git grep``.

        With ``only``, git searches just for those ids as fixed strings (fast on large repos).
        A line is a prefilter (a body line could start with ``id:`` too): :meth:`id_users`
        confirms by parsing the files it names.
        """
        wanted = None if only is None else set(only)
        if wanted is not None and not wanted:
            return {}
        patterns = ["-E", "-e", "^id:"] if wanted is None else ["-F", *[a for i in wanted for a in ("-e", i)]]
        out = self.git.run("grep", "-z", "--untracked", *patterns, "--", f"{self.prefix}*.md", check=False)
        found: dict[str, list[str]] = {}
        for entry in out.split("\n"):
            name, _, text = entry.partition("\0")
            rel = name[len(self.prefix):] if name.startswith(self.prefix) else None
            if not rel or not text.startswith("id:") or not paths.is_memory_name(rel):
                continue
            value = _id_value(text)
            if value is not None and (wanted is None or value in wanted):
                found.setdefault(value, []).append(rel)
        return found

    def id_users(self, memory_id: str, exclude: Iterable[str] = (),
                 candidates: dict[str, list[str]] | None = None) -> list[str]:
        """Memory files (other than ``exclude``) whose frontmatter says ``id: <memory_id>``.

        ``candidates`` is an :meth:`ids_in_use` answer the caller already has (saves the grep);
        each candidate is confirmed by parsing its file.
        """
        if candidates is None:
            candidates = self.ids_in_use([memory_id])
        skip = set(exclude)
        users = []
        for rel in candidates.get(memory_id, []):
            data = None if rel in skip else self.read_bytes(rel)
            try:
                if data is not None and parse(rel, data).id == memory_id:
                    users.append(rel)
            except InvalidMemory:
                continue
        return users

    def _grep(self, mode: str, pattern: str) -> list[str]:
        out = self.git.run("grep", "-l", "--untracked", mode, "-e", pattern, "--", f"{self.prefix}*.md", check=False)
        found = []
        for line in out.splitlines():
            if line.startswith(self.prefix):
                rel = line[len(self.prefix) :]
                if paths.is_memory_name(rel):
                    found.append(rel)
        return found

    # --- crash recovery ------------------------------------------------------------------
    def _recover(self) -> None:
        if not self.journal_path.exists() or not locking.is_free(self.lock_path):
            return
        with locking.exclusive(self.lock_path):
            pending = journal.Journal.load(self.journal_path)
            if pending is None:
                return
            ready, skipped = journal.replay(pending, self.git.workdir)
            message = pending.message.rstrip("\n") + "\nMemfs-Recovered: yes\n"
            commit = None
            if ready and pending.message:
                identity = gitcli.Identity.for_actor(pending.actor or self.actor)
                try:
                    commit = self.git.commit_paths(ready, message, identity)
                except MemfsError as exc:
                    self.notices.append(
                        f"memfs: could not finish a write interrupted by a crash ({exc}); the files are in "
                        f"place but uncommitted. Fix the cause and run memfs again, or delete {self.journal_path}"
                    )
                    return
            atomic.remove(self.journal_path)
        note = f"memfs: finished a write interrupted by a crash ({len(ready)} file(s)"
        note += f", commit {commit[:10]})" if commit else ", nothing left to commit)"
        if skipped:
            note += "; left alone because they were edited since: " + ", ".join(skipped)
        self.notices.append(note)


class Transaction:
    """Many changes, one commit. Use as a context manager; leaving with an exception writes nothing.

    The write lock is held from entry to exit, so revision checks and the commit see the same
    state. ``read`` sees the transaction's own pending changes.
    """

    def __init__(
        self,
        repo: MemoryRepo,
        op: str,
        *,
        reason: str | None,
        actor: str,
        subject: str | None,
        trailers: Mapping[str, list[str]] | None,
    ) -> None:
        self.repo = repo
        self.op = op
        self.reason = reason
        self.actor = actor
        self.subject = subject
        self.trailers = dict(trailers or {})
        self.now = utcnow()
        self.result = CommitResult(None, (), op)
        self._pending: dict[str, bytes | None] = {}
        self._before: dict[str, bytes | None] = {}
        self._actions: dict[str, Change] = {}
        self._parsed: dict[str, Memory] = {}
        self._free_ids: set[str] = set()
        self._loaded: dict[str, tuple[bytes, Document, dict[str, Any]]] = {}
        self._lock: Iterator[None] | None = None

    def __enter__(self) -> Transaction:
        self._lock = locking.exclusive(self.repo.lock_path)
        self._lock.__enter__()  # type: ignore[attr-defined]
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        try:
            if exc_type is None:
                self.result = self._commit()
        finally:
            self._lock.__exit__(exc_type, exc, tb)  # type: ignore[union-attr]

    # --- staging -------------------------------------------------------------------------
    def current_bytes(self, rel: str) -> bytes | None:
        if rel in self._pending:
            return self._pending[rel]
        return self.repo.read_bytes(rel)

    def read(self, path: str) -> Memory:
        rel = self.repo.rel(path)
        data = self.current_bytes(rel)
        if data is None:
            raise MemoryNotFound(f"{rel}: no such memory in {self.repo.root}")
        doc, meta = load_document(rel, data)
        self._loaded[rel] = (data, doc, meta)
        return build(rel, meta, doc.body, doc.frontmatter)

    def _remember_before(self, rel: str) -> None:
        if rel not in self._before:
            self._before[rel] = self.repo.read_bytes(rel)

    def write(
        self,
        path: str,
        *,
        fields: Mapping[str, Any] | None = None,
        body: str | None = None,
        expected_revision: int | None = None,
        create_only: bool = False,
    ) -> Memory:
        rel = self.repo.rel(path)
        current = self.current_bytes(rel)
        fields = dict(fields or {})
        if current is None:
            if expected_revision not in (None, 0):
                raise ConflictError(f"{rel}: expected revision {expected_revision}, but the memory does not exist")
            result = edit.new_file(rel, fields, body or "", self.now)
        elif create_only:
            raise MemfsError(f"{rel}: already exists; use 'memfs write' to change it, or pick another path")
        else:
            cached = self._loaded.get(rel)
            loaded = cached[1:] if cached is not None and cached[0] is current else None
            result = edit.update_file(rel, current, fields, body, self.now, expected_revision, loaded=loaded)
        if result.content is not None:
            self._stage(rel, result.content, "create" if current is None else "update", result.memory.revision)
            self._parsed[rel] = result.memory
        return result.memory

    def write_bytes(self, rel: str, content: bytes) -> Memory:
        """Stage exact bytes (for operations that build files themselves); validated at commit."""
        memory = parse(rel, content)
        self._stage(rel, content, "update" if self.current_bytes(rel) is not None else "create", memory.revision)
        self._parsed[rel] = memory
        return memory

    def delete(self, path: str, *, expected_revision: int | None = None, force: bool = False) -> None:
        rel = self.repo.rel(path)
        current = self.current_bytes(rel)
        if current is None:
            raise MemoryNotFound(f"{rel}: no such memory in {self.repo.root}")
        if expected_revision is not None:
            edit.check_revision(rel, parse(rel, current).revision, expected_revision, then="before deleting")
        if not force:
            users = [d for d in self.repo.dependents(rel) if self._pending.get(d, b"") is not None]
            if users:
                raise MemfsError(
                    f"{rel}: cannot delete, {', '.join(users)} depend(s) on it; "
                    "remove those depends_on entries first, or pass --force"
                )
        self._stage(rel, None, "delete", None)

    def _stage(self, rel: str, content: bytes | None, action: Action, revision: int | None) -> None:
        self._remember_before(rel)
        self._parsed.pop(rel, None)
        if self._before[rel] is None and content is None:
            self._pending.pop(rel, None)
            self._actions.pop(rel, None)
            return
        self._pending[rel] = content
        self._actions[rel] = Change(rel, "create" if self._before[rel] is None else action, revision)

    # --- committing ----------------------------------------------------------------------
    def _check(self) -> None:
        problems: list[Problem] = []
        staged: list[Memory] = []
        for rel, content in self._pending.items():
            if content is None:
                continue
            try:
                memory = self._parsed.get(rel) or parse(rel, content)
            except InvalidMemory as exc:
                problems.extend(exc.problems)
                continue
            staged.append(memory)
            problems.extend(p for p in memory.problems if p.severity == "error")
        problems.extend(validate.check_repo(staged, self._exists))
        problems.extend(self._id_clashes(staged))
        problems = [p for p in problems if p.severity == "error"]
        if problems:
            detail = "; ".join(str(p) for p in problems[:5])
            more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
            raise InvalidMemory(f"nothing was written: {detail}{more}", problems)

    def _id_clashes(self, staged: list[Memory]) -> list[Problem]:
        """Ids this transaction introduces that another (untouched) memory already uses.

        One ``git grep`` for all ``id:`` lines, however many files the transaction creates.
        """
        new = [m for m in staged if m.id and not self._keeps_id(m) and m.id not in self._free_ids]
        if not new:
            return []
        candidates = self.repo.ids_in_use(m.id for m in new if m.id)
        found = []
        for memory in new:
            for other in self.repo.id_users(memory.id or "", exclude=[memory.path, *self._pending],
                                            candidates=candidates):
                found.append(Problem(memory.path, "id", f"{memory.id!r} is already used by {other}",
                                     "give each memory its own id"))
        return found

    def id_is_free(self, memory_id: str) -> bool:
        """Whether no memory file uses ``memory_id`` (checked once, under this transaction's lock,
        so the commit need not grep for it again)."""
        if memory_id in self._free_ids:
            return True
        if self.repo.id_users(memory_id, exclude=self._pending):
            return False
        self._free_ids.add(memory_id)
        return True

    def _keeps_id(self, memory: Memory) -> bool:
        before = self._before.get(memory.path)
        return before is not None and (memory.id or "").encode() in before

    def _exists(self, rel: str) -> bool:
        if rel in self._pending:
            return self._pending[rel] is not None
        return self.repo.exists(rel)

    def _commit(self) -> CommitResult:
        changes = [c for rel, c in self._actions.items() if self._pending[rel] != self._before[rel]]
        if not changes:
            return CommitResult(None, (), self.op)
        self._check()
        repo = self.repo
        rels = [c.path for c in changes]
        message = Message(
            self.op, self.subject or subject_for(rels), self.actor, self.reason, tuple(rels), self.trailers
        ).render()
        pending = journal.Journal(
            message,
            self.actor,
            tuple(
                journal.PendingFile(repo.git_path(rel), _text(self._pending[rel]), journal.digest(self._before[rel]))
                for rel in rels
            ),
        )
        pending.save(repo.journal_path)
        try:
            atomic.write_many({repo.abspath(r): self._pending[r] for r in rels})
            commit = repo.git.commit_paths([repo.git_path(r) for r in rels], message,
                                           gitcli.Identity.for_actor(self.actor))
        except (MemfsError, OSError) as exc:
            self._roll_back(rels)
            raise MemfsError(f"nothing was changed: {exc}") from exc
        atomic.remove(repo.journal_path)
        return CommitResult(commit, tuple(changes), self.op)

    def _roll_back(self, rels: list[str]) -> None:
        """A commit git refused (a hook, a full disk): put every file back as it was."""
        atomic.write_many({self.repo.abspath(r): self._before[r] for r in rels})
        self.repo.git.ok("reset", "-q", "--", *[self.repo.git_path(r) for r in rels])
        atomic.remove(self.repo.journal_path)


_PLAIN_ID = re.compile(r"id:[ \t]*([A-Za-z0-9_][A-Za-z0-9_./:@+-]*)[ \t]*(?:#.*)?")


def _id_value(line: str) -> str | None:
    """The id on an ``id: ...`` line: plain ones directly, anything quoted through YAML."""
    plain = _PLAIN_ID.fullmatch(line.rstrip("\r"))
    if plain:
        return plain.group(1)
    try:
        value = yamlio.load(line)
    except yamlio.YamlError:
        return None
    return value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None


def _ordered(found: list[Problem]) -> list[Problem]:
    return sorted(found, key=lambda p: (paths.sort_key(p.path), p.severity != "error", p.field or ""))


def _text(content: bytes | None) -> str | None:
    return None if content is None else content.decode("utf-8")
