"""The gate's reading of bounded requests and hedged guesses (pure; issue #27, third blind set).

A request is one-off when its instruction is bound to one particular, already-present object or
to a bounded time, even when it says "always" inside that frame; a preference is inferred when it
is hedged as a guess. Each rule has cases of its own here (none copied from a labelled set), in
English and Chinese, beside hard negatives: lasting preferences that name drafts, pull requests,
days or places in general, and imperatives that merely end in 吧 or say "should"."""

from __future__ import annotations

import pytest

from memfs.agents.gate_eval import outcome
from memfs.policy import meaning
from memfs.policy.candidate import from_mapping

FRAMES = {
    # a definite reference to one work item under way: the draft, the pull request, the deck
    "definite work item": [
        ("Tighten the draft so it fits on two pages.", "one-off"),
        ("Give the pull request a clearer title.", "one-off"),
        ("Merge the PR with a merge commit, not a squash.", "one-off"),
        ("The slide deck needs a darker background.", "one-off"),
        ("Trim the proposal down to the key points.", "one-off"),
        ("Make the cover letter less stiff.", "one-off"),
        ("初稿再精简一些。", "one-off"),
        ("方案再改一版，突出成本。", "one-off"),
        ("把标题再改短一点。", "one-off"),
        ("简历改得正式一点，别超过一页。", "one-off"),
        ("这个 MR 先别合。", "one-off"),
        ("这个需求用英文写说明。", "one-off"),
        ("这个函数用早返回。", "one-off"),
        ("这个 issue 用英文回复。", "one-off"),
        ("No charts in the current report, please.", "one-off"),
        ("Could you make the summary a bit snappier?", "one-off"),
        ("Make it even shorter.", "one-off"),
        ("Fix the typos in the draft and send it back.", "one-off"),
        ("Always send drafts as PDF.", "lasting"),
        ("Every PR should be squash-merged.", "lasting"),
        ("Send me a draft before anything goes to the client.", "lasting"),
        ("When a draft runs past two pages, split the draft in two.", "lasting"),
        ("Keep pull requests small.", "lasting"),
        ("Put the summary first in reports.", "lasting"),
        ("Send the weekly report in English.", "lasting"),
        ("Use the draft template for proposals.", "lasting"),
        ("Reply in the language of the incoming email.", "lasting"),
        ("Match the tone of the original message when replying.", "lasting"),
        ("每次的草稿都用 Markdown。", "lasting"),
        ("草稿都用 Markdown 写。", "lasting"),
        ("写草稿时先列提纲。", "lasting"),
        ("所有合并请求都要关联工单。", "lasting"),
        ("这个项目的 PR 都用 squash 合并。", "lasting"),
        ("Keep it short.", "lasting"),
        ("Make your answers a bit shorter than you do now.", "lasting"),
        ("Always review the draft before sending it.", "lasting"),
        ("Address the letter to the dean when writing to universities.", "lasting"),
        ("Put the abstract before the introduction in papers.", "lasting"),
        ("写完再改一遍再发给我。", "lasting"),
    ],
    # an edit of one part of something already there: drop the second paragraph, 第二段删掉
    "edit of one part": [
        ("Bold the key numbers in the table.", "one-off"),
        ("Drop the second paragraph.", "one-off"),
        ("Rename the variable to userId.", "one-off"),
        ("Could you tighten up the conclusion?", "one-off"),
        ("第二段删掉。", "one-off"),
        ("把最后两节的顺序换一下。", "one-off"),
        ("把表格里的关键数字加粗。", "one-off"),
        ("Bold the totals in tables.", "lasting"),
        ("Never merge the PR without a review.", "lasting"),
        ("Always bold the key numbers in a table.", "lasting"),
        ("Put the summary at the top of your answers.", "lasting"),
        ("Keep the title of blog posts under 60 characters.", "lasting"),
        ("Cut the small talk in your replies.", "lasting"),
        ("表格里的关键数字都加粗。", "lasting"),
        ("每份报告的第一段写结论。", "lasting"),
        ("第一段写结论，这是我写报告的习惯。", "lasting"),
        ("Open with the verdict in the first paragraph; that's my rule for memos.", "lasting"),
    ],
    # a deictic place: just here, only here, 这里, 此处
    "deictic place": [
        ("Only here, indent with four spaces.", "one-off"),
        ("Use single quotes here only.", "one-off"),
        ("Just in this function, allow the long lines.", "one-off"),
        ("这里先用制表符缩进。", "one-off"),
        ("此处改成被动语态。", "one-off"),
        ("只在这里用英文引号。", "one-off"),
        ("此处的变量名请一律用驼峰。", "one-off"),
        ("Over here, keep the variable names short.", "one-off"),
        ("Keep it formal here, the client is reading.", "one-off"),
        ("Here is how I like commit messages: short and in the imperative.", "lasting"),
        ("I live here in Lisbon, so use metric units.", "lasting"),
        ("I work here on weekdays, so keep replies short.", "lasting"),
        ("我们这里都用公制单位。", "lasting"),
        ("这里是我的习惯：日期写成 YYYY-MM-DD。", "lasting"),
        ("我喜欢这里的咖啡，订会议室时选这栋楼。", "lasting"),
    ],
    # a temporary frame: in the meantime, hold off, not yet; 先别…再说, 这几天
    "temporary frame": [
        ("In the meantime, send updates by email.", "one-off"),
        ("Hold off on the charts until the numbers are final.", "one-off"),
        ("Don't add a changelog yet, we'll revisit it later.", "one-off"),
        ("At the moment, leave the footnotes out.", "one-off"),
        ("先不要写注释，以后再说。", "one-off"),
        ("等我回来再说，先别发布。", "one-off"),
        ("这几天回复短一点。", "one-off"),
        ("今儿用英文回复。", "one-off"),
        ("这段时间先用测试环境。", "one-off"),
        ("先不用配图，之后再看。", "one-off"),
        ("Only for the current sprint, skip the retro notes.", "one-off"),
        ("Leave the tests out until the API settles.", "one-off"),
        ("Keep replies in Spanish until I'm back from Madrid.", "one-off"),
        ("Let's keep it short for the rest of this chat.", "one-off"),
        ("Usually I like long answers, but today keep it short.", "one-off"),
        ("我平时喜欢长回答，但今天简短点。", "one-off"),
        ("解释概念时先讲结论，再讲理由。", "lasting"),
        ("写代码前先写测试。", "lasting"),
        ("以后都先发给我看。", "lasting"),
        ("First the numbers, then the text.", "lasting"),
        ("Never add emojis, not even at the moment of a launch.", "lasting"),
        ("Don't merge anything that isn't reviewed yet.", "lasting"),
        ("If I haven't replied yet, send a reminder after two days.", "lasting"),
        ("Keep my calendar free on Friday afternoons.", "lasting"),
        ("Don't book anything until 9am.", "lasting"),
        ("我一般周三在家办公，那天的会尽量线上开。", "lasting"),
    ],
    # "always" or "every time" inside a bounded frame stays bounded; wording about the future does not
    "always inside a frame": [
        ("Always use the formal 'you' in this contract.", "one-off"),
        ("Throughout this essay, always cite page numbers.", "one-off"),
        ("Keep British spelling in this manuscript, always.", "one-off"),
        ("这份合同里始终用正式称呼。", "one-off"),
        ("本次发布说明一律用中文。", "one-off"),
        ("这一稿一直用第三人称。", "one-off"),
        ("这一版的接口文档总是用英文写。", "one-off"),
        ("Every time you mention money in this report, use euros.", "one-off"),
        ("每次回复这个帖子都用英文。", "one-off"),
        ("Always use this email address for invoices.", "lasting"),
        ("From now on, always use metric in reports.", "lasting"),
        ("Always keep the summary at the top of a report.", "lasting"),
        ("以后这类合同都用正式称呼。", "lasting"),
        ("请一直用英文写提交说明。", "lasting"),
        ("This client always wants PDFs.", "lasting"),
        ("In this repo, always run the linter before committing.", "lasting"),
        ("这个客户一直要 PDF。", "lasting"),
        ("每个版本的发布说明都用英文。", "lasting"),
        ("Whenever this kind of email comes in, forward it to Ana.", "lasting"),
        ("Whenever you write to this email address, cc Ana.", "lasting"),
        ("Every time I say 'today' in a ticket, I mean Lisbon time.", "lasting"),
        ("每次开周会都用英文做纪要。", "lasting"),
    ],
    # a word or two in quotation marks is mentioned, not used; a quoted request is still read
    "quoted mention": [
        ("Never write 'next week' in a reminder; give the date.", "lasting"),
        ('Phrases like "this time" annoy me, so leave them out of replies.', "lasting"),
        ("别在提醒里写“明天”，直接写日期。", "lasting"),
        ("不要用「本周」这种说法，写具体的日期范围。", "lasting"),
        ('The user asked: "Answer this thread in German."', "one-off"),
        ('Use the word "today" in the subject of tomorrow\'s digest.', "one-off"),
        ("他说：“今天的纪要用英文写。”", "one-off"),
        ("“本周例会”的纪要请用中文写。", "one-off"),
    ],
    # a recurrence named with "each" as with "every": each morning, each Friday
    "each occasion": [
        ("Each Friday, show me what changed this week.", "lasting"),
        ("Each evening, list tomorrow's meetings first.", "lasting"),
        ("每天早上先给我看今天的日程。", "lasting"),
        ("Each of these slides needs a title today.", "one-off"),
        ("今天每一页都加上页码。", "one-off"),
    ],
    # a guess hedged by a modal or a sentence-final particle, not the user's statement
    "hedged guess": [
        ("I'd say she prefers calls to emails.", "inferred"),
        ("He must be a fan of dark themes.", "inferred"),
        ("Chances are the user wants Python examples.", "inferred"),
        ("My guess is they like short replies.", "inferred"),
        ("She likes tea more than coffee, I think.", "inferred"),
        ("Sounds like the user prefers tables.", "inferred"),
        ("应该更喜欢邮件吧。", "inferred"),
        ("他喜欢简洁的风格吧？", "inferred"),
        ("说不定她更想要中文版。", "inferred"),
        ("或许用户偏好纸质报告。", "inferred"),
        ("我猜他习惯用 Vim。", "inferred"),
        ("估计是习惯晚上开会。", "inferred"),
        ("Seems the user prefers concise answers.", "inferred"),
        ("I think she prefers Slack over email.", "inferred"),
        ("Guess he likes bullet points.", "inferred"),
        ("From his questions, he's into functional programming.", "inferred"),
        ("感觉他更喜欢电话沟通。", "inferred"),
        ("他们公司应该是用 Java 的。", "inferred"),
        ("From what I can tell, she likes Markdown.", "inferred"),
        ("Not sure, but he prefers phone calls.", "inferred"),
        ("I've heard she prefers tea.", "inferred"),
        ("听说他喜欢早起。", "inferred"),
        ("看得出她偏好极简风格。", "inferred"),
        ("I'd like answers in French.", "lasting"),
        ("The title must be in English.", "lasting"),
        ("I think short answers are best.", "lasting"),
        ("回复应该简短。", "lasting"),
        ("标题应该是中文。", "lasting"),
        ("用英文回复吧。", "lasting"),
        ("以后就用 rebase 合并吧。", "lasting"),
        ("我喜欢深色主题。", "lasting"),
        ("I think English is clearer for release notes.", "lasting"),
        ("I'm into functional programming, so use Haskell examples.", "lasting"),
        ("提交信息用英文写吧。", "lasting"),
        ("应该用 UTF-8 编码。", "lasting"),
        ("If you're not sure, ask me.", "lasting"),
        ("I heard you the first time: keep it brief.", "lasting"),
    ],
}


@pytest.mark.parametrize(
    ("text", "label"), [case for cases in FRAMES.values() for case in cases],
)
def test_a_request_bound_to_a_frame_or_hedged_is_read_by_its_structure(text: str, label: str) -> None:
    assert meaning.read_preference(text).label == label


def test_each_rule_has_cases_both_ways_in_both_languages() -> None:
    for rule, cases in FRAMES.items():
        for lasting in (True, False):
            chosen = [t for t, label in cases if (label == "lasting") == lasting]
            assert any(t.isascii() for t in chosen) and any(not t.isascii() for t in chosen), rule


def test_the_gate_refuses_a_framed_request_and_holds_a_guess() -> None:
    def said(text: str) -> str:
        return outcome(from_mapping({"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user",
                                     "type": "preference", "body": text}))

    assert said("Throughout this essay, always cite page numbers.") == "refuse"
    assert said("先不要写注释，以后再说。") == "refuse"
    assert said("应该更喜欢邮件吧。") == "hold"
    assert said("以后就用 rebase 合并吧。") == "store"
    assert said("Always send drafts as PDF.") == "store"


def test_the_gate_never_reads_the_clock() -> None:
    """A labelled set's statuses carry ``expires`` dates that will pass (bench/gate_blind3.jsonl's
    lie in December 2026): the gate's outcome must not depend on today's date, so an expiry long
    past is judged like one far ahead."""
    def status(expires: str) -> str:
        return outcome(from_mapping({"scope": "user:U5", "source": "tool:status", "source_kind": "tool",
                                     "type": "fact", "body": "Publishing disabled until 06:00 UTC.",
                                     "expires": expires}))

    assert status("2001-01-01T00:00:00Z") == status("2999-01-01T00:00:00Z") == "store"
