"""Find secrets and identity numbers in text a memory is about to store (pure: no I/O).

Provider token shapes (AWS, GitHub, GitLab, Slack, Stripe, npm, PyPI, SendGrid, Twilio, Discord,
Telegram, Mailchimp, Square, Azure storage, Artifactory, JWT, private-key headers...) come from
the ``detect-secrets`` plugins' own regular expressions, so new token formats arrive with that
library. Its entropy and keyword plugins are not used: they are built for source code (quoted
strings, ``key = value``), so in prose they miss "my password is ..." and, run line by line in
ad-hoc mode, flag ordinary words ("my", "password") as high-entropy. What it lacks is added
here: passwords written in prose ("my password is ..."; also 密码), current OpenAI, Anthropic,
Google and Hugging Face key shapes,
``api_key=...`` style assignments, URLs and connection strings with a password, payment card
numbers (Luhn check plus a card-network prefix), 18-digit Chinese resident ID numbers (birth
date and ISO 7064 MOD 11-2 check digit, via ``python-stdnum``) and the number after an ID
document's name in any of a dozen languages (passport, driving licence, national ID, SSN, 护照号,
身份证, Personalausweis, pasaporte, passeport, パスポート...) or named by its kind (SIN, residence
card, 台胞证, 社安号...; see :mod:`memfs.policy.secrets_ids`): at least three digits, not a date.

Every finding says which rule fired and where (offset, line, column); the secret itself is never
echoed back, only a masked preview.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from memfs.policy import regex_literals, secrets_decode, secrets_ids, secrets_library, secrets_words


@dataclass(frozen=True)
class Finding:
    """One secret: the rule (``secret/github-token``), what it is, and where (0-based offsets)."""

    rule: str
    kind: str
    start: int
    end: int
    line: int
    column: int
    preview: str

    def where(self) -> str:
        return f"line {self.line}, column {self.column}"

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "kind": self.kind,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "preview": self.preview,
        }


@dataclass(frozen=True)
class _Rule:
    slug: str
    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0
    accept: Callable[[str], bool] | None = None


_PLACEHOLDER = re.compile(
    r"^(?:[*x•.]+|<[^>]*>|\$\{?[^}]*\}?|\{[^}]*\}|%s|password|passwd|secret|pass|changeme"
    r"|your[-_ ]?\w*|example\w*|redacted|hidden|none|null|undefined|true|false|required|optional)$",
    re.I,
)
_PASSWORD_WORD = r"(?:pass(?:word|wd|phrase|code)?|pwd|pw|pin(?:\s+code)?)"
_EDGES = "\"'`()[]{}<>.,;:!?「」『』“”\\"


def _password_value(value: str) -> bool:
    """A real-looking password: not a placeholder (``<password>``, ``${PASS}``), not plain or
    hyphenated words ("is stored in the vault", "is Spider-Man"), once the brackets and
    punctuation around it are set aside."""
    value = value.strip(_EDGES)
    if len(value) < 4 or _PLACEHOLDER.match(value) or "<" in value or ">" in value:
        return False
    return any(not c.isalpha() and c not in "-'" for c in value)


def _bare_password(value: str) -> bool:
    """A password written right after the word ("deploy with password hunter2hunter2"): it must
    mix letters with digits, so "password reset" and "password policy" (or ``password%20reset&lang=en``
    in a query string) stay prose."""
    value = value.strip(_EDGES)
    return _password_value(value) and any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _quoted_word(value: str) -> bool:
    """A quoted one-word password ("my password is 'sunflower'"): a placeholder or a quoted phrase
    ("is 'too weak'") stays prose; unquoted words never count, since "mi contraseña es segura"
    describes a password."""
    quoted = len(value) >= 2 and value[0] in "\"'`" and value[-1] == value[0]
    inner = value[1:-1] if quoted else ""
    return quoted and len(inner) >= 4 and " " not in inner and not _PLACEHOLDER.match(inner)


def _written_password(value: str) -> bool:
    return _password_value(value) or _quoted_word(value)


#: Words that make a Chinese sentence after 密码是 describe the password rather than give it.
_CJK_PROSE = re.compile(
    r"用户|设置|設置|必须|必須|需要|包含|长度|長度|至少|最少|位数|位數|字符|不能|不可|应该|應該|可以|什么|什麼|多少|自己"
    r"|保管|保存|存储|存儲|加密|错误|錯誤|正确|正確|安全|默认|默認|空|无效|無效|过期|過期|一样|相同|必填|选填|可选|忘|重置"
    r"|修改|更改|泄露|洩露|保密|随机|隨機|复杂|複雜|简单|簡單|管理|哪|吗|嗎|呢|？|\?"
    r"|文字|桁|以上|以下|以内|以內|数字|數字|字母|大小写|大小寫|符号|符號"
)


def _cjk_password(value: str) -> bool:
    """A password written in Chinese characters after 密码是/为 ("我的密码是春天来了"), or any
    quoted one ("密码是「春天来了」"): unquoted, it is prose when it reads as a description (ends in
    的, asks, or names a property: 用户自己设置的, 必填, 加密存储; quoted or not, 「8文字以上」)."""
    inner = value.strip(_EDGES)
    if len(inner) < 2 or _PLACEHOLDER.match(inner) or inner in ("密码", "口令", "密碼"):
        return False
    if value[0] in "「『“\"'" and len(inner) >= 2:
        return not _CJK_PROSE.search(inner)
    return not inner.endswith(("的", "了吗")) and not _CJK_PROSE.search(inner)


def _secret_value(value: str) -> bool:
    """An assigned value that looks like a credential (``DB_PASSWORD=...``, ``aws_secret_access_key
    = ...``): at least 8 characters, not a placeholder or a slug of words, and either with digits
    or symbols among letters or long and mixed-case (what generic scanners call entropy)."""
    value = value.strip(_EDGES)
    if len(value) < 8 or _PLACEHOLDER.match(value) or "<" in value or ">" in value:
        return False
    parts = [p for p in re.split(r"[-_./]", value.lower()) if p]
    if len(parts) >= 2 and all(_SLUG_PART.fullmatch(p) for p in parts):
        return False
    letters = any(c.isalpha() for c in value)
    others = any(not c.isalpha() for c in value)
    mixed = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return (letters and others) or (mixed and len(value) >= 16)


def _url_password(value: str) -> bool:
    """A password in a URL: anything but a template slot (``<pw>``, ``${PW}``, ``***``)."""
    return not re.match(r"^(?:[*x•.]+|<[^>]*>|\$\{?[^}]*\}?|\{[^}]*\}|%s|password|passwd|secret)$", value, re.I)


def _token_value(value: str) -> bool:
    """A token-like value: long, letters and digits, and not a slug of words and numbers
    ("token-expiry-notes-2024", a file or heading named after tokens, is prose)."""
    if len(value) < 16 or not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    parts = [p for p in re.split(r"[-_./]", value.strip("-_./")) if p]
    return len(parts) < 2 or not all(_SLUG_PART.fullmatch(p) for p in parts)


def _luhn_card(value: str) -> bool:
    """A card number in a run of digits: the whole run, or, when the run is written in groups
    (``B17 4111 1111 1111 1111``: a number typed right after another), any consecutive groups."""
    groups = re.split(r"[ -]", value)
    windows = ["".join(groups[i:j]) for i in range(len(groups)) for j in range(i + 1, len(groups) + 1)]
    return any(_is_card(digits) for digits in windows)


def _is_card(digits: str) -> bool:
    from stdnum import luhn

    return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn.is_valid(digits)


def _cn_resident_id(value: str) -> bool:
    from stdnum.cn import ric

    try:
        ric.validate(value)
    except Exception:  # stdnum raises its own ValidationError subclasses and ValueError
        return False
    return True


_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-.+/=]*")
_CARD_PREFIX = re.compile(r"^(?:4|5[1-5]|2[2-7]|3[47]|3[068]|6011|65|64[4-9]|62|35)")

_PROVIDER_RULES = (
    _Rule("openai-key", "OpenAI API key", re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    _Rule("anthropic-key", "Anthropic API key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    _Rule("google-api-key", "Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    _Rule("huggingface-token", "Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    _Rule("github-token", "GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}")),
    _Rule("artifactory-token", "Artifactory token", re.compile(r"(?<![A-Za-z0-9])AKC[a-zA-Z0-9]{10,}(?![A-Za-z0-9])")),
)

_SLUG_PART = re.compile(r"[a-z]+|[0-9]{1,8}|v[0-9]+")
_OTHER_PASSWORD_WORDS = r"(?:passwort|kennwort|contraseña|contrasena|clave|mot\s+de\s+passe|senha|wachtwoord|parola)"

_GENERIC_RULES = (
    _Rule(
        "aws-secret-key",
        "AWS secret access key",
        re.compile(
            r"(?i)\baws[\w .-]{0,30}?(?:secret|key)[\w .-]{0,20}?(?:\s(?:is|was)\s|[:=]|=>)\s*[\"'`]?"
            r"(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"
        ),
        "v",
        _secret_value,
    ),
    _Rule(
        "password",
        "password",
        re.compile(
            rf"(?i)\b{_OTHER_PASSWORD_WORDS}\b(?:\s+(?:für|de|du|pour|para|del|von)(?:\s+[\w@-]+(?:\.[\w@-]+)*){{1,3}}?)?\s*"
            r"(?:ist|lautet|war|es|est|era|était|é|is|:|：|=)\s*(?P<v>\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s,;]{4,})"
        ),
        "v",
        _written_password,
    ),
    _Rule(
        "password",
        "password",
        re.compile(r"(?:パスワード|暗証番号|パスコード)\s*(?:は|が|:|：|=)\s*[「『\"'“]?(?P<v>[!-~]{4,})"),
        "v",
        _password_value,
    ),
    _Rule(
        "password",
        "password",
        re.compile(
            rf"(?i)\b{_PASSWORD_WORD}\b(?:\s+(?:for|of|to|on)(?:\s+[\w@-]+(?:\.[\w@-]+)*){{1,4}}?)?\s*"
            r"(?:is|was|=|:|:=|->|set to|is now)\s*"
            r"(?P<v>\"[^\"\n]{4,}\"|'[^'\n]{4,}'|`[^`\n]{4,}`|[^\s,;]{4,})"
        ),
        "v",
        _written_password,
    ),
    _Rule("password", "password", secrets_words.SENTENCE, "v", lambda v: secrets_words.word_password(v)),
    _Rule("password", "password", secrets_words.GERMAN, "v", lambda v: secrets_words.german_word_password(v)),
    _Rule(
        "password",
        "password",
        re.compile(rf"(?i)\b{_PASSWORD_WORD}\s+(?P<v>[^\s,;.:/]{{6,}})"),
        "v",
        _bare_password,
    ),
    _Rule(
        "password",
        "password",
        re.compile(r"(?:密码|口令|密碼)\s*(?:是|为|為|:|：|=)\s*[「“\"']?(?P<v>[!-~]{4,})"),
        "v",
        _password_value,
    ),
    _Rule(
        "password",
        "password",
        re.compile(
            r"(?:密码|口令|密碼)\s*(?:是|为|為)\s*(?P<v>[「『“\"'][^」』”\"'\n]{2,32}[」』”\"']"
            r"|[^\s。！？!?，,；;、:：\"'「」『』“”]*[\u3400-\u9fff][^\s。！？!?，,；;、:：\"'「」『』“”]*)"
            r"(?=[\s。！？!?，,；;、\"'」』”）)]|$)"
        ),
        "v",
        _cjk_password,
    ),
    _Rule(
        "password",
        "password",
        re.compile(r"(?:パスワード|暗証番号|パスコード|密码|口令|密碼)\s*(?:は|が|:|：|=)\s*(?P<v>[「『“][^」』”\n]{2,32}[」』”])"),
        "v",
        _cjk_password,
    ),
    _Rule(
        "credentials-in-url",
        "connection string or URL with a password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@?#]+:(?P<v>[^\s@/?#]+)@[^\s/?#]+"),
        "v",
        _url_password,
    ),
    _Rule("api-key", "secret key (sk-...)", re.compile(r"\bsk-[A-Za-z0-9]{32,}\b")),
    _Rule(
        "api-key",
        "API key or access token",
        re.compile(
            r"(?i)\b(?:api[_ -]?key|apikey|access[_ -]?token|auth[_ -]?token|secret[_ -]?key|client[_ -]?secret"
            r"|private[_ -]?token|bearer|token)\b[\"']?\s*(?:[:=]|:=|is)?\s*[\"']?(?P<v>[A-Za-z0-9_\-./+=]{16,})"
        ),
        "v",
        _token_value,
    ),
    _Rule(
        "assignment",
        "credential assignment (.env, export, credentials file)",
        re.compile(
            r"(?i)(?<![\w.-])(?:[\w.-]*(?:secret|passw(?:or)?d)|(?:[\w.-]*[_.-])?(?:pwd|token|api_?key|access_?key"
            r"|private_?key|credentials?|auth))(?:[_.-](?:key|base|value|b64))?\s*[:=]\s*[\"'`]?(?P<v>[^\s\"'`,;]{8,})"
        ),
        "v",
        _secret_value,
    ),
    _Rule(
        "payment-card",
        "payment card number",
        re.compile(r"(?<![\d-])(?:\d[ -]?){12,38}\d(?![\d-])"),
        0,
        _luhn_card,
    ),
    _Rule(
        "cn-resident-id",
        "Chinese resident ID number",
        re.compile(r"(?<![0-9A-Za-z])[1-9]\d{16}[\dXx](?![0-9A-Za-z])"),
        0,
        _cn_resident_id,
    ),
    *(_Rule("id-document", "ID document number (passport, ID card, driving licence)", pattern, "v",
            secrets_ids.is_number) for pattern in secrets_ids.PATTERNS),
)


@functools.cache
def _library_rules() -> tuple[_Rule, ...]:
    """The detect-secrets plugins' patterns (:mod:`memfs.policy.secrets_library`; on first scan)."""
    return tuple(_Rule(secrets_library.PLUGINS[p.module][1], secrets_library.PLUGINS[p.module][2], p.pattern, 0,
                       p.accept) for p in secrets_library.plugin_patterns())


def _mask(value: str) -> str:
    value = value.strip()
    shown = value[:4] if len(value) > 8 else value[:1]
    return f"{shown}… ({len(value)} characters)"


def _matches(rule: _Rule, line: str) -> Iterator[tuple[int, int, str]]:
    for match in rule.pattern.finditer(line):
        group = rule.group
        if group == 0 and match.lastindex and match.end(match.lastindex) >= match.end() - 1:
            group = match.lastindex  # a value group (``key = (value)``), not a prefix's (``(ghp|gho)_...``)
        value = match.group(group)
        if not value:
            continue
        if rule.accept is not None and not rule.accept(value):
            continue
        end = match.end(group)
        if rule.slug == "jwt":
            tail = _JWT_TAIL.match(line, end)
            if tail is not None:
                end = tail.end()
        yield match.start(group), end, line[match.start(group) : end]


def normalized(text: str) -> tuple[str, list[int]]:
    """``text`` as the scanner reads it, and where each of its characters came from: see
    :func:`memfs.policy.secrets_decode.skeleton` (ignorables dropped, NFKC, look-alikes folded)."""
    return secrets_decode.skeleton(text)


#: Rules that read runs of digits: a joined line break would make one number of two.
_DIGIT_SLUGS = frozenset({"secret/payment-card", "secret/cn-resident-id", "secret/id-document"})


def scan(text: str, depth: int = 0) -> list[Finding]:
    """Every secret in ``text``, in order of position; overlapping findings are reported once.
    Text is read :func:`normalized`, and also decoded (:mod:`memfs.policy.secrets_decode`: HTML,
    percent-encoding, escapes, base64 runs, wrapped lines); offsets, lines and columns refer to
    ``text`` as given (a finding in a decoded run points to the run)."""
    if text in _clean:
        return []
    found = _read(text)
    decoded = secrets_decode.unescaped(text)
    if decoded is not None:  # decoded text is read whole again: escapes of escapes, wrapped lines, base64
        again = scan(decoded[0], depth + 1) if depth < 2 else _read(decoded[0])
        _add(found, _relocate(again, decoded[1], text))
    wrapped = secrets_decode.joined(text)
    if wrapped is not None:
        _add(found, _relocate(_across(wrapped[0], wrapped[2]), wrapped[1], text))
    if depth < 2 and len(text) >= 20:
        for start, end, inner in secrets_decode.base64_runs(text):
            origin = [start] * len(inner) + [end]
            _add(found, _relocate(scan(inner, depth + 1), origin, text))
    if not found and len(text) <= _CLEAN_CHARS:
        if len(_clean) >= _CLEAN_MAX:
            _clean.clear()
        _clean[text] = None
    return sorted(found, key=lambda f: f.start)


def _across(joined: str, joins: list[int]) -> list[Finding]:
    """The findings in a text whose wrapped lines were ``joined`` that can run across a join: a
    join follows the finding's start within its line (a rule may report only a token's prefix)."""
    return [
        f for f in _read(joined)
        if f.rule not in _DIGIT_SLUGS
        and any(f.start < j <= f.start + 200 and "\n" not in joined[f.start : j] for j in joins)
    ]


def _read(text: str) -> list[Finding]:
    """The findings in ``text`` read as its skeleton, with offsets into ``text``."""
    if text.isascii():
        return _scan_lines(text)
    folded, origin = normalized(text)
    return _relocate(_scan_lines(folded), origin, text)


def _relocate(found: list[Finding], origin: list[int], text: str) -> list[Finding]:
    """``found`` (offsets into a text derived from ``text``) with offsets, lines and columns in
    ``text``, through ``origin`` (derived offset → ``text`` offset)."""
    out = []
    for finding in found:
        start = origin[finding.start]
        end = max(origin[max(finding.end - 1, finding.start)] + 1, origin[finding.end], start + 1)
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        out.append(dataclasses.replace(finding, start=start, end=end, line=line, column=column))
    return out


def _add(found: list[Finding], more: list[Finding]) -> None:
    """Add the findings of ``more`` that overlap none already in ``found``."""
    for finding in more:
        if not any(finding.start < f.end and f.start < finding.end for f in found):
            found.append(finding)


def scan_values(value: object, scanned: str = "") -> list[Finding]:
    """Every secret in the strings of ``value`` at any depth (mappings' keys and values, lists),
    as YAML or JSON parsed them: what a frontmatter field holds after its escapes are decoded.
    Strings that appear verbatim in ``scanned`` (text already scanned) are skipped: only a value
    whose written form differs (escapes, folded lines) needs a scan of its own."""
    found: list[Finding] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item not in scanned:
                found.extend(scan(item))
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set):
            stack.extend(item)
    return found


@functools.cache
def _rules() -> tuple[_Rule, ...]:
    """Every rule a text is searched by, in the order findings are reported."""
    return _PROVIDER_RULES + _library_rules() + _GENERIC_RULES


@functools.cache
def _anywhere(i: int) -> re.Pattern[str]:
    """Rule ``i``'s pattern in multi-line mode: one search of a whole text says whether the rule
    can match any of its lines (``^``/``$`` match at every line, and lines keep their line ends,
    so the whole-text search finds at least what the line-by-line one would). Compiled when a text
    first needs it: an ASCII text is searched only by the rules whose strings it holds, and
    compiling all ~60 took ~25 ms of every process that scanned once (a CLI ``remember``)."""
    pattern = _rules()[i].pattern
    return re.compile(pattern.pattern, pattern.flags | re.MULTILINE)


@functools.cache
def _required() -> tuple[tuple[frozenset[str] | None, _Rule], ...]:
    """For each rule of :func:`_rules`, the strings one of which any match contains (``None``:
    always searched), lower-cased unless the rule is :func:`_cased`, so an ASCII text need only be
    searched by the rules whose strings it holds."""
    out = []
    for rule in _rules():
        needed = regex_literals.required(rule.pattern)
        cased = _cased(rule.pattern)
        out.append((None if needed is None else frozenset(n if cased else n.lower() for n in needed), rule))
    return tuple(out)


def _cased(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern`` matches letters only in the case written (no ``re.I``, no ``(?i``
    anywhere): its required strings may then be looked for as written, so an upper-case acronym
    ("SIN") is not looked for in every "using"."""
    return not pattern.flags & re.IGNORECASE and "(?i" not in pattern.pattern


def _candidates(text: str) -> list[_Rule]:
    """The rules that can match somewhere in ``text`` (a whole-text search each). For ASCII text a
    rule whose required strings do not occur (case-folded, unless the rule is :func:`_cased`) is
    skipped first: ASCII case folding is exact, so this never drops a rule that could match, and
    most texts hold none of the strings."""
    rules = _rules()
    if not text.isascii():
        return [rule for i, rule in enumerate(rules) if _anywhere(i).search(text)]
    lowered = text.lower()
    always, folded, cased = _needles()
    chosen = set(always)
    for needles, seen in ((folded, lowered), (cased, text)):
        for needle, admitted in needles.items():
            if needle in seen:
                chosen.update(admitted)
    return [rules[i] for i in sorted(chosen) if _anywhere(i).search(text)]


@functools.cache
def _needles() -> tuple[tuple[int, ...], dict[str, tuple[int, ...]], dict[str, tuple[int, ...]]]:
    """The rules (by position in :func:`_rules`) searched in every text, and for each required
    string the rules it admits, case-folded and (for :func:`_cased` rules) as written: each string
    is looked for once per text."""
    always: list[int] = []
    by_needle: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    for i, (needed, rule) in enumerate(_required()):
        if needed is None:
            always.append(i)
        for needle in needed or ():
            by_needle[_cased(rule.pattern)].setdefault(needle, []).append(i)
    folded, cased = ({needle: tuple(rules) for needle, rules in d.items()} for d in by_needle)
    return tuple(always), folded, cased


#: Short texts found clean, remembered (at most :data:`_CLEAN_MAX`, then forgotten at once): the
#: guard scans what each change adds, and a retraction adds the same lines (its status, its
#: record, a timestamp) to a thousand files. Only clean texts are kept, never one with a secret.
_clean: dict[str, None] = {}
_CLEAN_MAX = 512
_CLEAN_CHARS = 2048


def _scan_lines(text: str) -> list[Finding]:
    found: list[Finding] = []
    offset = 0
    rules = _candidates(text)
    if not rules:
        return found
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        taken: list[tuple[int, int]] = []
        for rule in rules:
            for start, end, value in _matches(rule, line):
                if any(start < e and s < end for s, e in taken):
                    continue
                taken.append((start, end))
                found.append(
                    Finding(
                        f"secret/{rule.slug}",
                        rule.kind,
                        offset + start,
                        offset + end,
                        number,
                        start + 1,
                        _mask(value),
                    )
                )
        offset += len(line)
    return sorted(found, key=lambda f: f.start)
