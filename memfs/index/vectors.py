"""Vectors for semantic search: a cache of the caller's embeddings, and reciprocal rank fusion.

memfs ships no model. A caller brings an embedder (texts → vectors of ``dims`` floats) and this
module keeps what it answered, so a text is embedded once: the cache is derived data under
``.memfs/vectors/``, keyed by the SHA-256 of the text, in one file per embedder identity and
dimension count. The file's header records the format, the identity, the dimensions and the
vector of a fixed probe text; a file whose header disagrees with the embedder in use (another
model behind the same name, other dimensions, an older format) is discarded and rebuilt, never
mixed in. What the cache holds can always be recomputed from the files: the caller decides
which texts of a memory are embedded (LangGraph's ``fields``) and asks for their vectors.

How a vector ranking joins BM25's is :mod:`memfs.policy.hybrid` (never below BM25's recall).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memfs.errors import MemfsError
from memfs.store import atomic, paths

#: Bumped when the file layout changes: a file of another format is rebuilt.
FORMAT = 1
FOLDER = "vectors"
#: Embedded once per cache opened: a changed model behind the same name answers it differently.
PROBE_TEXT = "memfs vector cache probe: the quick brown fox jumps over the lazy dog"
#: Cosine similarity two answers for the probe must reach to count as the same embedder.
SAME_EMBEDDER = 0.9999
_DIGEST = 32

Matrix = npt.NDArray[np.float32]
#: Texts → one vector each. Whatever the caller brings, wrapped to this shape.
Embed = Callable[[list[str]], Any]


class EmbeddingFailed(MemfsError):
    """The embedder raised, or answered with the wrong number of vectors, the wrong number of
    dimensions, or values that are not finite numbers. ``about`` names what was being embedded
    (a memory's path, or ``the query``)."""

    def __init__(self, about: str, problem: str) -> None:
        super().__init__(f"{about}: the embedder {problem}")
        self.about = about
        self.problem = problem


def text_key(text: str) -> bytes:
    """The cache key of a text: its SHA-256."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def checked(answer: Any, count: int, dims: int) -> Matrix:
    """The embedder's answer as a ``count × dims`` float32 matrix, or ``ValueError`` saying what
    is wrong with it (how many vectors, how many dimensions, which value is not finite)."""
    try:
        rows = list(answer)
    except TypeError:
        raise ValueError(f"answered {type(answer).__name__}, not a list of vectors") from None
    if len(rows) != count:
        raise ValueError(f"answered {len(rows)} vector(s) for {count} text(s)")
    matrix = np.zeros((count, dims), dtype=np.float32)
    for i, row in enumerate(rows):
        try:
            values = np.asarray(row, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"answered a vector that is not a list of numbers (text {i + 1})") from None
        if values.ndim != 1 or values.shape[0] != dims:
            raise ValueError(f"answered {values.size} dimension(s) where {dims} were configured (text {i + 1})")
        if not np.all(np.isfinite(values)):
            raise ValueError(f"answered a value that is not a finite number (NaN or infinity) (text {i + 1})")
        matrix[i] = values
    return matrix


def embed_checked(embed: Embed, texts: list[str], dims: int, about: Callable[[int], str]) -> Matrix:
    """Embed ``texts`` in one call; on failure find the text at fault (one call each) and raise
    :class:`EmbeddingFailed` naming it through ``about`` (index → what the text belongs to)."""
    try:
        return checked(embed(texts), len(texts), dims)
    except Exception as exc:  # the embedder is the caller's code: any failure is reported as its own
        if len(texts) == 1:
            raise EmbeddingFailed(about(0), _why(exc)) from exc
        first = exc
    for i, text in enumerate(texts):
        try:
            checked(embed([text]), 1, dims)
        except Exception as exc:
            raise EmbeddingFailed(about(i), _why(exc)) from exc
    raise EmbeddingFailed(about(0), _why(first)) from first


def _why(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) and str(exc).startswith("answered") else (
        f"raised {type(exc).__name__}: {exc}")


def cosine(query: Matrix, matrix: Matrix) -> npt.NDArray[np.float64]:
    """Cosine similarity of one vector with each row (0 where either is all zeros)."""
    if matrix.shape[0] == 0:
        return np.zeros(0)
    q = query.astype(np.float64)
    m = matrix.astype(np.float64)
    norms = np.linalg.norm(m, axis=1) * float(np.linalg.norm(q))
    dots = m @ q
    out = np.zeros(m.shape[0])
    np.divide(dots, norms, out=out, where=norms > 0)
    return out


def similarities(cache: VectorCache, wanted: Matrix, texts: Mapping[str, Sequence[str]]
                 ) -> tuple[dict[str, float], dict[str, EmbeddingFailed]]:
    """Each owner's best cosine similarity to ``wanted`` over its texts (an owner without texts
    gets none), and the owners the embedder failed on. What the cache lacks is embedded in one
    call; when that call fails, each owner is embedded alone, so one the embedder fails on is
    reported and the others are scored. Nothing is saved: the caller calls :meth:`VectorCache.save`."""
    flat = [(owner, text) for owner, found in texts.items() for text in found]
    try:
        matrix = cache.vectors([t for _, t in flat], lambda i: flat[i][0])
    except EmbeddingFailed:
        out: dict[str, float] = {}
        failed: dict[str, EmbeddingFailed] = {}
        for owner, found in texts.items():
            if found:
                try:
                    out[owner] = float(max(cosine(wanted, cache.vectors(found, _named(owner)))))
                except EmbeddingFailed as exc:
                    failed[owner] = exc
        return out, failed
    similarity = cosine(wanted, matrix)
    best: dict[str, float] = {}
    for i, (owner, _) in enumerate(flat):
        best[owner] = max(best.get(owner, -math.inf), float(similarity[i]))
    return best, {}


def _named(owner: str) -> Callable[[int], str]:
    return lambda _: owner


def file_name(identity: str, dims: int) -> str:
    """The cache file of one embedder and dimension count: readable, and short whatever the name."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", identity).strip("-.")[:60] or "embedder"
    digest = hashlib.sha256(f"{identity}\0{dims}".encode()).hexdigest()[:12]
    return f"{slug}-{dims}d-{digest}.vec"


class VectorCache:
    """Embeddings by text, for one embedder (``identity``, ``dims``), kept in ``directory``.

    ``embed`` is only called for texts the cache lacks (and once for the probe when the cache is
    first used). New vectors are appended to the file by :meth:`save`, under an advisory lock so
    two processes never interleave records; a torn last record is ignored on reading.
    """

    def __init__(self, directory: Path, identity: str, dims: int, embed: Embed) -> None:
        if dims < 1:
            raise MemfsError(f"dims must be a positive number of dimensions, not {dims}", param="dims")
        self.path = directory / FOLDER / file_name(identity, dims)
        self.identity = identity
        self.dims = dims
        self.embed = embed
        self._vectors: dict[bytes, Matrix] | None = None
        self._new: dict[bytes, Matrix] = {}
        self._header: bytes = b""
        self._stale = False

    # --- reading ------------------------------------------------------------------------------
    def vectors(self, texts: Sequence[str], about: Callable[[int], str]) -> Matrix:
        """One row per text, embedding (in one call) those the cache lacks; a failure raises
        :class:`EmbeddingFailed` naming the text's owner through ``about``."""
        known = self._loaded()
        keys = [text_key(t) for t in texts]
        unique: dict[bytes, int] = {}
        for i, key in enumerate(keys):
            if key not in known:
                unique.setdefault(key, i)
        if unique:
            positions = list(unique.values())
            fresh = embed_checked(self.embed, [texts[i] for i in positions], self.dims,
                                  lambda n: about(positions[n]))
            for row, i in enumerate(positions):
                known[keys[i]] = self._new[keys[i]] = fresh[row]
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = known[key]
        return out

    def __len__(self) -> int:
        return len(self._loaded())

    def _loaded(self) -> dict[bytes, Matrix]:
        if self._vectors is None:
            probe = embed_checked(self.embed, [PROBE_TEXT], self.dims, lambda _: "the cache probe")[0]
            self._header = self._header_for(probe)
            self._vectors = self._read(probe)
        return self._vectors

    def _header_for(self, probe: Matrix) -> bytes:
        head = {"format": FORMAT, "embedder": self.identity, "dims": self.dims, "probe": probe.tolist()}
        return json.dumps(head, separators=(",", ":")).encode() + b"\n"

    def _read(self, probe: Matrix) -> dict[bytes, Matrix]:
        """The file's vectors if its header is this embedder's; otherwise none (the file is then
        rewritten, with this embedder's header, on the next :meth:`save`)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        end = data.find(b"\n")
        try:
            head = json.loads(data[:end]) if end > 0 else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            head = None
        if not self._same(head, probe):
            self._stale = True
            return {}
        size = _DIGEST + 4 * self.dims
        body = data[end + 1:]
        whole = len(body) - len(body) % size
        out: dict[bytes, Matrix] = {}
        for at in range(0, whole, size):
            out[body[at:at + _DIGEST]] = np.frombuffer(body[at + _DIGEST:at + size], dtype="<f4").astype(np.float32)
        return out

    def _same(self, head: Any, probe: Matrix) -> bool:
        if not isinstance(head, dict) or head.get("format") != FORMAT or head.get("dims") != self.dims:
            return False
        if head.get("embedder") != self.identity:
            return False
        try:
            old = np.asarray(head.get("probe"), dtype=np.float32)
        except (TypeError, ValueError):
            return False
        if old.shape != (self.dims,) or not np.all(np.isfinite(old)):
            return False
        similarity = float(cosine(probe, old.reshape(1, -1))[0])
        return math.isfinite(similarity) and similarity >= SAME_EMBEDDER

    # --- writing ------------------------------------------------------------------------------
    def save(self) -> None:
        """Append the vectors embedded since the last save (or write the file anew when it was
        another embedder's, another format's or missing)."""
        if not self._new and not self._stale:
            return
        paths.ensure_cache(self.path.parent.parent)
        self.path.parent.mkdir(exist_ok=True)
        if self._stale or not self._append(_records(self._new)):
            atomic.write_bytes(self.path, self._header + _records(self._loaded()))
            self._stale = False
        self._new = {}

    def _append(self, records: bytes) -> bool:
        """Append to the file if it is this embedder's (after cutting a torn last record);
        whether it was."""
        try:
            handle = open(self.path, "r+b")  # noqa: SIM115 (closed below, after the lock)
        except FileNotFoundError:
            return False
        with handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                first = handle.readline()
                try:
                    head = json.loads(first)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return False
                if not (isinstance(head, dict) and head.get("format") == FORMAT and head.get("dims") == self.dims
                        and head.get("embedder") == self.identity):
                    return False
                end = handle.seek(0, os.SEEK_END)
                torn = (end - len(first)) % (_DIGEST + 4 * self.dims)
                if torn:
                    handle.truncate(end - torn)
                    handle.seek(end - torn)
                handle.write(records)
                return True
            finally:
                with contextlib.suppress(OSError):
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _records(vectors: dict[bytes, Matrix]) -> bytes:
    return b"".join(key + vec.astype("<f4").tobytes() for key, vec in vectors.items())
