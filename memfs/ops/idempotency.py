"""Which idempotency keys were already applied, read from the ``Memfs-Idempotency-Key`` trailer.

The commit trailer is the truth, so the answer survives restarts, deleting ``.memfs/`` and index
rebuilds. ``.memfs/idempotency.json`` caches key → commit together with the HEAD it reflects; a
lookup reads only the commits added since (``git log OLD..HEAD``), and falls back to a full scan
when HEAD is no longer a descendant (reset, purge, history rewrite). A commit that memfs makes on
top of the cached HEAD moves the cache itself (:func:`note`), so a run of ``remember`` calls
asks git nothing here.
"""

from __future__ import annotations

import json
from pathlib import Path

from memfs.store import atomic, commits, paths
from memfs.store.repo import CommitResult, Store

TRAILER = "Memfs-Idempotency-Key"
CACHE_FILE = "idempotency.json"


def _cache_path(repo: Store) -> Path:
    return repo.cache_dir / CACHE_FILE


def _load(path: Path) -> tuple[str | None, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        head, keys = data["head"], data["keys"]
        if isinstance(head, str) and isinstance(keys, dict):
            return head, {str(k): str(v) for k, v in keys.items()}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None, {}


def _scan(repo: Store, rev_range: str) -> dict[str, str]:
    """key -> commit for every commit in ``rev_range`` carrying the trailer (oldest wins)."""
    found: dict[str, str] = {}
    for sha, body in repo.git.messages(rev_range, f"^{TRAILER}: "):
        for key in commits.trailers(body).get(TRAILER, []):
            found[key] = sha
    return found


def applied_keys(repo: Store) -> dict[str, str]:
    """Every applied key and the commit that applied it, brought up to date with HEAD."""
    head = repo.git.head()
    if head is None:
        return {}
    path = _cache_path(repo)
    cached_head, keys = _load(path)
    if cached_head == head:
        return keys
    if cached_head and repo.git.is_ancestor(cached_head, head):
        keys.update(_scan(repo, f"{cached_head}..{head}"))
    else:
        keys = _scan(repo, head)
    _save(path, head, keys)
    return keys


def note(repo: Store, result: CommitResult, keys: list[str]) -> None:
    """Move the cache to ``result``'s commit, which applied ``keys``, when the cache is at that
    commit's only parent: then no other commit can have brought keys in between. Otherwise the
    next lookup reads the commits since, as always."""
    if result.commit is None or result.parent is None:
        return
    path = _cache_path(repo)
    cached_head, known = _load(path)
    if cached_head != result.parent:
        return
    for key in keys:
        known.setdefault(key, result.commit)
    _save(path, result.commit, known)


def _save(path: Path, head: str, keys: dict[str, str]) -> None:
    """Write the cache (no fsync: it is rebuilt from history when lost)."""
    try:
        paths.ensure_cache(path.parent)
        atomic.replace_cache(path, json.dumps({"head": head, "keys": keys}, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass


def applied_in(repo: Store, key: str | None) -> str | None:
    """The commit that applied ``key``, or ``None``."""
    if not key:
        return None
    return applied_keys(repo).get(key)


def drop_cache(repo: Store) -> None:
    atomic.remove(_cache_path(repo))
