"""The git-backed memory store: open a memory root, read memories, change them in commits.

Every change to the repository goes through a :class:`Transaction`, the one commit path: it
holds the repository's write lock, checks revisions and the ``read_only`` rule, validates every
memory file it would commit, records a journal, writes the files atomically and commits exactly
those paths with a structured message whose author is the actor. One operation is one commit;
a failure before the commit leaves the working tree as it was, and a crash in between is
finished by the next memfs command (:mod:`memfs.store.journal`). Files written by someone else
(an editor saving under ``memfs watch``, pending edits a ``propose`` publishes) are committed
through the same path with :meth:`Transaction.adopt`.

The verbs built on the store (search, remember, retract...) are methods of
:class:`memfs.api.Store`, a subclass; code below the API layer takes a :class:`Store`.
"""

from __future__ import annotations

import copy
import datetime as dt
import getpass
import os
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

from memfs.errors import (
    ConflictError,
    GitError,
    InvalidMemory,
    MemfsError,
    MemoryNotFound,
    PathError,
    Refused,
    UsageError,
    WriteRefused,
)
from memfs.format import edit, names, validate, yamlio
from memfs.format.config import CONFIG_FILE, Config, parse_config
from memfs.format.document import Document
from memfs.format.limits import DEFAULT as DEFAULT_LIMITS
from memfs.format.limits import Limits
from memfs.format.model import Memory, Problem, utcnow
from memfs.format.parse import build, check_bytes, load_document, parse
from memfs.policy import guard
from memfs.policy.gate import Refusal
from memfs.policy.recall import ScopeRule, check_scope
from memfs.store import (
    atomic,
    crashpoint,
    facts,
    gitcli,
    init,
    journal,
    locking,
    paths,
    progress,
    refusal_log,
    revisions,
)
from memfs.store.commits import Message, subject_for
from memfs.store.facts import Facts

Action = Literal["create", "update", "delete"]
S = TypeVar("S", bound="Store")


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
    #: The commit's parent when it has exactly one (what HEAD was just before it).
    parent: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "op": self.op,
            "changes": [{"path": c.path, "action": c.action, "revision": c.revision} for c in self.changes],
        }


@dataclass
class Scan:
    """Every memory file under the root: the parsed ones (and the bytes they were parsed from, so
    validation's secret scan reads no file twice) and the findings for broken ones."""

    memories: list[Memory] = field(default_factory=list)
    broken: list[Problem] = field(default_factory=list)
    data: dict[str, bytes] = field(default_factory=dict)


class Store:
    """A memory root inside a git work tree. Paths in the API are relative to the memory root."""

    #: Whether lookups by id, key, scope and ``depends_on`` use the validated cache in ``.memfs/``
    #: (:mod:`memfs.store.facts`) instead of ``git grep``; off only to compare the two.
    use_facts = True

    def __init__(self, root: Path, git: gitcli.Git, actor: str | None = None) -> None:
        self.root = root
        self.git = git
        self.actor = actor or default_actor()
        rel = os.path.relpath(root, git.workdir)
        self.prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        self.notices: list[str] = []
        self.binding: ScopeRule | None = None
        self.grants = guard.Grants()
        self.progress: progress.Progress = progress.silent
        self._config: tuple[tuple[int, int] | None, Config] | None = None
        #: Commits (or attempts, rolled back) this object's transactions made: what invalidates
        #: a transaction's validated write-path cache (:meth:`Transaction.facts`).
        self.commits_made = 0
        #: What the running transaction's path confinement already checked (:class:`paths.Checked`).
        self.checked: paths.Checked | None = None
        self._recover()

    # --- opening -------------------------------------------------------------------------
    @classmethod
    def open(cls: type[S], start: str | os.PathLike[str] = ".", actor: str | None = None) -> S:
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
    def init(cls: type[S], directory: str | os.PathLike[str], actor: str | None = None) -> S:
        """Make ``directory`` a memory repository (see :mod:`memfs.store.init`) and open it."""
        root = Path(directory)
        git = init.prepare(root)
        store = cls(root.resolve(), git, actor)
        with store.transaction("init", subject="memory repository") as tx:
            for rel, data in init.starter_files(store.root).items():
                if paths.is_memory_name(rel):
                    tx.write_bytes(rel, data)
                else:
                    tx.write_file(rel, data)
        return cls.open(store.root, store.actor)

    # --- sessions ------------------------------------------------------------------------
    def session(
        self: S,
        scope: str | None,
        *,
        inherit: bool = False,
        grants: guard.Grants | None = None,
        actor: str | None = None,
    ) -> S:
        """This repository as one agent session sees it: bound to ``scope`` (and, with ``inherit``,
        able to read its ancestors), with the host's ``grants``, acting as ``actor``.

        Bound, every read (show, ls, log, history, diff, search, context, the file tools) sees only
        that scope's memories and ``system/``; a memory of another scope is "no such memory" and no
        message names it. Every write must stay in the scope (the core guard refuses the rest).
        ``scope=None`` is administration: every scope, as an unbound repository."""
        view = copy.copy(self)
        view.binding = None if scope is None else ScopeRule(check_scope(scope), inherit)
        view.grants = grants or guard.Grants()
        view.actor = actor or self.actor
        return view

    def visible(self, rel: str, data: bytes | None = None) -> bool:
        """Whether this session may see the memory at ``rel`` (its bytes ``data``, else read from
        disk): always unbound and for ``system/``; bound, only if its scope can be read and is the
        session's (fail closed: an unreadable scope is invisible)."""
        if self.binding is None or guard.in_system(rel):
            return True
        data = self.peek(rel) if data is None else data
        return data is not None and self.binding.allows(_scope_in(rel, data))

    def recall_scope(self, scope: str | None, inherit: bool = False) -> tuple[str | None, bool]:
        """The (scope, inherit) a search or context of this session reads: as asked when unbound;
        bound, the session's own scope (``None`` means it), anything else refused, and ancestors
        only if the session was opened with them."""
        scope = check_scope(scope)
        rule = self.binding
        if rule is None:
            return scope, inherit
        if scope is not None and scope != rule.scope:
            raise UsageError(f"this session is bound to scope {rule.scope}; it cannot read {scope}", param="scope")
        if inherit and not rule.inherit:
            raise UsageError(f"this session reads {rule.scope} only, not its ancestors", param="inherit")
        return rule.scope, rule.inherit

    def named(self, rels: Iterable[str]) -> str:
        """``rels`` for a message: the visible ones by path, the rest only counted, so a bound
        session's errors never name another scope's files."""
        rels = list(rels)
        shown = [rel for rel in rels if self.visible(rel)]
        hidden = len(rels) - len(shown)
        if hidden:
            shown.append(f"{hidden} memor{'y' if hidden == 1 else 'ies'} outside this session's scope")
        return ", ".join(shown)

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

    def refuse_secrets(self, message: str, *, verb: str, actor: str | None = None) -> None:
        """Refuse (:class:`WriteRefused`) a commit message or reason carrying a secret, before a
        verb that commits outside a :class:`Transaction` (revert, purge); the refusal is counted
        in the refusal log like the Transaction's own."""
        try:
            gitcli.refuse_secrets(message)
        except WriteRefused as refused:
            refusal_log.record(self.cache_dir, [refused.refusals], op=verb, actor=actor or self.actor,
                               head=self.git.head_quick())
            raise

    def locked(self) -> AbstractContextManager[None]:
        """The repository's write lock, for operations that change git state without a
        transaction (revert, sync, purge); re-entrant within a thread."""
        return locking.exclusive(self.lock_path)

    def rel(self, path: str | os.PathLike[str]) -> str:
        """The memory-root-relative form of ``path``; :class:`PathError` if it is not a memory path."""
        rel = paths.confine(self.root, path, git_dir=self.git.git_dir, checked=self.checked)
        if paths.is_ignored(self.root, rel):
            raise PathError(f"{rel}: is excluded by {paths.IGNORE_FILE}, so it is not a memory")
        return rel

    def abspath(self, rel: str) -> Path:
        return self.root / rel

    def git_path(self, rel: str) -> str:
        return self.prefix + rel

    def from_git_path(self, name: str) -> str | None:
        """The root-relative form of a work-tree path, or ``None`` if it lies outside the root."""
        return name[len(self.prefix) :] if name.startswith(self.prefix) else None

    @property
    def pathspec(self) -> str:
        """The git pathspec of the whole memory root."""
        return self.prefix.rstrip("/") or "."

    def exists(self, rel: str) -> bool:
        """Whether a plain file is at ``rel`` (a symlink, even to a file, is not one)."""
        return paths.is_plain_file(self.root, rel)

    # --- configuration -------------------------------------------------------------------
    def config(self) -> Config:
        """``.memfs.toml`` parsed (defaults without one), re-read when the file changes."""
        path = self.root / CONFIG_FILE
        try:
            st = path.stat()
            key: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            key = None
        if self._config is not None and self._config[0] == key:
            return self._config[1]
        config = Config() if key is None else parse_config(self._config_text(path), str(path))
        self._config = (key, config)
        return config

    def limits(self) -> Limits:
        """``[limits]`` of ``.memfs.toml``; the defaults when the file cannot be read (that is
        reported by whatever reads the settings it is for)."""
        try:
            return self.config().limits
        except MemfsError:
            return DEFAULT_LIMITS

    def _config_text(self, path: Path) -> str:
        """The text of ``.memfs.toml``, read like a memory file (a plain file, no symlink, capped)."""
        from memfs.errors import InvalidConfig

        try:
            data = paths.read_file(self.root, CONFIG_FILE)
            if isinstance(data, paths.Unreadable):
                raise InvalidConfig(f"{path}: {data}")
            return (data or b"").decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidConfig(f"{path}: cannot be read ({exc}); fix or remove it") from None

    # --- reading -------------------------------------------------------------------------
    def read_bytes(self, rel: str) -> bytes | None:
        """The exact bytes of the memory file at ``rel`` (``None`` if there is none): the one way
        memory files are read from the working tree (:func:`memfs.store.paths.read_file`).
        :class:`PathError` for a symlink, a FIFO, a device or a file over
        :data:`~memfs.store.paths.MAX_READ_BYTES`; readers that go on with the other files use
        :meth:`load`, which reports them instead."""
        got = paths.read_file(self.root, rel)
        if isinstance(got, paths.Unreadable):
            raise got.error()
        return got

    def read(self, path: str | os.PathLike[str]) -> Memory:
        return parse(*self.read_file(path), self.limits())

    def read_file(self, path: str | os.PathLike[str]) -> tuple[str, bytes]:
        """(root-relative path, exact bytes) of a memory file; :class:`MemoryNotFound` if absent."""
        rel = self.rel(path)
        data = self.read_bytes(rel)
        if data is None or not self.visible(rel, data):
            raise MemoryNotFound(f"{rel}: no such memory in {self.root}")
        return rel, data

    def peek(self, rel: str) -> bytes | None:
        """The bytes of a memory file, ``None`` if there is none or it is not a file memfs reads (a
        symlink, a FIFO, one too big): for readers that skip such entries, without parsing."""
        data = paths.read_file(self.root, rel)
        return data if isinstance(data, bytes) else None

    def load(self, rel: str) -> tuple[bytes | None, Memory | None, str | None]:
        """(bytes, memory, why it does not parse) of a memory file, never raising for a broken one:
        for readers that go on with the other files. A file memfs does not read (a symlink, a FIFO,
        one too big) is ``(None, None, why)``."""
        data = paths.read_file(self.root, rel)
        if isinstance(data, paths.Unreadable):
            return None, None, str(data)
        if data is None:
            return None, None, None
        try:
            return data, parse(rel, data, self.limits()), None
        except InvalidMemory as exc:
            return data, None, "; ".join(p.message for p in exc.problems) or str(exc)

    def memory_paths(self, under: str = "") -> list[str]:
        """Root-relative paths of the memory files in the work tree (under the folder ``under``),
        sorted ``system/`` first (:func:`paths.iter_memory_paths`)."""
        return list(paths.iter_memory_paths(self.root, under=under))

    def memory_paths_at(self, rev: str, under: str = "") -> list[str]:
        """Root-relative paths of the memory files committed at ``rev`` (under the folder
        ``under``), sorted ``system/`` first."""
        pathspec = self.git_path(under.rstrip("/") + "/") if under else self.pathspec
        found = [rel for name in self.git.tree_files(rev, pathspec) if (rel := self.from_git_path(name))]
        return sorted(self._memories_in(self.git_path(rel) for rel in found), key=paths.sort_key)

    def files_containing_at(self, rev: str, texts: Iterable[str]) -> list[str]:
        """Memory paths committed at ``rev`` whose file contains any of ``texts`` (one ``git grep``
        over the tree): a prefilter, parse to be sure."""
        return self._memories_in(self.git.grep_files_at(rev, sorted(set(texts)), f"{self.prefix}*.md"))

    def files_at(self, rev: str | None, rels: list[str]) -> dict[str, bytes | None]:
        """Each file's bytes at ``rev`` (one ``git cat-file --batch``), or in the working tree
        (where a file memfs does not read counts as absent)."""
        if rev is None:
            return {rel: self.peek(rel) for rel in rels}
        blobs = self.git.read_blobs(rev, [self.git_path(rel) for rel in rels])
        return {rel: blobs.get(self.git_path(rel)) for rel in rels}

    def scan(self) -> Scan:
        """Parse every memory file; broken and unreadable files (symlinks, FIFOs, devices, files
        over the size limit) become findings, and so do symlinked folders (not entered: warnings),
        never silently skipped."""
        result = Scan()
        linked: list[str] = []
        rels = list(paths.iter_memory_paths(self.root, linked))
        limits = self.limits()
        for rel in progress.counted(self.progress, "reading memories", rels, len(rels)):
            data = paths.read_file(self.root, rel)
            if isinstance(data, paths.Unreadable):
                if self.binding is None:
                    result.broken.append(data.problem())
                continue
            if data is None or not self.visible(rel, data):
                continue
            try:
                result.memories.append(parse(rel, data, limits))
                result.data[rel] = data
            except InvalidMemory as exc:
                result.broken.extend(exc.problems)
        result.broken.extend(
            Problem(rel, None, "is a symlink to a folder, so memfs does not look inside it",
                    paths.LINK_FIX, "warning")
            for rel in linked
        )
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
        for memory in progress.counted(self.progress, "validating", scan.memories, len(scan.memories)):
            found.extend(memory.problems)
            found.extend(self._secrets_in(memory, scan.data.get(memory.path)))
        found.extend(self.repo_problems(scan.memories, self.exists))
        return _ordered(found)

    def repo_problems(self, memories: list[Memory], exists: Callable[[str], bool]) -> list[Problem]:
        """:func:`validate.check_repo` (duplicate ids, missing ``depends_on`` targets) after each
        ``depends_on`` entry is resolved like a path argument (:func:`paths.confine`): one that
        lands in ``.git/`` or ``.memfs/``, outside the root or behind a symlink is a problem of its
        own, and only the entries that pass are looked up with ``exists``."""
        found: list[Problem] = []
        kept: list[Memory] = []
        why_not: dict[str, str | None] = {}
        for memory in memories:
            refused = set()
            for dep in memory.depends_on:
                if dep not in why_not:
                    why_not[dep] = self._dependency_refusal(dep)
                why = why_not[dep]
                if why is not None:
                    refused.add(dep)
                    found.append(Problem(memory.path, "depends_on", f"{dep!r}: {why}",
                                         "point it at a memory file inside the memory root"))
            deps = tuple(d for d in memory.depends_on if d not in refused)
            kept.append(memory if not refused else replace(memory, depends_on=deps))
        found.extend(validate.check_repo(kept, exists))
        return found

    def _dependency_refusal(self, dep: str) -> str | None:
        try:
            paths.confine(self.root, dep, git_dir=self.git.git_dir, checked=self.checked)
        except PathError as exc:
            return exc.message.removeprefix(dep + ": ")
        return None

    def _validate_only(self, rels: list[str]) -> list[Problem]:
        scan = Scan()
        for rel in dict.fromkeys(rels):
            data = paths.read_file(self.root, rel)
            if isinstance(data, paths.Unreadable):
                scan.broken.append(data.problem())
                continue
            try:
                if data is not None:
                    scan.memories.append(parse(rel, data))
                    scan.data[rel] = data
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

    def _secrets_in(self, memory: Memory, data: bytes | None = None) -> list[Problem]:
        data = self.peek(memory.path) if data is None else data
        if data is None:
            return []
        return guard.secret_problems(memory.path, data.decode("utf-8", errors="replace"), memory.meta)

    def is_read_only(self, rel: str, current: bytes | None = None) -> bool:
        """Whether the working copy (``current``, else the file on disk) or the committed copy
        says ``read_only: true``: core memory that only a person, forcing it, may change."""
        data = self.read_bytes(rel) if current is None else current
        return _says_read_only(rel, data) or _says_read_only(rel, self.git.head_file(self.git_path(rel)))

    # --- writing -------------------------------------------------------------------------
    def transaction(
        self,
        op: str = "transaction",
        *,
        reason: str | None = None,
        actor: str | None = None,
        subject: str | None = None,
        trailers: Mapping[str, list[str]] | None = None,
        when: dt.datetime | None = None,
        force: bool = False,
        verb: str | None = None,
    ) -> Transaction:
        """Many changes, one commit (see :class:`Transaction`). ``when`` dates the commit and the
        ``updated`` fields (a replay of past events); ``force`` lets a person override the rules a
        person may (``read_only``, protected fields); ``verb`` is the memfs verb making the change,
        which the core guard judges (default ``op``; a replay's events say ``demo``)."""
        return Transaction(
            self, op, reason=reason, actor=actor or self.actor, subject=subject, trailers=trailers, when=when,
            force=force, verb=verb,
        )

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
        op = "create" if not self.exists(rel) else "update"
        with self.transaction(op, reason=reason, actor=actor, force=force) as tx:
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
        is ``read_only: true`` (``force`` overrides both)."""
        rel = self.rel(path)
        with self.transaction("delete", reason=reason, actor=actor, force=force) as tx:
            tx.delete(rel, expected_revision=expected_revision, check_dependents=not force)
        return tx.result

    # --- finding files -------------------------------------------------------------------
    def dependents(self, rel: str) -> list[str]:
        """Memories whose ``depends_on`` names ``rel`` as a path or a ``[[wikilink]]``: the files
        :meth:`facts` says depend on it, else a ``git grep`` prefilter for the path without
        ``.md``; either way each is then parsed to be sure."""
        known = self.facts()
        if known is not None:
            named = [other for other, deps in known.depends_on().items() if rel in deps]
        else:
            named = self.files_containing(rel.removesuffix(".md"))
        found = []
        for other in named:
            if other == rel:
                continue
            _, memory, _ = self.load(other)
            if memory is not None and rel in memory.depends_on:
                found.append(other)
        return found

    def files_matching(self, regex: str) -> list[str]:
        """Memory paths with a line matching the POSIX extended ``regex`` (one ``git grep``,
        untracked files included): a prefilter, parse to be sure."""
        return self._memories_in(self.git.grep_files(regex, f"{self.prefix}*.md", fixed=False))

    def files_containing(self, text: str) -> list[str]:
        """Memory paths whose file contains ``text`` anywhere (one ``git grep`` over the working
        tree, untracked files included): a prefilter, parse to be sure."""
        return self._memories_in(self.git.grep_files(text, f"{self.prefix}*.md", fixed=True))

    def _memories_in(self, names: Iterable[str]) -> list[str]:
        found = [rel for name in names if (rel := self.from_git_path(name)) and paths.is_memory_name(rel)]
        spec = paths.ignore_spec(self.root)
        return [rel for rel in found if spec is None or not spec.match_file(rel)]

    def facts(self) -> Facts | None:
        """What each memory file says about itself (id, scope, key, version, ``depends_on``), from
        the cache in ``.memfs/`` validated against the working tree now; ``None`` when the cache is
        off or git cannot say what changed (callers then ``git grep``)."""
        return facts.current(self) if self.use_facts else None

    def ids_in_use(self, only: Iterable[str] | None = None) -> dict[str, list[str]]:
        """{id: [paths]} of the memory files' ids, from :meth:`facts`, else from their ``id:`` lines
        by one ``git grep`` (with ``only``, for just those ids as fixed strings).

        Either way a prefilter: :meth:`id_users` confirms by parsing the files it names.
        """
        wanted = None if only is None else set(only)
        if wanted is not None and not wanted:
            return {}
        known = self.facts()
        if known is not None:
            return known.ids(wanted)
        patterns, fixed = (["^id:"], False) if wanted is None else (sorted(wanted), True)
        found: dict[str, list[str]] = {}
        for name, text in self.git.grep_lines(patterns, f"{self.prefix}*.md", fixed=fixed):
            rel = self.from_git_path(name)
            if not rel or not text.startswith("id:") or not paths.is_memory_name(rel):
                continue
            value = _id_value(text)
            if value is not None and (wanted is None or value in wanted):
                found.setdefault(value, []).append(rel)
        return found

    def id_users(self, memory_id: str, exclude: Iterable[str] = (),
                 candidates: dict[str, list[str]] | None = None) -> list[str]:
        """Memory files (other than ``exclude``) whose id is ``memory_id``: those whose frontmatter
        says ``id: <memory_id>``, and ``<memory_id>.md`` if it names no id (its id is its path).

        ``candidates`` is an :meth:`ids_in_use` answer the caller already has (saves the grep);
        each candidate is confirmed by parsing its file.
        """
        if candidates is None:
            candidates = self.ids_in_use([memory_id])
        skip = set(exclude)
        users = []
        named = candidates.get(memory_id, [])
        own = memory_id + ".md"
        if own not in named and not names.path_problem(own) and paths.is_memory_name(own) and self.exists(own):
            named = [*named, own]
        for rel in named:
            if rel in skip:
                continue
            _, memory, _ = self.load(rel)
            if memory is not None and memory.id == memory_id:
                users.append(rel)
        return users

    # --- crash recovery ------------------------------------------------------------------
    def _recover(self) -> None:
        """Finish what a killed memfs left (see :mod:`memfs.store.journal`): the temporaries its
        journal lists, a stale ``index.lock``, the journal's own temporaries and the write itself;
        and a ``.memfs`` cache folder replaced by a plain file. Safe to be killed at any point:
        every step is redone by the next command until the journal is gone."""
        self._repair_cache()
        debris = list(self.git.git_dir.glob(f".{self.journal_path.name}.*{atomic.TEMP_SUFFIX}"))
        if not (debris or self.journal_path.exists()) or not locking.is_free(self.lock_path):
            return
        with self.locked():
            for tmp in debris:
                atomic.remove(tmp)
            pending = journal.Journal.load(self.journal_path)
            if pending is None:
                return
            removed = journal.remove_temporaries(pending, self.git.workdir)
            if removed:
                self.notices.append(f"memfs: removed {removed} temporary file(s) a crashed write left behind")
            self._remove_stale_index_lock()
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
            crashpoint.reached("journal-removing")
            atomic.remove(self.journal_path)
        note = f"memfs: finished a write interrupted by a crash ({len(ready)} file(s)"
        note += f", commit {commit[:10]})" if commit else ", nothing left to commit)"
        if skipped:
            note += "; left alone because they were edited since: " + ", ".join(skipped)
        self.notices.append(note)

    def _remove_stale_index_lock(self) -> None:
        """Remove ``index.lock`` left by a killed memfs commit. Called with the write lock held and
        a journal present: the memfs process that was committing is dead, and so is every git it
        started (they inherit the write lock, see :mod:`memfs.store.locking`). A lock some other
        live process still has open (a git run by hand) is left alone."""
        lock = self.git.git_dir / "index.lock"
        if not lock.is_file() or lock.is_symlink() or _held_open(lock):
            return
        atomic.remove(lock)
        self.notices.append(f"memfs: removed {lock}, left by a memfs commit that was killed")

    def _repair_cache(self) -> None:
        """``.memfs`` must be the cache folder; a plain file there (a cache is never committed and
        never edited by hand) is removed so the cache and search index are rebuilt."""
        cache = self.cache_dir
        if cache.is_symlink() or not cache.is_file():
            return
        try:
            cache.unlink()
        except OSError as exc:
            self.notices.append(f"memfs: {cache} is a file, not the cache folder, and cannot be removed ({exc})")
            return
        self.notices.append(f"memfs: {cache} was a file, not the cache folder; removed it, the cache is rebuilt")


class Transaction:
    """Many changes, one commit. Use as a context manager; leaving with an exception writes nothing.

    The write lock is held from entry to exit, so revision checks and the commit see the same
    state. ``read`` sees the transaction's own pending changes. Memory files are validated at
    commit; other files of the root (``.memfs.toml``, ``.gitattributes``, a README) are written
    with :meth:`write_file` and committed alongside.
    """

    def __init__(
        self,
        repo: Store,
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
        self._facts: tuple[int, Facts | None] | None = None
        self._loaded: dict[str, tuple[bytes, Document, dict[str, Any], Memory]] = {}
        self._marks: dict[str, int] | None = None
        self._marks_head: str | None = None
        self._lock: AbstractContextManager[None] | None = None
        self._outer_checked: paths.Checked | None = None

    def __enter__(self) -> Transaction:
        self._lock = self.repo.locked()
        self._lock.__enter__()
        self._outer_checked = self.repo.checked
        self.repo.checked = paths.Checked()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if exc_type is None:
                self.result = self._commit()
        finally:
            self.repo.checked = self._outer_checked
            if isinstance(exc, WriteRefused):
                self.note_refused(exc.refusals)
            if self._refused:
                refusal_log.record(self.repo.cache_dir, self._refused, op=self.verb, actor=self.actor,
                                   head=self._head_before())
            assert self._lock is not None
            self._lock.__exit__(exc_type, exc, tb)

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
            return self.repo.git.head_quick()
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
            raise MemoryNotFound(f"{rel}: no such memory in {self.repo.root}")
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
            raise MemoryNotFound(f"{rel}: no such memory in {self.repo.root}")
        self._check_staged_writable(rel, current)
        if expected_revision is not None:
            edit.check_revision(rel, parse(rel, current).revision, expected_revision, then="before deleting")
        if check_dependents:
            self._refuse_if_depended_on(rel)
        self._stage(rel, None, "delete", None, current)

    def adopt(self, path: str) -> Memory | None:
        """Commit the memory file at ``path`` as it is on disk now (someone else wrote or deleted
        it): validated like any write, :class:`InvalidMemory` if it is not valid, refused if the
        committed copy is ``read_only`` or the core guard refuses it (judged now, so one refused
        file leaves the others of the batch to commit). Returns the parsed memory (``None`` for a
        deletion)."""
        rel = self.repo.rel(path)
        data = self.repo.read_bytes(rel)
        committed = self.repo.git.head_file(self.repo.git_path(rel))
        if not self.forced and _says_read_only(rel, committed):
            raise _read_only_refusal(rel)
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
        if not self.forced and (_says_read_only(rel, committed) or _says_read_only(rel, current)):
            raise _read_only_refusal(rel)
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

    def committed(self, rels: list[str]) -> dict[str, bytes | None]:
        """The committed copy of each of ``rels`` (``None``: not in HEAD), in one ``git cat-file --batch``."""
        return self._committed(rels, self.repo.git.head_quick())

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
        return guard.Access(self.actor, self.verb, self.repo.binding, self.repo.grants, self.force)

    def check_writable(self, rel: str, current: bytes | None = None) -> None:
        """Refuse (:class:`~memfs.errors.Refused`) to change a ``read_only: true`` memory (its
        working copy or its committed copy) unless a person forces this transaction. Every change
        is checked (the working copy when staged, the committed copies in one batch at commit);
        callers that prepare a change before staging it call this first, so the refusal is what
        their caller sees."""
        if not self.forced and self.repo.is_read_only(rel, current):
            raise _read_only_refusal(rel)

    def _check_staged_writable(self, rel: str, current: bytes) -> None:
        if not self.forced and _says_read_only(rel, current):
            raise _read_only_refusal(rel)

    def _committed(self, rels: list[str], head: str | None) -> dict[str, bytes | None]:
        """The committed copy of each changed file (``None``: not in HEAD), one ``git cat-file --batch``;
        ``head`` is HEAD as the caller just read it (``None``: there is none yet)."""
        if head is None:
            return dict.fromkeys(rels)
        names = {self.repo.git_path(rel): rel for rel in rels}
        held = self._held_committed(names, head)
        found = self.repo.git.read_blobs(head, [name for name, rel in names.items() if rel not in held])
        return {rel: held[rel] if rel in held else found.get(name) for name, rel in names.items()}

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
            if rel not in self._plain and _says_read_only(rel, data):
                raise _read_only_refusal(rel)

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

    def facts(self) -> Facts | None:
        """:meth:`Store.facts`, validated once per transaction until a commit: within one
        transaction memfs changes files only by committing (a retraction inside it commits through
        a transaction of its own, so the cache is validated again), the same bound as the one
        ``git grep`` at one moment it replaces."""
        made = self.repo.commits_made
        if self._facts is None or self._facts[0] != made:
            self._facts = (made, self.repo.facts())
        return self._facts[1]

    def _ids_in_use(self, ids: Iterable[str]) -> dict[str, list[str]]:
        wanted = set(ids)
        known = self.facts() if wanted else None
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

    # --- committing ----------------------------------------------------------------------
    def _commit(self) -> CommitResult:
        changes = [
            c for rel, c in self._actions.items() if rel in self._adopted or self._pending[rel] != self._before[rel]
        ]
        if not changes:
            return CommitResult(None, (), self.op)
        repo = self.repo
        rels = [c.path for c in changes]
        message = Message(
            self.op, self.subject or subject_for(rels), self.actor, self.reason, tuple(rels), self.trailers, self.note
        ).render()
        head = repo.git.head_quick()
        committed = self._check(rels, message, head)
        written = [rel for rel in rels if rel not in self._adopted]
        where = {rel: repo.abspath(rel) for rel in rels}
        temps = {where[r]: atomic.temp_name(where[r]) for r in written if self._pending[r] is not None}
        pending = journal.Journal(
            message,
            self.actor,
            tuple(
                journal.PendingFile(
                    repo.git_path(rel),
                    _text(self._pending[rel]),
                    journal.digest(self._before[rel]),
                    _beside(repo.git_path(rel), temps.get(where[rel])),
                )
                for rel in rels
            ),
        )
        pending.save(repo.journal_path)
        crashpoint.reached("journal-saved")
        try:
            atomic.write_many({where[r]: self._pending[r] for r in written}, temps)
            known = {repo.git_path(r) for r, c in committed.items() if c is not None}
            in_head = None if head is None else (head, known)
            done = repo.git.commit_exact([repo.git_path(r) for r in rels], message, self._identity(),
                                         untracked=[repo.git_path(r) for r in rels if self._maybe_untracked(r)],
                                         in_head=in_head)
        except (MemfsError, OSError) as exc:
            repo.commits_made += 1
            self._roll_back(rels)
            failed = GitError if isinstance(exc, GitError) else MemfsError
            raise failed(f"nothing was changed: {exc}") from exc
        repo.commits_made += 1
        crashpoint.reached("journal-removing")
        atomic.remove(repo.journal_path)
        if done is None:
            return CommitResult(None, tuple(changes), self.op)
        parent = done.parents[0] if len(done.parents) == 1 else None
        if head is not None and parent == head:
            self._advance_caches(head, done, changes)
        return CommitResult(done.sha, tuple(changes), self.op, parent)

    def _maybe_untracked(self, rel: str) -> bool:
        """Whether git may not know ``rel`` yet: a file this transaction creates, or one someone
        else wrote (adopted). A file that was on disk may be untracked too; git says so, and the
        commit then adds it first (:meth:`memfs.store.gitcli.Git.commit_exact`)."""
        return rel in self._adopted or self._before.get(rel) is None

    def _advance_caches(self, parent: str, done: gitcli.Committed, changes: list[Change]) -> None:
        """Move the caches keyed by HEAD from ``parent`` to this transaction's commit, its only
        child, without asking git what changed: the revision marks (:func:`revisions.note`) and
        the write-path cache (:func:`facts.note`, only when the commit holds no more than the
        transaction's own paths)."""
        repo = self.repo
        numbers = {repo.git_path(c.path): c.revision for c in changes if c.revision is not None}
        known = self._marks if self._marks_head == parent else None
        revisions.note(repo.git, repo.pathspec, parent, done.sha, known, numbers)
        if done.paths is not None:
            facts.note(repo, parent, done.sha, done.paths)

    def _identity(self) -> gitcli.Identity:
        return gitcli.Identity.for_actor(self.actor, self.when)

    def _roll_back(self, rels: list[str]) -> None:
        """A commit git refused (a hook, a full disk): put every file back as it was."""
        atomic.write_many({self.repo.abspath(r): self._before[r] for r in rels if r not in self._adopted})
        self.repo.git.unstage([self.repo.git_path(r) for r in rels])
        atomic.remove(self.repo.journal_path)


#: From this many changed paths on, a commit finds the committed copies it already holds by blob
#: id before reading the others (:meth:`Transaction._held_committed`).
_MANY_COMMITTED = 64


def _guard_error(refusals: list[Refusal]) -> MemfsError:
    """What the guard's refusals raise: "no such memory" for another scope's file (a bound session
    learns nothing about it), else :class:`WriteRefused` listing every rule."""
    for refusal in refusals:
        if refusal.rule == "scope-boundary" and refusal.field is None:
            return MemoryNotFound(refusal.message)
    return WriteRefused(refusals)


def _scope_in(rel: str, data: bytes) -> str | None:
    """The ``scope`` a memory file says, or ``None`` if it cannot be read as one."""
    try:
        _, meta = load_document(rel, data)
    except InvalidMemory:
        return None
    scope = meta.get("scope")
    return scope if isinstance(scope, str) else None


def _loose_text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")


def _read_only_refusal(rel: str) -> Refused:
    return Refused(f"{rel}: is read_only: true (core memory that agents may not change)", forceable=True)


def _says_read_only(rel: str, data: bytes | None) -> bool:
    """Whether the frontmatter says ``read_only: true`` (files that do not mention it are not parsed)."""
    if data is None or b"read_only" not in data:
        return False
    try:
        _, meta = load_document(rel, data)
    except InvalidMemory:
        return False
    return meta.get("read_only") is True


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


def _held_open(path: Path) -> bool:
    """Whether some live process has ``path`` open (Linux ``/proc``; elsewhere, ``False``)."""
    proc = Path("/proc")
    if not (proc / "self/fd").is_dir():
        return False
    target = os.path.realpath(path)
    for pid in proc.iterdir():
        if not pid.name.isdigit():
            continue
        try:
            fds = list((pid / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == target:
                    return True
            except OSError:
                continue
    return False


def _beside(git_path: str, temp: Path | None) -> str | None:
    """The work-tree path of ``temp``, the temporary staged beside ``git_path``."""
    return None if temp is None else posixpath.join(posixpath.dirname(git_path), temp.name)


def _text(content: bytes | None) -> str | None:
    return None if content is None else content.decode("utf-8")
