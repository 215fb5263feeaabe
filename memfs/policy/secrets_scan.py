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
numbers (Luhn check plus a card-network prefix) and 18-digit Chinese resident ID numbers (birth
date and ISO 7064 MOD 11-2 check digit, via ``python-stdnum``).

Every finding says which rule fired and where (offset, line, column); the secret itself is never
echoed back, only a masked preview.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

#: The standard library's own regex parser (no typing stubs): what :func:`_required` reads.
_parser: Any = importlib.import_module("re._parser")
_sre: Any = importlib.import_module("re._constants")

#: detect-secrets plugins whose patterns are specific enough for prose.
_DETECT_SECRETS_PLUGINS = {
    "aws": ("AWSKeyDetector", "aws-access-key", "AWS access key"),
    "artifactory": ("ArtifactoryDetector", "artifactory-token", "Artifactory token"),
    "azure_storage_key": ("AzureStorageKeyDetector", "azure-storage-key", "Azure storage account key"),
    "discord": ("DiscordBotTokenDetector", "discord-token", "Discord bot token"),
    "github_token": ("GitHubTokenDetector", "github-token", "GitHub token"),
    "gitlab_token": ("GitLabTokenDetector", "gitlab-token", "GitLab token"),
    "jwt": ("JwtTokenDetector", "jwt", "JSON Web Token"),
    "mailchimp": ("MailchimpDetector", "mailchimp-key", "Mailchimp API key"),
    "npm": ("NpmDetector", "npm-token", "npm token"),
    "openai": ("OpenAIDetector", "openai-key", "OpenAI API key"),
    "private_key": ("PrivateKeyDetector", "private-key", "private key"),
    "pypi_token": ("PypiTokenDetector", "pypi-token", "PyPI token"),
    "sendgrid": ("SendGridDetector", "sendgrid-key", "SendGrid API key"),
    "slack": ("SlackDetector", "slack-token", "Slack token"),
    "square_oauth": ("SquareOAuthDetector", "square-oauth-secret", "Square OAuth secret"),
    "stripe": ("StripeDetector", "stripe-key", "Stripe key"),
    "telegram_token": ("TelegramBotTokenDetector", "telegram-token", "Telegram bot token"),
    "twilio": ("TwilioKeyDetector", "twilio-key", "Twilio API key"),
}


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
    r"^(?:[*x•.]+|<[^>]*>|\$\{?[^}]*\}?|\{[^}]*\}|%s|password|passwd|secret|pass|changeme)$", re.I
)
_PASSWORD_WORD = r"(?:pass(?:word|wd|phrase|code)?|pwd|pw|pin(?:\s+code)?)"


def _password_value(value: str) -> bool:
    """A real-looking password: not a placeholder and not a plain word ("is stored in the vault")."""
    value = value.strip("\"'`")
    if len(value) < 4 or _PLACEHOLDER.match(value):
        return False
    return any(not c.isalpha() for c in value)


def _bare_password(value: str) -> bool:
    """A password written right after the word ("deploy with password hunter2hunter2"): it must
    mix letters with digits or symbols, so "password reset" and "password policy" stay prose."""
    return _password_value(value) and any(c.isalpha() for c in value)


_SLUG_PART = re.compile(r"[a-z]+|[0-9]{1,8}|v[0-9]+")


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

_GENERIC_RULES = (
    _Rule(
        "password",
        "password",
        re.compile(
            rf"(?i)\b{_PASSWORD_WORD}\b(?:\s+(?:for|of|to)\s+[\w.@-]+)?\s*(?:is|was|=|:|:=|->|set to|is now)\s*"
            r"(?P<v>\"[^\"\n]{4,}\"|'[^'\n]{4,}'|`[^`\n]{4,}`|[^\s,;]{4,})"
        ),
        "v",
        _password_value,
    ),
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
        re.compile(r"(?:密码|口令|密碼)\s*(?:是|为|為|:|：|=)\s*(?P<v>[^\s，。,;；]{4,})"),
        "v",
        lambda v: not _PLACEHOLDER.match(v),
    ),
    _Rule(
        "credentials-in-url",
        "connection string or URL with a password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@?#]+:(?P<v>[^\s@/?#]+)@[^\s/?#]+"),
        "v",
        lambda v: not _PLACEHOLDER.match(v),
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
)


@functools.cache
def _library_rules() -> tuple[_Rule, ...]:
    """The detect-secrets plugins' patterns (loaded once, on first scan)."""
    rules = []
    for module, (cls, slug, kind) in _DETECT_SECRETS_PLUGINS.items():
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), cls)
        accept = getattr(plugin, "is_formally_valid", None)
        for pattern in plugin.denylist:
            rules.append(_Rule(slug, kind, pattern, 0, accept))
    return tuple(rules)


def _mask(value: str) -> str:
    value = value.strip()
    shown = value[:4] if len(value) > 8 else value[:1]
    return f"{shown}… ({len(value)} characters)"


def _matches(rule: _Rule, line: str) -> Iterator[tuple[int, int, str]]:
    for match in rule.pattern.finditer(line):
        group = rule.group
        if group == 0 and match.lastindex:
            group = match.lastindex
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
    """``text`` as the scanner reads it, and where each of its characters came from.

    Invisible format characters (Unicode category ``Cf``: zero-width spaces and joiners, the
    byte-order mark, soft hyphens, bidirectional marks...) are dropped and every other character
    is NFKC-folded (full-width ``ＡＫＩＡ`` reads as ``AKIA``), so a token split or disguised by
    them is still found. ``origin[i]`` is the offset in ``text`` of normalised character ``i``
    (with one extra entry for the end), so findings point into the text as written.
    """
    out: list[str] = []
    origin: list[int] = []
    for position, char in enumerate(text):
        if char.isascii():
            out.append(char)
            origin.append(position)
            continue
        if unicodedata.category(char) == "Cf":
            continue
        for folded in unicodedata.normalize("NFKC", char):
            out.append(folded)
            origin.append(position)
    origin.append(len(text))
    return "".join(out), origin


def scan(text: str) -> list[Finding]:
    """Every secret in ``text``, in order of position; overlapping findings are reported once.
    Text is read :func:`normalized`; offsets, lines and columns refer to ``text`` as given."""
    if text.isascii():
        return _scan_plain(text)
    folded, origin = normalized(text)
    found = []
    for finding in _scan_plain(folded):
        start, end = origin[finding.start], origin[finding.end - 1] + 1
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        found.append(dataclasses.replace(finding, start=start, end=end, line=line, column=column))
    return found


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
def _prefilters() -> tuple[tuple[_Rule, re.Pattern[str]], ...]:
    """Each rule with its pattern in multi-line mode: one search of a whole text says whether the
    rule can match any of its lines (``^``/``$`` match at every line, and lines keep their line
    ends, so the whole-text search finds at least what the line-by-line one would)."""
    rules = _PROVIDER_RULES + _library_rules() + _GENERIC_RULES
    return tuple((rule, re.compile(rule.pattern.pattern, rule.pattern.flags | re.MULTILINE)) for rule in rules)


def _required(items: Any) -> frozenset[str] | None:
    """Strings one of which every match of the parsed regex ``items`` contains (each a run of
    literal characters it must match in a row), or ``None`` when no such set is known. Read off
    the parse tree: a run of literals in sequence (joined to the literal start of every branch
    right after it), a group, a repeat of at least one, or one alternative of each branch;
    lookarounds and anything optional are never relied on."""
    best: frozenset[str] | None = None
    run: list[str] = []

    def keep(found: frozenset[str] | None) -> None:
        nonlocal best
        if found and (best is None or min(map(len, found)) > min(map(len, best))):
            best = found

    for op, arg in [*items, (None, None)]:
        if op is _sre.LITERAL:
            run.append(chr(arg))
            continue
        before = "".join(run)
        keep(frozenset([before]) if before else None)
        run = []
        if op is _sre.SUBPATTERN:
            keep(_required(arg[-1]))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT, _sre.POSSESSIVE_REPEAT) and arg[0] >= 1:
            keep(_required(arg[2]))
        elif op is _sre.BRANCH:
            alternatives = [_required(branch) for branch in arg[1]]
            if all(alternatives):
                keep(frozenset().union(*alternatives))  # type: ignore[arg-type]
            heads = [_leading_literals(branch) for branch in arg[1]]
            if before and all(heads):
                keep(frozenset(before + head for head in heads))
    return best


def _leading_literals(items: Any) -> str:
    """The literal characters a parsed regex sequence starts with (``""`` if none)."""
    head = []
    for op, arg in items:
        if op is not _sre.LITERAL:
            break
        head.append(chr(arg))
    return "".join(head)


@functools.cache
def _literal_prefilters() -> tuple[tuple[frozenset[str] | None, _Rule, re.Pattern[str]], ...]:
    """:func:`_prefilters` with, for each rule, the lower-cased strings one of which any match
    contains (``None``: always searched), so an ASCII text need only be searched by the rules
    whose strings it holds."""
    out = []
    for rule, anywhere in _prefilters():
        needed = _required(_parser.parse(rule.pattern.pattern, rule.pattern.flags))
        out.append((None if needed is None else frozenset(n.lower() for n in needed), rule, anywhere))
    return tuple(out)


def _candidates(text: str) -> list[_Rule]:
    """The rules that can match somewhere in ``text`` (a whole-text search each). For ASCII text a
    rule whose required strings (case-folded) do not occur is skipped first: ASCII case folding is
    exact, so this never drops a rule that could match, and most texts hold none of the strings."""
    if not text.isascii():
        return [rule for rule, anywhere in _prefilters() if anywhere.search(text)]
    lowered = text.lower()
    return [
        rule for needed, rule, anywhere in _literal_prefilters()
        if (needed is None or any(n in lowered for n in needed)) and anywhere.search(text)
    ]


#: Short texts found clean, remembered (at most :data:`_CLEAN_MAX`, then forgotten at once): the
#: guard scans what each change adds, and a retraction adds the same lines (its status, its
#: record, a timestamp) to a thousand files. Only clean texts are kept, never one with a secret.
_clean: dict[str, None] = {}
_CLEAN_MAX = 512
_CLEAN_CHARS = 2048


def _scan_plain(text: str) -> list[Finding]:
    """Line by line, with only the rules a whole-text search says can match (most texts: none)."""
    if text in _clean:
        return []
    found = _scan_lines(text)
    if not found and len(text) <= _CLEAN_CHARS:
        if len(_clean) >= _CLEAN_MAX:
            _clean.clear()
        _clean[text] = None
    return found


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
