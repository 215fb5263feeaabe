"""Parsing that cannot be weaponised: every hostile value is one error naming its limit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memfs.errors import InvalidConfig, InvalidMemory, one_line
from memfs.format import limits, yamlio
from memfs.format.config import parse_config
from memfs.format.parse import check_bytes, parse

_BOMB = "".join(
    f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9 if prev else [str(i) for i in range(9)]) + "]\n"
    for name, prev in zip("abcdefg", ["", *"abcdef"], strict=True)
)

HOSTILE_YAML = {
    "huge integer": ("revision: " + "9" * 5000 + "\n", "100-digit limit"),
    "huge hex integer": ("revision: 0x" + "f" * 500 + "\n", "100-digit limit"),
    "self-referencing anchor": ("x: &a [*a]\n", "refers to itself"),
    "alias bomb": (_BOMB, "more than 10000 values"),
    "deep nesting": ("x: " + "[" * 3000 + "]" * 3000 + "\n", "nest"),
    "long text": ("description: " + "x" * 100_001 + "\n", "100000-character limit"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_frontmatter_is_one_yaml_error(name: str):
    text, says = HOSTILE_YAML[name]
    with pytest.raises(yamlio.YamlError) as caught:
        yamlio.load(text)
    assert says in str(caught.value)
    with pytest.raises(InvalidMemory) as invalid:
        parse("facts/x.md", f"---\n{text}---\nbody\n".encode())
    assert "\n" not in str(invalid.value) and says in str(invalid.value)


HOSTILE_JSON = {
    "NaN": ('{"fields": {"confidence": NaN}}', "NaN"),
    "Infinity": ('{"x": -Infinity}', "Infinity"),
    "overflowing float": ('{"x": 1e999}', "not finite"),
    "huge integer": ('{"x": ' + "9" * 5000 + "}", "100-digit limit"),
    "deep nesting": ("[" * 3000 + "]" * 3000, "nested deeper"),
    "lone surrogate": ('{"body": "\\ud800"}', "lone surrogate"),
    "not UTF-8": (b'{"x": "\xff"}', "not UTF-8"),
    "not JSON": ("{x", "not valid JSON"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_JSON))
def test_hostile_json_is_one_value_error(name: str):
    data, says = HOSTILE_JSON[name]
    with pytest.raises(ValueError, match=says):
        limits.load_json(data)


def test_json_strings_may_be_as_long_as_a_file():
    assert limits.load_json('{"body": "' + "x" * 500_000 + '"}')["body"] == "x" * 500_000


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"---\nid: a\n---\nhello\x00world\n", "NUL"),
        (b"---\nid: a\n---\nbell\x07\n", "control byte 0x07"),
        (b"---\nid: a\n---\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n", "conflict markers"),
        (b"---\nid: a\n---\n\xff\n", "not UTF-8"),
        (b"---\nid: a\n---\n" + b"x" * 1_000_001, "1000000-byte limit"),
    ],
)
def test_bytes_that_are_never_a_memory(data: bytes, says: str):
    with pytest.raises(InvalidMemory, match=says):
        check_bytes("facts/x.md", data)
    with pytest.raises(InvalidMemory, match=says):
        parse("facts/x.md", data)


def test_tabs_and_line_endings_are_text():
    assert check_bytes("facts/x.md", b"---\nid: a\r\n---\n\tindented\r\n") is not None


def test_limits_are_configurable_and_bounded():
    config = parse_config("[limits]\ndepth = 4\nint_digits = 10\n")
    assert config.limits.depth == 4 and config.limits.int_digits == 10
    assert config.limits.nodes == limits.DEFAULT.nodes
    with pytest.raises(yamlio.YamlError, match="deeper than 4"):
        yamlio.load("x: [[[[[1]]]]]\n", config.limits)
    for bad in ("depth = 0", "depth = 1000", "int_digits = 'ten'", "nodes = true"):
        with pytest.raises(InvalidConfig, match=r"\[limits\]"):
            parse_config(f"[limits]\n{bad}\n")


def test_one_line_for_any_exception():
    assert one_line(ValueError("a\nb")) == "internal error (ValueError: a); run with --debug for details"
    assert one_line(RecursionError()) == "the input is nested too deeply to handle"
    assert "\n" not in one_line(OSError(36, "File name too long", "x" * 5000))
    assert len(one_line(KeyError("k" * 10_000))) <= 500


_YAMLISH = st.sampled_from(
    ["a", "b", ": ", "\n", "  ", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "&b ", "*b", "!!", "!!python/object ",
     "'", '"', "\\u", "#", "|", ">", "?", "9" * 40, "0x", "1e999", ".nan", "~", "2026-13-45", "\t", "\x00", "\ud800",
     "\u2028", "\ufeff", "---", "...", "%YAML 1.1\n", "<<: *a", "id", "revision", "depends_on"]
)


@settings(max_examples=200, derandomize=True)
@given(st.lists(_YAMLISH, max_size=40).map("".join), st.binary(max_size=40))
def test_fuzz_any_frontmatter_is_a_value_or_one_error(frontmatter: str, body: bytes):
    """Random frontmatter and body bytes: a memory or one InvalidMemory, nothing else, ever."""
    data = b"---\n" + frontmatter.encode("utf-8", "surrogatepass") + b"\n---\n" + body
    try:
        memory = parse("facts/x.md", data)
    except InvalidMemory as exc:
        assert exc.problems and "\n" not in str(exc)
    else:
        limits.check(memory.meta)
