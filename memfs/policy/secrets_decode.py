"""The text the secret scanner reads, decoded the ways a secret is innocently disguised (pure).

A model or a tool that writes a credential rarely means to hide it, but the text it produces may
carry it in another encoding: an HTML page (``&#97;``), a URL (``%61``), a JSON string
(``\\u0061``), a Kubernetes Secret (base64), a wrapped line, look-alike letters from a keyboard
layout, or invisible marks a renderer left. Each function here returns a decoded text with
``origin``: for each decoded character, the offset in the text as written it came from (one extra
entry for the end), so a finding in the decoded text still points to where it was written.

What is decoded:

* :func:`skeleton`: Unicode default-ignorable code points dropped (category ``Cf`` and the rest
  of the property: U+034F, Hangul fillers, variation selectors, tags...), NFKC, then Latin
  look-alikes folded to their Latin letter (a small table from Unicode's confusables for Latin
  letters and digits: Cyrillic ``а е о р с х``..., Greek ``Α Β Ε``...).
* :func:`unescaped`: HTML character references, percent-encoding and ``\\uXXXX``/``\\xXX``
  escapes (and JSON's ``\\\\``, ``\\"``, ``\\n``: a JSON string holding an escaped text, as
  LangGraph's items are stored, is decoded again by the scanner), each decoded where it occurs.
* :func:`base64_runs`: runs of at least 20 base64 characters that decode to printable text.
* :func:`joined`: lines whose break falls between two non-blank characters, joined (a key wrapped
  over two lines), with where each join is.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Callable, Iterator

#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), as ranges; ``Cf`` is also dropped.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)

#: Look-alikes of Latin letters and digits (from Unicode's confusables.txt, the prototypes that
#: are one Latin letter or digit): Cyrillic, Greek and a few Latin-extended letters.
_CONFUSABLE_PAIRS = (
    "аa вB еe кK мM нH оo рp сc тT уy хx ѕs іi јj һh ԁd ԛq ԝw ӏl "
    "АA ВB ЕE КK МM НH ОO РP СC ТT ХX ЅS ІI ЈJ ҮY ԌG ԚQ ԜW Ӏl "
    "ΑA ΒB ΕE ΖZ ΗH ΙI ΚK ΜM ΝN ΟO ΡP ΤT ΥY ΧX οo νv ιi κk ρp "
    "ıi ȷj ɑa ɡg ʏy ᴠv ᴡw ᴢz ꓮA ꓐB ꓚC ꓓD ꓰE ꓝF ꓖG ꓧH ꓲI ꓙJ ꓗK ꓡL ꓟM ꓠN ꓑP ꓣR ꓢS ꓔT ꓴU ꓦV ꓪW ꓫX ꓬY ꓜZ "
    "Ʒ3 З3 Ƽ5"
)
_CONFUSABLES = {pair[0]: pair[1] for pair in _CONFUSABLE_PAIRS.split()}


_IGNORABLE_BMP = frozenset(code for low, high in _IGNORABLE if high < 0x10000 for code in range(low, high + 1))


def _ignorable(code: int) -> bool:
    return code in _IGNORABLE_BMP or any(low <= code <= high for low, high in _IGNORABLE if low >= 0x10000)


def skeleton(text: str) -> tuple[str, list[int]]:
    """``text`` with ignorables dropped, NFKC-folded and Latin look-alikes folded, and ``origin``."""
    out: list[str] = []
    origin: list[int] = []
    for position, char in enumerate(text):
        if char.isascii():
            out.append(char)
            origin.append(position)
            continue
        if _ignorable(ord(char)) or unicodedata.category(char) == "Cf":
            continue
        for folded in unicodedata.normalize("NFKC", char):
            out.append(_CONFUSABLES.get(folded, folded))
            origin.append(position)
    origin.append(len(text))
    return "".join(out), origin


def _substitute(
    text: str, pattern: re.Pattern[str], decode: Callable[[re.Match[str]], str | None]
) -> tuple[str, list[int]] | None:
    """``text`` with each match of ``pattern`` replaced by ``decode(match)`` (kept when it gives
    ``None``), every replacement character coming from the match's start; ``None`` if none was."""
    out: list[str] = []
    origin: list[int] = []
    done = 0
    changed = False
    for match in pattern.finditer(text):
        replacement = decode(match)
        if replacement is None:
            continue
        out.append(text[done : match.start()])
        origin.extend(range(done, match.start()))
        out.append(replacement)
        origin.extend([match.start()] * len(replacement))
        done = match.end()
        changed = True
    if not changed:
        return None
    out.append(text[done:])
    origin.extend(range(done, len(text) + 1))
    return "".join(out), origin


_HTML = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_ESCAPE = re.compile(r"(?:\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\x[0-9A-Fa-f]{2}|\\[\\\"nrt])+")


def _html(match: re.Match[str]) -> str | None:
    import html

    decoded = html.unescape(match.group())
    return None if decoded == match.group() else decoded


def _percent(match: re.Match[str]) -> str | None:
    from urllib.parse import unquote

    return unquote(match.group(), errors="replace")


def _escape(match: re.Match[str]) -> str | None:
    try:
        decoded = match.group().encode("ascii").decode("unicode_escape")
    except UnicodeDecodeError:
        return None
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _compose(outer: list[int], inner: list[int]) -> list[int]:
    return [outer[i] for i in inner]


def unescaped(text: str) -> tuple[str, list[int]] | None:
    """``text`` with HTML references, percent-encoding and ``\\u``/``\\x`` escapes decoded (in that
    order, each over the previous one's result), or ``None`` when it holds none of them."""
    current, origin, changed = text, list(range(len(text) + 1)), False
    for trigger, pattern, decode in (("&", _HTML, _html), ("%", _PERCENT, _percent), ("\\", _ESCAPE, _escape)):
        if trigger not in current:
            continue
        result = _substitute(current, pattern, decode)
        if result is not None:
            current, origin, changed = result[0], _compose(origin, result[1]), True
    return (current, origin) if changed else None


_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{20,}={0,2}(?![A-Za-z0-9+/_=-])")


def _printable(decoded: str) -> bool:
    shown = sum(c.isprintable() or c in "\n\t\r" for c in decoded)
    return len(decoded) >= 8 and shown >= 0.95 * len(decoded)


def base64_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` for each run of 20 or more base64 characters (standard or
    URL-safe alphabet) in ``text`` that decodes to printable UTF-8 text."""
    for match in _BASE64.finditer(text):
        run = match.group().rstrip("=")
        if len(run) % 4 == 1:
            continue
        altchars = b"-_" if ("-" in run or "_" in run) else None
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), altchars=altchars, validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if _printable(decoded):
            yield match.start(), match.end(), decoded


_TOKENISH = re.compile(r"[0-9_/+=#*!%$&~^-]")
_SENTENCE_END = frozenset(".!?,;:)]\"'…。！？")
_BLANK = " \t\r"
_OPEN_QUOTE = re.compile(r"[\"'「『“][^\"'」』”]+$")


def _breaks(text: str) -> Iterator[tuple[int, int, str, str]]:
    """Each line break between two non-blank characters: where the blanks before it start, where
    the next line's text starts, the word before it and the word after it (``str.find`` per line:
    a regex tried at every word costs more than the rest of the scan)."""
    at = text.find("\n")
    while at >= 0:
        cut = at
        while cut > 0 and text[cut - 1] in _BLANK:
            cut -= 1
        start = at + 1
        while start < len(text) and text[start] in " \t":
            start += 1
        if cut and start < len(text) and text[start] != "\n" and not text[cut - 1].isspace():
            left = text[max(text.rfind(" ", 0, cut), text.rfind("\n", 0, cut), text.rfind("\t", 0, cut)) + 1 : cut]
            ends = [i for i in (text.find(" ", start), text.find("\n", start)) if i >= 0]
            yield cut, start, left, text[start : min(ends, default=len(text))]
        at = text.find("\n", at + 1)


#: A line that starts a YAML field of its own (``key: ...``), never the rest of a token.
_FIELD_START = re.compile(r"[A-Za-z_][\w.-]*\s*[:=](?:\s|$)")


#: A line that ends in "password is" and the start of a word: an unquoted password of one word
#: (:mod:`memfs.policy.secrets_words`) wrapped over two lines.
_WORD_PASSWORD_LINE = re.compile(
    r"(?i)(?:pass(?:word|phrase)|passwort|kennwort|contraseña|contrasena|clave|mot de passe)\b.{0,40}?"
    r"\s(?:is|was|ist|lautet|war|es|era|est)\s+[^\W\d_]+$"
)


def _mid_token(line: str, left: str, right: str) -> bool:
    """Whether a line break may fall inside a credential: the word before it and the word after it
    hold a digit or a symbol between them (after a sentence's or clause's end, the word before it
    alone must), the word before it opens a quote it does not close (a quoted password of words:
    ``"Tanne\\nnbaum"``), the line ends in "password is" and a word (an unquoted one), or the
    ``line`` before it is a PEM header's (``-----BEGIN``). Ordinary wrapped
    prose (words only) is not joined, which keeps the scan of a long note cheap, and neither is a
    line that starts a YAML field of its own (``key: doc2``): a frontmatter's
    ``scope: …/private`` then ``key: doc2`` is two fields, not a private key."""
    if _OPEN_QUOTE.search(left):
        return True
    lowered = line.lower()
    if any(w in lowered for w in ("pass", "kennw", "contras", "clave")) and _WORD_PASSWORD_LINE.search(line):
        return True
    if _FIELD_START.match(right):
        return False
    if left[-1] in _SENTENCE_END:
        left, right = left[:-1], ""
    return (len(left) >= 2 and _TOKENISH.search(left + right) is not None) or "-----" in line


def joined(text: str) -> tuple[str, list[int], list[int]] | None:
    """The lines of ``text`` that a line break which may fall inside a credential (:func:`_mid_token`)
    joins, each group joined into one line (the break removed with the indentation after it; blanks
    before it leave one space) and groups one per line; ``origin``; and the offsets in the joined
    text where a break was. ``None`` if there is no such break. Only joined lines are returned, so
    a long text with one wrapped token is not read again whole."""
    if "\n" not in text:
        return None
    accepted = [(cut, start) for cut, start, left, right in _breaks(text)
                if _mid_token(text[text.rfind("\n", 0, cut) + 1 : cut], left, right)]
    if not accepted:
        return None
    out: list[str] = []
    origin: list[int] = []
    joins: list[int] = []
    i = 0
    while i < len(accepted):
        cut, start = accepted[i]
        done = text.rfind("\n", 0, cut) + 1
        if out:
            out.append("\n")
            origin.append(done - 1)
        while True:
            out.append(text[done:cut] + (" " if text[cut] in " \t" else ""))
            origin.extend(range(done, cut + (text[cut] in " \t")))
            joins.append(len(origin))
            done = start
            end = text.find("\n", start) % (len(text) + 1)
            if i + 1 < len(accepted) and accepted[i + 1][0] <= end:
                i += 1
                cut, start = accepted[i]
                continue
            break
        out.append(text[done:end])
        origin.extend(range(done, end))
        i += 1
    origin.append(end)
    return "".join(out), origin, joins
