"""Semantic search for :class:`memfs.integrations.langgraph.MemfsStore`: LangGraph's ``IndexConfig``
over memfs's vector cache (:mod:`memfs.index.vectors`).

The store is given ``index={"dims": …, "embed": …, "fields": […]}`` as LangGraph documents it:
``embed`` is a LangChain ``Embeddings``, a function (sync or async) from texts to vectors, or a
provider string for ``init_embeddings``; ``fields`` are JSON paths into an item's value
(LangGraph's ``get_text_at_path`` reads them: ``"$"`` is the whole value, the default;
``"a.b"``, ``"list[*].text"``, ``"{a,b}"``), each text found is one vector, and an item scores
its best vector's cosine similarity. A put's ``index`` overrides the fields for that item
(``False``: no vectors); the store writes that choice into the item's file (the fence's info
string, ``` ```json index=false ```), so rebuilding the vectors from the files gives the same.
memfs ships no model: what the embedder is, and what it costs, is the caller's choice.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memfs.integrations import require

require("langgraph", "langgraph")

from langchain_core.embeddings import Embeddings  # noqa: E402
from langgraph.store.base import ensure_embeddings, get_text_at_path, tokenize_path  # noqa: E402
from langgraph.store.base.embed import EmbeddingsLambda  # noqa: E402

from memfs.errors import UsageError  # noqa: E402
from memfs.format.model import Problem  # noqa: E402
from memfs.index.vectors import EmbeddingFailed, Matrix, VectorCache, checked, similarities  # noqa: E402

__all__ = ["IndexSpec", "Semantic", "index_spec_of", "info_of"]

#: A put's ``index``: ``None`` the store's fields, ``False`` no vectors, or the item's own paths.
IndexSpec = list[str] | bool | None
KNOWN_KEYS = ("dims", "embed", "fields")


def _paths(value: Any, what: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(p, str) and p for p in value):
        raise UsageError(f"{what} must be a list of JSON paths (strings such as \"text\" or \"a.b[*].c\"), "
                         f"not {value!r}", param="index")
    for path in value:
        if path != "$" and not tokenize_path(path):
            raise UsageError(f"{path!r} is not a JSON path", param="index")
    return list(value)


def index_spec_of(index: Any) -> IndexSpec:
    """A put's ``index`` argument checked: ``None``, ``False`` or a list of JSON paths."""
    if index is None or index is False:
        return index
    return _paths(index, "a put's index")


def info_of(spec: IndexSpec) -> str:
    """The fence's info string after ``json`` that records a put's ``index`` (empty: the default)."""
    if spec is None or spec is True:
        return ""
    return " index=false" if spec is False else " index=" + json.dumps(spec, ensure_ascii=False)


def spec_of_info(info: str) -> IndexSpec:
    """:func:`info_of` reversed; ``ValueError`` for anything else."""
    info = info.strip()
    if not info:
        return None
    if info == "index=false":
        return False
    if info.startswith("index="):
        paths = json.loads(info[len("index="):])
        if isinstance(paths, list) and all(isinstance(p, str) for p in paths):
            return paths
    raise ValueError(f"unknown fence info {info!r}")


def identity_of(embed: Any) -> str:
    """A name for the embedder, for the cache file: the provider string, the function's
    ``module:qualname``, or the class's with its model name. Two embedders that share a name are
    told apart by the cache's probe (:mod:`memfs.index.vectors`)."""
    if isinstance(embed, str):
        return embed
    if isinstance(embed, EmbeddingsLambda):
        embed = getattr(embed, "func", None) or getattr(embed, "afunc", None)
    kind = embed if callable(embed) and not isinstance(embed, Embeddings) and hasattr(embed, "__qualname__") else (
        type(embed))
    name = f"{getattr(kind, '__module__', '?')}:{getattr(kind, '__qualname__', type(kind).__name__)}"
    model = next((getattr(embed, a) for a in ("model", "model_name", "deployment") if
                  isinstance(getattr(embed, a, None), str)), None)
    return f"{name}/{model}" if model else name


def _run(coroutine: Any) -> Any:
    """An async embedder's answer from synchronous code (in a thread of its own, so a running
    event loop in this one is no obstacle)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass
class Semantic:
    """A store's semantic search: the embedder, its dimensions, the default fields, the cache."""

    dims: int
    fields: list[str]
    embeddings: Embeddings
    cache: VectorCache

    @classmethod
    def configure(cls, index: Mapping[str, Any], cache_dir: Path) -> Semantic:
        """Read LangGraph's ``IndexConfig``; unknown keys and missing ones are errors."""
        if not isinstance(index, Mapping):
            raise UsageError(f"index must be LangGraph's IndexConfig (a dict), not {type(index).__name__}",
                             param="index")
        unknown = sorted(set(index) - set(KNOWN_KEYS))
        if unknown:
            raise UsageError(f"unknown key(s) {', '.join(unknown)}; IndexConfig has {', '.join(KNOWN_KEYS)}",
                             param="index")
        dims, embed = index.get("dims"), index.get("embed")
        if not isinstance(dims, int) or isinstance(dims, bool) or dims < 1:
            raise UsageError(f"dims must be the embedder's number of dimensions, not {dims!r}", param="index")
        if embed is None:
            raise UsageError("embed is required: an Embeddings, a function from texts to vectors, or a "
                             "provider string such as \"openai:text-embedding-3-small\"", param="index")
        fields = _paths(index.get("fields") or ["$"], "fields")
        embeddings = ensure_embeddings(embed)
        self = cls(dims, fields, embeddings, VectorCache(cache_dir, identity_of(embed), dims, lambda _: []))
        self.cache.embed = self._embed_documents
        return self

    def _embed_documents(self, texts: list[str]) -> Any:
        if isinstance(self.embeddings, EmbeddingsLambda) and getattr(self.embeddings, "func", None) is None:
            return _run(self.embeddings.aembed_documents(texts))
        return self.embeddings.embed_documents(texts)

    def _embed_query(self, text: str) -> Matrix:
        try:
            if isinstance(self.embeddings, EmbeddingsLambda) and getattr(self.embeddings, "func", None) is None:
                answer = _run(self.embeddings.aembed_query(text))
            else:
                answer = self.embeddings.embed_query(text)
        except Exception as exc:  # the embedder is the caller's code
            raise EmbeddingFailed("the query", f"raised {type(exc).__name__}: {exc}") from exc
        try:
            row: Matrix = checked([answer], 1, self.dims)[0]
        except ValueError as exc:
            raise EmbeddingFailed("the query", str(exc)) from exc
        return row

    def texts(self, value: Mapping[str, Any], spec: IndexSpec) -> list[str]:
        """The texts of an item that get a vector each (none for ``index=False``)."""
        if spec is False:
            return []
        paths = self.fields if spec is None or spec is True else spec
        return [text for path in paths for text in get_text_at_path(value, path)]

    def prepare(self, items: Sequence[tuple[str, Mapping[str, Any], IndexSpec]]) -> None:
        """Embed what puts will store, before anything is written; an embedder failure raises
        :class:`EmbeddingFailed` naming the memory whose text it failed on."""
        texts: list[str] = []
        owners: list[str] = []
        for path, value, spec in items:
            found = self.texts(value, spec)
            texts.extend(found)
            owners.extend([path] * len(found))
        if texts:
            try:
                self.cache.vectors(texts, lambda i: owners[i])
            except EmbeddingFailed as exc:
                raise EmbeddingFailed(exc.about, exc.problem + "; nothing was written") from exc

    def scores(self, query: str, items: Sequence[tuple[str, Mapping[str, Any], IndexSpec]]
               ) -> tuple[dict[str, float], list[Problem]]:
        """Each indexed item's best cosine similarity to the query. Vectors the cache lacks (files
        edited by hand, a rebuilt cache) are embedded now; an item the embedder fails on is left
        unscored and reported, the others are scored."""
        wanted = self._embed_query(query)
        texts = {path: self.texts(value, spec) for path, value, spec in items}
        out, failed = similarities(self.cache, wanted, texts)
        problems = [Problem(path, None, exc.message, "fix the embedder; the item ranks by its words")
                    for path, exc in failed.items()]
        self.cache.save()
        return out, problems
