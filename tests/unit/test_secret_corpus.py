"""The secret scanner on a generated corpus: everyday credentials in every disguise are found,
prose about passwords, keys and tokens (six languages) and ordinary technical text are not.

Recall is asserted per credential kind and per disguise (target 0.99), so a kind or a disguise
that regresses fails on its own name rather than hiding in an average.
"""

from __future__ import annotations

from collections import Counter

import pytest

from memfs.policy import secrets_decode
from memfs.policy.secrets_scan import scan
from tests import secret_corpus as corpus

SAMPLES = corpus.samples()
TARGET = 0.99


def _recall(by: int) -> dict[str, float]:
    total: Counter[str] = Counter()
    found: Counter[str] = Counter()
    for sample in SAMPLES:
        total[sample[by]] += 1
        found[sample[by]] += bool(scan(sample[2]))
    return {key: found[key] / total[key] for key in total}


@pytest.fixture(scope="module")
def by_kind() -> dict[str, float]:
    return _recall(0)


@pytest.fixture(scope="module")
def by_disguise() -> dict[str, float]:
    return _recall(1)


@pytest.mark.parametrize("kind", sorted(corpus.KINDS))
def test_recall_per_credential_kind(kind: str, by_kind: dict[str, float]) -> None:
    assert by_kind[kind] >= TARGET


@pytest.mark.parametrize("disguise", sorted(corpus.DISGUISES))
def test_recall_per_disguise(disguise: str, by_disguise: dict[str, float]) -> None:
    assert by_disguise[disguise] >= TARGET


@pytest.mark.parametrize("text", corpus.PROSE)
def test_prose_about_credentials_and_ordinary_text_is_not_refused(text: str) -> None:
    assert scan(text) == []


def test_the_prose_corpus_covers_six_languages_and_fifty_sentences() -> None:
    assert len(corpus.PROSE_PASSWORDS) >= 50
    scripts = {"zh": "密码", "de": "Passwort", "es": "contraseña", "fr": "mot de passe", "ja": "パスワード"}
    for word in scripts.values():
        assert any(word in text for text in corpus.PROSE_PASSWORDS), word


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("first line\nDB_PASSWORD=" + "&#104;&#117;&#110;&#116;&#101;&#114;&#50;&#120;", 2, 13),
        ("ok\nok\ntoken: ghp_aB3dE6gH9jK2mN5pQ8\n  sT1vW4yZ7bC0eF3hJ6", 3, 8),
        ("x\ny\nz\ndata: bXkgcGFzc3dvcmQgaXMgWGs5I21RMnY=", 4, 7),
        ("mein Pass\u034fwort ist Xk9#mQ2v", 1, 20),
    ],
)
def test_a_finding_in_a_decoded_text_points_into_the_text_as_written(text: str, line: int, column: int) -> None:
    found = scan(text)
    assert [(f.line, f.column) for f in found][:1] == [(line, column)]
    assert 0 <= found[0].start < found[0].end <= len(text)


def test_decoders_map_every_character_back_to_where_it_was_written() -> None:
    text = "a&#98;c%64e\\u0066g"
    decoded = secrets_decode.unescaped(text)
    assert decoded is not None
    out, origin = decoded
    assert out == "abcdefg"
    assert [text[origin[i]] for i in range(len(out))] == ["a", "&", "c", "%", "e", "\\", "g"]
    folded, where = secrets_decode.skeleton("р\u034fа\ufe0fѕ\u3164ѕ")
    assert folded == "pass" and where == [0, 2, 4, 6, 7]


def test_base64_runs_that_are_not_text_are_not_decoded() -> None:
    sha = "3f786850e387550fdab836ed7e6dc881de23001b"
    assert list(secrets_decode.base64_runs(f"commit {sha}")) == []
    assert [d for _, _, d in secrets_decode.base64_runs("x aGVsbG8gb3JkaW5hcnkgd29yZHM= y")] == ["hello ordinary words"]
