"""The subject/value model of a probable conflict (memfs.policy.conflict_slots), one group per
rule, each with cases it must find and hard negatives it must leave alone, in English and
Chinese. None of these sentences is in a labelled pair set: they test the rule (a value class, a
number and its unit, a rejection, the frame, names, possessives, qualifiers), not a set's wording."""

from __future__ import annotations

import pytest

from memfs.policy import conflict_pairs, conflict_slots, conflicts
from memfs.policy.value_classes import CLASS_LEXICONS, classes

#: Another value of one class for one subject, worded differently.
CLASS_VALUE = [
    ("Save my invoices as CSV files.", "I want the invoices exported to Excel from now on."),
    ("Show prices to me in euros.", "Prices in dollars, please."),
    ("Weather reports for me in celsius.", "use fahrenheit for weather reports"),
    ("The wiki is hosted on Bitbucket.", "Our wiki moved over to Gitea last week."),
    ("I'm vegan.", "I eat fish again, so I'm pescatarian now."),
    ("Text me on WhatsApp about outages.", "For outages, message me on Telegram instead."),
    ("Install Python packages with pip.", "poetry, not pip, for Python packages."),
    ("她的报表用Excel格式。", "她的报表以后改成PDF。"),
    ("温度给我用华氏度。", "以后温度都用摄氏度。"),
    ("我们的前端项目用yarn装依赖。", "前端项目装依赖改用pnpm。"),
    ("通知请发我的邮件。", "通知以后发短信给我。"),
]
#: Values with a shape of their own, classes a person holds one of, a value phrase after a preposition.
SHAPED = [
    ("My work email is kai@orbit.io.", "My work email is now kai.s@orbit.dev."),
    ("The status page lives at https://status.orbit.io.", "The status page moved to https://orbit.statuspage.io."),
    ("Call me Sam.", "Please refer to me as Samantha."),
    ("叫我小林就行。", "以后请叫我林老师。"),
    ("Write dates as MM/DD/YYYY.", "I prefer ISO 8601 dates."),
    ("火锅给我点中辣。", "火锅以后点微辣。"),
    ("Tomás is a senior analyst at Orbit.", "Tomás became head of research, now director at Orbit."),
    ("王强是研发部主管。", "王强已经升任技术总监。"),
    ("Kai is a junior engineer on the data team.", "Kai got promoted to data team manager."),
]
#: Another number of the same kind (time, date, version, count of one unit) for one subject.
NUMBER = [
    ("The quarterly review is on 3 March.", "The quarterly review got moved to 17 March."),
    ("Our cache TTL is 300 seconds.", "Cache TTL: 600 seconds."),
    ("The CI runners use Node 18.", "CI runners were bumped to Node 22."),
    ("The Friday retro starts at 16:00.", "Friday retro now begins at 15:30."),
    ("每周的周报截止时间是周五下午5点。", "周报截止改为周五下午3点。"),
    ("数据库连接池大小是20个。", "连接池大小调整为50个。"),
    ("生产环境的Java版本是11。", "生产环境Java版本：17"),
]
#: Neither: another subject, the same value, an added value, a relation that accumulates.
NOT = [
    ("The billing API answers in JSON.", "The search API answers in XML."),  # a qualifier differs
    ("Ana's reports are PDFs.", "Ben's reports are spreadsheets in Excel."),  # another possessor
    ("Kai prefers tabs.", "Kai's team prefers spaces."),  # the new text is about Kai's team
    ("Write changelogs in Markdown.", "Write changelogs in Markdown, please."),  # the same value
    ("Kai speaks Dutch.", "Kai speaks Italian."),  # abilities accumulate
    ("I like Firefox.", "I like Chrome."),  # likes accumulate
    ("The gym opens at 6:00.", "The pool opens at 7:00."),  # two places, one verb
    ("Standup is at 9:00.", "Lunch is at 12:00."),  # nothing shared
    ("Invoices go out in euros.", "Invoices also go out in dollars."),  # additive
    ("Use 2 spaces for JSON.", "Use 4 spaces for Python."),  # a narrower subject on each side
    ("The meeting is on Tuesday.", "The meeting with finance is on Thursday."),  # narrowed
    ("Send the P3 digest on Mondays.", "Send the P4 digest on Fridays."),  # another numbered thing
    ("我的手机号是13900001111。", "我妈妈的手机号是13900002222。"),  # another person's
    ("小陈的生日是3月2日。", "小周的生日是9月9日。"),  # another person
    ("订单接口返回JSON。", "库存接口返回XML。"),  # a qualifier differs
    ("我会说德语。", "我会说意大利语。"),  # accumulates
    ("周报发邮件。", "周报也发微信。"),  # additive
    ("Kai's email is kai@orbit.io.", "Mia's email is mia@orbit.io."),  # another person
    ("王强是研发部主管。", "王强的太太是财务总监。"),  # his wife's role
    ("Tomás is a senior analyst.", "Inés is a junior analyst."),  # another person opens the text
    ("火锅给我点中辣。", "火锅给我点中辣的。"),  # the same spice level
]


@pytest.mark.parametrize(("old", "new"), CLASS_VALUE + NUMBER + SHAPED)
def test_another_value_of_the_same_subject_is_a_conflict(old: str, new: str) -> None:
    assert conflict_slots.conflict(old, new, conflicts._marked(new)) is not None or conflicts.compare(old, new).conflict
    assert conflicts.compare(old, new).conflict, conflicts.compare(old, new).why


@pytest.mark.parametrize(("old", "new"), NOT)
def test_another_subject_the_same_value_or_an_added_one_is_not(old: str, new: str) -> None:
    verdict = conflicts.compare(old, new)
    assert not verdict.conflict, verdict.why


@pytest.mark.parametrize(("old", "new"), CLASS_VALUE + NUMBER + SHAPED)
def test_pairs_find_them_too(old: str, new: str) -> None:
    import datetime as dt

    from tests.unit.test_conflicts import M

    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    later = at + dt.timedelta(1)
    found = conflict_pairs.pairs([M("notes/old.md", old, updated=at), M("notes/new.md", new, updated=later)])
    assert [(p.older, p.newer) for p in found] == [("notes/old.md", "notes/new.md")]


def test_the_reason_names_the_class_and_both_values() -> None:
    why = conflicts.compare("Reply to me in Polish.", "Reply to me in Swedish now.").why
    assert "english" not in why
    why = conflict_slots.conflict("Export tables as CSV.", "Export tables as JSON.", False)
    assert why is not None and "format: csv -> json" in why


def test_units_belong_to_their_number() -> None:
    side = conflict_slots.side("The upload limit is 25 megabytes per file.")
    assert side.numbers == {"count:meg": frozenset({"25"})}
    assert "megabyt" not in side.frame and {"upload", "limit"} <= side.frame
    assert conflict_slots.side("晚上8点提醒我。").numbers.keys() == {"time"}
    assert conflict_slots.side("截止日期是6月30日。").numbers.keys() == {"date"}


def test_values_with_a_shape_of_their_own_are_read_whole() -> None:
    side = conflict_slots.side("李娜的邮箱是lina@foxmail.com。")
    assert side.classes == {"email": frozenset({"email:lina@foxmail.com"})}
    assert {"李", "娜", "邮", "箱"} <= side.frame and "foxmail" not in side.frame
    assert conflict_slots.side("Address me as Elizabeth.").classes == {"callname": frozenset({"callname:elizabeth"})}
    assert conflict_slots.side("Use dd.mm.yyyy.").classes == {"dateformat": frozenset({"dateformat:dd.mm.yyyy"})}


def test_a_description_with_de_is_no_possessor() -> None:
    """的 ends a description too ("微辣的"): a class word and a negation are not the possessor."""
    assert not {"不", "辣"} & conflict_slots.side("外卖都点不辣的。").possessed
    assert conflict_slots.side("老张的女儿在上海。").possessed == {"老", "张", "女", "儿"}


def test_identifiers_are_names_not_numbers() -> None:
    side = conflict_slots.side("Ship P8 on Friday.")
    assert not side.numbers and "p8" in side.names


def test_a_negation_ends_with_its_clause() -> None:
    side = conflict_slots.side("Yarn, not npm, for the web app.")
    assert side.rejected == {"packager:npm"} and side.classes == {"packager": frozenset({"packager:yarn"})}
    assert {"web", "app"} <= side.frame
    assert conflict_slots.side("I'd rather have it as HTML.").classes == {"format": frozenset({"format:html"})}


def test_cjk_frames_are_characters() -> None:
    """吃药提醒 and 提醒我吃药 meet, whatever the segmentation; particles and time adverbs are wording."""
    one, two = conflict_slots.side("提醒我吃药在晚上9点。"), conflict_slots.side("吃药提醒上个月改到了10点。")
    assert {"吃", "药", "提", "醒"} <= one.frame & two.frame
    assert not {"上", "个", "月"} & two.frame


def test_every_class_word_maps_to_its_class() -> None:
    words = classes()
    for name, lexicon in CLASS_LEXICONS.items():
        for value, spelled in lexicon.items():
            assert all(words[w] == f"{name}:{value}" for w in spelled if w in words), (name, value)
    assert len(words) == len(set(words))
