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

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memfs.errors import MemfsError

if TYPE_CHECKING:
    from memfs.format.model import Problem
    from memfs.index.query import Near
    from memfs.index.vectors import VectorCache
    from memfs.store.repo import Store

PARAM = "[semantic] embed"
_caches: dict[tuple[str, str, int], VectorCache] = {}
#: The owner of the unrelated sentences among the texts :func:`cosines` weighs (never a path).
_UNRELATED = "\0unrelated"


def near(repo: Store) -> Near | None:
    """The vector ranking of ``repo``'s ``[semantic]`` embedder (``None``: not configured). An
    embedder that cannot be imported is reported when the ranking is asked for, as an error the
    search turns into a notice (the words still answer)."""
    try:
        cache = _cache(repo)
    except MemfsError as exc:
        failure = exc

        def unusable(query: str, rels: list[str]) -> tuple[list[tuple[str, float]], list[Problem]]:
            raise failure

        return unusable
    if cache is None:
        return None
    return lambda query, rels: _nearest(repo, cache, query, rels)


def _cache(repo: Store) -> VectorCache | None:
    """The vector cache of ``repo``'s embedder (``None``: not configured; one per repository and
    embedder per process), or a :class:`MemfsError` when the embedder cannot be imported."""
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
            raise MemfsError(f"{PARAM} = {spec!r} cannot be used ({exc})", param=PARAM) from exc
        _caches[key] = VectorCache(repo.cache_dir, spec, dims, embed)
    return _caches[key]


def cosines(repo: Store, text: str, bodies: Mapping[str, str], unrelated: Sequence[str] = ()
            ) -> tuple[dict[str, float], float]:
    """The cosine similarity of ``text`` to each of ``bodies`` (by path) under ``repo``'s
    embedder, and its highest to ``unrelated``, for the wider net of probable conflicts
    (:mod:`memfs.policy.conflict_net`): ``text`` embedded once, the other vectors from the cache
    (a text it lacks is embedded once and kept, as search would). Empty (and 0) when no embedder
    is configured, or when it cannot be imported or fails: the net then weighs words only, and
    says so once (the write goes on)."""
    from memfs.index.vectors import similarities

    owners: dict[str, list[str]] = {path: [body] for path, body in bodies.items() if body}
    try:
        cache = _cache(repo)
        if cache is None or not text or not owners:
            return {}, 0.0
        wanted = cache.vectors([text], lambda _: "the new memory")[0]
        scores, failed = similarities(cache, wanted, {**owners, _UNRELATED: list(unrelated)})
        cache.save()
    except MemfsError as exc:
        _say("unusable", f"could not be used ({exc.message}); the wider net of similar memories weighs words only")
        return {}, 0.0
    for path, problem in failed.items():
        _say("failed", f"failed on {'a fixed sentence' if path == _UNRELATED else path} ({problem.message}); "
                       "the wider net weighs it by its words only")
    baseline = scores.pop(_UNRELATED, 0.0)
    return scores, baseline


class SemanticFallback(UserWarning):
    """The embedder could not serve the wider net of probable conflicts; it weighed words only
    (said once per process and kind of failure)."""


_said: set[str] = set()
_unread: list[str] = []


def _say(kind: str, why: str) -> None:
    if kind not in _said:
        _said.add(kind)
        text = f"memfs: {PARAM} {why}"
        _unread.append(text)
        warnings.warn(text, SemanticFallback, stacklevel=3)


def unread() -> list[str]:
    """The notices of :func:`cosines` not yet shown (each once per process), for
    :func:`memfs.ops.judge.drain` to hand to the doors with its own."""
    out = list(_unread)
    _unread.clear()
    return out


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
