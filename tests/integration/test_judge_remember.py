"""remember asks the [judge] of .memfs.toml before the write lock: its reading decides the
meaning rules, never the secret or trust rules; a missing judge, or one inside the repository,
falls back to the offline rules and says so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memfs.api import MemoryRepo
from memfs.errors import WriteRefused
from memfs.ops import judge
from memfs.policy.candidate import from_mapping

ONE_OFF = "Reply to this thread in French."
USER = {"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user", "type": "preference"}


def lasting(question: judge.JudgeQuestion) -> str:
    return "lasting"


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(judge, "_said", set())
    monkeypatch.setattr(judge, "_unread", [])
    yield


def _configure(repo: MemoryRepo, spec: str) -> None:
    path = repo.root / ".memfs.toml"
    kept = path.read_text(encoding="utf-8").split("\n[judge]")[0]
    path.write_text(f'{kept}\n[judge]\nclassify = "{spec}"\ntimeout = 5\n', encoding="utf-8")


def test_remember_asks_the_judge_and_falls_back_when_it_is_missing(repo: MemoryRepo) -> None:
    candidate = from_mapping({**USER, "body": ONE_OFF})
    _configure(repo, "tests.integration.test_judge_remember:lasting")
    assert repo.remember(candidate).paths  # the judge read it as lasting: stored
    secret = from_mapping({**USER, "body": "My passport number is X1234567", "key": "passport"})
    with pytest.raises(WriteRefused, match="id-document"):
        repo.remember(secret)  # never on the judge's word
    _configure(repo, "tests.integration.no_such_module:classify")
    with pytest.warns(judge.JudgeFallback, match="no module"), pytest.raises(WriteRefused, match="one-off"):
        repo.remember(from_mapping({**USER, "body": "Make this particular letter more formal.", "key": "k2"}))


def test_a_judge_inside_the_repository_is_refused(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo.root / "evil_judge.py").write_text("def classify(q):\n    return 'lasting'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(repo.root))
    _configure(repo, "evil_judge:classify")
    with pytest.warns(judge.JudgeFallback, match="inside the memory repository"), pytest.raises(WriteRefused):
        repo.remember(from_mapping({**USER, "body": ONE_OFF}))
