"""The other yardstick: tantivy (a compiled engine, PyPI ``tantivy``, bench only) over the same files
and the same documents as :mod:`bare_whoosh`.

Same documents: one per ``.md`` memory file with its path, description, tags and body, read as
:class:`bare_whoosh.BareIndex` reads them. Same analysis: every text is cut into memfs's tokens
(:func:`memfs.index.analysis.tokens`, CJK bigrams included) before tantivy sees it, and tantivy
splits them on spaces only (its ``whitespace`` tokenizer), so both engines hold the same terms.
Same query semantics as the bare Whoosh index: the AND of the query's terms (each term a
disjunction over the three fields, BM25), topped up with their OR. Not installed by memfs: ``pip
install tantivy`` in the bench's environment.

    tv = TantivyIndex.build(root, Path("/tmp/tv-ix"))
    tv.search(tokens("tabbouleh tallinn"), limit=10)   # -> [path, ...]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bare_whoosh import _split, memory_files

FIELDS = ("title", "tags", "body")


def _schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("path", stored=True, tokenizer_name="raw")
    for name in FIELDS:
        builder.add_text_field(name, tokenizer_name="whitespace")
    return builder.build()


@dataclass
class TantivyIndex:
    ix: Any
    schema: Any

    @classmethod
    def build(cls, root: Path, where: Path, threads: int = 1) -> TantivyIndex:
        import tantivy

        from memfs.index.analysis import tokens

        schema = _schema()
        where.mkdir(parents=True, exist_ok=True)
        ix = tantivy.Index(schema, path=str(where))
        writer = ix.writer(heap_size=128_000_000, num_threads=threads)
        for path in memory_files(root):
            meta, body = _split(path.read_text(encoding="utf-8"))
            tags = meta.get("tags") or []
            tag_text = " ".join(map(str, tags)) if isinstance(tags, list) else str(tags)
            writer.add_document(tantivy.Document(
                path=str(path.relative_to(root)),
                title=" ".join(tokens(str(meta.get("description") or ""))),
                tags=" ".join(tokens(tag_text)),
                body=" ".join(tokens(body)),
            ))
        writer.commit()
        writer.wait_merging_threads()
        ix.reload()
        return cls(ix, schema)

    @classmethod
    def open(cls, where: Path) -> TantivyIndex:
        import tantivy

        ix = tantivy.Index.open(str(where))
        return cls(ix, ix.schema)

    def search(self, terms: list[str], limit: int = 10, searcher: Any = None) -> list[str]:
        """Paths of the best ``limit`` files: those holding every term first, then any term."""
        from tantivy import Occur, Query

        terms = list(dict.fromkeys(terms))
        if not terms:
            return []
        per_term = [Query.boolean_query([(Occur.Should, Query.term_query(self.schema, f, t)) for f in FIELDS])
                    for t in terms]
        searcher = searcher or self.ix.searcher()
        every = Query.boolean_query([(Occur.Must, q) for q in per_term])
        found = [searcher.doc(addr)["path"][0] for _, addr in searcher.search(every, limit).hits]
        if len(found) < limit:
            seen = set(found)
            anyone = Query.boolean_query([(Occur.Should, q) for q in per_term])
            for _, addr in searcher.search(anyone, limit + len(found)).hits:
                path = searcher.doc(addr)["path"][0]
                if path not in seen:
                    found.append(path)
                    if len(found) == limit:
                        break
        return found


#: A fresh process that opens the index and answers one query (its terms already analysed), with
#: nothing imported but tantivy: what a fresh ``memfs search`` is compared with.
FRESH = """
import sys
from tantivy import Index, Occur, Query
ix = Index.open(sys.argv[1])
schema, searcher, terms = ix.schema, ix.searcher(), list(dict.fromkeys(sys.argv[2:]))
per = [Query.boolean_query([(Occur.Should, Query.term_query(schema, f, t)) for f in ("title", "tags", "body")])
       for t in terms]
found = [searcher.doc(a)["path"][0] for _, a in searcher.search(
    Query.boolean_query([(Occur.Must, q) for q in per]), 10).hits]
if len(found) < 10:
    for _, a in searcher.search(Query.boolean_query([(Occur.Should, q) for q in per]), 10 + len(found)).hits:
        p = searcher.doc(a)["path"][0]
        if p not in found and len(found) < 10:
            found.append(p)
print("\\n".join(found))
"""
