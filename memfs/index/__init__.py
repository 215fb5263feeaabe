"""The search index: a Whoosh index of every memory under ``<root>/.memfs/``, kept in step with the files.

The index is a cache of the working tree, never trusted over it: every search first catches up
with the files, and every hit is re-read and re-checked for eligibility before it is returned.
Scoring is BM25F over body, description, tags, key, path and the other (non-memfs) frontmatter
values, with Lucene's idf.

One module per job, read side and write side apart:

* :mod:`.analysis`: text to terms (CJK bigrams, identifiers kept whole), shared by index and query;
* :mod:`.documents`: the schema, and what one memory becomes in the index;
* :mod:`.state`: ``.memfs/state.json``, what the index knows about the files;
* :mod:`.catchup`: the write side: incremental catch-up with the files, rebuilds;
* :mod:`.reader`: the read side: the open searcher and exact BM25F statistics;
* :mod:`.query`: searching, with the eligibility restriction folded into the query;
* :mod:`.results`: the records returned.
"""

from memfs.index.catchup import rebuild, reindex, sync, uncommitted
from memfs.index.query import query_terms, search
from memfs.index.reader import close, close_all
from memfs.index.results import Filtered, Hit, ReindexReport, SearchResult, SyncReport, Uncommitted
from memfs.index.state import LOCK_FILE, STATE_FILE

__all__ = [
    "LOCK_FILE",
    "STATE_FILE",
    "Filtered",
    "Hit",
    "ReindexReport",
    "SearchResult",
    "SyncReport",
    "Uncommitted",
    "close",
    "close_all",
    "query_terms",
    "rebuild",
    "reindex",
    "search",
    "sync",
    "uncommitted",
]
