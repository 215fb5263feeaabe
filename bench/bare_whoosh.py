"""The yardstick for memfs search: a minimal Whoosh index over the same memory files.

What anyone would write in 30 lines: one document per ``.md`` file with its path, description,
tags and body, BM25F with Whoosh's defaults, and queries answered as the AND of the terms topped up
with their OR. It shares memfs's analyzer (:class:`memfs.index.analysis.MemfsAnalyzer`) so that a
comparison measures everything memfs adds (eligibility, ranking rules, catch-up), not a different
tokenizer. It knows nothing of scopes, statuses or expiry: its recall is an upper bound for
memfs's only on eligible targets.

    bare = BareIndex.build(root, Path("/tmp/bare-ix"))
    bare.search("tabbouleh tallinn", limit=10)   # -> [path, ...]
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _split(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return {}, text
    meta = yaml.load(text[4:end], Loader=_LOADER)
    return (meta if isinstance(meta, dict) else {}), text[end + 5 :]


def memory_files(root: Path) -> list[Path]:
    """Every ``.md`` memory under ``root`` (not ``.git``/``.memfs``, not README files)."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        out.extend(Path(folder, f) for f in files if f.endswith(".md") and f != "README.md")
    return sorted(out)


@dataclass
class BareIndex:
    ix: Any

    @classmethod
    def build(cls, root: Path, where: Path) -> BareIndex:
        from whoosh import index
        from whoosh.fields import ID, TEXT, Schema

        from memfs.index.analysis import MemfsAnalyzer

        text = TEXT(analyzer=MemfsAnalyzer(), phrase=False)
        schema = Schema(path=ID(stored=True, unique=True), title=text, tags=text, body=text)
        where.mkdir(parents=True, exist_ok=True)
        ix = index.create_in(str(where), schema)
        writer = ix.writer(limitmb=256)
        for path in memory_files(root):
            meta, body = _split(path.read_text(encoding="utf-8"))
            tags = meta.get("tags") or []
            writer.add_document(
                path=str(path.relative_to(root)),
                title=str(meta.get("description") or ""),
                tags=" ".join(map(str, tags)) if isinstance(tags, list) else str(tags),
                body=body,
            )
        writer.commit()
        return cls(ix)

    def search(self, query: str, limit: int = 10, searcher: Any = None) -> list[str]:
        """Paths of the best ``limit`` files: those holding every term first, then any term."""
        from whoosh.query import And, Or, Term

        from memfs.index.analysis import tokens

        terms = list(dict.fromkeys(tokens(query)))
        if not terms:
            return []
        per_term = [Or([Term(f, t) for f in ("title", "tags", "body")]) for t in terms]
        own = searcher is None
        searcher = searcher or self.ix.searcher()
        try:
            found = [hit["path"] for hit in searcher.search(And(per_term), limit=limit)]
            if len(found) < limit:
                seen = set(found)
                for hit in searcher.search(Or(per_term), limit=limit + len(found)):
                    if hit["path"] not in seen:
                        found.append(hit["path"])
                        if len(found) == limit:
                            break
            return found
        finally:
            if own:
                searcher.close()
