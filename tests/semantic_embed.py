"""Deterministic embedders for ``[semantic] embed = "tests.semantic_embed:…"`` (no model): a hashed
bag of concepts where words that mean the same thing share a dimension, and faulty variants that
fail on any text containing "poison"."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

DIMS = 1024
CONCEPTS = {"vegetarian": "food", "dietary": "food", "meal": "food", "vegan": "food",
            "flight": "travel", "hotel": "travel", "trip": "travel"}
#: every call's texts, for tests that check when the embedder is (not) asked
calls: list[list[str]] = []


def embed(texts: Sequence[str]) -> list[list[float]]:
    calls.append(list(texts))
    out = []
    for text in texts:
        vec = [0.0] * DIMS
        for word in re.findall(r"\w+", text.lower()):
            vec[int(hashlib.sha256(CONCEPTS.get(word, word).encode()).hexdigest(), 16) % DIMS] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        out.append([v / norm for v in vec])
    return out


def raises(texts: Sequence[str]) -> list[list[float]]:
    if any("poison" in t.lower() for t in texts):
        raise ConnectionError("model unreachable")
    return embed(texts)


def dims(texts: Sequence[str]) -> list[list[float]]:
    return [v[:-1] if "poison" in t.lower() else v for t, v in zip(texts, embed(texts), strict=True)]


def nan(texts: Sequence[str]) -> list[list[float]]:
    return [[math.nan, *v[1:]] if "poison" in t.lower() else v for t, v in zip(texts, embed(texts), strict=True)]


#: Hand-made vectors by text, for the wider net of probable conflicts: two sentences that share no
#: word but mean the same subject point the same way; another subject is orthogonal.
MEANING_DIMS = 4
MEANING = {"My editor of choice is VS Code.": [1.0, 0.0, 0.0, 0.0],
           "These days I write software in Zed.": [0.8, 0.6, 0.0, 0.0],
           "My favourite tea is jasmine.": [0.0, 0.0, 1.0, 0.0]}


def meaning(texts: Sequence[str]) -> list[list[float]]:
    """:data:`MEANING`'s vector for a text it holds, the last axis for any other (the cache's
    probe among them): an unknown text is unlike every known one."""
    calls.append(list(texts))
    return [MEANING.get(text, [0.0, 0.0, 0.0, 1.0]) for text in texts]
