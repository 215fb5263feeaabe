"""The write side of the index: catching up with the files, and rebuilding from scratch.

The index is a cache of the working tree. Before every read, :func:`sync` asks git once
(``git status``: HEAD plus changed, untracked and ignored paths, checked by git against its own
stat cache) and, if that or the stats of the listed files differ from what the state file
recorded, compares a stat snapshot (``mtime_ns``, size) of every memory file and re-indexes only
what differs: a plain ``git commit``, ``git pull``, ``git revert`` or checkout, an editor's save,
a deletion or a rename all show up as changed, new or missing files. Files whose mtime is too
close to the snapshot to be trusted ("racy", as git calls it) are re-hashed. Indexing only reads
memory files, never writes them.

A mismatched format, a missing or corrupt index, or a corrupt state file triggers a rebuild with
a notice, never a traceback. Rebuilds go to a fresh directory that the state file then points to,
so a concurrent reader keeps its old snapshot. One writer at a time: every index write holds
``.memfs/index.lock``; a search that cannot get it in time answers from the index as it is and
says so.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import random
import secrets
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memfs.errors import LockTimeout
from memfs.index import packed
from memfs.index import state as index_state
from memfs.index.documents import TEXT_FIELDS, document, kept_blob, make_schema
from memfs.index.reader import close, open_dir
from memfs.index.results import ReindexReport, SyncReport, Uncommitted
from memfs.index.state import LOCK_FILE, BadState, Entry, State
from memfs.store import locking, paths
from memfs.store.repo import Store

SYNC_WAIT = 5.0
#: the most unsigned memories a catch-up that writes anyway also indexes again to sign them
#: (:meth:`State.signable`, ~1 ms each): a bound on what one search pays for a cache, when a
#: rebuild over files just checked out left many. A catch-up with nothing else to write signs
#: none: the index writer's commit alone is ~10 ms, more than a search saves
SIGN_EACH = 8
REBUILD_WAIT = 600.0
Progress = Callable[[int, int], None]
Stats = dict[str, tuple[int, int]]


# --- what changed ------------------------------------------------------------------------------
def _probe(repo: Store) -> list[Any] | None:
    """HEAD and the memory files git lists as changed, untracked or ignored, as the state file
    records them. Equal probes plus unchanged stats of the listed files mean nothing changed:
    git has checked every tracked file's stat against its index, in C.

    git lists a git-ignored folder whole (``drafts/``), not the files in it; such a folder of
    memories is kept in the listing with its final ``/``: its files differ from HEAD too, and
    only a stat walk sees edits inside it. Files ``.memfsignore`` excludes are not memories and
    are left out (as the live index, which hears nothing of them, leaves them out)."""
    probe = repo.git.probe(repo.pathspec)
    if probe is None:
        return None
    spec = paths.ignore_spec(repo.root)
    rels = set()
    for name in probe.listed:
        if name == repo.prefix:
            rels.add("")
        elif (rel := repo.from_git_path(name)) and (
            paths.is_memory_name(rel) and not (spec and spec.match_file(rel))
            if not rel.endswith("/") else _memory_folder(rel, spec)
        ):
            rels.add(rel)
    return [probe.head, sorted(rels)]


def _memory_folder(rel: str, spec: Any) -> bool:
    return not any(p.startswith(".") for p in rel.rstrip("/").split("/")) and not (spec and spec.match_file(rel))


def _uncommitted(probe: list[Any] | None) -> Uncommitted | None:
    return None if probe is None else Uncommitted(tuple(probe[1]))


def uncommitted(repo: Store) -> Uncommitted | None:
    """The memory paths whose working-tree state differs from HEAD, from one ``git status`` (what
    :func:`sync` reports in passing; for callers that did not sync). ``None`` if git cannot say."""
    return _uncommitted(_probe(repo))


def _unchanged_since(root: Path, state: State, probe: list[Any] | None) -> bool:
    """Whether ``probe`` proves the working tree still matches ``state`` (no stat walk needed): same
    HEAD, same set of changed/untracked/ignored memory files, and those files' stats as recorded."""
    if probe is None or state.probe is None or probe != state.probe:
        return False
    racy_before = state.snapshot_ns - paths.RACY_NS
    for rel in probe[1]:
        if rel == "" or rel.endswith("/"):
            return False
        entry = state.files.get(rel)
        try:
            st = os.lstat(root / rel)
        except OSError:
            if entry is not None:
                return False
            continue
        if entry is None or entry.mtime_ns != st.st_mtime_ns or entry.size != st.st_size:
            return False
        if entry.mtime_ns >= racy_before:
            return False
    return True


def _pending(state: State, current: Stats) -> tuple[list[str], list[str]]:
    """(changed or new or racy paths, removed paths) of the working tree against ``state``."""
    racy_before = state.snapshot_ns - paths.RACY_NS
    recorded = state.stat
    changed = [
        rel
        for rel, st in current.items()
        if (known := recorded(rel)) is None
        or known != st
        or known[0] >= racy_before
    ]
    removed = [rel for rel in state.files if rel not in current]
    return changed, removed


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


# --- writing the index -------------------------------------------------------------------------
_OS_RANDOM = random.SystemRandom()


def _os_random_id(cls: type, size: int = 16) -> str:
    from whoosh.util import IDCHARS

    return "".join(_OS_RANDOM.choice(IDCHARS) for _ in range(size))


@functools.cache
def _segment_names_from_the_os() -> None:
    """Whoosh names each new segment with characters drawn from the global :mod:`random`, so a
    program that seeds it (``random.seed(0)`` for reproducible runs; Hypothesis does so for each
    example) makes two writers pick the same name, and the second commit fails an assertion in
    ``create_compound_file`` (the name's ``.seg`` file already exists). Names are drawn from the
    operating system's generator instead: same alphabet and length, independent of any seed.
    Patched once per process, by whichever writer opens first."""
    from whoosh.codec.base import Segment

    from memfs.index.mapped import read_in_place

    read_in_place()
    Segment._random_id = classmethod(_os_random_id)  # type: ignore[method-assign,assignment]


def _open_writer(ix: Any, timeout: float) -> Any:
    from whoosh.index import LockError

    _segment_names_from_the_os()
    deadline = time.monotonic() + timeout
    while True:
        try:
            return ix.writer(timeout=min(1.0, timeout), delay=0.05)
        except LockError:
            if time.monotonic() >= deadline:
                raise LockTimeout("the search index is locked by another process") from None


class _LazyWriter:
    """Opens the Whoosh writer (taking its lock) only when a document really changes."""

    def __init__(self, ix: Any, wait: float, fresh: bool = False) -> None:
        self.ix = ix
        self.wait = wait
        _segment_names_from_the_os()
        self.writer = ix.writer(limitmb=128) if fresh else None

    def get(self) -> Any:
        if self.writer is None:
            self.writer = _open_writer(self.ix, self.wait)
        return self.writer

    def finish(self, commit: bool) -> None:
        if self.writer is not None:
            writer, self.writer = self.writer, None
            if not commit:
                writer.cancel()
                return
            writer.commit()
            packed.prepare(self.ix, TEXT_FIELDS)


def _index_one(repo: Store, writer: _LazyWriter, state: State, rel: str, stat: tuple[int, int], *,
               fresh: bool) -> str:
    """(Re)index one file into ``writer`` and ``state``; returns what happened. A memory read too
    soon after its last change to be signed (:func:`memfs.store.paths.read_signed`) is indexed
    without a kept parse and recorded so (:attr:`Entry.unsigned`): every search reads its file
    until it is indexed again. Indexed again with the same bytes, now old
    enough to sign, its document is written again with the kept parse (``"signed"``)."""
    old = state.files.get(rel)
    limits = repo.limits()
    data, memory, broken, signature = repo.load_signed(rel, limits)
    if data is None and broken is not None:
        if not fresh and old is not None and old.lengths is not None:
            writer.get().delete_by_term("path", rel)
        state.put(rel, Entry(stat[0], stat[1], "", None, broken))
        return "updated" if old is not None else "added"
    if data is None:
        if old is not None:
            if not fresh and old.lengths is not None:
                writer.get().delete_by_term("path", rel)
            state.drop(rel)
            return "removed"
        return "none"
    digest = _digest(data)
    if old is not None and old.digest == digest and not (old.unsigned and signature is not None):
        state.put(rel, dataclasses.replace(old, mtime_ns=stat[0], size=stat[1]))
        return "same"
    if memory is None:
        if not fresh and old is not None and old.lengths is not None:
            writer.get().delete_by_term("path", rel)
        state.put(rel, Entry(stat[0], stat[1], digest, None, broken))
        return "updated" if old is not None else "added"
    lengths = add_document(writer.get(), document(memory, kept_blob(memory, signature, limits)), fresh=fresh)
    state.put(rel, Entry(stat[0], stat[1], digest, tuple(lengths), None, signature is None))
    if old is not None and old.digest == digest:
        return "signed"
    return "updated" if old is not None else "added"


def index_paths(repo: Store, state: State, ix: Any, rels: list[str], report: SyncReport, wait: float) -> None:
    """Index the current state of exactly ``rels`` (changed, new or gone files) into the open index
    ``ix`` and ``state``, committing once: the path-by-path update of a caller that knows what
    changed (the live index)."""
    writer = _LazyWriter(ix, wait)
    try:
        for rel in rels:
            stat = _stat(repo.root, rel)
            if stat is None:
                entry = state.drop(rel)
                if entry is not None:
                    if entry.lengths is not None:
                        writer.get().delete_by_term("path", rel)
                    report.removed += 1
                continue
            what = _index_one(repo, writer, state, rel, stat, fresh=False)
            if what in ("added", "updated", "removed", "signed"):
                setattr(report, what, getattr(report, what) + 1)
        writer.finish(commit=True)
    finally:
        writer.finish(commit=False)


def _stat(root: Any, rel: str) -> tuple[int, int] | None:
    """The ``(mtime_ns, size)`` :func:`paths.stat_memory_files` would list for ``rel``, or ``None``
    if it would not list it (gone, ignored, or not a memory name)."""
    if not paths.is_memory_name(rel) or paths.is_ignored(root, rel):
        return None
    try:
        st = os.lstat(root / rel)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def add_document(writer: Any, doc: dict[str, Any], *, fresh: bool) -> list[int]:
    """Add (``fresh``) or update ``doc``; returns the exact token count of each text field as
    Whoosh counted it while indexing, so each text is analysed once. Whoosh's count is the sum of
    the term frequencies the field's analyzer produced, which is ``len(tokens(text))``."""
    totals = writer.perdocwriter._fieldlengths
    before = [totals.get(name, 0) for name in TEXT_FIELDS]
    if fresh:
        writer.add_document(**doc)
    else:
        writer.update_document(**doc)
    return [totals.get(name, 0) - was for name, was in zip(TEXT_FIELDS, before, strict=True)]


def rebuild(repo: Store, *, progress: Progress | None = None, wait: float = REBUILD_WAIT) -> State:
    """Index every memory from scratch into a fresh directory, then switch the state file to it."""
    cache = repo.cache_dir
    index_state.ensure_cache(cache)
    with locking.exclusive(cache / LOCK_FILE, timeout=wait):
        return _rebuild_locked(repo, progress)


def _rebuild_locked(repo: Store, progress: Progress | None) -> State:
    from whoosh import index as whoosh_index

    cache = repo.cache_dir
    try:
        serial = index_state.read(cache).serial + 1
    except BadState:
        serial = 1
    name = f"ix-{secrets.token_hex(4)}"
    target = cache / name
    target.mkdir()
    snapshot = time.time_ns()
    probe = _probe(repo)
    stats = paths.stat_memory_files(repo.root)
    state = State(name, serial, snapshot, probe=probe)
    try:
        ix = whoosh_index.create_in(str(target), make_schema())
        writer = _LazyWriter(ix, 0, fresh=True)
        try:
            rels = sorted(stats)
            repo.progress("indexing", 0, len(rels))
            for done, rel in enumerate(rels, start=1):
                _index_one(repo, writer, state, rel, stats[rel], fresh=True)
                repo.progress("indexing", done, len(rels))
                if progress is not None:
                    progress(done, len(rels))
            repo.progress("writing the index", 0, None)
            writer.finish(commit=True)
        except BaseException:
            writer.finish(commit=False)
            raise
        index_state.write(cache, state)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    for old in cache.glob("ix-*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    return state


def sync(repo: Store, *, wait: float = SYNC_WAIT) -> SyncReport:
    """Bring the index up to date with the memory files (HEAD and the working tree), incrementally.

    Cheap when nothing changed: one ``git status`` and no file reads. Rebuilds (with a notice)
    when there is no usable index. If another process holds the index lock for more than
    ``wait`` seconds, the index is left as it is and the report says ``stale``.
    """
    cache = repo.cache_dir
    report = SyncReport()
    try:
        state = index_state.cached(cache)
        if not (cache / state.index_dir).is_dir():
            raise BadState("its directory is missing")
    except BadState as why:
        index_state.ensure_cache(cache)
        if not str(why).startswith("there is none"):
            report.notices.append(f"memfs: rebuilding the search index: {why}")
        report.uncommitted = _uncommitted(rebuild(repo).probe)
        report.rebuilt = True
        return report
    snapshot = time.time_ns()
    probe = _probe(repo)
    report.uncommitted = _uncommitted(probe)
    if _unchanged_since(repo.root, state, probe):
        return report
    current = paths.stat_memory_files(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return report
    seen = (state.serial, snapshot, probe, current)
    try:
        with locking.exclusive(cache / LOCK_FILE, timeout=wait):
            try:
                state = index_state.private(cache)
            except BadState as why:
                report.notices.append(f"memfs: rebuilding the search index: {why}")
                report.uncommitted = _uncommitted(_rebuild_locked(repo, None).probe)
                report.rebuilt = True
                return report
            _apply(repo, state, report, wait, seen)
    except LockTimeout:
        report.stale = True
        report.notices.append("memfs: the search index is being updated by another process; results may be stale")
    return report


def _apply(repo: Store, state: State, report: SyncReport, wait: float,
           seen: tuple[int, int, list[Any] | None, Stats]) -> None:
    """Index what changed. ``seen`` is (serial, snapshot time, probe, stats) observed just before the
    lock was taken; it is reused when no other process updated the state in between."""
    cache = repo.cache_dir
    serial, snapshot, probe, current = seen
    if state.serial != serial:
        snapshot = time.time_ns()
        probe = _probe(repo)
        report.uncommitted = _uncommitted(probe)
        current = paths.stat_memory_files(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return
    if changed or removed:
        listed = set(changed)
        signable = state.signable(snapshot - paths.RACY_NS, SIGN_EACH)
        changed += [rel for rel in signable if rel in current and rel not in listed]
    try:
        ix = open_dir(cache / state.index_dir)
    except Exception as exc:
        report.notices.append(f"memfs: rebuilding the search index: it could not be opened ({type(exc).__name__})")
        report.uncommitted = _uncommitted(_rebuild_locked(repo, None).probe)
        report.rebuilt = True
        return
    writer = _LazyWriter(ix, wait)
    try:
        for rel in removed:
            if state.files[rel].lengths is not None:
                writer.get().delete_by_term("path", rel)
            state.drop(rel)
            report.removed += 1
        for done, rel in enumerate(changed, start=1):
            what = _index_one(repo, writer, state, rel, current[rel], fresh=False)
            if what in ("added", "updated", "removed", "signed"):
                setattr(report, what, getattr(report, what) + 1)
            repo.progress("catching up the index", done, len(changed))
        if writer.writer is not None:
            repo.progress("writing the index", 0, None)
        writer.finish(commit=True)
    finally:
        writer.finish(commit=False)
    state.snapshot_ns = snapshot
    state.probe = probe
    state.serial += 1
    index_state.write(cache, state)


def reindex(repo: Store, *, progress: Progress | None = None) -> ReindexReport:
    """Rebuild the index from scratch (``memfs reindex``)."""
    started = time.perf_counter()
    close(repo)
    state = rebuild(repo, progress=progress)
    return ReindexReport(state.indexed, state.broken(), time.perf_counter() - started)
