"""The search index: a Whoosh index of every memory under ``<root>/.memfs/``, kept in step with the files.

The index is a cache of the working tree. Before every read, :func:`sync` runs one ``git status``
(HEAD plus changed/untracked/ignored paths, which git checks against its own stat cache) and, if
that or the stats of the listed files differ from what ``.memfs/state.json`` recorded, compares a
stat snapshot (``mtime_ns``, size) of every memory file and re-indexes only what differs: a plain
``git commit``, ``git pull``, ``git revert`` or checkout, an editor's save, a deletion or a rename
all show up as changed, new or missing files. Files whose mtime is too close to the snapshot to be
trusted ("racy", as git calls it) are re-hashed. Indexing only reads memory files, never writes them.

``state.json`` also records the index format (schema + analyzer version); a mismatch, a missing
or corrupt index, or a corrupt state file triggers a rebuild with a notice, never a traceback.
Rebuilds go to a fresh directory that ``state.json`` then points to, so a concurrent reader keeps
its old snapshot. One writer at a time: every index write holds ``.memfs/index.lock``; a search
that cannot get it in time answers from the index as it is and says so.

Scoring is BM25F over body, description, tags, key, path and the other (non-memfs) frontmatter
values, with Lucene's idf ``log(1 + (N - n + 0.5) / (n + 0.5))``. Term statistics ignore deleted
documents (Whoosh counts them until a merge) and average field lengths come from exact counts in
the state file, so an incrementally updated index ranks exactly like a fresh ``memfs reindex``.

The package: :mod:`.store` (schema, state file, handles, statistics), :mod:`.sync` (catching up
with the files, rebuilds), :mod:`.query` (searching), :mod:`.results` (the records returned).
"""

from memfs.index.catchup import rebuild, reindex, sync
from memfs.index.query import query_terms, search
from memfs.index.results import Filtered, Hit, ReindexReport, SearchResult, SyncReport
from memfs.index.store import FIELD_BOOSTS, INDEX_FORMAT, LOCK_FILE, STATE_FILE, _handles, close

__all__ = [
    "FIELD_BOOSTS",
    "INDEX_FORMAT",
    "LOCK_FILE",
    "STATE_FILE",
    "Filtered",
    "Hit",
    "ReindexReport",
    "SearchResult",
    "SyncReport",
    "_handles",
    "close",
    "query_terms",
    "rebuild",
    "reindex",
    "search",
    "sync",
]
