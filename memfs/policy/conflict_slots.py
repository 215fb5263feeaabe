"""The subject/value model of a probable conflict (pure: no I/O), beside the structural rules of
:mod:`memfs.policy.conflicts`: it finds a new value for the same subject where the wording of
the two texts differs too much for a one-slot alignment ("The public API rate limit is 100
requests per minute." / "Public API rate limit: 250 req/min.").

Each text is read with every value class (:func:`memfs.policy.conflict_tokens.valued_tokens`,
classes in :mod:`memfs.policy.value_classes`) and split in two:

* the **value**: words of a value class (a language, format, unit, channel, editor, role…) and
  numbers, with the unit written after a number ("100 *requests per minute*", "10*点*", "4
  *spaces*");
* the **frame**: the other content words, as English word forms and single CJK characters (so
  that 吃药提醒 and 提醒我吃药 meet whatever the segmentation), without the words that only
  word a statement (the verb opening a request, adverbs of time, frequency and manner, "last
  month", 上个月, a change verb).

Two texts are a **probable conflict** when

1. the value differs: a class both texts give a value of, with no value in common ("PDF" /
   "xlsx"), or a value of the old text that the new one rejects ("不再吃素"), or numbers of the
   same kind (a time, a date, a dotted version, a count of the same unit) with none in common;
2. the frame is shared: both frames are empty (a request about the answer itself: "Reply in
   French" / "Use English"), or they share a word and one frame holds the other or they share at
   least half of the larger one; one frame may be empty when both texts are the speaker's own
   ("I use vim as my editor." / "I switched to Helix.");
3. and nothing says the subject differs: no differing names on both sides ("Marco's birthday" /
   "Priya's birthday", 客户A / 客户B), no different words qualifying one shared head on both sides
   ("the *billing* service" / "the *auth* service", 订单服务 / 支付服务); a relation that
   accumulates values (speaking, liking, owning: "Kai speaks German." / "Kai speaks French.")
   replaces one only when the new text says so ("now", 现在, 改…).

The same value on both sides with a shared frame is left to the structural rules (a duplicate or
another subject). Additive markers ("also", 也) are checked by the caller first.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memfs.policy.conflict_tokens import CJK_FUNCTION_CHARS, Token, stem, valued_tokens
from memfs.policy.value_classes import classes

#: Words that only word a statement: they carry neither its subject nor its value.
_WORDING = frozenset(stem(w) for w in (
    "use using used prefer preferred want wanted rather get got getting go gone went going become became "
    "make made set keep kept put please actually really now anymore instead every each last next month week "
    "year ago yesterday today tomorrow recently lately since per i'd i'm i've i'll we're we've you're "
    "they're it's let let's like from here on onward onwards forward then when while if file files format "
    "mode".split()))
#: Relations that accumulate values (two are usually both true): a new value replaces the old
#: one only when the new text says so.
_ACCUMULATE = frozenset(stem(w) for w in "speak speaks spoke know knows like likes love loves enjoy enjoys own owns "
                        "have has collect collects support supports".split())
_CJK_ACCUMULATE = ("会说", "喜欢", "爱", "拥有", "支持", "养")
#: CJK characters and words that only word a statement (beyond the reader's function words).
_CJK_WORDING = frozenset("请来让把被得地着过吧呢啊呀哦嘛么都就这那们里")
_CJK_WORDING_WORDS = ("这个", "那个", "文件", "格式", "模式", "上个月", "上周", "去年", "昨天", "最近", "刚才", "今年",
                      "本月", "统一", "一律", "从此")
#: Measure words and units that follow a number in Chinese ("10点", "12月20日", "3个"): part of the number.
_CJK_MEASURES = frozenset("点半分秒时月日号年岁元块角个次天周倍层楼度斤克米")
#: Measure words that make a number a time or a date.
_CJK_TIME, _CJK_DATE = frozenset("点时分秒"), frozenset("月日号年")
#: Unit words after a number that make it a time or date.
_TIME_WORDS = frozenset("am pm utc gmt cet pst est h hour hours".split())
_MAX_UNIT = 3
#: Classes a person holds one value of at a time: the same name opening both texts is the subject.
_PERSONAL = frozenset({"role", "diet"})
_DIGITS = re.compile(r"\d")
_WORD = re.compile(r"[a-z][a-z+\-]*")
_ASCII_CLASS_WORDS = frozenset(w for w in classes() if w.isascii())
_CJK_CLASS_WORDS = tuple(w for w in classes() if not w.isascii())
_CJK_CLASS_CUT = re.compile("|".join(sorted(_CJK_CLASS_WORDS, key=len, reverse=True)))
#: Values with a shape of their own (see :func:`_spelled`).
_SPELLED = {
    "email": re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"),
    "url": re.compile(r"https?://[^\s，。、]+"),
    "callname": re.compile(r"(?i:\b(?:call|address|refer to)\s+(?:me|him|her|them)\s+(?:as\s+)?|my name is\s+)"
                           r"(?P<value>[A-Z][\w'-]*)|(?:叫我|称呼我|称我为?)(?P<cjk>[\u3400-\u9fff]{1,4})"),
    "dateformat": re.compile(r"(?i)\b(?:dd|mm|yyyy|yy)(?:[/.-](?:dd|mm|yyyy|yy)){2}\b|\biso(?:[ -]?8601)?\b"),
}
#: What every value of :data:`_SPELLED` holds: a text without it is not searched for them.
_SPELLED_HINT = re.compile(r"(?i)@|https?:|\b(?:call|address|refer|name|dd|mm|yy|yyyy|iso)\b|叫我|称呼我|称我")
_POSSESSIVE = re.compile(r"([^\W\d_]+)['’]s\s+([^\W\d_]+)")
_CJK_POSSESSOR = re.compile(r"([\u3400-\u9fff]{1,6}的[\u3400-\u9fff]{0,2})")
#: A statement of the speaker's own ("I …", "I'm …", "My …", 我…).
_SPEAKER = re.compile(r"\s*(?:i\b|i['’]|my\b|我)", re.IGNORECASE)
#: A negation's scope ends at the comma that closes its clause ("npm, not pnpm, for JS installs").
_NEGATED_CLAUSE = re.compile(r"(\b(?:not|no|never|without)\b[^,.;!?]*),")
#: "I'd rather X" states a preference; only "rather than" rejects.
_RATHER = re.compile(r"\b(?:would|'d|’d)\s+rather\b(?!\s+than)", re.IGNORECASE)


@dataclass(frozen=True)
class Side:
    """One text read for the model: its values by class, its numbers by kind, its frame, names,
    rejected values and whether it is the speaker's own."""

    classes: dict[str, frozenset[str]]
    rejected: frozenset[str]
    numbers: dict[str, frozenset[str]]
    frame: frozenset[str]
    names: frozenset[str]
    #: where each name stands (its first token's position), the opening word excluded
    placed: dict[str, int]
    heads: frozenset[tuple[str, str]]
    speaker: bool
    #: the name the text opens with (its first word if capitalised, or its first CJK pair)
    opener: str = ""
    #: words a preposition introduces ("for *YAML*", "with *legal*"): they narrow the subject
    narrowed: frozenset[str] = frozenset()
    #: what is possessed and by whom ("Ana's *team*" → ana, team; 小张的 → 小, 张): the subject
    possessed: frozenset[str] = frozenset()

    @property
    def valued(self) -> bool:
        return bool(self.classes or self.numbers or self.rejected)


def _cjk_runs(toks: Sequence[Token]) -> list[list[tuple[str, Token]]]:
    """The CJK tokens put back into runs of characters, each with the token it came from: a
    character pair continues the run of the pair before it ("订单", "单服", "服务" → 订单服务)."""
    runs: list[list[tuple[str, Token]]] = []
    for tok in toks:
        if tok.form.isascii() or ":" in tok.form:
            continue
        if tok.joined and runs and runs[-1] and runs[-1][-1][1].position == tok.position - 1:
            runs[-1].append((tok.form[-1], tok))
        else:
            runs.append([(c, tok) for c in tok.form])
    return runs


def _number_kind(tok: Token, after: Sequence[Token], text: str) -> str:
    """What a number measures: a ``time`` (9:30, 10点, 4 pm), a ``date`` (12月20日, 14 May), a
    ``version`` (14.2), else a ``count`` of the unit written after it."""
    if ":" in tok.form or any(t.form in _TIME_WORDS for t in after[:1]):
        return "time"
    first = after[0].form if after else ""
    if first and not first.isascii() and ":" not in first:
        return "time" if first[0] in _CJK_TIME else "date" if first[0] in _CJK_DATE else "count"
    if first.startswith("month:"):
        return "date"
    if "." in tok.form:
        return "version"
    unit = first.partition(":")[2] or first
    return f"count:{unit[:3]}" if unit and unit.isascii() else "count"


def _number(tok: Token, after: Sequence[Token]) -> bool:
    """A number that is a value: digits only (``P8``, ``v2`` are names), not the number of a
    numbered thing ("note 3"), unless a unit follows it ("limit: 250 req/min", "Python, 2-space
    indentation")."""
    if not tok.form.replace(".", "").replace(":", "").isdigit():
        return False
    return not tok.numbering or bool(after and after[0].joined and not after[0].first)


def _units(toks: Sequence[Token], at: int) -> list[Token]:
    """The unit written right after the number at index ``at`` (joined words, at most
    :data:`_MAX_UNIT`; in CJK the measure character that opens the next piece)."""
    out: list[Token] = []
    for tok in toks[at + 1:at + 1 + _MAX_UNIT]:
        if not tok.joined and not (not out and not tok.form.isascii()):
            break
        if any(c.isdigit() for c in tok.form) or tok.rejected:
            break
        if not tok.form.isascii() and ":" not in tok.form:
            if tok.form[0] in _CJK_MEASURES:
                out.append(tok)
            break
        out.append(tok)
    return out


@functools.lru_cache(maxsize=4096)
def side(text: str) -> Side:
    """``text`` read for the model (remembered, like the reader's tokens)."""
    text, classes = _spelled(text)
    for words in _CJK_WORDING_WORDS:
        text = text.replace(words, " ")
    text = _RATHER.sub("prefer", _NEGATED_CLAUSE.sub(r"\1;", text))
    toks = valued_tokens(text)
    numbers: dict[str, set[str]] = {}
    in_value: set[int] = set()
    for k, tok in enumerate(toks):
        if tok.rejected:
            continue
        if ":" in tok.form and not tok.form[:1].isdigit():
            classes.setdefault(tok.form.partition(":")[0], set()).add(tok.form)
            in_value.add(tok.position)
        elif _number(tok, toks[k + 1:k + 2]):
            unit = _units(toks, k)
            numbers.setdefault(_number_kind(tok, unit, text), set()).add(tok.form)
            in_value.add(tok.position)
            in_value.update(t.position for t in unit if t.form.isascii())
            for t in unit:
                if not t.form.isascii():  # the measure character only; the rest of the piece is frame
                    in_value.add(-t.position - 1)
    frame: set[str] = set()
    names: set[str] = set()
    placed: dict[str, int] = {}
    class_at = {t.position for t in toks if ":" in t.form and not t.form[:1].isdigit() and t.joined}
    narrowed: set[str] = {tok.form for tok in toks if ":" in tok.form and not tok.form[:1].isdigit()
                          and tok.before is not None and not tok.rejected}
    kept: list[Token] = []
    after_value = -2
    for tok in toks:
        if tok.rejected or tok.position in in_value or not tok.form.isascii():
            after_value = tok.position if tok.position in in_value and ":" in tok.form else -2
            continue
        word = tok.form
        if "'" in word or word in _WORDING or (tok.first and tok.imperative) or (word.endswith("ly") and len(word) > 4):
            continue
        if tok.capital and tok.joined and after_value == tok.position - 1:
            continue  # a model name after its make ("Huawei Mate"): part of the value
        frame.add(word)
        kept.append(tok)
        if tok.before is not None and not tok.first and tok.position + 1 not in class_at:
            narrowed.add(word)  # "to *design* manager": a word before a class value is part of it
        if tok.capital:
            names.add(word)
            if not tok.first:
                placed.setdefault(word, tok.position)
    heads = {(a.form, b.form) for a, b in itertools.pairwise(kept)
             if b.joined and a.position == b.position - 1}
    held = [t for t in toks if not t.rejected]
    for run in _cjk_runs(held):
        chars = [(c, t) for n, (c, t) in enumerate(run)
                 if not (n == 0 and -t.position - 1 in in_value) and c not in _CJK_WORDING]
        frame.update(c for c, _ in chars)
        heads.update((chars[n][0], chars[n + 1][0]) for n in range(len(chars) - 1))
    return Side({c: frozenset(v) for c, v in classes.items()},
                frozenset(t.form for t in toks if t.rejected and ":" in t.form),
                {k: frozenset(v) for k, v in numbers.items()}, frozenset(frame), frozenset(names),
                placed, frozenset(heads), _SPEAKER.match(text) is not None, _opener(toks), frozenset(narrowed),
                _possessed(text))


def _opener(toks: Sequence[Token]) -> str:
    """The name a text opens with: a capitalised first word that is no request verb, or the
    first CJK character pair (张伟…), else ``""``."""
    first = next((t for t in toks if not t.rejected), None)
    if first is None or ":" in first.form or first.imperative:
        return ""
    if first.form.isascii():
        return first.form if first.capital and first.first else ""
    return first.form if len(first.form) == 2 else ""


def _spelled(text: str) -> tuple[str, dict[str, set[str]]]:
    """Values spelled in a shape of their own, taken out of ``text`` before it is read: email
    addresses and URLs, the name someone is to be called by ("call me Liz", "address me as
    Elizabeth", 叫我小林) and date formats ("DD/MM/YYYY", "ISO dates")."""
    classes: dict[str, set[str]] = {}
    for name, pattern in _SPELLED.items():
        for match in pattern.finditer(text):
            named = [g for g in match.groupdict().values() if g]
            value = (named[0] if named else match.group()).casefold()
            classes.setdefault(name, set()).add(f"{name}:{value}")
        text = pattern.sub(" ", text)
    return text, classes


def _possessed(text: str) -> frozenset[str]:
    """The possessor and the possessed of each possessive ("Ana's team": ana, team; 小张的生日:
    小, 张), function words, wording, negations and class words left out (的 also ends a
    description, "微辣的": that is a value, not a possessor)."""
    words = {stem(w.casefold()) for pair in _POSSESSIVE.findall(text) for w in pair}
    runs = [_CJK_CLASS_CUT.sub(" ", run).replace("的", " ") for run in _CJK_POSSESSOR.findall(text)]
    chars = {c for run in runs for c in run
             if c not in _CJK_WORDING and c not in CJK_FUNCTION_CHARS and c not in "不别没 "}
    return frozenset(words | chars)


def differing_value(old: Side, new: Side) -> str | None:
    """What value ``new`` gives anew (``"format: pdf -> xlsx"``), or ``None`` when none differs."""
    for name in sorted(old.classes.keys() & new.classes.keys()):
        if not old.classes[name] & new.classes[name]:
            return f"{name}: {_shown(old.classes[name])} -> {_shown(new.classes[name])}"
    for values in old.classes.values():
        if values & new.rejected:
            return f"{_shown(values & new.rejected)} rejected"
    for kind in sorted(old.numbers.keys() & new.numbers.keys()):
        if not old.numbers[kind] & new.numbers[kind]:
            return f"{kind.partition(':')[0]}: {_shown(old.numbers[kind])} -> {_shown(new.numbers[kind])}"
    return None


def _shown(values: frozenset[str]) -> str:
    return "/".join(sorted(v if v[:1].isdigit() else v.partition(":")[2] or v for v in values))


def same_subject(old: Side, new: Side) -> bool:
    """Whether the frames say the two texts are about one subject (rule 2 and 3 of the module)."""
    fa, fb = old.frame, new.frame
    if (old.names - fb) and (new.names - fa):
        return False
    if _qualified_apart(old, new):
        return False
    if new.possessed - fa:
        return False  # "Kai" / "Kai's sister", 我的 / 我老婆的: the new text is about another thing
    if _narrowed(new, old) or (_narrowed(old, new) and (old.possessed - fb or _narrowed(new, old))):
        return False  # "the meeting *with legal*", "for YAML" / "for Python": a narrower subject
    shared = fa & fb
    if not fa and not fb:
        return True
    if _PERSONAL & old.classes.keys() & new.classes.keys() and old.opener and old.opener == new.opener:
        return True  # one person holds one role or diet at a time: "张伟是产品部经理" / "张伟调去做销售总监"
    if not shared:
        return (not fa or not fb) and old.speaker and new.speaker
    if fa <= fb or fb <= fa:
        return True
    if {"time", "date"} & old.numbers.keys() & new.numbers.keys():
        return 2 * len(shared) >= min(len(fa), len(fb))  # an event's name is shared, its verbs differ
    return len(shared) >= 2 and 2 * len(shared) >= max(len(fa), len(fb))


def _narrowed(side: Side, other: Side) -> set[str]:
    """The words a preposition introduces in ``side`` that ``other`` does not say at all (a class
    value counts when ``other`` gives no value of its class: "for YAML" / "for Python")."""
    return {w for w in side.narrowed - other.frame - other.narrowed
            if ":" not in w or w.partition(":")[0] not in other.classes}


def _qualified_apart(old: Side, new: Side) -> bool:
    """One shared head word qualified by a different word on each side ("*billing* service" /
    "*auth* service", 订单服务 / 支付服务)."""
    shared = old.frame & new.frame
    qualified_old = {head for word, head in old.heads if head in shared and word not in new.frame}
    qualified_new = {head for word, head in new.heads if head in shared and word not in old.frame}
    return bool(qualified_old & qualified_new)


def accumulates(old_text: str, new_text: str, marked: bool) -> bool:
    """A relation both texts share that gathers values (speaking, liking, owning), and the new
    text does not say it replaces one."""
    if marked:
        return False
    words = {t.form for t in valued_tokens(old_text)} & {t.form for t in valued_tokens(new_text)}
    return bool(words & _ACCUMULATE) or any(w in old_text and w in new_text for w in _CJK_ACCUMULATE)


def conflict(old_text: str, new_text: str, marked: bool) -> str | None:
    """Why ``new_text`` probably gives a new value for ``old_text``'s subject, or ``None`` (the
    caller has ruled out an additive text). ``marked``: the new text says it replaces a value."""
    if not (valued(old_text) and valued(new_text)):
        return None
    old, new = side(old_text), side(new_text)
    if not (old.valued and new.valued):
        return None
    value = differing_value(old, new)
    if value is None or not same_subject(old, new) or accumulates(old_text, new_text, marked):
        return None
    shared = ", ".join(sorted(old.frame & new.frame)) or "the speaker or the request"
    return f"same subject ({shared}), another value ({value})"


def vetoed(old_text: str, new_text: str, marked: bool) -> str | None:
    """Why a pair the structural rules call a conflict is not one, or ``None``: the same value
    said of two named subjects ("Project *Atlas* is written in Rust." / "Project *Borealis* …":
    a name differs on each side before a name both share), or the same class values, nothing
    else valued differing, and one subject (a duplicate worded differently); or a relation that
    accumulates values ("Kai speaks Dutch." / "Kai speaks Italian.") and no word of a change."""
    if accumulates(old_text, new_text, marked):
        return "a relation that gathers values (speaking, liking, owning): both may hold"
    old, new = side(old_text), side(new_text)
    shared = old.placed.keys() & new.placed.keys()
    own_old = [at for name, at in old.placed.items() if name not in new.frame]
    own_new = [at for name, at in new.placed.items() if name not in old.frame]
    if own_old and own_new and any(old.placed[n] > min(own_old) and new.placed[n] > min(own_new) for n in shared):
        return f"the same value ({', '.join(sorted(shared))}) said of another named subject"
    if (old.classes and old.classes == new.classes and not old.rejected and not new.rejected
            and differing_value(old, new) is None and not old.names ^ new.names and same_subject(old, new)):
        return f"the same values ({', '.join(_shown(v) for v in old.classes.values())}), worded differently"
    return None


@functools.lru_cache(maxsize=8192)
def valued(text: str) -> bool:
    """Whether ``text`` may hold a value the model reads (a digit or a class word): a text without
    one is never read a second time."""
    if _DIGITS.search(text) or (_SPELLED_HINT.search(text) and any(p.search(text) for p in _SPELLED.values())):
        return True
    if not _ASCII_CLASS_WORDS.isdisjoint(_WORD.findall(text.casefold())):
        return True
    return not text.isascii() and _CJK_CLASS_CUT.search(text) is not None


def may_pair(old_text: str, new_text: str) -> bool:
    """A cheap test that :func:`conflict` could pair the texts: a value class or a kind of number
    on both sides, or a value the new text rejects."""
    if not (valued(old_text) and valued(new_text)):
        return False
    old, new = side(old_text), side(new_text)
    return bool(old.classes.keys() & new.classes.keys() or old.numbers.keys() & new.numbers.keys()
                or new.rejected)


def keys(text: str) -> frozenset[str]:
    """What :func:`memfs.policy.conflict_pairs.pairs` groups a text by, beside its tokens: the value
    classes it gives or rejects and the kinds of number it holds (``"class:format"``,
    ``"number:time"``)."""
    if not valued(text):
        return frozenset()
    read = side(text)
    return frozenset({f"class:{c}" for c in read.classes} | {f"class:{v.partition(':')[0]}" for v in read.rejected}
                     | {f"number:{k}" for k in read.numbers})


def forget() -> None:
    """Drop the remembered readings (a benchmark's cold start)."""
    side.cache_clear()
    valued.cache_clear()
    valued_tokens.cache_clear()
