"""YAML for frontmatter: a strict fast reader, one canonical writer, and a minimal-diff editor.

Reading uses PyYAML's C loader (what python-frontmatter uses underneath, ~0.2 ms a file) with
duplicate keys turned into errors instead of "last one wins".

Writing never round-trips the whole mapping through a YAML dumper: :func:`edit` replaces only the
lines of the keys that change and leaves every other byte alone (comments, quoting, key order,
flow or block lists), then re-parses the result to prove that exactly the intended values
changed. Values are rendered by :func:`scalar`, which quotes anything that YAML 1.1 (PyYAML) and
YAML 1.2 (ruamel, most other tools) would read differently, such as ``yes``, ``0123``, ``1.10``
or ``12:30``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import re
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import yaml

from memfs.format import limits as _limits

if TYPE_CHECKING:
    _LoaderBase = yaml.SafeLoader
else:
    # The C loader when PyYAML was built with libyaml; both have the SafeLoader interface used here.
    _LoaderBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlError(ValueError):
    """Frontmatter YAML that does not parse; ``line`` is 1-based within the frontmatter."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


_STR_TAG = "tag:yaml.org,2002:str"
#: :meth:`_StrictLoader.resolve`'s answers for short scalars; frontmatter repeats its keys and
#: many values file after file. Emptied when it reaches :data:`_RESOLVED_MAX` entries.
_resolved: dict[tuple[Any, str, tuple[bool, bool]], str] = {}
_RESOLVED_MAX = 4096
_RESOLVED_CHARS = 64
_base_resolve: Any = _LoaderBase.resolve


class _StrictLoader(_LoaderBase):
    """Safe loader that refuses duplicate keys (PyYAML silently keeps the last one).

    Two shortcuts that give the values PyYAML gives (a frontmatter load is ~30 scalars, so
    PyYAML's per-scalar Python calls were most of its cost): a scalar's implicit tag is
    remembered per (kind, text, implicit) (this loader has no path resolvers, so the tag depends
    on nothing else), and a string scalar is its text, without the constructor dispatch."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not yaml.ScalarNode or len(value) > _RESOLVED_CHARS:
            return _base_resolve(self, kind, value, implicit)
        key = (kind, value, implicit)
        tag = _resolved.get(key)
        if tag is None:
            if len(_resolved) >= _RESOLVED_MAX:
                _resolved.clear()
            tag = _resolved[key] = _base_resolve(self, kind, value, implicit)
        return tag

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        if node.__class__ is yaml.ScalarNode and node.tag == _STR_TAG:
            return node.value
        return super().construct_object(node, deep=deep)


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
    seen: set[Hashable] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, list | dict):
            continue
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    """A timestamp-shaped value that is not a real date (``2026-13-45``) stays a string, so
    validation can say which field is wrong instead of the whole file failing to load."""
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> Any:
    """An integer within ``Limits.int_digits``, checked on the text before converting it."""
    if not _limits.digits_ok(str(node.value)):
        raise yaml.constructor.ConstructorError(
            None, None, f"an integer over the {_limits.DEFAULT.int_digits}-digit limit", node.start_mark
        )
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)
_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load(text: str, limits: _limits.Limits = _limits.DEFAULT) -> Any:
    """Parse frontmatter YAML; raise :class:`YamlError` with the line number on any error.

    This is the one YAML reader of memfs, and nothing a text holds gets past it as anything but a
    :class:`YamlError`: parser errors, values Python cannot build, and the :mod:`limits
    <memfs.format.limits>` (nesting, values counted with aliases expanded, integer digits, text
    length), so a self-referencing anchor or an alias bomb is refused before anyone compares or
    walks the value."""
    try:
        value = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlError(str(problem), line) from None
    except RecursionError:
        raise YamlError(f"is nested deeper than {limits.depth} levels (limits.depth)") from None
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:
        raise YamlError(f"has a value that cannot be read ({type(exc).__name__}: {exc})"[:300]) from None
    try:
        _limits.check(value, limits)
    except _limits.LimitError as exc:
        raise YamlError(str(exc)) from None
    return value


_YAML11_WORDS = re.compile(
    r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|null|Null|NULL|~|"
)
_NUMBERISH = re.compile(r"[-+]?(\.?[0-9_][0-9_:.]*([eE][-+]?[0-9]+)?|\.(inf|Inf|INF|nan|NaN|NAN))")
_PLAIN_SAFE = re.compile(r"[^\s\"'!&*|>%@`#,\[\]{}?:-][^\n\r\t]*")


@functools.lru_cache(maxsize=8192)
def item_lines(text: str, key: str | None = None) -> list[int]:
    """The line (1-based) where each item of the document's top-level list begins, or of the list
    under ``key`` of a top-level mapping: for errors that name the line of a list item. ``[]``
    when the document has no such list (the caller's own check says what is wrong)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return []
    if key is not None and isinstance(node, yaml.MappingNode):
        node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
    if not isinstance(node, yaml.SequenceNode):
        return []
    return [item.start_mark.line + 1 for item in node.value]


def _plain_ok(value: str) -> bool:
    if _YAML11_WORDS.fullmatch(value) or _NUMBERISH.fullmatch(value):
        return False
    if not _PLAIN_SAFE.fullmatch(value) or value != value.strip() or not value.isprintable():
        return False
    if ": " in value or " #" in value or value.endswith(":") or "\ufeff" in value:
        return False
    try:
        loaded: object = yaml.load(f"k: {value}\n", Loader=_StrictLoader)
        return loaded == {"k": value}
    except yaml.YAMLError:
        return False


def format_time(value: dt.datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, whole seconds unless the value has microseconds."""
    value = value.astimezone(dt.UTC)
    text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
    return text.replace("+00:00", "Z")


def scalar(value: Any) -> str:
    """Render one value as flow YAML that PyYAML and YAML 1.2 parsers read back identically
    (a float in exponent form gets a ``.0``: YAML 1.1 reads ``1e-05`` as a string)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a finite number")
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text
    if isinstance(value, dt.datetime):
        return format_time(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return value if _plain_ok(value) else _double_quoted(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_flow_item(str(k))}: {_flow_item(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, Iterable):
        return "[" + ", ".join(_flow_item(v) for v in value) + "]"
    raise TypeError(f"cannot write a {type(value).__name__} into frontmatter")


def _double_quoted(value: str) -> str:
    """A JSON string (valid YAML) with every non-printable character escaped, since YAML
    readers reject raw control characters and treat U+0085/U+2028 as line breaks."""
    text = json.dumps(value, ensure_ascii=False)
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _flow_item(value: Any) -> str:
    text = scalar(value)
    if isinstance(value, str) and text == value and not _flow_plain_ok(value):
        return _double_quoted(value)
    return text


@functools.lru_cache(maxsize=8192)
def _flow_plain_ok(value: str) -> bool:
    """Whether ``value``, plain in a block (``k: 0:?``), is also plain inside ``[...]`` and
    ``{...}``, where YAML reads ``,[]{}`` and a ``:`` differently."""
    if any(c in value for c in ",[]{}"):
        return False
    try:
        loaded = yaml.load(f"k: [{value}]\nm: {{x: {value}}}\n", Loader=_StrictLoader)
    except yaml.YAMLError:
        return False
    return bool(loaded == {"k": [value], "m": {"x": value}})


def render(fields: Mapping[str, Any], order: Iterable[str] = ()) -> str:
    """The canonical frontmatter for a new file: known keys in ``order``, then the rest."""
    order = list(order)
    keys = [k for k in order if k in fields] + [k for k in fields if k not in order]
    return "".join(f"{k}: {scalar(fields[k])}\n" for k in keys if fields[k] is not None)


_TOP_KEY = re.compile(r"(?P<key>[^\s#'\"\-?:][^:#]*?|\"[^\"]*\"|'[^']*')[ \t]*:(?:[ \t]|$)")


def _key_of(line: str) -> str | None:
    match = _TOP_KEY.match(line)
    if match is None:
        return None
    key = match.group("key")
    return key[1:-1] if key[:1] in "\"'" else key


def _spans(lines: list[str]) -> dict[str, tuple[int, int]]:
    """Line ranges [start, end) of every top-level key, continuation lines included."""
    spans: dict[str, tuple[int, int]] = {}
    current: str | None = None
    start = 0
    for i, line in enumerate(lines):
        key = _key_of(line)
        if key is not None or not (line[:1] in (" ", "\t") or line.startswith("- ") or line.rstrip() == "-"):
            if current is not None:
                spans[current] = (start, i)
                current = None
            if key is not None:
                current, start = key, i
    if current is not None:
        spans[current] = (start, len(lines))
    return spans


def key_lines(frontmatter: str) -> dict[str, tuple[int, int]]:
    """0-based [start, end) line ranges of each top-level key in a frontmatter text."""
    return _spans(frontmatter.splitlines(keepends=True))


def written_values(frontmatter: str) -> dict[str, str]:
    """The text each single-line top-level value is written as, its inline comment left out.

    A fix that says "quote it" must quote what the person wrote: YAML reads ``version: 1.10`` as
    the float 1.1, and suggesting ``"1.1"`` would change the value."""
    lines = frontmatter.splitlines()
    out: dict[str, str] = {}
    for key, (start, end) in _spans(lines).items():
        match = _TOP_KEY.match(lines[start])
        if end - start != 1 or match is None:
            continue
        value = lines[start][match.end() :]
        comment = _trailing_comment(lines[start])
        out[key] = (value[: -len(comment)] if comment and value.endswith(comment) else value).strip()
    return out


def _trailing_comment(line: str) -> str:
    """An inline ``# comment`` after an unquoted single-line value, to keep on edit."""
    value = line.split(":", 1)[1] if ":" in line else ""
    if "'" in value or '"' in value:
        return ""
    match = re.search(r"([ \t]+#.*)$", value.rstrip("\r\n"))
    return match.group(1) if match else ""


def edit(frontmatter: str, changes: Mapping[str, Any], newline: str = "\n") -> str:
    """Set top-level keys (``None`` removes one) touching only their own lines.

    New keys are appended at the end. The result is re-parsed and compared with the intended
    mapping; any difference raises ``ValueError`` so a file is never written wrong.
    """
    return edit_checked(frontmatter, changes, newline)[0]


def edit_checked(frontmatter: str, changes: Mapping[str, Any], newline: str = "\n",
                 before: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """:func:`edit`, also returning the re-parsed mapping; ``before`` (the already parsed
    ``frontmatter``) saves a parse when the caller has it."""
    if before is None:
        before = load(frontmatter) if frontmatter.strip() else {}
    lines = frontmatter.splitlines(keepends=True)
    spans = _spans(lines)
    replacements: list[tuple[int, int, list[str]]] = []
    appended: list[str] = []
    for key, value in changes.items():
        new = [] if value is None else [f"{key}: {scalar(value)}"]
        if key in spans:
            start, end = spans[key]
            if new and end - start == 1:
                new[0] += _trailing_comment(lines[start])
            replacements.append((start, end, [line + newline for line in new]))
        elif new:
            appended.extend(line + newline for line in new)
    for start, end, new_lines in sorted(replacements, reverse=True):
        lines[start:end] = new_lines
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    result = "".join(lines + appended)
    return result, _check_edit(before, changes, result)


def as_loaded(value: Any) -> Any:
    """What reading ``scalar(value)`` back gives, without a YAML round trip for plain types."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value
    if isinstance(value, list | tuple):
        return [as_loaded(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): as_loaded(v) for k, v in value.items()}
    return load(f"v: {scalar(value)}\n")["v"]


def _check_edit(before: Any, changes: Mapping[str, Any], result: str) -> dict[str, Any]:
    expected = dict(before or {})
    for key, value in changes.items():
        if value is None:
            expected.pop(key, None)
        else:
            expected[key] = as_loaded(value)
    actual = load(result) if result.strip() else {}
    if actual != expected:
        raise ValueError("the frontmatter could not be edited without touching other keys")
    return actual
