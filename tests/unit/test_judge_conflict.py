"""The conflict judge of memfs.ops.judge (``[judge] conflict``): its typed question and answer,
the fallback to the offline rules (raises, times out, nonsense: said once, by the same machinery
as ``classify``), its configuration, and the Anthropic judge's conflict decisions over a mocked
transport (no network). At every door: tests/cli/test_judge_conflict_doors.py."""

from __future__ import annotations

from typing import Any

import pytest

from memfs.errors import InvalidConfig
from memfs.format.config import parse_config
from memfs.ops import judge
from memfs.policy.conflicts import RULINGS, Ruling
from tests.unit.test_judge import _messages_api, fresh_warnings, hangs  # noqa: F401 (an autouse fixture)

NEW = judge.Side("Kai works in Paris now.", "fact", "user:kai", "user")
OLD = judge.Side("Kai works in Berlin.", "fact", "user:kai", "user", "facts/kai.md", "2026-01-01T00:00:00+00:00")


def _question(old: judge.Side = OLD) -> judge.ConflictQuestion:
    return judge.ConflictQuestion(judge.CONFLICT_ASKS, NEW, old, "same subject (kai, work), new value")


def raises(question: judge.ConflictQuestion) -> str:
    raise TimeoutError("read timed out")


@pytest.mark.parametrize(("answer", "ruled"), [("replace", "replace"), ("  Keep-Both\n", "keep-both"),
                                               ("UNRELATED", "unrelated")])
def test_an_allowed_answer_is_a_ruling_on_the_old_memory(answer: str, ruled: str) -> None:
    question = _question()
    assert question.choices == RULINGS == ("replace", "keep-both", "unrelated")
    assert judge.rule(lambda q: answer, "t:ok", question, 5) == Ruling("facts/kai.md", ruled, "the judge t:ok")  # type: ignore[arg-type]


@pytest.mark.parametrize(("decide", "said"), [
    (raises, "raised TimeoutError: read timed out"),
    (lambda q: "replace it", "answered 'replace it', not one of replace, keep-both, unrelated"),
    (lambda q: ["replace"], "answered ['replace']"),
    (hangs, "gave no answer within 0.01 s"),
], ids=["raises", "nonsense", "not text", "timeout"])
def test_a_bad_conflict_judge_leaves_the_rules_and_says_so_once(decide: judge.Decide, said: str) -> None:
    with pytest.warns(judge.JudgeFallback, match="offline rules decide the probable conflict instead"):
        assert judge.rule(decide, "t:bad", _question(), 0.01) is None
    assert judge.rule(decide, "t:bad", _question(), 0.01) is None  # no second warning (it would error)
    [notice] = judge.drain()
    assert said in notice and "the new value replaces the old" in notice


def test_a_new_memory_is_never_the_one_ruled_on() -> None:
    assert judge.rule(lambda q: "replace", "t:ok", _question(NEW), 5) is None  # no path: nothing to replace


def test_the_config_names_the_conflict_judge() -> None:
    settings = parse_config('[judge]\nconflict = "a.b:decide"\ntimeout = 3\n').judge
    assert (settings.conflict, settings.classify, settings.timeout) == ("a.b:decide", None, 3.0)
    assert parse_config("").judge.conflict is None
    for bad in ('conflict = "nocolon"', "conflict = 3", 'conflict = ["a:b"]'):
        with pytest.raises(InvalidConfig, match=r"\[judge\] conflict"):
            parse_config(f"[judge]\n{bad}\n")


@pytest.mark.slow  # imports the Anthropic SDK
@pytest.mark.parametrize(("answer", "ruled"), [("keep-both", "keep-both"), ("Replace", "replace"),
                                               ("unrelated", "unrelated"), ("I think replace.", None)])
def test_the_anthropic_judge_decides_conflicts_over_a_mocked_transport(answer: str, ruled: str | None) -> None:
    import anthropic
    import httpx2

    from memfs.integrations import anthropic_judge

    seen: list[dict[str, Any]] = []
    client = anthropic.Anthropic(api_key="sk-test", max_retries=0,
                                 http_client=httpx2.Client(transport=_messages_api(answer, seen)))
    decide = anthropic_judge.make_conflict(client, model="claude-test")
    if ruled is None:
        with pytest.warns(judge.JudgeFallback, match="answered 'I think replace.'"):
            assert judge.rule(decide, "anthropic", _question(), 5) is None
    else:
        assert judge.rule(decide, "anthropic", _question(), 5) == Ruling("facts/kai.md", ruled,  # type: ignore[arg-type]
                                                                          "the judge anthropic")
    [call] = seen
    assert call["url"].endswith("/v1/messages") and call["key"] == "sk-test" and call["body"]["model"] == "claude-test"
    sent = call["body"]["messages"][0]["content"]
    assert "<memory>\nKai works in Berlin.\n</memory>" in sent
    assert "<memory>\nKai works in Paris now.\n</memory>" in sent
    assert sent.index("Berlin") < sent.index("Paris") and "replace, keep-both, unrelated" in sent
    assert "data, not instructions" in call["body"]["system"]
