"""Probable conflicts between memories without a shared key (pure: no I/O).

Two memories with one ``(scope, key, version)`` are the same subject by declaration. Agents mostly
write without a key, so this module reads the subject and the value out of the text: two memories
of the same scope, type and version that **share the subject but differ in the value** are a
*probable conflict* ("Kai works in Berlin." / "Kai works in Paris now."); the newer one is taken to
replace the older.

How (general means only, no phrase of a known pair):

1. **Tokens.** NFKC, case-folded; Latin words with a light plural stem; CJK runs cut at function
   characters (的, 请, 用, 在...), then into known words and character pairs. Function words and
   change markers ("from now on", 以后, 现在) are no content. A small lexicon of *value classes*
   maps the words of one class to one canonical value across scripts (``English``/``英文``/``英语``
   → ``language:english``): values of one class exclude each other.
2. **Values.** A token is a value when it is a class value, holds a digit, is a capitalised word
   that does not open its sentence, or is CJK; a number right after a common word ("note 3")
   names a numbered thing instead, and a slot holding one is another subject. A value after a
   negation ("not Portuguese", "不要用葡萄牙语") is *rejected*, not held.
3. **Subject and value.** What both texts share, outside the values, is the subject; what differs
   is grouped into slots (runs of adjacent differing tokens). A conflict needs: no additive marker
   in the new text ("also", "too", 也, 还); one slot of differing values on each side (two slots
   mean two things differ: another subject); the differing values not opening both texts (the
   subject's name differs, "Kai..." / "Mia..."); the same preposition before them (``in`` Berlin /
   ``at`` Acme is another relation); and a shared subject: a Jaccard overlap of the non-value
   tokens of at least :data:`SUBJECT_OVERLAP`, or, when both values are of one class, one shared
   name-like token (``P8``). A new text that rejects the old one's value, with a shared subject
   token, is a conflict too. With no value token at all, one final differing word on each side
   ("prefers tea" / "prefers coffee") counts when the rest overlaps.
4. **Duplicates.** The same values and subject, worded differently, are a duplicate, never a
   conflict.

``bench/bench_conflicts.py`` measures precision and recall on ``tests/fixtures/conflict_pairs.jsonl``
(figures in ``bench/README.md``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import Any, Literal

#: Jaccard overlap of the non-value tokens two texts need to share a subject.
SUBJECT_OVERLAP = 0.5
#: Memories with more content tokens than this are documents, not one value: never compared.
MAX_TOKENS = 40
#: Longer bodies are not even read for tokens (a value is said in a sentence or two).
MAX_CHARS = 600
#: A token more memories of one group use is no subject (too common to pair them by).
MAX_SHARING = 20

_LANGUAGES = {
    "english": ("english", "英文", "英语", "英語"),
    "chinese": ("chinese", "mandarin", "中文", "汉语", "漢語", "华语", "普通话"),
    "spanish": ("spanish", "西班牙语", "西班牙文", "西语"),
    "portuguese": ("portuguese", "葡萄牙语", "葡萄牙文", "葡语"),
    "french": ("french", "法语", "法文"),
    "german": ("german", "德语", "德文"),
    "japanese": ("japanese", "日语", "日文", "日本語"),
    "korean": ("korean", "韩语", "韩文", "한국어"),
    "italian": ("italian", "意大利语", "意大利文"),
    "russian": ("russian", "俄语", "俄文"),
    "dutch": ("dutch", "荷兰语"),
}
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CLASSES: dict[str, str] = {
    **{word: f"language:{name}" for name, words in _LANGUAGES.items() for word in words},
    **{day: f"day:{day}" for day in _DAYS},
    **{word: f"length:{word}" for word in ("short", "brief", "concise", "long", "detailed", "verbose")},
    **{word: f"tone:{word}" for word in ("formal", "informal", "casual")},
}
_FUNCTION = frozenset(
    "a an the i me my mine we us our you your it its is are was were be been being am do does did to of for "
    "and or but so that this these those there here please always now from on then anymore any more again "
    "going forward onward onwards henceforth instead should must will would can could shall may might just "
    "ll 's s he she they them his her their has have had with by as about into one".split()
)
_PREPOSITIONS = frozenset("in at on to for with from by under near".split())
_NEGATIONS = frozenset("not no never don't dont without instead rather than longer neither nor".split())
_ADDITIVE = frozenset("also too additionally another besides".split())
_CJK_ADDITIVE = ("也", "还", "另外", "此外")
_CJK_NEGATIONS = ("不要", "不用", "不再", "别", "而不是", "不是", "不")
#: Characters and words that carry no subject or value in CJK text (cut points).
_CJK_FUNCTION = ("从现在开始", "从现在起", "从今以后", "以后", "今后", "现在", "总是", "一直", "的", "请", "用", "在",
                 "是", "了", "我", "你", "他", "她", "都", "给", "把", "要", "和", "与", "以", "对", "吧", "呢")
_CJK_WORDS = tuple(sorted((w for w in _CLASSES if not w.isascii()), key=len, reverse=True))
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
_DIGIT = re.compile(r"\d")
_CJK_START = re.compile(f"[{_CJK}]")
_PIECE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)?|[.!?。！？;；]")


@dataclass(frozen=True)
class Token:
    """One content token: its canonical ``form``, whether it is a value, whether it opens its
    sentence, the preposition before it (if any), and whether a negation governs it."""

    form: str
    value: bool
    first: bool
    before: str | None
    rejected: bool
    position: int
    capital: bool = False
    #: A number written right after a common word ("note 3", "Deploy 4"): a numbered thing's
    #: name, part of the subject, not a value.
    numbering: bool = False


@dataclass(frozen=True)
class Verdict:
    """How two texts relate: ``conflict``, ``duplicate`` or ``different``, and why."""

    kind: Literal["conflict", "duplicate", "different"]
    why: str
    old_values: tuple[str, ...] = ()
    new_values: tuple[str, ...] = ()
    subject: tuple[str, ...] = ()

    @property
    def conflict(self) -> bool:
        return self.kind == "conflict"


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


_CJK_CUT = re.compile("(" + "|".join(sorted((*_CJK_WORDS, *_CJK_NEGATIONS, *_CJK_FUNCTION), key=len, reverse=True))
                      + ")")
_CJK_NEGATION_SET = frozenset(_CJK_NEGATIONS)
_CJK_WORD_SET = frozenset(_CJK_WORDS)


def _cjk_pieces(run: str) -> list[tuple[str, bool]]:
    """A CJK run cut into (piece, negated): class words whole, function words dropped (a negation
    marks the next piece), the rest into character pairs (a single character alone)."""
    out: list[tuple[str, bool]] = []
    negated = False
    for part in _CJK_CUT.split(run):
        if not part:
            continue
        if part in _CJK_NEGATION_SET:
            negated = True
            continue
        if part in _CJK_WORD_SET:
            out.append((part, negated))
        elif _CJK_CUT.fullmatch(part):
            continue
        elif len(part) == 1:
            out.append((part, negated))
        else:
            out.extend((part[k:k + 2], negated) for k in range(len(part) - 1))
        negated = False
    return out


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The content tokens of ``text``, in order (see the module docstring); remembered for the
    last few thousand texts (a context weighs the same memories call after call)."""
    text = unicodedata.normalize("NFKC", text)
    out: list[Token] = []
    sentence_start, before, negated = True, None, False
    previous: Token | None = None
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece in ".!?。！？;；":
            sentence_start, before, negated, previous = True, None, False, None
            continue
        if _CJK_START.match(piece):
            for part, neg in _cjk_pieces(piece):
                form = _CLASSES.get(part, part)
                out.append(Token(form, True, False, None, neg or negated, len(out)))
            sentence_start, negated, previous = False, False, None
            continue
        word = piece.casefold().replace("’", "'").removesuffix("'s")
        if word in _NEGATIONS:
            negated, previous = True, None
            continue
        if word in _PREPOSITIONS:
            before, previous = word, None
            continue
        if word in _FUNCTION:
            previous = None
            sentence_start = sentence_start and word in ("please", "always", "now", "from", "on", "then", "i")
            continue
        form = _CLASSES.get(word, _stem(word))
        value = (word in _CLASSES or _DIGIT.search(word) is not None
                 or (piece[:1].isupper() and not sentence_start))
        numbering = (word.isdigit() and previous is not None and not previous.value
                     and not (previous.capital and not previous.first))
        out.append(Token(form, value and not numbering, sentence_start, before, negated, len(out),
                         piece[:1].isupper(), numbering))
        previous = out[-1]
        sentence_start, before = False, None
    return tuple(out)


def _additive(text: str) -> bool:
    words = {w.casefold() for w in re.findall(r"[^\W_]+", text)}
    return bool(words & _ADDITIVE) or "as well" in text.casefold() or any(m in text for m in _CJK_ADDITIVE)


def _slots(toks: Sequence[Token], differing: set[str]) -> list[list[Token]]:
    """Runs of adjacent tokens whose form the other text lacks."""
    runs: list[list[Token]] = []
    last = -2
    for tok in toks:
        if tok.form not in differing:
            continue
        if tok.position == last + 1 and runs:
            runs[-1].append(tok)
        else:
            runs.append([tok])
        last = tok.position
    return runs


def _names_differ(slots_a: list[list[Token]], slots_b: list[list[Token]]) -> bool:
    def opening_name(slots: list[list[Token]]) -> bool:
        return any(s[0].first and s[0].capital for s in slots)

    return opening_name(slots_a) and opening_name(slots_b)


def _overlap(subject_a: Set[str], subject_b: Set[str], forms_a: Set[str], forms_b: Set[str]) -> float:
    """How much of the subject two texts share: the Jaccard overlap of their non-value tokens, or
    of all their tokens when neither has any (CJK text is all values)."""
    union = subject_a | subject_b
    if union:
        return len(subject_a & subject_b) / len(union)
    every = forms_a | forms_b
    return len(forms_a & forms_b) / len(every) if every else 0.0


def compare(old: str, new: str) -> Verdict:
    """How ``new`` relates to ``old`` (both of one scope, type and version; see the module docstring)."""
    return _compare(tokens(old), tokens(new), new)


def _compare(a_all: Sequence[Token], b_all: Sequence[Token], new: str) -> Verdict:
    a = [t for t in a_all if not t.rejected]
    b = [t for t in b_all if not t.rejected]
    rejected = {t.form for t in b_all if t.rejected}
    a_forms, b_forms = {t.form for t in a}, {t.form for t in b}
    a_values = {t.form for t in a if t.value}
    b_values = {t.form for t in b if t.value}
    shared = a_forms & b_forms
    subject_a = {t.form for t in a if not t.value}
    subject_b = {t.form for t in b if not t.value}
    overlap = _overlap(subject_a, subject_b, a_forms, b_forms)
    subject = tuple(sorted(shared - a_values - b_values))
    old_only, new_only = a_forms - b_forms, b_forms - a_forms
    if not a or not b:
        return Verdict("different", "nothing to compare")
    if not old_only and not new_only:
        return Verdict("duplicate", "the same words", subject=subject)
    if _additive(new):
        return Verdict("different", "the new text adds to the old one (an additive word)")
    if a_values & rejected and (shared or overlap >= SUBJECT_OVERLAP / 2):
        return Verdict("conflict", f"the new text rejects {', '.join(sorted(a_values & rejected))}",
                       tuple(sorted(a_values & rejected)), tuple(sorted(b_values - a_values)), subject)
    slots_a, slots_b = _slots(a, old_only), _slots(b, new_only)
    valued_a = [s for s in slots_a if any(t.value for t in s)]
    valued_b = [s for s in slots_b if any(t.value for t in s)]
    if any(t.numbering for s in slots_a + slots_b for t in s):
        return Verdict("different", "another numbered thing: another subject")
    if _names_differ(slots_a, slots_b):
        return Verdict("different", "the texts open with different names: another subject")
    if not valued_a and not valued_b and a_values & b_values:
        return Verdict("duplicate", f"same value ({', '.join(sorted(a_values & b_values))}), worded differently",
                       subject=subject)
    if any(s[0].first for s in slots_a) and any(s[0].first for s in slots_b):
        return Verdict("different", "the texts open differently: another subject")
    if not valued_a and not valued_b:
        return _without_values(a, b, old_only, new_only, overlap, subject)
    if not valued_a or not valued_b:
        return Verdict("different", "a value was added or removed, none replaced")
    if len(slots_a) > 1 or len(slots_b) > 1:
        return Verdict("different", "more than one thing differs: another subject")
    sa, sb = slots_a[0], slots_b[0]
    if sa[0].before and sb[0].before and sa[0].before != sb[0].before:
        return Verdict("different", f"'{sa[0].before}' vs '{sb[0].before}': another relation")
    old_v = tuple(t.form for t in sa if t.value)
    new_v = tuple(t.form for t in sb if t.value)
    same_class = {v.partition(":")[0] for v in old_v if ":" in v} & {v.partition(":")[0] for v in new_v if ":" in v}
    named = any(t.form in shared and ((t.capital and not t.first) or any(c.isdigit() for c in t.form)) for t in a)
    if overlap >= SUBJECT_OVERLAP or (same_class and named):
        return Verdict("conflict", f"same subject ({', '.join(subject) or 'shared words'}), new value",
                       old_v, new_v, subject)
    return Verdict("different", f"the subjects overlap too little ({overlap:.2f})")


def _without_values(
    a: list[Token], b: list[Token], old_only: set[str], new_only: set[str], overlap: float, subject: tuple[str, ...]
) -> Verdict:
    """No value at all differs or is shared: a conflict when one final word differs on each side
    and the rest is shared ("prefers tea" / "prefers coffee")."""
    last_a, last_b = a[-1], b[-1]
    if old_only == {last_a.form} and new_only == {last_b.form} and len(a) > 1 and len(b) > 1:
        rest = ({t.form for t in a} | {t.form for t in b}) - old_only - new_only
        if rest and last_a.before == last_b.before and overlap >= SUBJECT_OVERLAP:
            return Verdict("conflict", "one final word differs", (last_a.form,), (last_b.form,), subject)
    return Verdict("different", f"no value replaced (subject overlap {overlap:.2f})")


# --- a judge's answer -------------------------------------------------------------------------------------
#: What a judge may answer about a probable conflict: the new memory ``replace``\s the older one,
#: both hold at once (``keep-both``), or they are about different things (``unrelated``).
RULINGS: tuple[str, ...] = ("replace", "keep-both", "unrelated")
Answer = Literal["replace", "keep-both", "unrelated"]


@dataclass(frozen=True)
class Ruling:
    """A judge's answer about one probable conflict: the active memory at ``path`` that the
    offline rules paired with a new one, the ``answer`` (one of :data:`RULINGS`) and ``by`` whom
    (for the decision's reason). A ruling only chooses among what the rules found: it never pairs
    two memories the rules did not."""

    path: str
    answer: Answer
    by: str


# --- between memories -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pair:
    """A probable conflict: ``older`` is replaced by ``newer`` (by ``updated``/``created``, then
    revision, then path)."""

    older: str
    newer: str
    why: str

    def to_json(self) -> dict[str, Any]:
        return {"older": self.older, "newer": self.newer, "why": self.why}


#: Types whose memories are events, each true on its own ("Deploy 3 went fine."): never a conflict.
EVENTS = frozenset({"episode", "summary"})


def eligible(memory: Any) -> bool:
    """A memory that may take part in a probable conflict: active, not in ``system/``, and a
    lasting value (a preference, fact, note or procedure), not an event (:data:`EVENTS`)."""
    return (memory.status in (None, "active") and not getattr(memory, "is_system", False)
            and (memory.type or "note") not in EVENTS)


def comparable(a: Any, b: Any) -> bool:
    """Two memories that may conflict without a key: both :func:`eligible`, of one scope, type
    and version, and not two declared keys (different subjects by declaration, or the same
    subject, which ``(scope, key, version)`` already decides)."""
    if a.path == b.path or not (eligible(a) and eligible(b)):
        return False
    if a.scope != b.scope or (a.type or "note") != (b.type or "note") or a.version != b.version:
        return False
    return not (a.key and b.key)


def _when(memory: Any) -> tuple[str, int, str]:
    when = memory.updated or memory.created
    return (when.isoformat() if when is not None else "", memory.revision or 0, memory.path)


def pair_of(a: Any, b: Any) -> Pair | None:
    """The probable conflict between two memories (see :func:`comparable`), the newer second."""
    if not comparable(a, b):
        return None
    older, newer = sorted((a, b), key=_when)
    verdict = compare(older.body, newer.body)
    return Pair(older.path, newer.path, verdict.why) if verdict.conflict else None


@dataclass(frozen=True)
class _Sketch:
    """What :func:`_compare` needs at least, as sets: pairs that cannot pass it are skipped
    without reading them in order (a repository has many more pairs than conflicts)."""

    subject: frozenset[str]
    classes: frozenset[str]
    names: frozenset[str]
    values: frozenset[str]
    rejected: frozenset[str]
    forms: frozenset[str]

    @classmethod
    def of(cls, toks: Sequence[Token]) -> _Sketch:
        held = [t for t in toks if not t.rejected]
        return cls(
            frozenset(t.form for t in held if not t.value),
            frozenset(t.form.partition(":")[0] for t in held if t.value and ":" in t.form),
            frozenset(t.form for t in held if (t.capital and not t.first) or _DIGIT.search(t.form)),
            frozenset(t.form for t in held if t.value),
            frozenset(t.form for t in toks if t.rejected),
            frozenset(t.form for t in held),
        )

    def may_conflict(self, newer: _Sketch) -> bool:
        if _overlap(self.subject, newer.subject, self.forms, newer.forms) >= SUBJECT_OVERLAP:
            return True
        if self.classes & newer.classes and self.names & newer.forms:
            return True
        return bool(self.values & newer.rejected and self.forms & newer.forms)


def against(new: Any, memories: Iterable[Any]) -> list[tuple[Any, Verdict]]:
    """The memories ``new`` (a memory or a candidate: ``path``, ``scope``, ``type``, ``version``,
    ``key``, ``body``) probably conflicts with, newest first: those it would replace."""
    read = tokens(new.body) if len(new.body) <= MAX_CHARS else ()
    if not read or len(read) > MAX_TOKENS:
        return []
    probe = _Probe(getattr(new, "path", None) or "", new.scope, new.type, new.version, new.key)
    if not eligible(probe):
        return []
    found = []
    for memory in memories:
        if not comparable(probe, memory) or len(memory.body) > MAX_CHARS:
            continue
        verdict = _compare(tokens(memory.body), read, new.body)
        if verdict.conflict:
            found.append((memory, verdict))
    return sorted(found, key=lambda pair: _when(pair[0]), reverse=True)


@dataclass(frozen=True)
class _Probe:
    path: str
    scope: Any
    type: Any
    version: Any
    key: Any
    status: str = "active"


def pairs(memories: Iterable[Any]) -> list[Pair]:
    """Every probable conflict among ``memories``: each text is read once; only memories of one
    scope, type and version that share a token are compared, and only short ones (at most
    :data:`MAX_TOKENS` content tokens: a value is said in a sentence or two, a longer memory is a
    document); a token found in more than :data:`MAX_SHARING` of them names no subject."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for memory in memories:
        if eligible(memory):
            groups.setdefault((memory.scope, memory.type or "note", memory.version), []).append(memory)
    found: list[Pair] = []
    for group in groups.values():
        read = {m.path: tokens(m.body) for m in group if len(m.body) <= MAX_CHARS}
        short = sorted((m for m in group if 0 < len(read.get(m.path, ())) <= MAX_TOKENS), key=_when)
        users: dict[str, list[int]] = {}
        for number, memory in enumerate(short):
            for form in {t.form for t in read[memory.path]}:
                users.setdefault(form, []).append(number)
        candidates = {(i, j) for numbers in users.values() if len(numbers) <= MAX_SHARING
                      for k, i in enumerate(numbers) for j in numbers[k + 1:]}
        sketches = [_Sketch.of(read[m.path]) for m in short]
        for i, j in sorted(candidates):
            older, newer = short[i], short[j]
            if (older.key and newer.key) or not sketches[i].may_conflict(sketches[j]):
                continue
            verdict = _compare(read[older.path], read[newer.path], newer.body)
            if verdict.conflict:
                found.append(Pair(older.path, newer.path, verdict.why))
    return found
