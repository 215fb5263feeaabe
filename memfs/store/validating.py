"""``memfs validate`` of the whole repository served from the findings cache
(:mod:`memfs.store.findings`): the same findings, in the same order, as reading and checking every
file again, at the cost of what changed.

A file whose ``lstat`` is the one recorded with its entry is not read; any other is read, and its
findings are computed only if its content id is not the recorded one. The probable conflicts are
taken as they were when no (path, content id) changed, else found again only around what changed
(:func:`memfs.policy.conflict_delta.pairs_since`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from memfs.format.model import Memory, Problem
from memfs.policy import conflict_pairs, conflicts
from memfs.policy.conflict_delta import pairs_since
from memfs.store import crossfile, findings, paths, progress


class Validating(findings.Store, Protocol):
    """What the cached validate needs of :class:`memfs.store.reading.Reader`."""

    progress: progress.Progress

    def _file_findings(self, rel: str, data: bytes) -> findings.Entry: ...

    def exists(self, rel: str) -> bool: ...

    def _dependency_refusal(self, dep: str, *, folder: bool = False) -> str | None: ...

    def repo_problems(self, memories: list[Memory], exists: Callable[[str], bool],
                      pairs: list[Problem] | None = None,
                      refusal: Callable[[str], str | None] | None = None) -> list[Problem]: ...


@dataclass
class _File:
    """One memory file of this run: its content id and, once decoded or computed, its entry;
    or the problem that it cannot be read (never cached)."""

    rel: str
    blob: str = ""
    entry: findings.Entry | None = None
    unreadable: Problem | None = None
    stat: os.stat_result | None = None


def cached(repo: Validating) -> list[Problem]:
    """Every finding of the repository, unordered within a path (the caller orders them).

    When no file's (path, content id) changed and every ``depends_on`` target named is as it
    was, the kept result is the answer and no entry is decoded."""
    cache = findings.load(repo)
    linked: list[str] = []
    rels = list(paths.iter_memory_paths(repo.root, linked))
    files = [f for rel in progress.counted(repo.progress, "validating", rels, len(rels))
             if (f := _identify(repo, cache, rel)) is not None]
    digest = findings.files_digest([*((f.rel, f.blob or str(f.unreadable)) for f in files),
                                    *((rel, "linked") for rel in linked)])
    dependencies = crossfile.Dependencies(repo, {f.rel for f in files if f.blob}, cache.kept_answers())
    found = cache.kept_result(digest, dependencies)
    if found is None:
        found, answers = _found(repo, cache, files, linked, dependencies)
        cache.keep_result(digest, answers, found)
    findings.save(repo, cache)
    return found


def _identify(repo: Validating, cache: findings.Cache, rel: str) -> _File | None:
    """``rel``'s content id: the recorded one if its ``lstat`` is the recorded one, else from
    reading it (its entry then looked up or computed); ``None`` if it is gone."""
    try:
        found: os.stat_result | None = os.lstat(os.path.join(repo.root, rel))
    except OSError:
        found = None
    blob = None if found is None else cache.unchanged(rel, found)
    if blob is not None:
        return _File(rel, blob, stat=found)
    return _read(repo, cache, rel, found)


def _read(repo: Validating, cache: findings.Cache, rel: str, found: os.stat_result | None) -> _File | None:
    data = paths.read_file(repo.root, rel)
    if isinstance(data, paths.Unreadable):
        return _File(rel, unreadable=data.problem())
    if data is None:
        return None
    blob = findings.blob_id(data)
    entry = cache.entry(rel, blob, found)
    if entry is None:
        entry = repo._file_findings(rel, data)
        cache.put(rel, blob, entry, found)
    return _File(rel, blob, entry)


def _found(repo: Validating, cache: findings.Cache, files: list[_File], linked: list[str],
           dependency: Callable[[str], list[Any]]) -> tuple[list[Problem], dict[str, list[Any]]]:
    """The findings from the files' entries (each decoded, or computed again if it does not), and
    what the file system answered about each ``depends_on`` target (:func:`crossfile.answer`)."""
    broken: list[Problem] = []
    own: list[Problem] = []
    kept: list[tuple[str, str, findings.Entry]] = []
    memories: list[Memory] = []
    for number, file in enumerate(files):
        if file.unreadable is not None:
            broken.append(file.unreadable)
            continue
        if file.entry is None:
            file.entry = cache.decoded(file.rel, file.blob)
        if file.entry is None:
            again = _read(repo, cache, file.rel, file.stat)
            if again is None or again.entry is None:
                broken.extend([] if again is None or again.unreadable is None else [again.unreadable])
                continue
            file = files[number] = again
        entry = file.entry
        assert entry is not None
        if entry.summary is None:
            broken.extend(entry.problems)
            continue
        own.extend(entry.problems)
        kept.append((file.rel, file.blob, entry))
        memories.append(entry.summary.memory(file.rel))
    broken.extend(linked_problems(linked))
    pairs = _pairs(cache, kept)
    answers = {dep: dependency(dep) for dep in sorted({d for m in memories for d in m.depends_on})}
    found = repo.repo_problems(memories, lambda dep: bool(answers[dep][1]), pair_problems(pairs),
                               lambda dep: answers[dep][0])
    return [*broken, *own, *found], answers


def _pairs(cache: findings.Cache, parsed: list[tuple[str, str, findings.Entry]]) -> list[conflicts.Pair]:
    """The probable conflicts among the ``parsed`` files (path, blob id, entry): as kept when
    none changed, else found again around what did (from scratch without a usable kept state)."""
    digest = findings.files_digest((rel, blob) for rel, blob, _ in parsed)
    kept = cache.kept_pairs(digest)
    if kept is not None:
        return kept
    members = [m for rel, blob, entry in parsed if (m := entry.member(rel, blob)) is not None]
    previous = cache.previous({m.memory.path: m for m in members})
    if previous is None:
        found = conflict_pairs.pairs((m.memory for m in members), {m.memory.path: m.reading for m in members})
    else:
        found = pairs_since(*previous, members)
    cache.keep_pairs(digest, found)
    return found


def pair_problems(found: list[conflicts.Pair]) -> list[Problem]:
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
