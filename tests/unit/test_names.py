"""Names of memory files and ids: any script, one normal form, nothing a file system or git cannot hold."""

from __future__ import annotations

import unicodedata

import pytest

from memfs.format import names


@pytest.mark.parametrize(
    "rel", ["笔记/会议.md", "notes/a b.md", "über.md", "notes/café déjà vu.md", "prefs/发布说明语言.md", "a[1]/:x.md"]
)
def test_names_in_any_script_are_accepted(rel: str) -> None:
    assert names.path_problem(rel) is None
    assert names.id_problem(names.default_id(rel)) is None


@pytest.mark.parametrize(
    ("rel", "words"),
    [
        ("notes/a\x00b.md", "NUL"),
        ("notes/a\nb.md", "control character U+000A"),
        ("notes/a\x1bb.md", "control character U+001B"),
        ("notes/a\u2028b.md", "line separator"),
        ("notes/invoice\u202egpj.md", "bidirectional control"),
        ("notes/../x.md", "'..'"),
        ("notes//x.md", "empty"),
        ("notes./x.md", "ends with a dot"),
        ("notes /x.md", "begins or ends with a space"),
        (" notes/x.md", "begins or ends with a space"),
        ("notes/x.md ", "begins or ends with a space"),
        ("notes/x .md", "space before its extension"),
        ("a/.GIT/x.md", ".git"),
        ("notes\\x.md", "backslash"),
        ("/etc/x.md", "absolute"),
        ("notes/" + "长" * 85 + ".md", "258 bytes"),
    ],
)
def test_dangerous_names_are_refused_with_the_reason(rel: str, words: str) -> None:
    why = names.path_problem(rel)
    assert why is not None and words in why


def test_a_name_of_255_bytes_is_the_longest() -> None:
    assert names.path_problem("notes/" + "长" * 84 + ".md") is None
    assert names.path_problem("x" * 252 + ".md") is None
    assert names.path_problem("x" * 253 + ".md") is not None


def test_one_name_typed_two_ways_is_one_name() -> None:
    composed, decomposed = "über.md", unicodedata.normalize("NFD", "über.md")
    assert composed != decomposed and names.nfc(decomposed) == composed
    assert names.is_nfc(composed) and not names.is_nfc(decomposed)


@pytest.mark.parametrize(
    ("memory_id", "words"), [("", "empty"), (" a", "space"), ("a\tb", "control"), ("a\nb", "control")]
)
def test_unusable_ids(memory_id: str, words: str) -> None:
    why = names.id_problem(memory_id)
    assert why is not None and words in why
