"""Transcript truncation and the thread summary record (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memfs.errors import InvalidMemory
from memfs.policy.tokens import counter, estimate_tokens
from memfs.policy.transcript import (
    Message,
    SummaryRecord,
    TranscriptError,
    call_ids,
    find_orphans,
    next_summary,
    record_from_body,
    result_ids,
    summary_body,
    truncate,
)
from tests.helpers import first_summary


def fixed(text: str) -> int:
    return 10


OPENAI = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Constraints: answer in Chinese."},
    {"role": "assistant", "content": "ok"},
    {"role": "user", "content": "look up B17"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": '{"q":"B17"}'}},
            {"id": "c2", "type": "function", "function": {"name": "search", "arguments": '{"q":"B18"}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "B17 shipped"},
    {"role": "tool", "tool_call_id": "c2", "content": "B18 pending"},
    {"role": "assistant", "content": "B17 shipped, B18 pending."},
    {"role": "user", "content": "thanks"},
]

ANTHROPIC = [
    {"role": "user", "content": "Constraints: no weekends."},
    {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    {"role": "user", "content": "check the calendar"},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "checking"}, {"type": "tool_use", "id": "t1", "name": "cal", "input": {}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Mon free"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "Monday is free."}]},
]


def test_call_and_result_ids_in_both_shapes():
    assert call_ids(OPENAI[4]) == ["c1", "c2"] and result_ids(OPENAI[5]) == ["c1"]
    assert call_ids(ANTHROPIC[3]) == ["t1"] and result_ids(ANTHROPIC[4]) == ["t1"]
    responses = [{"type": "function_call", "call_id": "r1"}, {"type": "function_call_output", "call_id": "r1"}]
    assert find_orphans(responses) == []


def test_everything_fits():
    out = truncate(OPENAI, 10_000, count=fixed)
    assert out.kept == tuple(range(len(OPENAI))) and not out.dropped and not out.over_budget


@pytest.mark.parametrize("budget", range(0, 100, 7))
def test_never_orphans_a_call_or_result(budget: int):
    for transcript in (OPENAI, ANTHROPIC):
        out = truncate(transcript, budget, count=fixed)
        assert find_orphans(out.messages) == []
        assert out.tokens <= budget or out.over_budget


def test_keeps_pinned_and_newest_units():
    # each message costs 14 (10 + overhead 4); pinned: system + the first turn (question and answer) = 42
    out = truncate(OPENAI, 42 + 14, count=fixed)
    assert out.kept == (0, 1, 2, 8)
    out = truncate(OPENAI, 42 + 14 * 5, count=fixed)
    assert out.kept == (0, 1, 2, 8)  # the B17 turn (5 messages with its calls) does not fit; selection stops
    out = truncate(OPENAI, 42 + 14 * 6, count=fixed)
    assert out.kept == tuple(range(9))


def test_anthropic_unit_is_kept_whole():
    out = truncate(ANTHROPIC, 14 * 3, count=fixed)
    assert out.kept == (0, 1, 2)  # the newest question is kept; nothing after it fits
    out = truncate(ANTHROPIC, 14 * 4, count=fixed)
    assert out.kept == (0, 1, 2, 5)  # its final answer fits; the call and its result go together or not at all
    assert truncate(ANTHROPIC, 14 * 6, count=fixed).kept == tuple(range(6))


def test_pinned_over_budget_is_kept_and_flagged():
    out = truncate(OPENAI, 5, count=fixed)
    assert out.kept == (0, 1, 2, 8) and out.over_budget and out.tokens == 56


def test_an_answer_never_follows_another_question():
    """The issue's case: the long second question did not fit, and its answer was kept after the
    first question, where it read as the answer to it."""
    sys_, q1, a1 = ({"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is B17?"},
                    {"role": "assistant", "content": "An export crash."})
    q2 = {"role": "user", "content": "Explain the fix " + "in detail " * 40}
    a2 = {"role": "assistant", "content": "OK."}
    out = truncate([sys_, q1, a1, q2, a2], 60)
    assert out.messages == [sys_, q1, a1, q2] and out.dropped == (4,) and out.over_budget
    out = truncate([sys_, q1, a1, q2, a2], out.tokens + 20)
    assert out.messages == [sys_, q1, a1, q2, a2] and not out.over_budget


@pytest.mark.parametrize("budget", range(0, 140, 7))
def test_every_kept_reply_keeps_its_question(budget: int):
    for transcript in (OPENAI, ANTHROPIC):
        out = truncate(transcript, budget, count=fixed)
        for position, index in enumerate(out.kept):
            if transcript[index].get("role") == "user" and not result_ids(transcript[index]):
                continue
            asked = [i for i in range(index) if transcript[i].get("role") == "user" and not result_ids(transcript[i])]
            kept_before = [i for i in out.kept[:position] if transcript[i].get("role") == "user"
                           and not result_ids(transcript[i])]
            assert (asked[-1:] == kept_before[-1:]), (budget, out.kept)


def _question(message: Message) -> bool:
    return message.get("role") == "user" and not result_ids(message)


def _check_newest_kept(transcript: list[dict], budget: int, count=estimate_tokens) -> None:
    out = truncate(transcript, budget, count=count)
    questions = [i for i, m in enumerate(transcript) if _question(m)]
    if questions:
        assert questions[-1] in out.kept, (budget, out.kept)
    assert find_orphans(out.messages) == []
    for position, index in enumerate(out.kept):
        if not _question(transcript[index]):
            asked = [i for i in questions if i < index]
            assert asked[-1:] == [i for i in out.kept[:position] if _question(transcript[i])][-1:]
    minimum = truncate(transcript, 0, count=count).tokens
    assert out.tokens <= budget or (out.over_budget and out.tokens == minimum)


@pytest.mark.parametrize("budget", range(0, 400, 3))
def test_the_newest_user_message_is_kept_at_every_budget(budget: int):
    """The issue's cases: OpenAI at 60 and 300, Anthropic at 30 and 200 dropped it."""
    long_turn = [*OPENAI[:-1], {"role": "user", "content": "and now " + "B19 please " * 30}, *OPENAI[4:8]]
    for transcript in (OPENAI, ANTHROPIC, long_turn, ANTHROPIC + ANTHROPIC[2:]):
        _check_newest_kept(transcript, budget)
        _check_newest_kept(transcript, budget, count=fixed)


def _turns(draw: st.DrawFn, anthropic: bool) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": "Be brief."}] if not anthropic else []
    words = st.text(alphabet="abc xyz", min_size=1, max_size=60)
    for turn in range(draw(st.integers(1, 5))):
        out.append({"role": "user", "content": draw(words)})
        for call in range(draw(st.integers(0, 2))):
            cid = f"t{turn}-{call}"
            if anthropic:
                use = {"type": "tool_use", "id": cid, "name": "f", "input": {}}
                out.append({"role": "assistant", "content": [use]})
                out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": cid,
                                                          "content": draw(words)}]})
            else:
                out.append({"role": "assistant", "content": None, "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
                out.append({"role": "tool", "tool_call_id": cid, "content": draw(words)})
        if draw(st.booleans()):
            out.append({"role": "assistant", "content": draw(words)})
    return out


@given(st.data(), st.booleans(), st.integers(0, 300))
def test_generated_transcripts_keep_the_newest_user_message(data: st.DataObject, anthropic: bool, budget: int):
    transcript = data.draw(st.composite(_turns)(anthropic))
    _check_newest_kept(transcript, budget)


def test_orphaned_tool_result_in_input_is_dropped_and_reported():
    transcript = [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "ghost", "content": "stale result"},
        {"role": "user", "content": [{"type": "text", "text": "and"}, {"type": "tool_result", "tool_use_id": "g2"}]},
        {"role": "assistant", "content": "answer"},
    ]
    before = repr(transcript)
    out = truncate(transcript, 1000, count=fixed)
    assert [(o.index, o.id, o.kind) for o in out.orphans] == [(1, "ghost", "result"), (2, "g2", "result")]
    assert out.kept == (0, 2, 3) and out.dropped == (1,)
    assert out.messages[1]["content"] == [{"type": "text", "text": "and"}]
    assert find_orphans(out.messages) == []
    assert repr(transcript) == before  # input untouched
    with pytest.raises(TranscriptError, match="ghost"):
        truncate(transcript, 1000, orphans="error")


def test_unanswered_call_is_removed_but_text_kept():
    transcript = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "calling", "tool_calls": [{"id": "x", "function": {"name": "f"}}]},
    ]
    out = truncate(transcript, 1000)
    assert out.messages[1] == {"role": "assistant", "content": "calling"}
    assert [o.kind for o in out.orphans] == ["call"]


def test_result_before_its_call_is_an_orphan():
    transcript = [
        {"role": "tool", "tool_call_id": "a", "content": "r"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "a"}]},
    ]
    assert {(o.kind, o.id) for o in find_orphans(transcript)} == {("result", "a"), ("call", "a")}
    assert truncate(transcript, 1000).messages == []


def test_negative_budget_refused():
    with pytest.raises(TranscriptError):
        truncate(OPENAI, -1)


def test_token_estimate_is_offline_and_pluggable():
    assert estimate_tokens("") == 0
    assert 8 <= estimate_tokens("The quick brown fox jumps over the lazy dog.") <= 14
    assert estimate_tokens("发布说明用中文写") >= 6
    assert counter("heuristic") is estimate_tokens
    calls: list[str] = []
    truncate(ANTHROPIC, 10_000, count=lambda text: calls.append(text) or 1)
    assert len(calls) == len(ANTHROPIC) and "Mon free" in calls[4]


# --- the summary record ------------------------------------------------------------------------
def test_incremental_summary():
    one = first_summary()
    assert one.summary_version == 1
    two = next_summary(
        one,
        covered_until_message_id="m6",
        source_message_ids=["m4", "m6", "m3"],
        completed_steps=["tested"],
        confirmed_constraints=["answer in Chinese", "no weekends"],
        resolved_questions=["who signs off?"],
        new_questions=["when?"],
    )
    assert two.summary_version == 2 and two.goal == "Ship B17"
    assert two.confirmed_constraints == ("answer in Chinese", "no weekends")
    assert two.open_questions == ("when?",) and two.source_message_ids == ("m1", "m2", "m3", "m4", "m6")
    with pytest.raises(InvalidMemory, match="already covers"):
        next_summary(two, covered_until_message_id="m6", source_message_ids=[])


@pytest.mark.parametrize(
    "change",
    [
        {"thread_id": "../x"},
        {"summary_version": 0},
        {"summary_version": True},
        {"goal": ""},
        {"covered_until_message_id": "m99"},
        {"open_questions": [""]},
        {"completed_steps": "one"},
        {"extra": 1},
    ],
)
def test_invalid_records(change: dict):
    data = first_summary().to_json() | change
    with pytest.raises(InvalidMemory):
        SummaryRecord.from_json(data)


def test_body_round_trip():
    one = first_summary()
    body = summary_body(one)
    assert "## Open questions\n- who signs off?" in body
    assert record_from_body(body) == one
    with pytest.raises(InvalidMemory):
        record_from_body("no record here")
