"""The pluggable judge (memfs.ops.judge): its contract, the fallback to the offline rules (missing,
raises, times out, nonsense: said once) and the Anthropic judge over a mocked transport (no
network). remember asking the judge: tests/integration/test_judge_remember.py."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from memfs.errors import InvalidConfig
from memfs.format.config import parse_config
from memfs.ops import judge
from memfs.policy.candidate import from_mapping
from memfs.policy.meaning import Reading

ONE_OFF = "Reply to this thread in French."
USER = {"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user", "type": "preference"}
_release = threading.Event()


def lasting(question: judge.JudgeQuestion) -> str:
    return "  Lasting\n"


def raises(question: judge.JudgeQuestion) -> str:
    raise RuntimeError("model overloaded")


def nonsense(question: judge.JudgeQuestion) -> str:
    return "store it, definitely"


def not_text(question: judge.JudgeQuestion) -> object:
    return {"label": "lasting"}


def hangs(question: judge.JudgeQuestion) -> str:
    _release.wait()
    return "lasting"


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(judge, "_said", set())
    monkeypatch.setattr(judge, "_unread", [])
    _release.clear()
    yield
    _release.set()


def _question(text: str = ONE_OFF, **fields: Any) -> judge.JudgeQuestion:
    question = judge.question_for(from_mapping({**USER, "body": text, **fields}))
    assert question is not None
    return question


def test_the_question_states_the_contract() -> None:
    question = _question()
    assert (question.question, question.choices, question.offline) == ("preference", CHOICES_PREF, "one-off")
    observed = _question("The registry is never available.", source_kind="tool", type="fact")
    assert (observed.question, observed.choices, observed.offline) == ("observation", CHOICES_OBS, "durable-claim")
    assert judge.question_for(from_mapping({**USER, "body": ONE_OFF, "expires": "2026-12-31"})) is None
    assert judge.question_for(from_mapping({**USER, "body": "Kai is in Paris.", "type": "fact"})) is None


CHOICES_PREF = ("lasting", "one-off", "inferred")
CHOICES_OBS = ("status", "durable-claim")


def test_a_good_answer_is_a_reading_by_the_judge() -> None:
    assert judge.ask(lasting, "t:lasting", _question(), 5) == Reading("preference", "lasting", by="judge t:lasting")


@pytest.mark.parametrize(
    ("classify", "said"),
    [(raises, "raised RuntimeError: model overloaded"), (nonsense, "answered 'store it, definitely'"),
     (not_text, "answered {'label': 'lasting'}"), (hangs, "gave no answer within 0.01 s")],
)
def test_a_bad_judge_falls_back_and_says_so_once(classify: judge.Classify, said: str) -> None:
    with pytest.warns(judge.JudgeFallback, match=said):
        assert judge.ask(classify, "t:bad", _question(), 0.01) is None
    assert judge.ask(classify, "t:bad", _question(), 0.01) is None  # no second warning (errors if one came)
    [notice] = judge.drain()
    assert said in notice and "offline rules decide" in notice and judge.drain() == []


def test_the_config_names_the_judge_and_its_timeout() -> None:
    settings = parse_config('[judge]\nclassify = "a.b:c"\ntimeout = 2.5\n').judge
    assert (settings.classify, settings.timeout) == ("a.b:c", 2.5)
    assert parse_config("").judge.classify is None
    for bad in ('classify = "nocolon"', "classify = 3", "timeout = 0", "timeout = 301", 'timeout = "x"'):
        with pytest.raises(InvalidConfig, match=r"\[judge\]"):
            parse_config(f"[judge]\n{bad}\n")


def _messages_api(answer: str, seen: list[dict[str, Any]]) -> httpx2.MockTransport:
    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append({"url": str(request.url), "key": request.headers.get("x-api-key"),
                     "body": json.loads(request.content)})
        return httpx2.Response(200, json={
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": answer}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 2},
        })

    return httpx2.MockTransport(handler)


@pytest.mark.slow  # imports the Anthropic SDK
@pytest.mark.parametrize(("answer", "reading"), [("one-off", "one-off"), ("Lasting.", None), ("inferred", "inferred")])
def test_the_anthropic_judge_over_a_mocked_transport(answer: str, reading: str | None) -> None:
    import anthropic

    from memfs.integrations import anthropic_judge

    seen: list[dict[str, Any]] = []
    client = anthropic.Anthropic(api_key="sk-test", max_retries=0,
                                 http_client=httpx2.Client(transport=_messages_api(answer, seen)))
    classify = anthropic_judge.make(client, model="claude-test")
    question = _question()
    if reading is None:
        with pytest.warns(judge.JudgeFallback, match="answered 'Lasting.'"):
            assert judge.ask(classify, "anthropic", question, 5) is None
    else:
        assert judge.ask(classify, "anthropic", question, 5) == Reading("preference", reading, by="judge anthropic")
    [call] = seen
    assert call["url"].endswith("/v1/messages") and call["key"] == "sk-test"
    assert call["body"]["model"] == "claude-test"
    sent = call["body"]["messages"][0]["content"]
    assert ONE_OFF in sent and "lasting, one-off, inferred" in sent
