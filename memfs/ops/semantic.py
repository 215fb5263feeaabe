"""``[semantic]`` in ``.memfs.toml``: the caller's embedder serving ``memfs search`` and ``context``
(and so every door derived from them: MCP, the library, the live index).

Off by default. ``embed = "MODULE:FUNCTION"`` names a function from a list of texts to one vector
per text (``dims`` numbers each), imported from this Python's path as ``[judge]`` is; a module
inside the memory repository is refused (memfs runs no code a clone brings with it). memfs ships
no model.

A memory's vector is its body's, kept in the one vector cache (:mod:`memfs.index.vectors`,
``.memfs/vectors/``) under the embedder's name and dimensions, keyed by the text: derived data,
rebuilt from the files. The cache's probe tells another embedder behind the same name, or a file
of another format, and such a file is rebuilt, never mixed in. The vectors are asked only when
BM25 has fewer hits than asked, and only fill those places (:mod:`memfs.policy.hybrid`), so
keyword search keeps its results and its cost whenever it fills the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memfs.errors import MemfsError

if TYPE_CHECKING:
    from memfs.format.model import Problem
    from memfs.index.query import Near
    from memfs.index.vectors import VectorCache
    from memfs.store.repo import Store

PARAM = "[semantic] embed"
_caches: dict[tuple[str, str, int], VectorCache] = {}


def near(repo: Store) -> Near | None:
    """The vector ranking of ``repo``'s ``[semantic]`` embedder (``None``: not configured). An
    embedder that cannot be imported is reported when the ranking is asked for, as an error the
    search turns into a notice (the words still answer)."""
    settings = repo.config().semantic
    if settings.embed is None:
        return None
    spec, dims = settings.embed, settings.dims
    key = (str(repo.cache_dir), spec, dims)
    if key not in _caches:
        from memfs.index.vectors import VectorCache
        from memfs.ops.callables import load_callable

        try:
            embed = load_callable(spec, PARAM, outside=repo.git.workdir)
        except Exception as exc:  # importing a module runs its code: any failure means it cannot be used
            failure = str(exc)

            def unusable(query: str, rels: list[str]) -> tuple[list[tuple[str, float]], list[Problem]]:
                raise MemfsError(f"{PARAM} = {spec!r} cannot be used ({failure})", param=PARAM)

            return unusable
        _caches[key] = VectorCache(repo.cache_dir, spec, dims, embed)
    cache = _caches[key]
    return lambda query, rels: _nearest(repo, cache, query, rels)


def _nearest(repo: Store, cache: VectorCache, query: str, rels: list[str]
             ) -> tuple[list[tuple[str, float]], list[Problem]]:
    """``rels`` with any similarity to the query (above 0), most similar first (ties by path);
    the memories the embedder failed on, each named (their vectors are not stored)."""
    from memfs.format.model import Problem
    from memfs.index.vectors import embed_checked, similarities

    wanted = embed_checked(cache.embed, [query], cache.dims, lambda _: "the query")[0]
    texts = {rel: [body] for rel in rels if (body := _body(repo, rel))}
    scores, failed = similarities(cache, wanted, texts)
    cache.save()
    ranked = sorted(((rel, s) for rel, s in scores.items() if s > 0), key=lambda pair: (-pair[1], pair[0]))
    return ranked, [Problem(rel, None, exc.message, "fix the embedder; the memory is found by its words only")
                    for rel, exc in failed.items()]


def _body(repo: Store, rel: str) -> str:
    """The text a memory's vector is made of: its body (empty when the file cannot be read; the
    search reports unreadable files itself)."""
    from memfs.format.document import SplitError, split
    from memfs.store.paths import read_file

    data = read_file(repo.root, rel)
    if not isinstance(data, bytes):
        return ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    try:
        return split(text).body.strip()
    except SplitError:  # a plain note (no frontmatter) is all body
        return text.strip()
