"""Keeping the index in step with the files: the git/stat probe, incremental catch-up, rebuilds."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from memfs.errors import InvalidMemory, LockTimeout
from memfs.format.model import Memory
from memfs.format.parse import parse
from memfs.index.results import ReindexReport, SyncReport
from memfs.index.store import (
    LOCK_FILE,
    RACY_NS,
    REBUILD_WAIT,
    SYNC_WAIT,
    _BadState,
    _cached_state,
    _document,
    _ensure_cache,
    _Entry,
    _open_dir,
    _read_state,
    _State,
    _write_state,
    close,
    make_schema,
)
from memfs.store import locking, paths


# --- the working tree ------------------------------------------------------------------------
def _stat_tree(root: Path) -> dict[str, tuple[int, int]]:
    """``rel -> (mtime_ns, size)`` of every memory file (same rules as :func:`paths.iter_memory_paths`)."""
    found: dict[str, tuple[int, int]] = {}
    stack = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append((entry.path, prefix + name + "/"))
                    elif name.endswith(".md") and name != "README.md":
                        st = entry.stat()
                        found[prefix + name] = (st.st_mtime_ns, st.st_size)
                except OSError:
                    continue
    if (root / paths.IGNORE_FILE).is_file():
        spec = paths.ignore_spec(root)
        if spec is not None:
            found = {rel: st for rel, st in found.items() if not spec.match_file(rel)}
    return found






def _probe(repo) -> list | None:
    """HEAD and the paths git reports as changed, untracked or ignored (memory files only), from one
    ``git status`` (with ``--no-optional-locks``, so it never takes the lock a concurrent commit needs).

    Equal probes plus unchanged stats of the listed files mean nothing changed: git has checked every
    tracked file's stat against its index, in C. ``None`` when git cannot answer.
    """
    from memfs.errors import GitError

    prefix = repo.prefix
    try:
        out = repo.git.run(
            "--no-optional-locks",
            "status",
            "--porcelain=v2",
            "-z",
            "--branch",
            "--untracked-files=all",
            "--ignored=matching",
            "--",
            prefix or ".",
        )
    except GitError:
        return None
    head = None
    listed: list[str] = []
    records = out.split("\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if record.startswith("# branch.oid "):
            head = record[len("# branch.oid ") :]
        elif record[:2] in ("? ", "! "):
            listed.append(record[2:])
        elif record.startswith("1 "):
            listed.append(record.split(" ", 8)[8])
        elif record.startswith("2 "):
            listed.append(record.split(" ", 9)[9])
            listed.append(records[i])
            i += 1
        elif record.startswith("u "):
            listed.append(record.split(" ", 10)[10])
    rels = sorted({p[len(prefix) :] for p in listed if p.startswith(prefix) and paths.is_memory_name(p[len(prefix) :])})
    return [head, rels]


def _unchanged_since(root: Path, state: _State, probe: list | None) -> bool:
    """Whether ``probe`` proves the working tree still matches ``state`` (no stat walk needed): same
    HEAD, same set of changed/untracked/ignored memory files, and those files' stats as recorded."""
    if probe is None or state.probe is None or probe != state.probe:
        return False
    racy_before = state.snapshot_ns - RACY_NS
    for rel in probe[1]:
        entry = state.files.get(rel)
        try:
            st = os.stat(root / rel)
        except OSError:
            if entry is not None:
                return False
            continue
        if entry is None or entry.mtime_ns != st.st_mtime_ns or entry.size != st.st_size:
            return False
        if entry.mtime_ns >= racy_before:
            return False
    return True


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _load(repo, rel: str) -> tuple[bytes | None, Memory | None, str | None]:
    data = repo.read_bytes(rel)
    if data is None:
        return None, None, None
    try:
        return data, parse(rel, data), None
    except InvalidMemory as exc:
        return data, None, "; ".join(p.message for p in exc.problems) or str(exc)



# --- building and catching up -----------------------------------------------------------------
def _open_writer(ix, timeout: float):
    from whoosh.index import LockError

    deadline = time.monotonic() + timeout
    while True:
        try:
            return ix.writer(timeout=min(1.0, timeout), delay=0.05)
        except LockError:
            if time.monotonic() >= deadline:
                raise LockTimeout("the search index is locked by another process") from None


def rebuild(repo, *, progress: Callable[[int, int], None] | None = None, wait: float = REBUILD_WAIT) -> _State:
    """Index every memory from scratch into a fresh directory, then switch ``state.json`` to it."""
    cache = repo.cache_dir
    _ensure_cache(cache)
    with locking.exclusive(cache / LOCK_FILE, timeout=wait):
        return _rebuild_locked(repo, progress)


def _rebuild_locked(repo, progress: Callable[[int, int], None] | None) -> _State:
    from whoosh import index as whoosh_index

    cache = repo.cache_dir
    try:
        serial = _read_state(cache).serial + 1
    except _BadState:
        serial = 1
    name = f"ix-{secrets.token_hex(4)}"
    target = cache / name
    target.mkdir()
    snapshot = time.time_ns()
    probe = _probe(repo)
    stats = _stat_tree(repo.root)
    state = _State(name, serial, snapshot, probe=probe)
    try:
        ix = whoosh_index.create_in(str(target), make_schema())
        writer = _LazyWriter(ix, 0, fresh=True)
        try:
            rels = sorted(stats)
            for done, rel in enumerate(rels, start=1):
                _index_one(repo, writer, state, rel, stats[rel], fresh=True)
                if progress is not None:
                    progress(done, len(rels))
            writer.finish(commit=True)
        except BaseException:
            writer.finish(commit=False)
            raise
        _write_state(cache, state)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    for old in cache.glob("ix-*"):
        if old.name != name:
            shutil.rmtree(old, ignore_errors=True)
    return state


class _LazyWriter:
    """Opens the Whoosh writer (taking its lock) only when a document really changes."""

    def __init__(self, ix, wait: float, fresh: bool = False) -> None:
        self.ix = ix
        self.wait = wait
        self.writer = ix.writer(limitmb=128) if fresh else None

    def get(self):
        if self.writer is None:
            self.writer = _open_writer(self.ix, self.wait)
        return self.writer

    def finish(self, commit: bool) -> None:
        if self.writer is not None:
            writer, self.writer = self.writer, None
            writer.commit() if commit else writer.cancel()


def _index_one(repo, writer: _LazyWriter, state: _State, rel: str, stat: tuple[int, int], *, fresh: bool) -> str:
    """(Re)index one file into ``writer`` and ``state``; returns what happened."""
    old = state.files.get(rel)
    data, memory, broken = _load(repo, rel)
    if data is None:
        if old is not None:
            if not fresh and old.lengths is not None:
                writer.get().delete_by_term("path", rel)
            del state.files[rel]
            return "removed"
        return "none"
    digest = _digest(data)
    if old is not None and old.digest == digest:
        old.mtime_ns, old.size = stat
        return "same"
    if memory is None:
        if not fresh and old is not None and old.lengths is not None:
            writer.get().delete_by_term("path", rel)
        state.files[rel] = _Entry(stat[0], stat[1], digest, None, broken)
        return "updated" if old is not None else "added"
    doc, lengths = _document(memory)
    if fresh:
        writer.get().add_document(**doc)
    else:
        writer.get().update_document(**doc)
    state.files[rel] = _Entry(stat[0], stat[1], digest, lengths, None)
    return "updated" if old is not None else "added"


def _pending(state: _State, current: dict[str, tuple[int, int]]) -> tuple[list[str], list[str]]:
    """(changed or new or racy paths, removed paths) of the working tree against ``state``."""
    racy_before = state.snapshot_ns - RACY_NS
    files = state.files
    changed = [
        rel
        for rel, st in current.items()
        if (entry := files.get(rel)) is None
        or entry.mtime_ns != st[0]
        or entry.size != st[1]
        or entry.mtime_ns >= racy_before
    ]
    removed = [rel for rel in files if rel not in current]
    return changed, removed


def sync(repo, *, wait: float = SYNC_WAIT) -> SyncReport:
    """Bring the index up to date with the memory files (HEAD and the working tree), incrementally.

    Cheap when nothing changed: one stat per memory file and no file reads. Rebuilds (with a
    notice) when there is no usable index. If another process holds the index lock for more than
    ``wait`` seconds, the index is left as it is and the report says ``stale``.
    """
    cache = repo.cache_dir
    report = SyncReport()
    try:
        state = _cached_state(repo)
        if not (cache / state.index_dir).is_dir():
            raise _BadState("its directory is missing")
    except _BadState as why:
        _ensure_cache(cache)
        if not str(why).startswith("there is none"):
            report.notices.append(f"memfs: rebuilding the search index: {why}")
        rebuild(repo)
        report.rebuilt = True
        return report
    snapshot = time.time_ns()
    probe = _probe(repo)
    if _unchanged_since(repo.root, state, probe):
        return report
    current = _stat_tree(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return report
    seen = (state.serial, snapshot, probe, current)
    try:
        with locking.exclusive(cache / LOCK_FILE, timeout=wait):
            try:
                state = _read_state(cache)
            except _BadState as why:
                report.notices.append(f"memfs: rebuilding the search index: {why}")
                _rebuild_locked(repo, None)
                report.rebuilt = True
                return report
            _apply(repo, state, report, wait, seen)
    except LockTimeout:
        report.stale = True
        report.notices.append("memfs: the search index is being updated by another process; results may be stale")
    return report


def _apply(repo, state: _State, report: SyncReport, wait: float, seen: tuple) -> None:
    """Index what changed. ``seen`` is (serial, snapshot time, probe, stats) observed just before the
    lock was taken; it is reused when no other process updated the state in between."""
    cache = repo.cache_dir
    serial, snapshot, probe, current = seen
    if state.serial != serial:
        snapshot = time.time_ns()
        probe = _probe(repo)
        current = _stat_tree(repo.root)
    changed, removed = _pending(state, current)
    if not changed and not removed and probe == state.probe:
        return
    try:
        ix = _open_dir(cache / state.index_dir)
    except Exception as exc:
        report.notices.append(f"memfs: rebuilding the search index: it could not be opened ({type(exc).__name__})")
        _rebuild_locked(repo, None)
        report.rebuilt = True
        return
    writer = _LazyWriter(ix, wait)
    try:
        for rel in removed:
            if state.files[rel].lengths is not None:
                writer.get().delete_by_term("path", rel)
            del state.files[rel]
            report.removed += 1
        for rel in changed:
            what = _index_one(repo, writer, state, rel, current[rel], fresh=False)
            if what in ("added", "updated", "removed"):
                setattr(report, what, getattr(report, what) + 1)
        writer.finish(commit=True)
    finally:
        writer.finish(commit=False)
    state.snapshot_ns = snapshot
    state.probe = probe
    state.serial += 1
    _write_state(cache, state)




def reindex(repo, *, progress: Callable[[int, int], None] | None = None) -> ReindexReport:
    """Rebuild the index from scratch (``memfs reindex``)."""
    started = time.perf_counter()
    close(repo)
    state = rebuild(repo, progress=progress)
    count = sum(1 for e in state.files.values() if e.lengths is not None)
    return ReindexReport(count, state.broken(), time.perf_counter() - started)
