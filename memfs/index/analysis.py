"""Text analysis for the search index: one analyzer for every text field, index and query alike.

Text is split into runs of CJK characters (Han, kana, Hangul) and everything else, the approach
of Lucene's CJKAnalyzer:

- a CJK run becomes overlapping bigrams (``发布说明`` -> ``发布 布说 说明``; a lone character stays a
  unigram), so a query finds any two-character substring with no dictionary to load or to miss;
- other text becomes lowercased words. A word joined by ``- _ . / : @ + #`` (``B17-status``,
  ``E_CONN_RESET``, ``user:U5``, ``v2.1``) yields the whole compound, unstemmed, *and* its parts, so
  both ``B17-status`` and ``status`` find it;
- plain alphabetic English words lose function words (:data:`ENGLISH_STOP_WORDS`) and are Porter-stemmed (``notes`` ->
  ``note``). Tokens with digits, compounds and non-ASCII words are never stemmed, so identifiers
  such as ``B17`` or ``ERR404`` stay exact. Query and index share this code, so an exact
  identifier in a query always meets the same token in the index.

Changing anything here changes the index: bump :data:`ANALYZER_VERSION` so existing indexes are
rebuilt.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from whoosh.analysis.acore import Token
from whoosh.analysis.tokenizers import Tokenizer
from whoosh.lang import porter2

#: Whoosh leaves ``porter2.stem`` unannotated; it maps a word to its stem.
_porter: Callable[[str], str] = porter2.stem

ANALYZER_VERSION = 1

_CJK = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0002ebef"  # CJK extensions B-F
)
_WORD = f"[^\\W_{_CJK}]+"
_TOKEN = re.compile(f"(?P<cjk>[{_CJK}]+)|(?P<word>{_WORD}(?:[-_./:@+#]{_WORD})*)")
_PART = re.compile(_WORD)
_CJK_CHAR = re.compile(f"[{_CJK}]")

#: Common English function words (articles, pronouns, auxiliaries, prepositions, question words):
#: they carry no topic, and in short memories their term frequency drowns the words that do.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves
    """.split()
)


def is_cjk(token: str) -> bool:
    return bool(_CJK_CHAR.match(token))


@lru_cache(maxsize=65536)
def _word(word: str) -> str | None:
    """The index form of one plain word, or ``None`` when it is dropped (stop word, one letter)."""
    if len(word) < 2 and not word.isdigit():
        return None
    if word.isascii() and word.isalpha():
        if word in ENGLISH_STOP_WORDS:
            return None
        return _porter(word)
    return word


def tokens(text: str) -> list[str]:
    """The index terms of ``text``, in order (duplicates kept: they are term frequencies)."""
    out: list[str] = []
    text = unicodedata.normalize("NFKC", text).lower()
    for match in _TOKEN.finditer(text):
        run = match.group("cjk")
        if run is not None:
            if len(run) == 1:
                out.append(run)
            else:
                out.extend(run[i : i + 2] for i in range(len(run) - 1))
            continue
        word = match.group("word")
        parts = _PART.findall(word)
        if len(parts) > 1:
            out.append(word)
            for part in parts:
                term = _word(part)
                if term is not None:
                    out.append(term)
        else:
            term = _word(word)
            if term is not None:
                out.append(term)
    return out


class MemfsAnalyzer(Tokenizer):
    """Whoosh adapter around :func:`tokens` (positions and offsets are not kept: no phrase search)."""

    def __call__(
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        mode: str = "",
        **kwargs: Any,
    ) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for pos, text in enumerate(tokens(value), start=start_pos):
            token.text = text
            token.boost = 1.0
            token.stopped = False
            if keeporiginal:
                token.original = text  # type: ignore[attr-defined]  # whoosh sets it dynamically, Token does not declare it
            if positions:
                token.pos = pos
            if chars:
                token.startchar = start_char
                token.endchar = start_char
            yield token
