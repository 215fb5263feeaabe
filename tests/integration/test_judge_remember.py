"""remember asks the [judge] of .memfs.toml before the write lock: its reading decides the
meaning rules, never the secret or trust rules; a missing judge, or one inside the repository,
falls back to the offline rules and says so."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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


@pytest.mark.slow  # imports the Anthropic SDK
def test_the_shipped_conflict_judge_decides_remember_over_a_mocked_transport(
        repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """``[judge] conflict = "memfs.integrations.anthropic_judge:conflict"`` end to end: the
    configured function builds its client from the environment (here: a mocked transport, no
    network), the model's ``keep-both`` keeps Kai's two cities; its unusable answer leaves the
    rules' SUPERSEDE, said once."""
    import anthropic
    import httpx2

    from memfs.integrations import anthropic_judge
    from tests.unit.test_judge import _messages_api

    answers, seen, real = ["keep-both", "Paris, I guess"], [], anthropic.Anthropic

    def client(**options: Any) -> anthropic.Anthropic:
        transport = _messages_api(answers.pop(0), seen)
        return real(api_key="sk-test", http_client=httpx2.Client(transport=transport), **options)

    monkeypatch.setattr(anthropic_judge.anthropic, "Anthropic", client)
    path = repo.root / ".memfs.toml"
    path.write_text(path.read_text(encoding="utf-8") + '\n[judge]\nconflict = '
                    '"memfs.integrations.anthropic_judge:conflict"\n', encoding="utf-8")
    fact = {"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user", "type": "fact"}
    repo.remember(from_mapping({**fact, "body": "Kai works in Berlin."}))
    kept = repo.remember(from_mapping({**fact, "body": "Kai works in Paris now."}))
    assert kept.op.value == "KEEP_BOTH" and "anthropic_judge:conflict reads both as true at once" in kept.reason
    with pytest.warns(judge.JudgeFallback, match="answered 'Paris, I guess'"):
        replaced = repo.remember(from_mapping({**fact, "body": "Kai works in Rome now."}))
    assert replaced.op.value == "SUPERSEDE" and replaced.reason.startswith("probable conflict")
    assert len(seen) == 2 and "Kai works in Berlin." in seen[0]["body"]["messages"][0]["content"]
