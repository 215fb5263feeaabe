"""Work a bulk write used to repeat per file, now done once, still judges every file the same
(#17, a retraction of ~1,000 files): a name's characters, a secret scan of the same added lines."""

from __future__ import annotations

import unicodedata

import pytest

from memfs.format import names
from memfs.policy import secrets_scan


def _char_problem_each(text: str) -> str | None:
    """The per-character judgement (what :func:`names.char_problem` does for any text that is
    not printable ASCII)."""
    for char in text:
        category = unicodedata.category(char)
        if char == "\x00" or category in ("Cc", "Zl", "Zp", "Cs") or char in names._BIDI_CONTROLS:
            return "refused"
    return None


@pytest.mark.parametrize("code", range(128))
def test_every_ascii_character_is_judged_as_one_by_one(code: int) -> None:
    text = f"notes/a{chr(code)}b.md"
    assert (names.char_problem(text) is None) == (_char_problem_each(text) is None)


@pytest.mark.parametrize("text", ["notes/é.md", "a\u202eb.md", "a\u2028b", "a\ud800b", "tab\there"])
def test_other_texts_are_still_read_character_by_character(text: str) -> None:
    assert (names.char_problem(text) is None) == (_char_problem_each(text) is None)


def test_a_clean_text_is_remembered_and_a_secret_never_is() -> None:
    secret = "token: ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n"
    clean = "status: needs_review\nrevision: 2\n"
    for _ in range(2):
        assert secrets_scan.scan(clean) == []
        assert [f.rule for f in secrets_scan.scan(secret)] == ["secret/github-token"]
    assert clean in secrets_scan._clean and secret not in secrets_scan._clean
    assert [f.rule for f in secrets_scan.scan(clean + secret)] == ["secret/github-token"]
