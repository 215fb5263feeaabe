"""Search: ``search`` and ``reindex`` (``context`` is declared with the agents, who do it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from memfs.format.declare import CLI, param
from memfs.format.model import TYPES
from memfs.ops.verbs.declare import Request, request

if TYPE_CHECKING:
    from memfs.index.results import ReindexReport, SearchResult  # noqa: F401 - results named in Request["..."]
    from memfs.policy.recall import RankPolicy

VERSION = ("The world version the request is about (product, API, config); memories for other versions are left "
            "out, unversioned ones kept.")
AT = ("Recall as of this ISO 8601 time with a zone, e.g. 2026-06-01T00:00:00Z (expiry and freshness are judged "
       "then); default now.")
INHERIT = "Also read the scope's ancestors by whole segments (user:U5 inside user:U5/project:P8)."
#: What a model is told of a scope argument (MCP offers one on administration servers only).
ADMIN_SCOPE = "Default every scope. Offered by administration servers (--all-scopes) only."
MODEL_INHERIT = ("Default: as the server was started (--inherit); true needs a server started with --inherit, "
                  "false reads the scope alone.")


@request("search", tool="memory_search",
         cli_note="With a live index running ('memfs serve'), it answers; the output is the same either way. "
                  "Several roots (memfs -C A -C B search): each searched by its own rules, every hit "
                  "labelled with its root, coverage ranked first.",
         model_note="Each hit has path, scope, source, type, status, score and body.")
class Search(Request["SearchResult"]):
    """Find eligible memories matching the query, best first (plain words, any language, CJK
    aware; no query syntax). Only eligible memories come back: in the scope, for the version,
    active, sourced and not expired at the time asked."""

    query: str = param(help="What to look for, in plain words.", argument=True, variadic=True, kw_only=False)
    scope: str | None = param(default=None, help="Only memories in exactly this scope, e.g. user:U5/project:P8.",
                              model_note=ADMIN_SCOPE)
    inherit: bool | None = param(default=None, help=INHERIT, model_note=MODEL_INHERIT)
    version: str | None = param(default=None, help=VERSION)
    at: dt.datetime | None = param(default=None, help=AT, wire="time")
    type: str | None = param(default=None, help="Only memories of this type.", choices=TYPES)
    limit: int = param(default=10, help="At most this many hits.", flags=("--limit", "-n"), minimum=1,
                       model_maximum=100)
    explain: bool = param(default=False, help="Show score factors, and matches that were filtered out and why.",
                          doors={CLI})
    policy: RankPolicy | None = param(default=None, help="Ranking weights (default: the repository's).", doors=())
    catch_up: bool = param(default=True, help="Bring the index up to date with the files first.", doors=())
    record: bool = param(default=False, help="Count the hits as recalled in the usage statistics.", doors=())
    descendants: bool = param(default=False, help="Also the scopes below the scope (not in a bound session).",
                              doors=())




@request("reindex")
class Reindex(Request["ReindexReport"]):
    """Rebuild the search index from the memory files (it is a cache; this is always safe)."""

    progress: Callable[[int, int], None] | None = param(default=None, help="Called with (done, total) as it goes.",
                                                       doors=())


__all__ = ["ADMIN_SCOPE", "AT", "INHERIT", "MODEL_INHERIT", "VERSION", "Reindex", "Search"]
