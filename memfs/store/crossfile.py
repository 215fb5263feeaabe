"""The cross-file part of a cached ``memfs validate`` (:mod:`memfs.store.validating`), kept by path
and recomputed only around what changed; and what the file system answers about each
``depends_on`` target, asked again only where it can have changed.

**The result by path.** Every finding of a whole-repository validate is about one path, and
:func:`memfs.store.reading._ordered` sorts them stably by path: so the answer is the
concatenation, in any order of paths, of each path's findings in the order a fresh validate
makes them. A file's are, in that order: its own (:class:`~memfs.store.findings.Entry`'s
problems, or why it cannot be read), its ``depends_on`` entries' (refused as a path, then
missing), its duplicate id's, its ``(scope, key, version)`` clash's, then its probable conflicts'
(in the order of the pairs). :class:`Result` keeps the first four as *parts* per path, the pairs,
and the answers about each target. Which of them can a change move?

- the own part, only the file's own content (its path and content id);
- the ``depends_on`` part, its own ``depends_on`` list and the answers about those targets;
- the id part, the paths (in walk order) of the files with the same id: a function of that id's
  users, which change only when a file with that id (before or now) changes;
- the key part, likewise of the active files sharing its ``(scope, key, version)``;
- the pairs, only in the groups (:func:`~memfs.policy.conflict_pairs.group_of`) a changed file was
  or is in (:mod:`memfs.policy.conflict_delta` for why and how).

So after a change only the changed files are decoded, plus the members of the conflict groups
they touch; the parts recomputed are the changed files', those of the files sharing an id or a
``(scope, key, version)`` with one of them (from each file's few cross-file fields, :func:`findings.xref`,
kept in a small index beside each shard), and those naming a target whose answer moved. What the
kept result was computed from must be what the shards' indexes hold: each shard's indexes are
written under a new token, the kept result names every shard's token when it is written, and a
result whose tokens are not those loaded (a shard written since, by another process, or half) is
not used: everything is then computed from scratch.

**The targets.**
A target's answer is ``[why it is refused as a path, whether a plain file is there]``
(:func:`answer`). Asking it means :func:`memfs.store.paths.confine` (the target's spelling, then
one ``lstat`` per folder on its way and of the entry itself) and an existence check: at 30k
memories with a few thousand distinct targets, most of an unchanged validate. :class:`Dependencies`
answers a target without asking when the answer can be proven from what this run has already seen:

- the target was answered ``[None, True]`` before (its spelling passed :func:`paths.lexical_rel`);
- it is in Unicode NFC, so :func:`paths.lexical_rel` judges it by its spelling alone (a pure
  function, whose source is in the findings cache's fingerprint): it passes again, and names the
  target itself, since it is a path the walk found (no ``.``, ``..`` or empty part to normalise);
- this run found it as a memory file and read it, or took its ``lstat`` as a regular file with one
  link (:meth:`memfs.store.findings.Cache.unchanged`; :func:`paths.read_file` refuses anything
  else): so its last entry is no symlink, no hard link and no folder (so not ``.git/``, ``.memfs/``
  or the git directory by identity), and a plain file is there;
- every folder on its way passes :func:`paths.confine` (no symlink, not one of those three
  folders by device and inode), asked once per folder in this run.

Those are all the checks :func:`paths.confine` and :func:`paths.is_plain_file` make, so the answer
is theirs, on the file system as this run saw it (as :class:`paths.Checked` takes a folder as seen
once for one operation). Any other target is asked in full.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from memfs.format import names, validate
from memfs.format.model import Memory, Problem
from memfs.policy import conflict_pairs
from memfs.policy.conflict_delta import Member, pairs_since
from memfs.policy.conflicts import Pair, eligible
from memfs.store import findings, paths

#: the answer of a target that passes as a path and is a plain file
PLAIN = [None, True]


class Asking(Protocol):
    """What the answers and the parts need of :class:`memfs.store.reading.Reader`."""

    def exists(self, rel: str) -> bool: ...

    def _dependency_refusal(self, dep: str, *, folder: bool = False) -> str | None: ...

    def repo_problems(self, memories: list[Memory], exists: Callable[[str], bool],
                      pairs: list[Problem] | None = None,
                      refusal: Callable[[str], str | None] | None = None) -> list[Problem]: ...


def answer(repo: Asking, dep: str) -> list[Any]:
    """What the cross-file checks ask the file system about a ``depends_on`` entry: why it is
    refused as a path, else whether a plain file is there."""
    refused = repo._dependency_refusal(dep)
    return [refused, refused is None and repo.exists(dep)]


class Dependencies:
    """The answer for each target (:func:`answer`), taken as proven (see the module docstring) for
    a target answered :data:`PLAIN` in ``kept`` that is among ``plain``, the memory files this run
    found as regular files with one link."""

    def __init__(self, repo: Asking, plain: set[str], kept: Mapping[str, Any]) -> None:
        self.repo = repo
        self.plain = plain
        self.kept = kept
        self.folders: dict[str, bool] = {}
        #: the targets asked in full (for tests and figures)
        self.asked: list[str] = []

    def __call__(self, dep: str) -> list[Any]:
        if self.kept.get(dep) == PLAIN and dep in self.plain and names.nfc(dep) == dep and self._passes(dep):
            return list(PLAIN)
        self.asked.append(dep)
        return answer(self.repo, dep)

    def _passes(self, dep: str) -> bool:
        folder = posixpath.dirname(dep)
        if not folder:
            return True
        if folder not in self.folders:
            self.folders[folder] = self.repo._dependency_refusal(folder, folder=True) is None
        return self.folders[folder]


#: a file of this run as the parts see it: path, content id (``""`` if it cannot be read) and
#: why it cannot be read
File = tuple[str, str, Problem | None]
#: a file's entry (decoded, or computed again), why it cannot be read, or ``None`` if it is gone
Found = findings.Entry | Problem | None


@dataclass
class Result:
    """What a whole-repository validate found, as kept (see the module docstring): the digest of
    the (path, content id) list it was computed from, the answer about each ``depends_on``
    target, the files that could not be read (path → the text that stood for their content id in
    the digest), the symlinked folders, each path's parts (own, ``depends_on``, id, key: lists
    of :meth:`Problem.to_json`; paths with none are left out) and the probable conflicts."""

    digest: str
    deps: dict[str, list[Any]]
    unreadable: dict[str, str]
    linked: list[str]
    parts: dict[str, list[list[Any]]]
    pairs: list[Pair]

    def to_json(self) -> dict[str, Any]:
        return {"digest": self.digest, "deps": self.deps, "unreadable": self.unreadable, "linked": self.linked,
                "parts": self.parts, "pairs": [[p.older, p.newer, p.why] for p in self.pairs]}

    @classmethod
    def from_json(cls, raw: Any) -> Result | None:
        """The kept result, or ``None`` for anything :meth:`to_json` did not write (the parts'
        problems are decoded by :meth:`problems`)."""
        if not isinstance(raw, dict):
            return None
        digest, deps, unreadable, linked = raw.get("digest"), raw.get("deps"), raw.get("unreadable"), raw.get("linked")
        parts, pairs = raw.get("parts"), raw.get("pairs")
        if not (isinstance(digest, str) and isinstance(deps, dict) and isinstance(unreadable, dict)
                and isinstance(linked, list) and isinstance(parts, dict) and isinstance(pairs, list)):
            return None
        if not all(isinstance(a, list) and len(a) == 2 for a in deps.values()):
            return None
        if not all(isinstance(v, str) for v in unreadable.values()) or not all(isinstance(r, str) for r in linked):
            return None
        if not all(isinstance(p, list) and len(p) == 4 and all(isinstance(x, list) for x in p) for p in parts.values()):
            return None
        if not all(isinstance(p, list) and len(p) == 3 and all(isinstance(x, str) for x in p) for p in pairs):
            return None
        return cls(digest, deps, unreadable, linked, parts, [Pair(*p) for p in pairs])

    def holds(self, digest: str, ask: Callable[[str], list[Any]]) -> bool:
        """Whether this is the result for the files whose list has ``digest``: it was computed from
        them and every target still answers as it did."""
        return self.digest == digest and all(ask(dep) == answer for dep, answer in self.deps.items())

    def problems(self) -> list[Problem]:
        """Every finding, unordered across paths (:class:`ValueError` or :class:`TypeError` if a
        kept problem does not decode)."""
        found = [findings.problem_from_json(p) for part in self.parts.values() for kind in part for p in kind]
        return [*found, *pair_problems(self.pairs), *linked_problems(self.linked)]


def scratch(repo: Asking, files: list[File], linked: list[str], digest: str, ask: Callable[[str], list[Any]],
            entry_of: Callable[[str], Found]) -> Result:
    """The result computed from every file's entry."""
    rows: dict[str, list[Any] | None] = {}
    own: dict[str, list[Any]] = {}
    members: list[Member] = []
    for rel, blob, unreadable in files:
        found = unreadable or entry_of(rel)
        if isinstance(found, findings.Entry):
            rows[rel] = _xref(found)
            member = found.member(rel, blob)
            if member is not None:
                members.append(member)
        if found is not None:
            own[rel] = _own(found)
    answers = {dep: ask(dep) for dep in sorted({d for row in rows.values() if row for d in row[6]})}
    pairs = conflict_pairs.pairs((m.memory for m in members), {m.memory.path: m.reading for m in members})
    result = Result(digest, answers, {rel: str(p) for rel, _, p in files if p is not None}, linked, {}, pairs)
    _redo(repo, result, rows, own, set(rows), set(rows), set(rows))
    return result


def update(repo: Asking, kept: Result, cache: findings.Cache, files: list[File], linked: list[str], digest: str,
           ask: Callable[[str], list[Any]], entry_of: Callable[[str], Found]) -> Result | None:
    """The result for ``files`` from ``kept``, recomputed around what changed since (see the
    module docstring); ``None`` when ``kept`` was not computed from what the shards' indexes hold
    or an entry it needs is not there."""
    old = _kept_files(cache, kept)
    if old is None:
        return None
    now = {rel: blob or str(why) for rel, blob, why in files}
    changed = {rel for rel in old.keys() | now.keys() if old.get(rel) != now.get(rel)}
    kept_rows = cache.xrefs()
    old_rows = {rel: kept_rows[rel] for rel in changed if rel in kept_rows}
    if any(rel in cache.stats and rel not in kept_rows for rel in changed):
        return None
    found = _rows(files, changed, kept_rows, entry_of)
    if found is None:
        return None
    rows, own = found
    answers = {dep: ask(dep) for dep in sorted({d for row in rows.values() if row for d in row[6]})}
    moved = {dep for dep, answer in answers.items() if kept.deps.get(dep) != answer}
    pairs = _pairs_again(kept, cache, (old, now), old_rows, rows, changed, entry_of)
    if pairs is None:
        return None
    result = Result(digest, answers, {rel: str(why) for rel, _, why in files if why is not None}, linked,
                    {rel: part for rel, part in kept.parts.items() if rel in now and rel not in changed}, pairs)
    ids = {row[0] for row in (*old_rows.values(), *(rows.get(rel) for rel in changed)) if row and row[0]}
    keys = {row[3] for row in (*old_rows.values(), *(rows.get(rel) for rel in changed)) if row and row[3]}
    deps = {rel for rel, row in rows.items() if rel in changed or (row and moved.intersection(row[6]))}
    _redo(repo, result, rows, own, deps, {rel for rel, row in rows.items() if row and row[0] in ids},
          {rel for rel, row in rows.items() if row and row[3] in keys})
    return result


def _kept_files(cache: findings.Cache, kept: Result) -> dict[str, str] | None:
    """Path → content id (or the text standing for it) of the files ``kept`` was computed from,
    as the shards' indexes hold them; ``None`` unless it was written with those indexes."""
    if not cache.consistent():
        return None
    old: dict[str, str] = {}
    for rel, row in cache.stats.items():
        if not isinstance(row, list) or not row or not isinstance(row[0], str):
            return None
        old[rel] = row[0]
    if kept.unreadable.keys() & old.keys():
        return None
    old.update(kept.unreadable)
    return old


def _rows(files: list[File], changed: set[str], kept_rows: Mapping[str, list[Any] | None],
          entry_of: Callable[[str], Found]) -> tuple[dict[str, list[Any] | None], dict[str, list[Any]]] | None:
    """Every readable file's cross-file fields, in walk order (kept, or from its entry), and the
    own parts of the changed files; ``None`` if a file's entry is not there."""
    rows: dict[str, list[Any] | None] = {}
    own: dict[str, list[Any]] = {}
    for rel, _, why in files:
        if why is not None:
            if rel in changed:
                own[rel] = _own(why)
            continue
        if rel not in changed and rel in kept_rows:
            rows[rel] = kept_rows[rel]
            continue
        found = entry_of(rel)
        if not isinstance(found, findings.Entry):
            return None
        rows[rel] = _xref(found)
        if rel in changed:
            own[rel] = _own(found)
    return rows, own


def _group(rel: str, row: list[Any] | None) -> tuple[Any, ...] | None:
    if not row:
        return None
    light = _light(rel, row)
    return conflict_pairs.group_of(light) if eligible(light) else None


def _pairs_again(kept: Result, cache: findings.Cache, blobs: tuple[Mapping[str, str], Mapping[str, str]],
                 old_rows: Mapping[str, Any],
                 rows: Mapping[str, list[Any] | None], changed: set[str],
                 entry_of: Callable[[str], Found]) -> list[Pair] | None:
    """The probable conflicts: the kept ones of the groups no changed file was or is in, and
    those of the others found again (:func:`pairs_since`) from their members alone. ``blobs``:
    the content ids before and now."""
    old, now = blobs
    touched = {g for rel in changed for g in (_group(rel, old_rows.get(rel)), _group(rel, rows.get(rel))) if g}
    if not touched:
        return kept.pairs

    def was_in(rel: str) -> tuple[Any, ...] | None:
        return _group(rel, old_rows.get(rel) if rel in changed else rows.get(rel))

    scopes = {g[0] for g in touched}
    new: list[Member] = []
    for rel, row in rows.items():
        if row and row[2] in scopes and _group(rel, row) in touched:
            entry = entry_of(rel)
            member = entry.member(rel, now[rel]) if isinstance(entry, findings.Entry) else None
            if member is None:
                return None
            new.append(member)
    before = {m.memory.path: m for m in new if m.memory.path not in changed}
    for rel in changed:
        if was_in(rel) in touched:
            entry = cache.decoded(rel, old[rel])
            member = None if entry is None else entry.member(rel, old[rel])
            if member is None:
                return None
            before[rel] = member
    found = pairs_since(before, [p for p in kept.pairs if was_in(p.older) in touched], new)
    return [*(p for p in kept.pairs if was_in(p.older) not in touched), *found]


def _xref(entry: findings.Entry) -> list[Any] | None:
    return findings.xref(None if entry.summary is None else entry.summary.to_json())


def _own(found: findings.Entry | Problem) -> list[Any]:
    problems = [found] if isinstance(found, Problem) else found.problems
    return [p.to_json() for p in problems]


def _light(rel: str, row: list[Any]) -> Memory:
    """A memory carrying only a file's cross-file fields (:func:`findings.xref`)."""
    ident, kind, scope, key, version, status, deps = row
    return Memory(rel, {}, "", id=ident, type=kind, scope=scope, key=key, version=version, status=status,
                  depends_on=tuple(deps))


def _redo(repo: Asking, result: Result, rows: Mapping[str, list[Any] | None], own: Mapping[str, list[Any]],
          deps: set[str], ids: set[str], keys: set[str]) -> None:
    """Recompute in ``result`` the own parts of the paths in ``own``, and the ``depends_on``, id
    and key parts of the paths in ``deps``, ``ids`` and ``keys`` (each id and key group whole:
    the caller names every path of a group it asks for); ``rows`` is every readable file's
    cross-file fields, in walk order."""
    fresh: dict[str, list[list[Any]]] = {}

    def part(rel: str) -> list[list[Any]]:
        if rel not in fresh:
            fresh[rel] = [list(kind) for kind in result.parts.get(rel, [[], [], [], []])]
        return fresh[rel]

    for rel, problems in own.items():
        part(rel)[0] = problems
    def exists(dep: str) -> bool:
        return bool(result.deps[dep][1])

    def refusal(dep: str) -> str | None:
        why = result.deps[dep][0]
        return why if isinstance(why, str) else None

    for rel in deps:
        row = rows.get(rel)
        found = repo.repo_problems([_light(rel, row)], exists, [], refusal) if row and row[6] else []
        part(rel)[1] = [p.to_json() for p in found]
    for rel in ids:
        part(rel)[2] = []
    for rel in keys:
        part(rel)[3] = []
    only_ids = [Memory(rel, {}, "", id=row[0]) for rel, row in rows.items() if row and rel in ids]
    only_keys = [Memory(rel, {}, "", scope=row[2], key=row[3], version=row[4], status=row[5])
                 for rel, row in rows.items() if row and row[3] and rel in keys]
    for number, memories in ((2, only_ids), (3, only_keys)):
        for problem in validate.check_repo(memories, lambda dep: True):
            part(problem.path)[number].append(problem.to_json())
    for rel, kinds in fresh.items():
        if any(kinds):
            result.parts[rel] = kinds
        else:
            result.parts.pop(rel, None)


def pair_problems(found: list[Pair]) -> list[Problem]:
    """A warning on both memories of each probable conflict (:mod:`memfs.policy.conflicts`): two
    values for one subject without a key; ``memfs context`` injects only the newer."""
    problems = []
    for pair in found:
        fix = f"keep one value: edit or delete {pair.older}, or give each a key if both hold"
        problems.append(Problem(pair.older, "body", f"probable conflict: {pair.newer} is a newer value for the "
                                f"same subject ({pair.why})", fix, "warning"))
        problems.append(Problem(pair.newer, "body", f"probable conflict: replaces {pair.older} ({pair.why})", fix,
                                "warning"))
    return problems


def linked_problems(linked: list[str]) -> list[Problem]:
    return [Problem(rel, None, "is a symlink to a folder, so memfs does not look inside it", paths.LINK_FIX,
                    "warning") for rel in linked]
