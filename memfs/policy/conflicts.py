"""Probable conflicts between memories without a shared key (pure: no I/O).

Two memories with one ``(scope, key, version)`` are the same subject by declaration. Agents mostly
write without a key, so this module reads the subject and the value out of the text: two memories
of the same scope, type and version that **share the subject but differ in the value** are a
*probable conflict* ("Kai works in Berlin." / "Kai works in Paris now."); the newer one is taken to
replace the older.

How (general means only, no phrase of a known pair; the reader is
:mod:`memfs.policy.conflict_tokens`):

1. **Tokens.** Each text is read into content tokens that know where they stand: a value (a
   value class across scripts, ``English``/``英文`` → ``language:english``; a digit, ``2.3``,
   ``9:30``; a capitalised word inside its sentence; CJK), a lower-case word in a value's place
   (``plain``), a word after a change verb (``changed``: "moved to", "switched to", 搬到, 改用),
   the verb opening a request (``imperative``), the speaker's own sentence ("I …", 我…).
2. **Alignment.** What both texts share is the subject frame; what differs is grouped into slots
   (runs of adjacent differing tokens). The verb opening a request ("*Keep* my answers short" /
   "*Make* …") is wording, not a slot; a CJK character pair that only bridges a different cut of
   the same characters ("老张住|在" / "老张|现在|住") is a seam, not a slot.
3. **A conflict** needs no additive marker in the new text ("also", "too", 也, 还), and one of:

   * a rejection: the new text negates the old one's value ("not Portuguese", "不要用英文");
   * one slot of values on each side, the same preposition before them (``in`` Berlin / ``at``
     Acme is another relation), the differing values not opening both texts (the subject's name
     differs, "Kai…" / "Mia…"), and a shared subject: a Jaccard overlap of the non-value tokens of
     at least :data:`SUBJECT_OVERLAP`, or values of one class with a shared name-like token (``P8``)
     or with the class word alone in its slot after shared words (回答*简短* / 回答*详细*);
   * a change verb (:func:`_changed`): the new text names the old one's subject (its opening token,
     or both are the speaker's) and nothing else but, after the change verb, the new value; the old
     text's one slot holds what it replaces (a place or time *in*/*at*/*on* for a move; a value
     of the same kind for a switch): "Lena lives in Vienna." / "Lena moved to Graz.";
   * one value replaced in one place (:func:`_substitution`): one short slot on each side, framed
     by shared words before it, holding values or lower-case words in a value's place, not
     nouns a determiner points at ("*my* inbox" is the subject): "Use *tabs* for indentation" /
     "Use *spaces* …", 小王在*上海*工作 / 小王现在在*北京*工作. Under a verb of liking, or for a word
     after a name's verb ("Tom prefers *window* seats"), only when the new text says it replaces
     ("now", 现在, 改…); never when the texts share a class value (that is the value: "short in
     *chat*" / "short in *email*" qualify it).
   * With no value token at all, one final differing word on each side ("prefers tea" /
     "prefers coffee") counts when the rest overlaps.
4. **Duplicates.** The same values and subject, worded differently, are a duplicate, never a
   conflict.
5. **The subject/value model** (:mod:`memfs.policy.conflict_slots`) reads what the alignment does
   not call a conflict when the wording differs (a value class or a number replaced for a frame
   both texts share), and vetoes the same value said of two named subjects; for the doors with a
   model in the loop, :mod:`memfs.policy.conflict_net` names the near misses.

``bench/bench_conflicts.py`` measures precision and recall on ``tests/fixtures/conflict_pairs.jsonl``
(figures in ``bench/README.md``).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import Any, Literal

from memfs.policy import conflict_slots
from memfs.policy.conflict_tokens import MOVE, PLACES, Token, stem, tokens

__all__ = ["Token", "tokens"]

#: Jaccard overlap of the non-value tokens two texts need to share a subject.
SUBJECT_OVERLAP = 0.5
#: Why two texts are not about one thing when each opens with a name of its own ("Kai works in
#: Berlin." / "Mia works in Paris."): the wider net (:mod:`memfs.policy.conflict_net`) names neither
#: for the other either.
OTHER_NAMES = "the texts open with different names: another subject"
#: Memories with more content tokens than this are documents, not one value: never compared.
MAX_TOKENS = 40
#: Longer bodies are not even read for tokens (a value is said in a sentence or two).
MAX_CHARS = 600
#: A token more memories of one group use is no subject (too common to pair them by).
MAX_SHARING = 20

_ADDITIVE = frozenset("also too additionally another besides".split())
_CJK_ADDITIVE = ("也", "还", "另外", "此外")
#: Words that say the new text replaces a value ("… now", "no longer", 现在, 以后, 改…).
_MARKERS = frozenset("now anymore instead henceforth nowadays longer currently switched moved changed".split())
_CJK_MARKERS = ("现在", "以后", "今后", "目前", "已经", "不再", "改", "换", "搬", "迁")
#: Verbs of liking: two of their objects are usually both true ("I like jazz" / "I like blues")
#: unless the new text says it replaces the old.
_LIKING = frozenset("like likes liked love loves loved enjoy enjoys enjoyed".split())
_CJK_LIKING = ("喜欢", "喜爱", "爱")
#: The most tokens a replaced value may span on each side (a CJK place cut into pairs spills over).
MAX_SLOT = 4
_LIKING_FORMS = frozenset(stem(w) for w in _LIKING)
#: A statement of the speaker's this short ("I am vegan now.") may share nothing but the speaker.
_TINY = 2


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
    return weigh(old, new)


def weigh(old: str, new: str, read: tuple[Sequence[Token], Sequence[Token]] | None = None) -> Verdict:
    """The structural rules, then the subject/value model (:mod:`memfs.policy.conflict_slots`)
    for what they do not call a conflict, unless the new text adds to the old one. ``read``: the
    two texts' tokens when the caller has them already (a pass over many memories)."""
    old_tokens, new_tokens = read if read is not None else (tokens(old), tokens(new))
    verdict = _compare(old_tokens, new_tokens, new)
    if verdict.conflict:
        vetoed = conflict_slots.vetoed(old, new, _marked(new))
        return verdict if vetoed is None else Verdict("duplicate" if "worded" in vetoed else "different", vetoed)
    if _additive(new):
        return verdict
    why = conflict_slots.conflict(old, new, _marked(new))
    return verdict if why is None else Verdict("conflict", why)


def _opening_verb(slot: Sequence[Token]) -> bool:
    """A slot that is only the verb opening a request ("*Keep* my answers short" / "*Make* …",
    "Answer me…" / "Please *reply*…"): wording, not the subject or the value."""
    return (len(slot) == 1 and slot[0].first and slot[0].form.isascii()
            and (slot[0].imperative or not slot[0].capital))


def _marked(new: str) -> bool:
    """The new text says it replaces a value ("now", "no longer", "switched", 现在, 改…)."""
    words = {w.casefold() for w in re.findall(r"[^\W_]+", new)}
    return bool(words & _MARKERS) or any(m in new for m in _CJK_MARKERS)


@dataclass(frozen=True)
class _Reading:
    """Two texts read side by side: their held tokens, what they share and what differs."""

    a: list[Token]
    b: list[Token]
    shared: set[str]
    old_only: set[str]
    new_only: set[str]
    slots_a: list[list[Token]]
    slots_b: list[list[Token]]
    wording: set[str]

    @classmethod
    def of(cls, a: list[Token], b: list[Token]) -> _Reading:
        a_forms, b_forms = {t.form for t in a}, {t.form for t in b}
        seams = ({f for f in a_forms - b_forms if _seam(f, b_forms)}
                 | {f for f in b_forms - a_forms if _seam(f, a_forms)})
        a, b = [t for t in a if t.form not in seams], [t for t in b if t.form not in seams]
        a_forms, b_forms = a_forms - seams, b_forms - seams
        old_only, new_only = a_forms - b_forms, b_forms - a_forms
        slots_a, slots_b = _slots(a, old_only), _slots(b, new_only)
        wording = {s[0].form for s in slots_a + slots_b if _opening_verb(s)}
        return cls(a, b, a_forms & b_forms, old_only, new_only, [s for s in slots_a if not _opening_verb(s)],
                   [s for s in slots_b if not _opening_verb(s)], wording)

    def before_slot(self, slot: Sequence[Token], side: Sequence[Token]) -> bool:
        """Some shared token comes before ``slot`` in its text: the frame precedes the value."""
        return any(t.form in self.shared for t in side if t.position < slot[0].position)


def _seam(form: str, other: Set[str]) -> bool:
    """A CJK pair of characters that the other text has too, only cut elsewhere ("老张住|在" /
    "老张|现在|住"): a seam of the segmentation, not a word of its own."""
    if form.isascii() or ":" in form:
        return False
    chars = {c for f in other if not f.isascii() for c in f}
    return all(c in chars for c in form)


def _compare(a_all: Sequence[Token], b_all: Sequence[Token], new: str) -> Verdict:
    a = [t for t in a_all if not t.rejected]
    b = [t for t in b_all if not t.rejected]
    if not a or not b:
        return Verdict("different", "nothing to compare")
    rejected = {t.form for t in b_all if t.rejected}
    read = _Reading.of(a, b)
    a, b = read.a, read.b
    a_values = {t.form for t in a if t.value}
    b_values = {t.form for t in b if t.value}
    shared = read.shared
    subject_a = {t.form for t in a if not t.value} - read.wording
    subject_b = {t.form for t in b if not t.value} - read.wording
    overlap = _overlap(subject_a, subject_b, read.shared | read.old_only, read.shared | read.new_only)
    subject = tuple(sorted(shared - a_values - b_values))
    if not read.old_only and not read.new_only:
        return Verdict("duplicate", "the same words", subject=subject)
    if _additive(new):
        return Verdict("different", "the new text adds to the old one (an additive word)")
    if a_values & rejected and (shared or overlap >= SUBJECT_OVERLAP / 2):
        return Verdict("conflict", f"the new text rejects {', '.join(sorted(a_values & rejected))}",
                       tuple(sorted(a_values & rejected)), tuple(sorted(b_values - a_values)), subject)
    slots_a, slots_b = read.slots_a, read.slots_b
    valued_a = [s for s in slots_a if any(t.value for t in s)]
    valued_b = [s for s in slots_b if any(t.value for t in s)]
    if any(t.numbering for s in slots_a + slots_b for t in s):
        return Verdict("different", "another numbered thing: another subject")
    if _names_differ(slots_a, slots_b):
        return Verdict("different", OTHER_NAMES)
    if not slots_a and not slots_b:
        return Verdict("duplicate", "the same subject and values, the request worded differently", subject=subject)
    changed = _changed(read, subject)
    if changed is not None:
        return changed
    substituted = _substitution(read, new, subject)
    if substituted is not None:
        return substituted
    if not valued_a and not valued_b and a_values & b_values:
        return Verdict("duplicate", f"same value ({', '.join(sorted(a_values & b_values))}), worded differently",
                       subject=subject)
    if any(s[0].first for s in slots_a) and any(s[0].first for s in slots_b):
        return Verdict("different", "the texts open differently: another subject")
    if not valued_a and not valued_b:
        return _without_values(a, b, read.old_only, read.new_only, overlap, subject)
    if not valued_a or not valued_b:
        return Verdict("different", "a value was added or removed, none replaced")
    if len(slots_a) > 1 or len(slots_b) > 1:
        return Verdict("different", "more than one thing differs: another subject")
    return _one_value(read, overlap, subject)


def _one_value(read: _Reading, overlap: float, subject: tuple[str, ...]) -> Verdict:
    """One slot with a value on each side: a conflict when the relation is the same (the same
    preposition) and the subject is shared (see the module docstring)."""
    sa, sb = read.slots_a[0], read.slots_b[0]
    if any(t.changed for t in sb):
        return Verdict("different", "a change verb, but nothing of the kind it changes in the old text")
    english = all(t.form.isascii() for t in read.a + read.b)
    if english and not all(t.joined for t in sa[1:] + sb[1:]):
        return Verdict("different", "words apart in one slot: more than one thing differs")
    if sa[0].before and sb[0].before and sa[0].before != sb[0].before:
        return Verdict("different", f"'{sa[0].before}' vs '{sb[0].before}': another relation")
    old_v = tuple(t.form for t in sa if t.value)
    new_v = tuple(t.form for t in sb if t.value)
    same_class = {v.partition(":")[0] for v in old_v if ":" in v} & {v.partition(":")[0] for v in new_v if ":" in v}
    named = any(t.form in read.shared and ((t.capital and not t.first) or any(c.isdigit() for c in t.form))
                for t in read.a)
    only_class = (same_class and len(sa) == len(sb) == 1
                  and read.before_slot(sa, read.a) and read.before_slot(sb, read.b))
    if overlap >= SUBJECT_OVERLAP or (same_class and (named or only_class)):
        return Verdict("conflict", f"same subject ({', '.join(subject) or 'shared words'}), new value",
                       old_v, new_v, subject)
    return Verdict("different", f"the subjects overlap too little ({overlap:.2f})")


def _shape(token: Token) -> str:
    """What kind of value a token is, to tell whether two can replace each other."""
    if ":" in token.form and not token.form[:1].isdigit():
        return "class:" + token.form.partition(":")[0]
    if any(c.isdigit() for c in token.form):
        return "number"
    if token.capital or not token.form.isascii():
        return "name"
    return "word"


def _changed(read: _Reading, subject: tuple[str, ...]) -> Verdict | None:
    """"Lena lives in Vienna." / "Lena moved to Graz.": the new text names the old one's subject
    (its opening token, or both are the speaker's: "I live…" / "I moved…"), says nothing the old
    text lacks but, after a change verb, the new value, and the old text's one differing slot holds
    what it replaces: for a move, something *in*, *at* or *on* a place or time; for a switch, a
    value of the same kind."""
    new_value = [t for t in read.b if t.changed and t.form in read.new_only]
    if not new_value or {t.form for t in new_value} != read.new_only - read.wording or len(new_value) > MAX_SLOT:
        return None
    speakers = read.a[0].speaker and read.b[0].speaker
    if (read.a[0].form not in read.shared and not speakers) or len(read.slots_a) != 1:
        return None
    old_slot = read.slots_a[0]
    if read.a[0].form not in read.shared and len(old_slot) > MAX_SLOT:
        return None  # only the speaker is shared: the old text must be one short statement
    if new_value[0].changed == MOVE:
        replaced = [t for t in old_slot if t.before in PLACES and (t.value or not t.plain)]
        if not any(t.value for t in new_value):
            return None
    else:
        kinds = {_shape(t) for t in new_value}
        replaced = [t for t in old_slot if (t.value or t.plain) and _shape(t) in kinds]
    if not replaced:
        return None
    return Verdict("conflict", f"the subject ({', '.join(subject) or read.a[0].form}) changed to a new value",
                   tuple(t.form for t in replaced), tuple(t.form for t in new_value), subject)


def _substitution(read: _Reading, new: str, subject: tuple[str, ...]) -> Verdict | None:
    """One short slot on each side, framed by what both share before it, holding values or words
    in a value's place ("Use *tabs* for indentation" / "Use *spaces*…", 小王在*上海*工作 /
    小王现在在*北京*工作): a new value for the same subject. Under a verb of liking, only when the
    new text says it replaces the old ("now", 现在...)."""
    if len(read.slots_a) != 1 or len(read.slots_b) != 1:
        return None
    sa, sb = read.slots_a[0], read.slots_b[0]
    if len(sa) > MAX_SLOT or len(sb) > MAX_SLOT or sa[0].first or sb[0].first:
        return None
    marked = _marked(new)
    if not all(t.value or t.plain or (t.weak and marked) for t in sa + sb) or sa[0].before != sb[0].before:
        return None
    if not all(t.joined for t in sa[1:] + sb[1:]):
        return None  # words apart in one slot are two things ("PRs as draft" / "issues as triaged")
    if not any(t.value for t in sa + sb) and any(":" in f for f in read.shared):
        return None  # the shared class value is the value ("short"): the words around it qualify it
    framed = read.before_slot(sa, read.a) and read.before_slot(sb, read.b)
    spoken = (read.a[0].speaker and read.b[0].speaker and len(sa) == len(sb) == 1 and marked
              and len(read.a) <= _TINY and len(read.b) <= _TINY)
    if not (framed or spoken):
        return None  # "I am vegetarian." / "I am vegan now.": the speaker is the frame
    liking = any(f in read.shared for f in _LIKING_FORMS) or any(w in f for f in read.shared for w in _CJK_LIKING)
    if (liking and not marked) or len(read.shared - read.wording) < (0 if spoken else 1 if marked else 2):
        return None
    if {t.form for t in sa} & {t.form for t in read.b} or {t.form for t in sb} & {t.form for t in read.a}:
        return None
    return Verdict("conflict", f"same frame ({', '.join(sorted(read.shared))}), another value in one place",
                   tuple(t.form for t in sa), tuple(t.form for t in sb), subject)


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
    (for the decision's reason). A ruling only chooses among what the rules found and the
    near misses of the wider net (:mod:`memfs.policy.conflict_net`): a ``replace`` on a near miss
    is the only way one is superseded."""

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


def when(memory: Any) -> tuple[str, int, str]:
    """The order of age :func:`pairs` sorts by (``updated``/``created``, revision, path): a total order."""
    stamp = memory.updated or memory.created
    return (stamp.isoformat() if stamp is not None else "", memory.revision or 0, memory.path)


def pair_of(a: Any, b: Any) -> Pair | None:
    """The probable conflict between two memories (see :func:`comparable`), the newer second."""
    if not comparable(a, b):
        return None
    older, newer = sorted((a, b), key=when)
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
    #: the text has CJK pieces (their seams are only known pair by pair) or a changed value
    cjk: bool = False
    changed: bool = False
    speaker: bool = False
    #: the text says it replaces a value, and it is a tiny statement of the speaker's
    tiny_marked: bool = False

    @classmethod
    def of(cls, toks: Sequence[Token]) -> _Sketch:
        held = [t for t in toks if not t.rejected]
        return cls(
            frozenset(t.form for t in held if not t.value),
            frozenset(t.form.partition(":")[0] for t in held if t.value and ":" in t.form),
            frozenset(t.form for t in held if (t.capital and not t.first) or any(c.isdigit() for c in t.form)),
            frozenset(t.form for t in held if t.value),
            frozenset(t.form for t in toks if t.rejected),
            frozenset(t.form for t in held),
            any(not t.form.isascii() for t in held),
            any(t.changed for t in held),
            bool(held) and held[0].speaker,
        )

    def may_conflict(self, newer: _Sketch) -> bool:
        shared = self.forms & newer.forms
        if shared and (self.cjk or newer.cjk or newer.changed):
            return True
        if self.speaker and ((newer.changed and newer.speaker) or (newer.tiny_marked and len(self.forms) <= _TINY)):
            return True
        if shared and len(self.forms - shared) <= MAX_SLOT + 1 and len(newer.forms - shared) <= MAX_SLOT + 1:
            return True
        union = self.subject | newer.subject
        if union and 2 * len(self.subject & newer.subject) >= len(union) - 2:
            return True
        if _overlap(self.subject, newer.subject, self.forms, newer.forms) >= SUBJECT_OVERLAP:
            return True
        if self.classes & newer.classes and self.names & newer.forms:
            return True
        return bool(self.values & newer.rejected and self.forms & newer.forms)


@functools.lru_cache(maxsize=4096)
def sketch_of_text(text: str) -> _Sketch:
    """The sketch of a text, remembered like its tokens (a write weighs the same scope again)."""
    return sketch_from_tokens(text, tokens(text))


#: A text as a pass over many memories reads it once: its tokens and its sketch.
TextRead = tuple[Sequence[Token], _Sketch]


def sketch_from_tokens(text: str, toks: Sequence[Token]) -> _Sketch:
    """The sketch of ``text`` from its tokens ``toks`` already read."""
    sketch = _Sketch.of(toks)
    if sketch.speaker and len(sketch.forms) <= _TINY and _marked(text):
        return dataclasses.replace(sketch, tiny_marked=True)
    return sketch


def forget_readings() -> None:
    """Drop the remembered tokens and sketches (a benchmark's cold start)."""
    tokens.cache_clear()
    sketch_of_text.cache_clear()
    conflict_slots.forget()


def kept_apart(one: Any, other: Any) -> bool:
    """Whether either memory names the other in ``distinct_from``: someone decided that both hold,
    so they are no probable conflict (a candidate not yet written has no such field)."""
    return other.path in getattr(one, "distinct_from", ()) or one.path in getattr(other, "distinct_from", ())


def against(new: Any, memories: Iterable[Any]) -> list[tuple[Any, Verdict]]:
    """The memories ``new`` (a memory or a candidate: ``path``, ``scope``, ``type``, ``version``,
    ``key``, ``body``) probably conflicts with, newest first: those it would replace; never one
    :func:`kept_apart` from it."""
    read = tokens(new.body) if len(new.body) <= MAX_CHARS else ()
    if not read or len(read) > MAX_TOKENS:
        return []
    probe = probe_of(new)
    if not eligible(probe):
        return []
    found = []
    sketch = sketch_of_text(new.body)
    for memory in memories:
        if not comparable(probe, memory) or len(memory.body) > MAX_CHARS or kept_apart(new, memory):
            continue
        if not (sketch_of_text(memory.body).may_conflict(sketch) or conflict_slots.may_pair(memory.body, new.body)):
            continue
        verdict = weigh(memory.body, new.body)
        if verdict.conflict:
            found.append((memory, verdict))
    return sorted(found, key=lambda pair: when(pair[0]), reverse=True)


def probe_of(new: Any) -> _Probe:
    """``new`` (a memory or a candidate not yet written) as an active memory of its scope, type
    and version, for :func:`comparable`."""
    return _Probe(getattr(new, "path", None) or "", new.scope, new.type, new.version, new.key)


@dataclass(frozen=True)
class _Probe:
    path: str
    scope: Any
    type: Any
    version: Any
    key: Any
    status: str = "active"
