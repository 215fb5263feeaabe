"""How the probable-conflict rules read one text (pure): the content tokens of a short memory,
each with what the rules of :mod:`memfs.policy.conflicts` need to know about its place in the
sentence.

A token is a word (NFKC, case-folded, lightly stemmed so that "works", "working" and "worked"
meet), a number written as one (``2.3``, ``9:30``), a known word of a CJK run or one of its
character pairs. Function words, change markers and degree words carry no subject or value and
are not tokens. For each token the reader records:

* ``value``: a word of a value class (languages, days, lengths, tones: ``English``/``英文`` →
  ``language:english``), anything with a digit, a capitalised word inside its sentence, or CJK;
* ``plain``: a lower-case word that stands where a value stands (after a verb that opens the
  sentence, a copula or a preposition), not a noun the sentence points at with a determiner
  ("*my* inbox", "*the* morning": the subject), nor the verb after a name ("Kai *works*");
* ``rejected``: governed by a negation ("not Portuguese", 不要用葡萄牙语);
* ``changed``: said after a change verb ("moved to Graz", "switched to Emacs", 搬到北京, 换成…):
  the new value of a subject the sentence names without restating the relation;
* ``imperative``: the opening verb of a request ("*Keep* my answers short": a capitalised opener
  followed by a determiner or pronoun, so not a name);
* ``before``: the preposition before it (``in`` Berlin, ``at`` 9:30; 在 in CJK is ``at``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import unicodedata
from dataclasses import dataclass

from memfs.policy.value_classes import classes

#: Kinds of change verb: a subject that *moves* (to a place or time) or *switches* (to another value).
MOVE, SWITCH = "move", "switch"
_FUNCTION = frozenset(
    "a an the i me my mine we us our you your it its is are was were be been being am do does did to of for "
    "and or but so that this these those there here please always now from on then anymore any more again "
    "going forward onward onwards henceforth instead should must will would can could shall may might just "
    "ll 's s he she they them his her their has have had with by as about into one currently nowadays "
    "already".split()
)
#: Words that point at a thing already known: the noun after them is what the sentence is about.
_DETERMINERS = frozenset("my our your his her their its the this that these those every each all".split())
#: What follows an imperative verb, never a name ("Keep my…", "Call me…", "Use the…").
_AFTER_VERB = _DETERMINERS | frozenset("me us it them a an".split())
#: The verbs requests to an assistant open with: a closed class, like the determiners. A
#: capitalised opener among them is a verb, not a name, whatever follows it.
_REQUEST_VERBS = frozenset(
    "use keep make write send reply answer respond call address put format show give sort store save indent name "
    "set add list label mark sign start end avoid prefer include default explain summarize summarise translate "
    "cite greet schedule remind book order draft email message ping notify tag file archive spell quote".split())
PREPOSITIONS = frozenset("in at on to for with from by under near".split())
NEGATIONS = frozenset("not no never don't dont without instead rather than longer neither nor".split())
#: Verbs that say a subject's value changed; what follows (after an optional "to"/"over to") is
#: the new value.
_CHANGE_VERBS = {**dict.fromkeys("moved moving relocated relocating transferred".split(), MOVE),
                 **dict.fromkeys("switched switching changed changing migrated migrating became upgraded "
                                 "downgraded".split(), SWITCH)}
_CJK_NEGATIONS = ("不要", "不用", "不再", "别", "而不是", "不是", "不")
_CJK_CHANGES = {**dict.fromkeys(("搬到", "搬去", "迁到", "迁至", "迁往", "调到", "转到"), MOVE),
                **dict.fromkeys(("换成", "换到", "改用", "改成", "改为", "变成", "改到", "升级到", "降级到", "更新到"),
                                SWITCH)}
#: Characters and words that carry no subject or value in CJK text (cut points).
_CJK_FUNCTION = ("从现在开始", "从现在起", "从今以后", "以后", "今后", "现在", "目前", "已经", "总是", "一直",
                 "上个月", "上周", "去年", "昨天", "前天", "最近", "刚才", "上次",
                 "尽量", "一点", "一些", "稍微", "比较", "保持", "使用", "采用", "的", "请", "用", "在", "是",
                 "了", "我", "你", "他", "她", "都", "给", "把", "要", "和", "与", "以", "对", "吧", "呢",
                 "更", "很")
#: The single characters among :data:`_CJK_FUNCTION` (的, 请, 用…).
CJK_FUNCTION_CHARS = frozenset(w for w in _CJK_FUNCTION if len(w) == 1)
_CJK = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
_DIGIT = re.compile(r"\d")
#: Abbreviations a full stop follows inside a sentence ("Dr. Weber").
_TITLES = frozenset("dr mr mrs ms prof st jr sr mt".split())
#: Prepositions of place and time: what a subject that moves was "in", "at" or "on" (在 reads "at").
PLACES = frozenset("in at on near".split())
_CJK_START = re.compile(f"[{_CJK}]")
_PIECE = re.compile(rf"[{_CJK}]+|\d+(?:[.:]\d+)+|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)?|[.!?。！？;；]")
_CJK_NEGATION_SET = frozenset(_CJK_NEGATIONS)


@dataclass(frozen=True)
class Lexicon:
    """The class words a reading knows (:mod:`memfs.policy.value_classes`) and the CJK cut they
    make: a class word is one piece, never split into character pairs."""

    classes: dict[str, str]
    cut: re.Pattern[str]
    words: frozenset[str]

    @classmethod
    def of(cls, classes: dict[str, str]) -> Lexicon:
        words = tuple(sorted((w for w in classes if not w.isascii()), key=len, reverse=True))
        cut = re.compile("(" + "|".join(sorted((*words, *_CJK_NEGATIONS, *_CJK_CHANGES, *_CJK_FUNCTION),
                                               key=len, reverse=True)) + ")")
        return cls(classes, cut, frozenset(words))


#: The classes the structural rules of :mod:`memfs.policy.conflicts` read: languages, weekdays,
#: lengths and tones.
BASE = Lexicon.of({word: value for word, value in classes().items()
                   if value.partition(":")[0] in ("language", "length", "tone")
                   or (value.startswith("day:") and word == value[4:])})
#: Every value class (:data:`memfs.policy.value_classes.CLASS_LEXICONS`), for the slot rules of
#: :mod:`memfs.policy.conflict_slots`.
FULL = Lexicon.of(classes())
CLASSES = BASE.classes


@dataclass(frozen=True)
class Token:
    """One content token (see the module docstring for each flag)."""

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
    plain: bool = False
    #: the kind of change verb this token follows (:data:`MOVE`, :data:`SWITCH`), or ""
    changed: str = ""
    imperative: bool = False
    #: a lower-case word after the verb that follows a name ("Tom prefers *window* seats"): a
    #: value only when the text says it replaces one ("… now")
    weak: bool = False
    #: no function word between it and the token before
    joined: bool = False
    #: its sentence is the speaker's own ("I …", 我…): the subject is the speaker
    speaker: bool = False


def stem(word: str) -> str:
    """A light stem: the inflections of one verb or noun meet ("lives"/"living"/"lived" → "liv")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for ending in ("ing", "ed"):
        if len(word) > len(ending) + 2 and word.endswith(ending):
            word = word[:-len(ending)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]
            return word.removesuffix("e")
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word.removesuffix("e") if len(word) > 3 and word.endswith("e") else word


@dataclass(frozen=True)
class _Piece:
    text: str
    negated: bool
    changed: str
    before: str | None
    joined: bool


def _cjk_pieces(run: str, lexicon: Lexicon) -> list[_Piece]:
    """A CJK run cut into pieces: class words whole, function words dropped (a negation marks the
    next piece, a change verb every piece after it, 在 the next as a place, 的 as a possession),
    the rest into character pairs (a single character alone)."""
    out: list[_Piece] = []
    negated, changed, before = False, "", None
    for part in lexicon.cut.split(run):
        if not part:
            continue
        if part in _CJK_NEGATION_SET:
            negated = True
            continue
        if part in _CJK_CHANGES:
            changed, before = _CJK_CHANGES[part], "at"
            continue
        if lexicon.cut.fullmatch(part) and part not in lexicon.words:
            before = {"在": "at", "的": "of"}.get(part, before)
            continue
        if part in lexicon.words or len(part) == 1:
            out.append(_Piece(part, negated, changed, before, False))
        else:
            out.extend(_Piece(part[k:k + 2], negated, changed, before if k == 0 else None, k > 0)
                       for k in range(len(part) - 1))
        negated, before = False, None
    return out


@dataclass
class _Reader:
    """The state of one left-to-right reading (see :func:`tokens`)."""

    lexicon: Lexicon = BASE
    out: list[Token] = dataclasses.field(default_factory=list)
    sentence_start: bool = True
    before: str | None = None
    negated: bool = False
    changed: str = ""
    determined: bool = False
    #: the last raw word was a content word (no function word between it and the next)
    adjacent: bool = False
    previous: Token | None = None
    #: the verb after a name ("Tom *prefers*"): a lower-case word after it is ``weak``
    name_verb: Token | None = None
    speaker: bool = False

    def stop(self) -> None:
        self.sentence_start, self.before, self.negated, self.previous = True, None, False, None
        self.changed, self.determined, self.adjacent, self.name_verb, self.speaker = "", False, False, None, False

    def cjk(self, piece: str) -> None:
        self.speaker = self.speaker or (self.sentence_start and piece.startswith("我"))
        for part in _cjk_pieces(piece, self.lexicon):
            form = self.lexicon.classes.get(part.text, part.text)
            self.out.append(Token(form, True, self.sentence_start, part.before or self.before,
                                  part.negated or self.negated, len(self.out), changed=part.changed or self.changed,
                                  joined=part.joined, speaker=self.speaker))
            self.changed, self.sentence_start = self.changed or part.changed, False
        self.changed = self.changed or next((kind for word, kind in _CJK_CHANGES.items() if word in piece), "")
        self.sentence_start = False
        self.negated, self.previous, self.before, self.adjacent = False, None, None, False

    def function(self, word: str) -> None:
        opener = self.out[-1] if self.out and self.out[-1].first and self.adjacent else None
        if opener is not None and opener.capital and word in _AFTER_VERB:
            self.out[-1] = dataclasses.replace(opener, imperative=True)
        self.previous, self.adjacent = None, False
        self.determined = word in _DETERMINERS
        self.speaker = self.speaker or (word == "i" and self.sentence_start)
        self.sentence_start = self.sentence_start and word in ("please", "always", "now", "from", "on", "then", "i")

    def word(self, piece: str, word: str) -> None:
        form = self.lexicon.classes.get(word, stem(word))
        value = (word in self.lexicon.classes or _DIGIT.search(word) is not None
                 or (piece[:1].isupper() and not self.sentence_start))
        previous = self.previous
        numbering = (word.isdigit() and previous is not None and not previous.value
                     and not (previous.capital and not previous.first))
        after_name = (self.adjacent and previous is not None and previous.first and previous.capital
                      and not previous.imperative)
        free = not value and not self.sentence_start and not self.determined and not after_name
        plain = free and (not self.adjacent or (previous is not None and previous.first))
        weak = free and self.adjacent and previous is not None and previous is self.name_verb
        self.out.append(Token(form, value and not numbering, self.sentence_start, self.before, self.negated,
                              len(self.out), piece[:1].isupper(), numbering, plain, self.changed,
                              self.sentence_start and word in _REQUEST_VERBS, weak, self.adjacent, self.speaker))
        self.name_verb = self.out[-1] if after_name else self.name_verb
        self.previous, self.adjacent = self.out[-1], True
        self.sentence_start, self.before = False, None


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The content tokens of ``text``, in order (see the module docstring), with the classes of
    :data:`BASE`; remembered for the last few thousand texts (a context weighs the same memories
    call after call)."""
    return read(text, BASE)


@functools.lru_cache(maxsize=4096)
def valued_tokens(text: str) -> tuple[Token, ...]:
    """The content tokens of ``text`` with every value class (:data:`FULL`), remembered like
    :func:`tokens`; a file extension written with its dot (".xlsx") is read as the format."""
    return read(_EXTENSION.sub(r"\1", text), FULL)


_EXTENSION = re.compile(r"(?<![\w.])\.([A-Za-z]{2,5})\b")


def read(text: str, lexicon: Lexicon) -> tuple[Token, ...]:
    """The content tokens of ``text`` read with ``lexicon`` (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text)
    reader = _Reader(lexicon=lexicon)
    for match in _PIECE.finditer(text):
        piece = match.group()
        if piece in ".!?。！？;；":
            if not (piece == "." and reader.previous is not None and reader.previous.form in _TITLES):
                reader.stop()
        elif _CJK_START.match(piece):
            reader.cjk(piece)
        else:
            word = piece.casefold().replace("’", "'").removesuffix("'s")
            if match.start() and _CJK_START.match(text[match.start() - 1]):
                reader.word(piece, word)  # glued to CJK ("机房A"): a name, never a function word
            elif word in NEGATIONS:
                reader.negated, reader.previous, reader.adjacent = True, None, False
            elif word in _CHANGE_VERBS:
                reader.changed, reader.previous, reader.adjacent = _CHANGE_VERBS[word], None, False
                reader.determined = reader.sentence_start = False
            elif word in PREPOSITIONS:
                reader.before, reader.previous, reader.adjacent, reader.determined = word, None, False, False
            elif word in _FUNCTION:
                reader.function(word)
            else:
                reader.word(piece, word)
    return tuple(reader.out)
