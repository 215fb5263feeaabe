"""Revision high-water marks: the highest ``revision`` each memory file ever had in HEAD's history.

A memory's next revision must be above every revision it ever had. Counting on from the file as
it is now is not enough: after a revert (``git revert``, ``memfs revert``) or a file deleted and
written again, the file says an old number, the next write would hand out a number a second time
("revision 2" for two different values), and ``--expect-revision 2`` would accept a writer who
had seen the other value (the ABA problem). :meth:`memfs.store.repo.Transaction.write` and
``write_bytes`` therefore number a change ``max(current, mark) + 1``.

The marks come from git: every version of every memory file in ``git log`` of HEAD (merges
against each parent; a path is the identity here, renames are not followed), its ``revision``
line read from the frontmatter. They are cached in the git directory (``memfs-revisions.json``,
per memory root, beside the lock and the journal: per clone, never in the work tree) with the HEAD
they reflect; a later call reads only the commits since (``OLD..HEAD``), or all of history again when
HEAD is no longer a descendant (a rewrite, a reset, another branch). A transaction moves the
cache to its own commit itself (:func:`note`), so a run of memfs writes never rescans; the process
keeps the moved copy in memory and rewrites the file (10k paths: ~2 ms) on its first move and then
every :data:`SAVE_EVERY`. The cache is derived state: deleting it costs one read of history.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping
from pathlib import Path

from memfs.store import atomic, gitcli, paths

CACHE_FILE = "memfs-revisions.json"
#: :func:`note` rewrites the file on its first call in a process, then every this many calls (in
#: between, the copy in memory is ahead; a process that ends first leaves a few commits to scan).
SAVE_EVERY = 16
_REVISION = re.compile(rb"^revision:[ \t]*['\"]?([0-9]{1,12})['\"]?[ \t]*(?:#.*)?\r?$", re.MULTILINE)
_CLOSE = re.compile(rb"^---[ \t]*\r?$", re.MULTILINE)


def revision_in(data: bytes) -> int | None:
    """The ``revision`` a memory file's frontmatter says (``None``: none, or no frontmatter)."""
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if not text.startswith(b"---"):
        return None
    start = text.find(b"\n")
    if start < 0:
        return None
    close = _CLOSE.search(text, start + 1)
    frontmatter = text[start + 1 : close.start() if close else len(text)]
    found = _REVISION.search(frontmatter)
    return int(found.group(1)) if found else None


def cache_path(git_dir: Path, pathspec: str) -> Path:
    """The cache of the memory root whose git pathspec is ``pathspec`` (``.`` for the top level)."""
    if pathspec == ".":
        return git_dir / CACHE_FILE
    return git_dir / f"memfs-revisions-{hashlib.sha256(pathspec.encode()).hexdigest()[:12]}.json"


_lock = threading.Lock()
#: The last file read or written per cache path, with that file's identity: a run of writes in
#: one process parses the file only when something else replaced it.
_memo: dict[str, tuple[tuple[int, int, int], str, dict[str, int]]] = {}
#: Per cache path: (head, marks) noted in memory and not yet written.
_ahead: dict[str, tuple[str, dict[str, int]]] = {}
#: Per cache path: notes made by this process since it last wrote the file from one.
_notes: dict[str, int] = {}


def _read(path: Path) -> tuple[str | None, dict[str, int]]:
    """(head, marks) of the cache (the copy in memory when it is ahead of the file): a copy the
    caller may change."""
    with _lock:
        ahead = _ahead.get(str(path))
        if ahead is not None:
            return ahead[0], dict(ahead[1])
        try:
            ident = paths.file_identity(path)
            found = _memo.get(str(path))
            if found is not None and found[0] == ident:
                return found[1], dict(found[2])
            data = json.loads(path.read_text(encoding="utf-8"))
            head, marks = data["head"], data["marks"]
            if isinstance(head, str) and isinstance(marks, dict):
                kept = {str(k): int(v) for k, v in marks.items() if isinstance(v, int)}
                _memo[str(path)] = (ident, head, kept)
                return head, dict(kept)
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None, {}


def _write(path: Path, head: str, marks: Mapping[str, int]) -> None:
    with _lock:
        _ahead.pop(str(path), None)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic.replace_cache(path, json.dumps({"head": head, "marks": dict(marks)}, ensure_ascii=False).encode())
            _memo[str(path)] = (paths.file_identity(path), head, dict(marks))
        except OSError:
            _memo.pop(str(path), None)  # only a cache: the next call reads history again


def _scan(git: gitcli.Git, rev_range: str, pathspec: str, marks: dict[str, int]) -> None:
    versions = [(path, blob) for path, blob in git.file_versions(rev_range, pathspec) if path.endswith(".md")]
    blobs = git.read_objects([blob for _, blob in versions])
    for path, blob in versions:
        data = blobs.get(blob)
        number = None if data is None else revision_in(data)
        if number is not None and number > marks.get(path, 0):
            marks[path] = number


def marks(git: gitcli.Git, pathspec: str) -> tuple[str | None, dict[str, int]]:
    """(HEAD, git path -> the highest revision that path ever had in HEAD's history; absent: it
    never had one)."""
    head = git.head()
    if head is None:
        return None, {}
    path = cache_path(git.git_dir, pathspec)
    cached_head, found = _read(path)
    if cached_head == head:
        return head, found
    if cached_head and git.is_ancestor(cached_head, head):
        _scan(git, f"{cached_head}..{head}", pathspec, found)
    else:
        found = {}
        _scan(git, head, pathspec, found)
    _write(path, head, found)
    return head, found


def note(
    git: gitcli.Git,
    pathspec: str,
    parent: str,
    commit: str,
    known: Mapping[str, int] | None,
    written: Mapping[str, int],
) -> None:
    """Move the cache from ``parent`` (which ``known`` describes: what :func:`marks` returned;
    ``None``: read it from the cache) to ``commit``, its only child, which wrote the revisions
    ``written`` (git path -> revision), without reading history again. Nothing happens if the
    cache moved on meanwhile (a transaction nested in the caller's committed first), which its
    head says: it is the first field of the file."""
    path = cache_path(git.git_dir, pathspec)
    ahead = _ahead.get(str(path))
    if ahead is None:
        try:
            with path.open("rb") as handle:
                start = handle.read(120)
        except OSError:
            return
        if not start.startswith(json.dumps({"head": parent})[:-1].encode() + b","):
            return
    elif ahead[0] != parent:
        return
    if known is None:
        head, known = _read(path)
        if head != parent:
            return
    updated = dict(known)
    for name, number in written.items():
        if number > updated.get(name, 0):
            updated[name] = number
    notes = _notes.get(str(path), 0)
    if notes == 0 or notes >= SAVE_EVERY:
        _write(path, commit, updated)
        _notes[str(path)] = 1
    else:
        with _lock:
            _ahead[str(path)] = (commit, updated)
        _notes[str(path)] = notes + 1
