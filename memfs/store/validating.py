"""``memfs validate`` of the whole repository served from the findings cache
(:mod:`memfs.store.findings`): the same findings, in the same order, as reading and checking every
file again, at the cost of what changed.

A file whose ``lstat`` is the one recorded with its entry is not read; any other is read, and its
findings are computed only if its content id is not the recorded one. The cross-file checks
(duplicate ids, ``(scope, key, version)`` clashes, ``depends_on`` targets, probable conflicts) are
taken as they were when no (path, content id) changed, else recomputed only around what changed
(:mod:`memfs.store.crossfile`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from memfs.format.model import Problem
from memfs.store import crossfile, findings, paths, progress


class Validating(findings.Store, crossfile.Asking, Protocol):
    """What the cached validate needs of :class:`memfs.store.reading.Reader`."""

    progress: progress.Progress

    def _file_findings(self, rel: str, data: bytes) -> findings.Entry: ...



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
    was, the kept result is the answer and no entry is decoded; otherwise it is recomputed around
    what changed (:func:`crossfile.update`), or from every entry (:func:`crossfile.scratch`)."""
    cache = findings.load(repo)
    linked: list[str] = []
    rels = list(paths.iter_memory_paths(repo.root, linked))
    files = [f for rel in progress.counted(repo.progress, "validating", rels, len(rels))
             if (f := _identify(repo, cache, rel)) is not None]
    digest = findings.files_digest([*((f.rel, f.blob or str(f.unreadable)) for f in files),
                                    *((rel, "linked") for rel in linked)])
    kept = crossfile.Result.from_json(cache.result)
    ask = crossfile.Dependencies(repo, {f.rel for f in files if f.blob}, {} if kept is None else kept.deps)
    found = _kept(kept, digest, ask)
    if found is None:
        listed = [(f.rel, f.blob, f.unreadable) for f in files]
        entry_of = _entries(repo, cache, {f.rel: f for f in files})
        result = None if kept is None else crossfile.update(repo, kept, cache, listed, linked, digest, ask, entry_of)
        found = None if result is None else _decoded(result)
        if result is None or found is None:  # a kept part that does not decode is not used either
            result = crossfile.scratch(repo, listed, linked, digest, ask, entry_of)
            found = result.problems()
        cache.result, cache.result_changed = result.to_json(), True
    findings.save(repo, cache)
    return found


def _kept(kept: crossfile.Result | None, digest: str, ask: crossfile.Dependencies) -> list[Problem] | None:
    """The kept result's findings if it holds for this run (:meth:`crossfile.Result.holds`) and decodes."""
    if kept is None or not kept.holds(digest, ask):
        return None
    try:
        return kept.problems()
    except (ValueError, TypeError):
        return None


def _decoded(result: crossfile.Result) -> list[Problem] | None:
    """``result``'s findings, ``None`` if one it took from the kept result does not decode."""
    try:
        return result.problems()
    except (ValueError, TypeError):
        return None


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


def _entries(repo: Validating, cache: findings.Cache, files: dict[str, _File]) -> Callable[[str], crossfile.Found]:
    """A file's entry as used or computed in this run, else decoded, else computed again from the
    file (which may since have become unreadable, or gone: ``None``; or hold another content, then
    the result is not kept under the digest of the content listed: :attr:`findings.Cache.result_stale`)."""

    def entry_of(rel: str) -> crossfile.Found:
        file = files[rel]
        if file.unreadable is not None:
            return file.unreadable
        if file.entry is None:
            file.entry = cache.decoded(rel, file.blob)
        if file.entry is None:
            again = _read(repo, cache, rel, file.stat)
            if again is None or again.blob != file.blob:
                cache.result_stale = True
            if again is None or again.unreadable is not None:
                return None if again is None else again.unreadable
            file.entry = again.entry
        return file.entry

    return entry_of
