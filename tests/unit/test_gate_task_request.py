"""A task asked for now (issue #27, sixth blind set): how it is asked (帮我, 麻烦你, "can you …",
"remind me to …") makes it one-off unless wording makes it general (以后, 每次, …时, "always",
"every", "when I …"); and a procedure the user gives is read as a preference is (a standing
instruction, or one task). Cases written here, none copied from a labelled set."""

from __future__ import annotations

import pytest

from memfs.policy import gate, meaning, task_request
from memfs.policy.candidate import from_mapping

ASKED = [
    "周报的第三部分帮我改得简洁点。",
    "麻烦你把这几个数字加起来。",
    "请你帮我查查去杭州的高铁。",
    "替我给房东回个消息，说下周交租。",
    "给我把那张表整理一下。",
    "这个报错帮忙看看是什么原因。",
    "Can you shorten the intro a bit?",
    "Could you check whether the flight lands before noon?",
    "Would you draft a thank-you note to Sam?",
    "Please can you rename the variables in that function?",
    "Tonight, remind me to water the plants.",
    "Remind me about the dentist after lunch.",
]
GENERAL = [
    "以后帮我写邮件都用正式的语气。",
    "每次帮我订酒店，都选离地铁近的。",
    "帮我写代码时，变量名用英文。",
    "帮我整理会议纪要的时候，把待办放在最前面。",
    "默认帮我用公制单位。",
    "如果帮我订机票，优先选靠窗的座位。",
    "Can you always answer in Portuguese?",
    "Could you never use exclamation marks?",
    "Can you use metric units from now on?",
    "Remind me to stretch every hour.",
    "Remind me to back up the laptop each Friday.",
    "When I share a recipe, can you convert it to grams?",
]
PLAIN = [  # no form of asking: left to the other rules
    "I prefer tea to coffee.",
    "Use British spelling.",
    "回答要简短。",
    "My sister lives in Lyon.",
]


@pytest.mark.parametrize("text", ASKED)
def test_a_task_asked_for_now_is_one_off(text: str) -> None:
    assert task_request.asked_once(text) is not None
    assert meaning.read_preference(text).label == "one-off"


@pytest.mark.parametrize("text", GENERAL)
def test_the_same_form_made_general_is_lasting(text: str) -> None:
    assert task_request.asked_once(text) is None
    assert meaning.read_preference(text).label == "lasting"


@pytest.mark.parametrize("text", PLAIN)
def test_a_statement_without_a_form_of_asking_is_not_read_as_a_task(text: str) -> None:
    assert task_request.asked_once(text) is None


def _procedure(body: str, source_kind: str = "user") -> list[str]:
    candidate = from_mapping({"scope": "user:U5", "source": "conversation:C1#msg-3", "source_kind": source_kind,
                              "type": "procedure", "body": body})
    return [r.rule for r in gate.check(candidate)]


def test_a_users_procedure_that_asks_for_one_task_is_refused_as_one_off() -> None:
    assert _procedure("麻烦你把这几个数字加起来。") == ["one-off-preference"]
    assert _procedure("Could you check whether the flight lands before noon?") == ["one-off-preference"]


def test_a_users_standing_procedure_is_stored() -> None:
    assert _procedure("每次帮我订酒店，都选离地铁近的。") == []
    assert _procedure("Run the linter before every commit.") == []


def test_a_tools_procedure_is_not_asked_the_users_question() -> None:
    assert gate.question(from_mapping({"scope": "user:U5", "source": "tool:ci", "source_kind": "tool",
                                       "type": "procedure", "body": "Can you rerun the job?"})) is None


def _fact(body: str, source_kind: str = "user") -> list[str]:
    candidate = from_mapping({"scope": "user:U5", "source": "conversation:C1#msg-4", "source_kind": source_kind,
                              "type": "fact", "body": body})
    return [r.rule for r in gate.downgrades(candidate, frozenset({"conversation:C1#msg-4"}))]


@pytest.mark.parametrize("body", [
    "The user probably has a dog, going by the photos.",
    "She seems to work night shifts.",
    "用户看起来是做设计的。",
    "他好像住在成都。",
])
def test_a_fact_in_the_users_name_that_guesses_about_someone_is_held(body: str) -> None:
    assert _fact(body) == ["inferred-preference"]


@pytest.mark.parametrize("body", [
    "I think I'll move to Porto next year.",  # the speaker's own hedge, about themself
    "Maybe I'll take the train.",
    "My brother lives in Seoul.",
    "我妹妹在深圳工作。",
])
def test_the_speakers_own_hedge_or_a_plain_fact_is_stored_as_said(body: str) -> None:
    assert _fact(body) == []


def test_a_tools_guess_is_left_to_the_observation_rules() -> None:
    assert _fact("The user probably has a dog.", source_kind="tool") == []
