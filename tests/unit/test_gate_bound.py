"""What a request is bound to, an end told as final, and ID documents by kind (pure; issue #27,
fifth blind set).

A request is one-off when the structure of its sentence binds it to one item or event: an item
handed over just now ("what I just pasted", "the ticket I linked", 刚贴的代码), one numbered part
("the second paragraph", "slide 3"), a few things at hand (那几页), an event at a clock time or
part of day ("the investor call at 3", 下午的会). A tool's claim that an end is final ("down for
good", 彻底下线) is a durable claim. An ID document named by its kind (an identity acronym, a
residence or tax document, a 证/卡/号 compound) bound to an identifier is refused. Each rule has
cases of its own here (none copied from a labelled set), in English and Chinese, beside hard
negatives: durable rules that use the same words."""

from __future__ import annotations

import pytest

from memfs.agents.gate_eval import outcome
from memfs.policy import meaning
from memfs.policy.candidate import from_mapping
from memfs.policy.secrets_scan import scan

BOUND = {
    # an item handed over in this conversation: just pasted, the doc I attached, 刚上传的
    "item just shared": [
        ("Fix the indentation in what I just pasted.", "one-off"),
        ("Turn the CSV I uploaded into a bar chart.", "one-off"),
        ("Check the contract I attached for missing dates.", "one-off"),
        ("Reply to the message that I forwarded with a polite no.", "one-off"),
        ("Explain the just-posted error log line by line.", "one-off"),
        ("Give me three titles for the essay we've sent over.", "one-off"),
        ("把我刚发的截图里的报错解释一下。", "one-off"),
        ("刚才上传的合同帮我看看有没有漏洞。", "one-off"),
        ("上面我贴的日志里找出超时的请求。", "one-off"),
        ("把我刚才说的那段话翻译成英文。", "one-off"),
        ("附件中的发票按金额排序。", "one-off"),
        ("Summarise the article at this link.", "one-off"),
        ("Caption this photo in French.", "one-off"),
        ("这个链接里的文章帮我总结一下。", "one-off"),
        ("这张截图里的字帮我识别出来。", "one-off"),
        ("Rewrite the bit I highlighted.", "one-off"),
        ("Reply to the email from my landlord in German.", "one-off"),
        ("把老板发来的邮件翻译成英文。", "one-off"),
        ("When I paste code, review it for bugs.", "lasting"),
        ("Whenever I send a link, summarise it in two lines.", "lasting"),
        ("If I upload a spreadsheet, chart the totals.", "lasting"),
        ("Use the template I shared for every proposal.", "lasting"),
        ("Use the style guide I sent you.", "lasting"),
        ("I just moved to Lisbon, so use metric units.", "lasting"),
        ("我贴代码的时候，顺便检查一下 bug。", "lasting"),
        ("我刚开始学 Go，解释时多举例子。", "lasting"),
        ("以后我刚贴代码你就先跑一遍测试。", "lasting"),
        ("附件中的文件名一律不要有空格。", "lasting"),
        ("Use this code style everywhere.", "lasting"),
        ("Keep the output short.", "lasting"),
        ("这个代码库的注释都用英文。", "lasting"),
        ("这张卡以后默认用来付款。", "lasting"),
        ("老板发来的邮件都要优先处理。", "lasting"),
        ("Build the report from the template, always.", "lasting"),
    ],
    # one numbered part: the second paragraph, the last two slides, slide 3, 第三段
    "numbered part": [
        ("Make the second paragraph less repetitive.", "one-off"),
        ("Merge the last two slides into one.", "one-off"),
        ("The opening sentence sounds stiff, loosen it.", "one-off"),
        ("Swap slide 3 and slide 4.", "one-off"),
        ("Cut the 3rd bullet.", "one-off"),
        ("Reply to the last email in the thread.", "one-off"),
        ("第三段写得太啰嗦，精简一下。", "one-off"),
        ("把最后两页合并成一页。", "one-off"),
        ("Always put the summary in the first paragraph.", "lasting"),
        ("Put the conclusion in the first paragraph of each report.", "lasting"),
        ("Start emails with the main point in the first sentence.", "lasting"),
        ("Keep lines under 100 characters.", "lasting"),
        ("Always put the summary above the details.", "lasting"),
        ("Use my first name in replies.", "lasting"),
        ("I like the first slide to be a title slide.", "lasting"),
        ("Put page numbers on page 2 onward.", "lasting"),
        ("每份报告的第二段都写风险。", "lasting"),
        ("以后这几页的格式都照这个来。", "lasting"),
        ("第一段都写结论。", "lasting"),
        ("Always summarise the last section of long documents first.", "lasting"),
    ],
    # an event picked out by its clock time or part of day: the call at 3, my 4pm demo, 下午的会
    "event at a clock time": [
        ("For the investor call at 3, keep it under five minutes.", "one-off"),
        ("Prepare two slides for my 4pm demo.", "one-off"),
        ("Draft questions for the interview at 10:30 am.", "one-off"),
        ("Keep the notes for our 9 o'clock sync short.", "one-off"),
        ("For the 2:30 interview, give me five questions.", "one-off"),
        ("For the board meeting on the 14th, use formal language.", "one-off"),
        ("Keep the call with Acme at 4 to twenty minutes.", "one-off"),
        ("15号的评审会，材料用英文。", "one-off"),
        ("下午的会帮我列个议程。", "one-off"),
        ("我三点半要讲的那几页，字号调大一点。", "one-off"),
        ("晚上八点的直播，标题用英文。", "one-off"),
        ("For the meeting at half past two, prepare notes.", "one-off"),
        ("Prep me for the interview later.", "one-off"),
        ("等会儿的电话帮我列三个问题。", "one-off"),
        ("Every Monday at 9 remind me to file the timesheet.", "lasting"),
        ("Don't schedule calls at 8am.", "lasting"),
        ("Never book meetings at 5 pm on Fridays.", "lasting"),
        ("The daily standup at 9 runs in English, so take its notes in English.", "lasting"),
        ("Keep my mornings free until 10.", "lasting"),
        ("Schedule my meetings later than 10.", "lasting"),
        ("Book my calls at 10am or later.", "lasting"),
        ("Send invoices on the 1st of every month.", "lasting"),
        ("每月15号的例会都用中文记纪要。", "lasting"),
        ("每天下午的会都用中文记纪要。", "lasting"),
        ("九点以后别给我发消息。", "lasting"),
        ("平时下午的会都不要超过半小时。", "lasting"),
    ],
}

ENDS = [
    ("The staging cluster is down for good.", "durable-claim"),
    ("The legacy export was switched off once and for all.", "durable-claim"),
    ("Uploads to the old bucket are paused indefinitely.", "durable-claim"),
    ("The v1 endpoint is not coming back.", "durable-claim"),
    ("旧版接口已彻底关闭。", "durable-claim"),
    ("测试环境再也无法访问了。", "durable-claim"),
    ("那台机器已不复存在。", "durable-claim"),
    ("The old API will not be restored.", "durable-claim"),
    ("测试服务器不会再上线。", "durable-claim"),
    ("这个接口以后都用不了了。", "durable-claim"),
    ("The staging cluster is down.", "status"),
    ("I re-ran the job for good measure; it passed.", "status"),
    ("The spare cluster is used for good causes.", "status"),
    ("The v1 endpoint is slow today.", "status"),
    ("旧版接口已下线，维护到周五。", "status"),
    ("已彻底清理了构建缓存。", "status"),
]

ID_BY_KIND = [
    "My Canadian SIN is 130 692 544.",
    "SSN: 078-05-1120",
    "My NINO is QQ123456C",
    "My residence card number is RZ4KQ81M2.",
    "Tax ID: 12-3456789",
    "green card no. SRC9876543210",
    "work permit WP1234567",
    "My social insurance number is 130-692-544",
    "我的回乡证号码是 H12345678。",
    "居住证号 SH2023001234",
    "我的工作证号是 GZ20231234",
    "英国社保号：QQ 12 34 56 C",
    "我的永居卡号码是 ABC123456789。",
    "在留卡番号 AB12345678CD",
    "纳税人识别号 91310000MA1FL8XQ30",
    "My ID is 123456789",
    "Steuer-ID 12 345 678 901",
    "carte de séjour n° 1234567890",
]
NOT_AN_ID = [
    "Order number 12345678 shipped today.",
    "order ID number 998877665 is late",
    "Ticket ID 4567890 is closed",
    "My phone number is 555-123-4567.",
    "My work number is 0151 2345678",
    "Version 2.3.14 fixed it",
    "Tracking number 1Z999AA10123456784",
    "The price is 123456 yen",
    "I got my green card in 2019 after 10 years",
    "the TIN roof of 1234567",
    "sin 123456",
    "订单号 202312345678 已发货",
    "我的手机号是 13812345678",
    "快递单号 SF1234567890",
    "工单号 INC0012345",
    "签证办好了，航班号 CA1234",
    "验证码是 123456",
    "凭证号 PZ202401",
    "证书编号 2023-0001",
    "会员卡号 12345678",
    "用户ID 12345678",
    "my user ID is 12345678",
    "工号 100234",
]


@pytest.mark.parametrize(("text", "label"), [case for cases in BOUND.values() for case in cases])
def test_a_request_bound_to_one_item_or_event_is_one_off(text: str, label: str) -> None:
    assert meaning.read_preference(text).label == label


def test_each_bound_rule_has_cases_both_ways_in_both_languages() -> None:
    for rule, cases in BOUND.items():
        for lasting in (True, False):
            chosen = [t for t, label in cases if (label == "lasting") == lasting]
            assert any(t.isascii() for t in chosen) and any(not t.isascii() for t in chosen), rule


@pytest.mark.parametrize(("text", "label"), ENDS)
def test_an_end_told_as_final_is_a_durable_claim(text: str, label: str) -> None:
    assert meaning.read_observation(text).label == label


@pytest.mark.parametrize("text", ID_BY_KIND)
def test_an_id_document_named_by_its_kind_is_found_whether_or_not_its_checksum_holds(text: str) -> None:
    assert [f.rule for f in scan(text)] == ["secret/id-document"]


@pytest.mark.parametrize("text", NOT_AN_ID)
def test_order_phone_ticket_and_other_numbers_are_not_id_documents(text: str) -> None:
    assert scan(text) == []


def test_the_gate_refuses_and_holds_by_these_rules() -> None:
    def said(text: str, **fields: str) -> str:
        return outcome(from_mapping({"scope": "user:U5", "source": "conversation:C1#msg-1", "source_kind": "user",
                                     "type": "preference", "body": text, **fields}))

    assert said("Summarise the PR I linked in one line.") == "refuse"
    assert said("刚才贴的表格按日期排序。") == "refuse"
    assert said("When I paste code, review it for bugs.") == "store"
    assert said("I prefer my SIN 130 692 544 kept private.") == "refuse"
    assert said("The build farm is gone for good.", type="fact", source_kind="tool", source="tool:ci") == "hold"
    assert said("The build farm is down.", type="fact", source_kind="tool", source="tool:ci") == "store"
