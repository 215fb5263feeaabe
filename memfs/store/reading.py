"""Reading and validation: memory files read (confined, capped, as one session sees them),
every file scanned and validated, and the lookups writes need (ids in use, dependents, files
containing a text), from the catalog (:mod:`memfs.store.catalog`) or one ``git grep``.

:class:`Reader` adds these to :class:`~memfs.store.upkeep.Repository`; it changes no memory (a whole-
repository validate keeps its findings in ``.memfs/``: :mod:`memfs.store.findings`).
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypeVar

from memfs.errors import InvalidConfig, InvalidMemory, MemoryNotFound, PathError, UsageError
from memfs.format import names, validate, yamlio
from memfs.format.limits import DEFAULT as DEFAULT_LIMITS
from memfs.format.limits import Limits
from memfs.format.model import SYSTEM_DIR, Memory, Problem
from memfs.format.parse import load_document, parse
from memfs.policy import guard
from memfs.policy.recall import ScopeRule, check_scope
from memfs.store import gitcli, paths, progress
from memfs.store.upkeep import COMMIT_MEMO_ENTRIES, AtCommit, Repository

if TYPE_CHECKING:
    from memfs.store import findings

S = TypeVar("S", bound="Reader")


@dataclass
class Scan:
    """Every memory file under the root: the parsed ones (and the bytes they were parsed from, so
    validation's secret scan reads no file twice) and the findings for broken ones."""

    memories: list[Memory] = field(default_factory=list)
    broken: list[Problem] = field(default_factory=list)
    data: dict[str, bytes] = field(default_factory=dict)



class Reader(Repository):
    """Reading a memory root: files, scans, validation and lookups. Changes nothing."""

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
            raise MemoryNotFound(f"{rel}: no such memory")
        return rel, data

    def peek(self, rel: str) -> bytes | None:
        """The bytes of a memory file, ``None`` if there is none or it is not a file memfs reads (a
        symlink, a FIFO, one too big): for readers that skip such entries, without parsing."""
        data = paths.read_file(self.root, rel)
        return data if isinstance(data, bytes) else None

    def load(self, rel: str, limits: Limits | None = None) -> tuple[bytes | None, Memory | None, str | None]:
        """(bytes, memory, why it does not parse) of a memory file, never raising for a broken one:
        for readers that go on with the other files. A file memfs does not read (a symlink, a FIFO,
        one too big) is ``(None, None, why)``. ``limits``: :meth:`limits`, for a caller that loads
        many files with the settings read once."""
        return self._loaded(rel, paths.read_file(self.root, rel), limits)

    def load_signed(self, rel: str, limits: Limits | None = None
                    ) -> tuple[bytes | None, Memory | None, str | None, paths.Signature | None]:
        """:meth:`load`, and the signature of the bytes read (:func:`paths.read_signed`), for the
        index to keep what it parsed from them (:mod:`memfs.index.documents`)."""
        data, signature = paths.read_signed(self.root, rel)
        return (*self._loaded(rel, data, limits), signature)

    def _loaded(self, rel: str, data: bytes | paths.Unreadable | None,
                limits: Limits | None) -> tuple[bytes | None, Memory | None, str | None]:
        if isinstance(data, paths.Unreadable):
            return None, None, str(data)
        if data is None:
            return None, None, None
        found = self.parsed(rel, data, limits or self.limits())
        if isinstance(found, InvalidMemory):
            return data, None, "; ".join(p.message for p in found.problems) or str(found)
        return data, found, None

    def memory_paths(self, under: str = "") -> list[str]:
        """Root-relative paths of the memory files in the work tree (under the folder ``under``),
        sorted ``system/`` first (:func:`paths.iter_memory_paths`)."""
        return list(paths.iter_memory_paths(self.root, under=under))

    def memory_paths_at(self, rev: str, under: str = "") -> list[str]:
        """Root-relative paths of the memory files committed at ``rev`` (under the folder
        ``under``), sorted ``system/`` first."""
        pathspec = self.git_path(under.rstrip("/") + "/") if under else self.pathspec
        memo, rev = self._commit_memo(rev)
        names = memo.trees.get(pathspec) if memo is not None else None
        if names is None:
            names = self.git.tree_files(rev, pathspec)
            if memo is not None:
                memo.trees[pathspec] = names
        found = [rel for name in names if (rel := self.from_git_path(name))]
        return sorted(self._memories_in(self.git_path(rel) for rel in found), key=paths.sort_key)

    def files_containing_at(self, rev: str, texts: Iterable[str]) -> list[str]:
        """Memory paths committed at ``rev`` whose file contains any of ``texts`` (one ``git grep``
        over the tree): a prefilter, parse to be sure."""
        patterns, pathspec = sorted(set(texts)), f"{self.prefix}*.md"
        memo, rev = self._commit_memo(rev)
        key = (pathspec, *patterns)
        names = memo.greps.get(key) if memo is not None else None
        if names is None:
            names = self.git.grep_files_at(rev, patterns, pathspec)
            if memo is not None:
                memo.greps[key] = names
        return self._memories_in(names)

    def files_at(self, rev: str | None, rels: list[str]) -> dict[str, bytes | None]:
        """Each file's bytes at ``rev`` (one ``git cat-file --batch``), or in the working tree
        (where a file memfs does not read counts as absent)."""
        if rev is None:
            return {rel: self.peek(rel) for rel in rels}
        memo, rev = self._commit_memo(rev)
        names = {rel: self.git_path(rel) for rel in rels}
        known = {} if memo is None else {name: memo.blobs[name] for name in names.values() if name in memo.blobs}
        missing = [name for name in names.values() if name not in known]
        blobs = self.git.read_blobs(rev, missing) if missing else {}
        if memo is not None:
            memo.blobs.update((name, blobs.get(name)) for name in missing)
        return {rel: known[name] if name in known else blobs.get(name) for rel, name in names.items()}

    def parsed_at_head(self, files: dict[str, bytes]) -> dict[str, Memory | InvalidMemory]:
        """Each of ``files`` (path: its bytes at HEAD) parsed with the default limits, or why it
        does not parse (:meth:`parsed`)."""
        return {rel: self.parsed(rel, data, DEFAULT_LIMITS) for rel, data in files.items()}

    def parsed(self, rel: str, data: bytes, limits: Limits) -> Memory | InvalidMemory:
        """``rel`` parsed from ``data`` (:func:`parse`), or why it does not parse: kept by path,
        bytes and limits, so a kept repository and its sessions parse an unchanged file once. At
        most :attr:`parsed_kept` kept."""
        key = (rel, data, limits)
        found = self.parsed_files.get(key)
        if found is None:
            try:
                found = parse(rel, data, limits)
            except InvalidMemory as exc:
                found = exc.with_traceback(None)
            if len(self.parsed_files) >= self.parsed_kept:
                self.parsed_files.clear()
            self.parsed_files[key] = found
        return found

    def log_at_head(self, path: str, grep: str | None, limit: int | None, follow: bool) -> list[gitcli.Commit]:
        """:meth:`Git.log` of HEAD, kept with what was read at HEAD's commit (a commit's history
        never changes): a kept repository and its sessions run one ``git log`` per commit and query."""
        memo, _ = self._commit_memo("HEAD")
        key = (path, grep, limit, follow)
        found = memo.logs.get(key) if memo is not None else None
        if found is None:
            found = self.git.log(path=path, grep=grep, limit=limit, follow=follow)
            if memo is not None:
                memo.logs[key] = found
        return list(found)

    def _commit_memo(self, rev: str) -> tuple[AtCommit | None, str]:
        """(what was read at HEAD's commit so far, the commit) for a read at ``HEAD``, else
        ``(None, rev)``. A commit's files never change, so reads at HEAD are kept for as long as
        HEAD names the same commit (read from the git directory's files, no process): a kept
        repository, and every session made from it (:meth:`session`), asks git again only after a
        commit. What is kept is git's answer before any session's filter, so sessions of different
        scopes can share it. At most :data:`COMMIT_MEMO_ENTRIES` files kept."""
        commit = self.git.head() if rev == "HEAD" else None
        if commit is None:
            return None, rev
        kept = self.at_head.get(commit)
        if kept is None or len(kept.blobs) > COMMIT_MEMO_ENTRIES:
            self.at_head.clear()
            kept = self.at_head[commit] = AtCommit(commit)
        return kept, commit

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
                result.broken.extend(self._unparsed(rel, data, exc.problems))
        result.broken.extend(_linked_problems(linked))
        return result

    def validate(self, scan: Scan | None = None, only: list[str] | None = None) -> list[Problem]:
        """Every finding in the repository: broken files, field problems, cross-file problems.

        With ``only`` (root-relative paths, as a pre-commit hook passes them) just those files are
        parsed; duplicate ids are still found repository-wide, by one ``git grep``.
        """
        if only is not None:
            return self._validate_only(only)
        if scan is None and self.binding is None:
            from memfs.store import validating

            return _ordered(validating.cached(self))
        scan = scan or self.scan()
        found = list(scan.broken)
        for memory in progress.counted(self.progress, "validating", scan.memories, len(scan.memories)):
            found.extend(memory.problems)
            found.extend(self._secrets_in(memory, scan.data.get(memory.path)))
        found.extend(self.repo_problems(scan.memories, self.exists))
        return _ordered(found)

    def _file_findings(self, rel: str, data: bytes) -> findings.Entry:
        """One file's own findings as :meth:`validate` reports them, and its summary."""
        from memfs.store import findings

        try:
            memory = parse(rel, data, self.limits())
        except InvalidMemory as exc:
            return findings.Entry.of(self._unparsed(rel, data, exc.problems), None)
        return findings.Entry.of([*memory.problems, *self._secrets_in(memory, data)], memory)

    def _unparsed(self, rel: str, data: bytes, problems: list[Problem]) -> list[Problem]:
        """A file's fatal ``problems``; for a plain note (no frontmatter), the fix says how it is
        adopted (:mod:`memfs.format.interop.adopt`) instead of asking for frontmatter by hand."""
        from memfs.format.interop.adopt import NO_SCOPE_FIX, is_plain

        if not is_plain(data) or len(problems) != 1:
            return problems
        try:
            scope = self.config().adopt.rule_for(rel).scope
        except InvalidConfig:
            scope = None
        if scope is None and not rel.startswith(SYSTEM_DIR + "/"):
            return [replace(problems[0], fix=f"a plain note: to adopt it, {NO_SCOPE_FIX}")]
        fix = (f"a plain note: 'memfs watch' or 'memfs import markdown . --apply' adopts it (scope "
               f"{scope or 'none: system/'} from [adopt] in .memfs.toml)")
        return [replace(problems[0], fix=fix)]

    def repo_problems(self, memories: list[Memory], exists: Callable[[str], bool],
                      pairs: list[Problem] | None = None,
                      refusal: Callable[[str], str | None] | None = None) -> list[Problem]:
        """:func:`validate.check_repo` (duplicate ids, missing ``depends_on`` targets) after each
        ``depends_on`` entry is resolved like a path argument (:func:`paths.confine`): one that
        lands in ``.git/`` or ``.memfs/``, outside the root or behind a symlink is a problem of its
        own, and only the entries that pass are looked up with ``exists``; then the probable
        conflicts (``pairs`` if they were computed already, from these memories). ``refusal``:
        why an entry is refused as a path, where the caller has the answers already."""
        found: list[Problem] = []
        refusal = refusal or self._dependency_refusal
        kept: list[Memory] = []
        why_not: dict[str, str | None] = {}
        for memory in memories:
            refused = set()
            for dep in memory.depends_on:
                if dep not in why_not:
                    why_not[dep] = refusal(dep)
                why = why_not[dep]
                if why is not None:
                    refused.add(dep)
                    found.append(Problem(memory.path, "depends_on", f"{dep!r}: {why}",
                                         "point it at a memory file inside the memory root"))
            deps = tuple(d for d in memory.depends_on if d not in refused)
            kept.append(memory if not refused else replace(memory, depends_on=deps))
        found.extend(validate.check_repo(kept, exists))
        found.extend(conflict_problems(kept) if pairs is None else pairs)
        return found

    def _dependency_refusal(self, dep: str, *, folder: bool = False) -> str | None:
        """Why ``dep`` is refused as a memory path (:func:`paths.confine`), or as a folder on the
        way to one with ``folder``; ``None`` if it passes."""
        try:
            paths.confine(self.root, dep, must_be_memory=not folder, git_dir=self.git.git_dir, checked=self.checked)
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
                scan.broken.extend(self._unparsed(rel, data or b"", exc.problems))
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
        return says_read_only(rel, data) or says_read_only(rel, self.git.head_file(self.git_path(rel)))

    # --- finding files -------------------------------------------------------------------
    def dependents(self, rel: str) -> list[str]:
        """Memories whose ``depends_on`` names ``rel`` as a path or a ``[[wikilink]]``: the files
        :meth:`catalog` says depend on it, else a ``git grep`` prefilter for the path without
        ``.md``; either way each is then parsed to be sure."""
        known = self.catalog()
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


    def ids_in_use(self, only: Iterable[str] | None = None) -> dict[str, list[str]]:
        """{id: [paths]} of the memory files' ids, from :meth:`catalog`, else from their ``id:`` lines
        by one ``git grep`` (with ``only``, for just those ids as fixed strings).

        Either way a prefilter: :meth:`id_users` confirms by parsing the files it names.
        """
        wanted = None if only is None else set(only)
        if wanted is not None and not wanted:
            return {}
        known = self.catalog()
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


#: Files up to this size have their scope remembered by :func:`_scope_in`, at most
#: :data:`_SCOPES_MAX` of them (a few MB at worst; the cache is emptied when full).
_SCOPE_CACHE_BYTES = 16_384
_SCOPES_MAX = 2048
_scopes: dict[bytes, tuple[str | None]] = {}


def _scope_in(rel: str, data: bytes) -> str | None:
    """The ``scope`` a memory file says, or ``None`` if it cannot be read as one.

    A bound session asks this of every file it might show, many times over for the same bytes
    (each search, listing and log entry), so the answer is remembered by the bytes themselves:
    it depends on nothing else (``rel`` only names the file in the parser's errors), so a
    changed file is a new key and an answer is never stale."""
    cached = len(data) <= _SCOPE_CACHE_BYTES
    known = _scopes.get(data) if cached else None
    if known is not None:
        return known[0]
    try:
        _, meta = load_document(rel, data)
        scope = meta.get("scope")
        found = scope if isinstance(scope, str) else None
    except InvalidMemory:
        found = None
    if cached:
        if len(_scopes) >= _SCOPES_MAX:
            _scopes.clear()
        _scopes[data] = (found,)
    return found



def says_read_only(rel: str, data: bytes | None) -> bool:
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


def _linked_problems(linked: list[str]) -> list[Problem]:
    """:func:`memfs.store.crossfile.linked_problems`, imported by the scan that needs it: the
    cross-file checks bring the conflict tables with them, which a command that reads no memory
    (a ``sync`` that fetched nothing) never uses."""
    from memfs.store import crossfile

    return crossfile.linked_problems(linked)


def _ordered(found: list[Problem]) -> list[Problem]:
    return sorted(found, key=lambda p: (paths.sort_key(p.path), p.severity != "error", p.field or ""))


def conflict_problems(memories: list[Memory]) -> list[Problem]:
    """A warning on both memories of each probable conflict (:mod:`memfs.policy.conflicts`): two
    values for one subject without a key; ``memfs context`` injects only the newer."""
    from memfs.policy import conflict_pairs
    from memfs.store import crossfile

    return crossfile.pair_problems(conflict_pairs.pairs(memories))
