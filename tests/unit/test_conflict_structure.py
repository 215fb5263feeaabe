"""The structural rules of the probable-conflict reading (memfs.policy.conflicts), one group per
rule, each with cases it must find and hard negatives it must leave alone, in English and
Chinese. None of these sentences is in a labelled pair set: they test the structure (a change
verb and what it names, one value replaced inside a shared frame, a value of any shape), not the
sets' wording."""

from __future__ import annotations

import pytest

from memfs.policy import conflict_pairs, conflicts
from memfs.policy.conflict_tokens import stem, tokens

#: "Lena lives in X" / "Lena moved to Y": a change verb names the new value of the subject the
#: old text opens with; the relation is not restated.
CHANGE_VERB = [
    ("Tomás lives in Madrid.", "Tomás moved to Seville."),
    ("The weekly sync is on Tuesday.", "The weekly sync moved to Thursday."),
    ("The docs site is hosted on Netlify.", "The docs site migrated to Vercel."),
    ("Mei's laptop runs Windows.", "Mei switched to Linux."),
    ("The ops team uses Opsgenie for paging.", "The ops team switched to PagerDuty."),
    ("老张住在杭州。", "老张搬到苏州了。"),
    ("周会安排在周二。", "周会改到周四了。"),
    ("团队用钉钉沟通。", "团队改用飞书沟通了。"),
    ("代码缩进用两个空格。", "代码缩进改用四个空格。"),
    ("Lena lives in Vienna.", "Lena moved to Graz for a semester."),
    ("Kai's team lead is Ana.", "Kai's team lead changed to Bruno."),
    ("The wifi password hint is in the wiki.", "The wifi password hint moved to Notion."),
    ("我住在北京。", "我搬到上海了。"),  # the speaker is the subject
    ("I live in Leeds.", "I moved to York."),
    ("发布时间是每周五。", "发布时间改到每周三了。"),
    ("文档用Markdown写。", "文档改用AsciiDoc写。"),
    ("The project deadline is March 3.", "The project deadline moved to March 10."),
    ("服务器用的是Ubuntu 20.04。", "服务器升级到Ubuntu 22.04了。"),
    ("公司在深圳。", "公司搬到广州了。"),
    ("每周例会在周一上午。", "每周例会改到周三下午。"),
]
CHANGE_VERB_NOT = [
    ("Tomás lives in Madrid.", "Tomás's sister moved to Seville."),  # another subject
    ("Tomás lives in Madrid.", "Inés moved to Seville."),  # another person
    ("Maria is allergic to peanuts.", "Maria moved to Lisbon."),  # no value of that kind to replace
    ("Tomás lives in Madrid.", "Tomás also moved his office to Seville."),  # additive
    ("老张住在杭州。", "老李搬到苏州了。"),
    ("老张住在杭州。", "老张的女儿搬到苏州了。"),
    ("Kai works in Berlin.", "Kai moved to a new team."),  # a move to no place
    ("Jonas drives a Volvo.", "Jonas moved to Oslo."),  # nothing in a place to move from
    ("Maria has a dog named Rex.", "Maria moved to Lisbon."),
    ("Lena lives in Vienna.", "I moved to Graz."),  # the speaker is not Lena
]

#: One value replaced in one place of a shared frame: lower-case words, numbers, dotted
#: versions, times, places with or without a class word.
SUBSTITUTION = [
    ("My default shell is bash.", "My default shell is zsh now."),
    ("Sort my inbox by date.", "Sort my inbox by sender from now on."),
    ("Indent YAML with two spaces.", "Indent YAML with four spaces."),
    ("Show diffs in unified format.", "Show diffs in split format."),
    ("The API gateway runs version 1.8.2.", "The API gateway runs version 1.9.0."),
    ("The nightly build starts at 23:00.", "The nightly build starts at 01:30 now."),
    ("The pinned Node release is node-18.19.", "The pinned Node release is node-20.11."),
    ("李娜在深圳上班。", "李娜现在在广州上班。"),
    ("测试环境部署在杭州。", "测试环境现在部署在成都。"),
    ("默认分支叫master。", "默认分支现在叫main。"),
    ("回复请保持正式。", "以后回复随意一点。"),
    ("The standup is at 9:15.", "The standup is at 9:45 from now on."),
    ("Remind me about bills on the 1st.", "Remind me about bills on the 15th."),
    ("My phone number is 0151 234 5678.", "My phone number is 0170 987 6543 now."),
    ("Use pnpm for the frontend.", "Use yarn for the frontend."),
    ("The cluster runs Kubernetes 1.27.", "The cluster runs Kubernetes 1.29 now."),
    ("I work from home on Fridays.", "I work from home on Wednesdays now."),
    ("Tom prefers window seats.", "Tom prefers aisle seats now."),  # after a name's verb: said to replace
    ("小王负责前端。", "小王现在负责后端。"),
    ("默认时区是UTC。", "默认时区现在是北京时间。"),
    ("My dentist is Dr. Weber.", "My dentist is Dr. Klein now."),  # "Dr." ends no sentence
    ("Use black for Python formatting.", "Use ruff for Python formatting from now on."),
    ("My favourite color is blue.", "My favourite color is green now."),
    ("Send me news in the morning.", "Send me news in the evening instead."),
    ("I am vegetarian.", "I am vegan now."),  # the speaker is the frame
    ("The default branch is develop.", "The default branch is now main."),
    ("我的手机号是13800000000。", "我的手机号换成13900000000了。"),
    ("王经理负责华东区。", "王经理现在负责华南区。"),
    ("报告用PDF格式发给我。", "以后报告用Word格式发给我。"),
]
SUBSTITUTION_NOT = [
    ("Sort my inbox by date.", "Sort my bookmarks by date."),  # the determined noun is the subject
    ("I like jazz.", "I like blues."),  # liking: both true unless it says it replaces
    ("I like hiking on weekends.", "I like cycling on weekends."),
    ("Kai works in Berlin.", "Kai lives in Berlin."),  # the verb after a name is the relation
    ("Keep answers short in chat.", "Keep answers short in email."),  # the shared value is the value
    ("Use spaces in Python files.", "Use tabs in Makefiles."),  # two things differ
    ("The Atlas repo uses tabs.", "The Nova repo uses spaces."),  # another project
    ("Priya's standup is at 9:30.", "Omar's standup is at 10:00."),  # another person
    ("The staging API runs version 1.8.", "The production API runs version 1.9."),  # another environment
    ("李娜在深圳上班。", "王芳在广州上班。"),
    ("我喜欢吃苹果。", "我喜欢吃香蕉。"),
    ("我每天跑步。", "我每天游泳。"),
    ("项目A的周会在周一。", "项目B的周会在周三。"),
    ("Tom prefers window seats.", "Tom prefers aisle seats."),  # not said to replace: maybe both
    ("Kai plays tennis on Mondays.", "Kai plays chess on Mondays."),
    ("The meeting is on Monday.", "The meeting with legal is on Friday."),
    ("My manager is Tom.", "My skip-level manager is Alice."),
    ("Ana prefers Vim.", "Ana's team prefers Emacs."),
    ("Our office is in Munich.", "Our warehouse is in Hamburg."),
    ("I use Firefox at home.", "I use Chrome at work."),
    ("The frontend uses React.", "The backend uses Vue."),
    ("I drink tea in the morning.", "I drink wine in the evening."),
    ("Send invoices to the finance team.", "Send contracts to the legal team."),
    ("The office closes at 18:00.", "The gym closes at 22:00."),
    ("Mark PRs as draft first.", "Mark issues as triaged first."),  # two things differ, apart
    ("I am allergic to cats.", "I am allergic to dust."),
    ("I read news in English.", "I read novels in French."),
    ("The repo uses squash merges.", "The repo uses signed commits."),
    ("我住在北京。", "我弟弟住在上海。"),
    ("小王负责前端开发工作。", "小李负责前端开发工作。"),  # another person, CJK opener
    ("小张的生日是5月3日。", "小李的生日是6月8日。"),
    ("我女儿在北京上学。", "我儿子在上海上学。"),
    ("Use black for Python formatting.", "Use prettier for JavaScript formatting."),  # two things, apart
    ("Sara works at Google.", "Sara's husband works at Microsoft."),
    ("The project deadline is March 3.", "The design review is March 10."),
    ("I am vegetarian.", "I am allergic to nuts."),
    ("My dentist is Dr. Weber.", "My doctor is Dr. Klein."),
    ("The backup job runs at 2am.", "The cleanup job runs at 4am."),
    ("Kai lives in Berlin.", "Kai visited Paris last week."),
    ("The server runs Ubuntu 20.04.", "The laptop runs Ubuntu 22.04."),
    ("Use 2 spaces for YAML.", "Use 4 spaces for Python."),
    ("My sister lives in Rome.", "My brother lives in Milan."),
    ("Our Berlin office opens at 9.", "Our London office opens at 8."),
    ("我的手机号是13800000000。", "我老婆的手机号是13900000000。"),
    ("王经理负责华东区。", "李经理负责华南区。"),
    ("公司在深圳。", "公司的仓库在广州。"),
    ("报告用PDF格式发给我。", "发票用PDF格式发给财务。"),
]

#: The same value and subject in other words: a duplicate, never a conflict.
DUPLICATES = [
    ("Reply to me in Spanish.", "Please answer in Spanish from now on."),
    ("Keep my replies brief.", "Make my replies brief."),
    ("老张住在杭州。", "老张现在住在杭州。"),
    ("Tomás lives in Madrid.", "Tomás is living in Madrid."),
]

#: Both true at once: an additive word.
ADDITIVE = [
    ("Omar is allergic to penicillin.", "Omar is allergic to latex too."),
    ("I speak Dutch.", "I can also speak Polish."),
    ("她会弹钢琴。", "她还会拉小提琴。"),
    ("The API accepts JSON.", "The API accepts YAML as well."),
    ("小王负责前端。", "小王还负责测试。"),
    ("我对花生过敏。", "我对海鲜也过敏。"),
    ("Use tabs in Go.", "Use tabs in Makefiles too."),
]


@pytest.mark.parametrize(("old", "new"), CHANGE_VERB + SUBSTITUTION)
def test_a_new_value_for_the_same_subject_is_a_conflict(old: str, new: str) -> None:
    verdict = conflicts.compare(old, new)
    assert verdict.conflict, verdict
    assert verdict.old_values and verdict.new_values


@pytest.mark.parametrize(("old", "new"), CHANGE_VERB_NOT + SUBSTITUTION_NOT + ADDITIVE)
def test_another_subject_or_an_added_value_is_not_a_conflict(old: str, new: str) -> None:
    assert not conflicts.compare(old, new).conflict


@pytest.mark.parametrize(("old", "new"), DUPLICATES)
def test_the_same_value_in_other_words_is_a_duplicate(old: str, new: str) -> None:
    assert conflicts.compare(old, new).kind == "duplicate"


@pytest.mark.parametrize(("old", "new"), CHANGE_VERB + SUBSTITUTION)
def test_pairs_finds_each_structural_conflict(old: str, new: str) -> None:
    """``pairs()`` skips pairs by a sketch first: the sketch must let every new rule through."""
    from tests.unit.test_conflicts import M, _at

    found = conflict_pairs.pairs([M("notes/new.md", new, updated=_at(2)), M("notes/old.md", old, updated=_at(1))])
    assert [(p.older, p.newer) for p in found] == [("notes/old.md", "notes/new.md")]


@pytest.mark.parametrize(("word", "same"), [("works", "working"), ("lives", "lived"), ("moves", "moving"),
                                            ("runs", "running"), ("notes", "note")])
def test_inflections_meet_in_one_stem(word: str, same: str) -> None:
    assert stem(word) == stem(same)


def test_what_the_reader_records() -> None:
    lena = {t.form: t for t in tokens("Lena moved to Graz.")}
    assert lena["graz"].changed and lena["graz"].value and not lena["lena"].changed
    use = tokens("Use tabs for indentation in my Go code.")
    assert use[0].imperative and use[1].plain and not use[-1].plain  # "my … code" is the subject
    assert not tokens("Kai works in Berlin.")[1].plain  # the verb after a name
    assert [t.form for t in tokens("release-2.3 at 9:30")][1:] == ["2.3", "9:30"]
    assert [t.form for t in tokens("测试服务器在机房A。")][-1] == "a"  # glued to CJK: a name, not "a"
    moved = tokens("老张搬到苏州了。")
    assert [bool(t.changed) for t in moved] == [False, True]
