"""What a candidate means, read offline: the questions the write gate asks of its wording (pure).

A judge (:mod:`memfs.ops.judge`) may answer the same questions instead; its answer has the same
shape (:class:`Reading`) and the same allowed labels, so the gate applies either the same way.

Two questions, by what the candidate is:

* ``preference`` (the user's or an administrator's preference): is it ``lasting``, a ``one-off``
  request (this time, this thread, letter or meeting, today, this week...), or ``inferred``
  wording (someone's guess about the user: "seems to", "probably", "看起来", "好像")?
* ``observation`` (a fact or note a tool or an agent observed once): is it a ``durable-claim``
  ("never", "always", "permanently", "从不", "永远"; an end told as final, "down for good",
  "not coming back", 彻底下线; or a rule "do not ...") or a ``status`` of the moment?

One-off requests are recognised by what they refer to, not by a list of sentences: a deictic
reference to one particular artifact or event (*this* thread, letter, paragraph, call, meeting,
email; *the* paragraph *above*; 这封, 这段, 上面的), or a time-bounded scope (today, tonight,
tomorrow, this week; 今天, 明天, 本周, 这次), unless the wording also makes it lasting ("from now
on", "every time", "以后", "从今天起"). Nouns that name something lasting (a project, a repository,
an account, an email *address*) are not one-off references. A thing is also picked out by whose
it is (*Priya's* email, *my last* message, 上一条) or by being made now (the post *we're
drafting*), and a day by naming one (*on Thursday*, 周四; not *on Thursdays*, 每周四). A request is
also bound by a definite work item under way (*the* draft, *the* PR, 草稿再改短, 把标题…, 这个 PR,
这一版; not *drafts*, *a* draft, *every* PR, *in my reports*, or a habit: *always* review the
draft), a deictic place (*just here*, 只在这里, 此处改成) or a temporary frame (*in the
meantime*, *hold off*, *don't … yet*, 先别…, 回头再说, 这几天). "Always" (一直, 始终, 一律) inside
such a frame does not make it lasting ("always use metric in this report", 这一版一直用英文), nor
does "every time" (每次) inside one thing at hand ("every time you cite in this essay"): only
wording about the future does ("from now on", "in future", "以后", "今后").

Inferred wording is a guess's vocabulary, or a third person's preference told as a prediction or
judged from evidence ("Maria *seems* more comfortable", "the user *would like*", "从他的提问来看"),
or a hedge: a modal guess ("chances are", "I'd say she…", "he must be", 说不定, 应该更喜欢…) or
a trailing one (", I think"; a preference ending in 吧); the speaker's own "I'd like", "the
title must be…" or an imperative softened by 吧 ("用英文回复吧") is a statement. A recurrence
seen once ("every night", "on Mondays", 每周一都) is a durable claim, like "always".
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from memfs.policy import task_request

Question = Literal["preference", "observation"]
#: The labels each question allows (the judge's contract, see :mod:`memfs.ops.judge`).
CHOICES: dict[Question, tuple[str, ...]] = {
    "preference": ("lasting", "one-off", "inferred"),
    "observation": ("status", "durable-claim"),
}

#: Words after the noun that make it a lasting thing (an email *address*, a report *template*).
_LASTING_COMPOUND = r"(?!\s+(?:address(?:es)?|accounts?|signatures?|templates?|formats?|styles?|domains?|clients?|" \
                    r"aliases|lists?|folders?|channels?|series|types?)\b)"
#: Requests for this time only, English. Each alternative is one phrasing family; the tests hold
#: a phrase for each and near-misses that must pass (tests/unit/gate_phrases.py).
PHRASES_EN = (
    r"just\s+(?:this\s+once|once|for\s+(?:now|today|this))",
    r"(?:only|just)\s+this\s+(?:once|time)",
    r"this\s+(?:once|one\s+time)\b",
    r"this\s+time\b(?!\s*(?:zone|of\b|frame))",
    r"one[- ](?:off|time)\b(?!\s+(?:password|code|token|setup|fee|payment))",
    r"for\s+now\b",
    r"for\s+the\s+(?:time\s+being|moment)",
    r"right\s+now\b",
    r"(?:today|tonight)\s+only|only\s+(?:today|tonight)|just\s+(?:today|tonight)",
    r"for\s+(?:today|tonight|this\s+(?:morning|afternoon|evening|week|weekend))\b",
    r"temporar(?:il)?y\s+(?:switch|change|use|reply|answer|write)|temporarily",
    r"as\s+an?\s+exception|exceptionally",
    r"(?:for|in|on|to|with)\s+(?:this|that|the\s+next|my\s+next|your\s+next|the\s+following)\s+"
    r"(?:one|message|e-?mails?|mails?|reply|replies|response|answer|document|doc|file|draft|request|task|"
    r"ticket|meeting|call|chat|conversation|report|letter|memo|slide\s+deck|deck|pr|pull\s+request|commit|"
    r"session|question|post|tweet|summary|invoice)\b" + _LASTING_COMPOUND,
    r"(?:reply|respond|answer|write)\s+(?:to\s+)?(?:the|my|your)\s+next\s+(?:e-?mail|message|one|letter)",
    r"the\s+next\s+(?:e-?mail|message|reply|response|letter)\b",
    r"until\s+(?:tomorrow|tonight|the\s+end\s+of\s+(?:the\s+)?(?:day|week|month|sprint)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|next\s+week|the\s+release|i\s+say\s+otherwise)\b",
    r"translate\s+(?:this|that|it)\b",
    # a temporary frame: in the meantime, at the moment, hold off, not ... yet, revisit it later
    r"in\s+the\s+meantime|meanwhile|at\s+the\s+moment\b(?!\s+of\b)|hold\s+off\b|not\s+yet(?=\s*(?:[.,;:!?]|$))|"
    r"(?:revisit|come\s+back\s+to|decide\s+on|deal\s+with)\s+"
    r"(?:it\s+|this\s+|that\s+|them\s+)?later\b|(?:in|for)\s+this\s+(?:case|instance)\b",
    # a deictic place: just here, here only, only in this function
    r"(?:just|only)\s+(?:right\s+)?here\b|here\s+only\b|over\s+here\b|(?:just|only)\s+(?:in|for|on)\s+this\b|"
    # an imperative that ends on "here": "use tabs here, it's a Makefile" (not "I live here")
    r"(?:use|keep|put|write|make|switch\s+to|go\s+with|stick\s+with|indent\s+with|leave)\b[^.;!?]{0,40}?\bhere"
    r"(?=\s*(?:[,.;!?]|$))",
)
#: Requests for this time only, Chinese.
PHRASES_ZH = (
    r"这次|这一次|这回|这一回|本次|此次|这趟",
    r"只此一次|仅此一次|就这一次|就这一回|下不为例|一次性",
    r"暂时|暂且|姑且|目前先|先这样",
    r"临时(?!文件|目录|变量|表|工|存储|缓存)",
    r"今天先|今天就|今晚先|今天用|今天请",
    r"下一封|下封|这封|这条(?:消息|回复|邮件)|这份|这篇",
    r"翻译一下|把这[个段句篇封份条]",
    r"破例|例外地?",
    # a temporary frame: 先别…, 回头再说, 这几天, 这段时间
    r"先(?:别|不要|不用|不必|不[加写发用做放]|暂停|放一放|搁一搁)|"
    r"(?:回头|以后|之后|到时候?|改天|过几天|晚点|稍后|等.{1,12}?)再(?:说|议|看|定|讲|决定)|再说吧|"
    r"这几天|这些天|这段时间|这阵子|近几天|最近几天|眼下",
    # a deictic place: 只在这里, 这里先…, 此处改成…
    r"(?:只在|仅在|就在)(?:这里|这儿|此处)|(?<!们)(?:这里|这儿)(?=\s*(?:先|就|请|用|改|换|别|不要|不用|加|删|写))|此处",
    # another round on a thing already there: 再改短一点, 再精简, 改得正式一点, 润色一下
    r"(?<![完后])再(?:改|精简|压缩|缩短|删|简化|润色|调|短|长|正式|简洁|精炼)|"
    r"(?:改|修改|润色|调整|精简|压缩|缩短|删减)(?:一下|得)",
)
#: Particular artifacts and events a request may point at ("this thread"): one-off scope.
_THINGS_EN = (
    r"threads?|letters?|paragraphs?|passages?|sentences?|sections?|pages?|chapters?|calls?|meetings?|"
    r"e-?mails?|mails?|messages?|repl(?:y|ies)|responses?|answers?|drafts?|documents?|docs?|reports?|memos?|"
    r"(?:slide\s+)?decks?|slides?|presentations?|chats?|conversations?|tickets?|prs?|pull\s+requests?|"
    r"commits?|questions?|posts?|tweets?|summar(?:y|ies)|invoices?|texts?|tables?|charts?|snippets?|"
    r"notes?|interviews?|appointments?|trip|visit|demo|session|request|task|proposal|invites?|standup|"
    r"toasts?|speech(?:es)?|talks?|pitch(?:es)?|weddings?|part(?:y|ies)|birthdays?|dinners?|lunch(?:es)?|"
    r"essays?|articles?|blog\s+posts?|manuscripts?|contracts?|functions?|methods?|files?|cells?|versions?|"
    r"spreadsheets?|workbooks?|scripts?|diagrams?|figures?|graphs?|screenshots?|agendas?|outlines?|"
    r"releases?|revisions?|iterations?|links?|urls?|code|logs?|images?|photos?|pictures?|videos?|recordings?|"
    r"transcripts?|attachments?|pdfs?|csvs?|json|output|stack\s+traces?|error\s+messages?"
)
#: One particular artifact or event (singular): what a possessive picks out ("Priya's email").
_ONE_THING_EN = (
    r"thread|letter|paragraph|passage|sentence|section|page|chapter|call|meeting|e-?mail|message|reply|response|"
    r"answer|draft|document|doc|report|memo|(?:slide\s+)?deck|presentation|chat|conversation|ticket|pull\s+request|"
    r"question|post|tweet|summary|invoice|interview|appointment|trip|visit|demo|proposal|invite|toast|speech|talk|"
    r"pitch|wedding|party|birthday|dinner|lunch|essay|article|blog\s+post"
)
#: Work items a definite "the" picks out as the one under way ("make the draft shorter", "merge
#: the PR"): drafts and reviews, not lasting artifacts (the README, the changelog).
_WORK_ITEM_EN = (
    r"draft|pr|pull\s+request|merge\s+request|patch|diff|(?:slide\s+)?deck|slides|proposal|(?:cover\s+)?letter|essay|"
    r"memo|spreadsheet|manuscript|intro(?:duction)?|conclusion|abstract|outline|e-?mail|document|doc"
)
#: Parts of a document or of code that an edit names one of ("bold the numbers in the table").
_PART_EN = (
    r"paragraph|section|sentence|slide|page|chapter|bullet|table|chart|graph|figure|title|heading|headline|"
    r"subject\s+line|ending|opening|variable|function|header|footer|caption|legend|appendix|footnote|summary"
)
#: Edits of something already there: they change one thing, they do not state a taste.
_EDIT_EN = (
    r"rename|swap|move|drop|delete|remove|bold|highlight|reorder|retitle|tighten|trim|shorten|cut|proofread|polish|"
    r"rework|redo|reword|tweak|fix"
)
#: "The draft", "the second draft", "the pull request", but not "the weekly report" or "drafts";
#: or an edit of one part: "drop the second paragraph", "bold the totals in the table".
_DEFINITE_EN = (
    r"\bthe\s+(?:(?!(?:weekly|daily|monthly|yearly|annual|quarterly|nightly|usual|standard|default|regular|same|incoming|"
    r"outgoing|original|received|corresponding|relevant|respective)\b)"
    rf"\w+\s+)?(?:{_WORK_ITEM_EN})\b(?!s\b|-){_LASTING_COMPOUND}|"
    rf"\b(?:{_EDIT_EN})\b[^.;!?]{{0,40}}?\bthe\s+(?:\w+\s+)?(?:{_PART_EN})\b(?!s\b|-){_LASTING_COMPOUND}"
)
#: Work items named in general ("a draft", "every PR", "in my reports", "when writing to…"): "the"
#: then refers back to any such item, not to one under way.
_GENERIC_EN = (
    rf"\b(?:a|an|any|every|each|all|no)\s+(?:\w+\s+)?(?:{_WORK_ITEM_EN})\b|"
    r"\b(?:in|for|on|to|of)\s+(?:all\s+)?(?:(?:my|our|your)\s+)?(?:(?!(?:the|these|those|two|three|four|few)\b)"
    r"[^\W\d]+\s+)?(?:papers|reports|documents|docs|e-?mails|"
    r"letters|drafts|proposals|essays|memos|decks|presentations|articles|posts|pull\s+requests|prs|answers|replies|"
    r"responses|messages|summaries|tables|charts|tickets|commits|notes|threads|slides|pages|files)\b|"
    r"\bwhen(?:ever)?\s+\w+ing\b|\bwhenever\b"
)
#: A condition open before "the draft" in its sentence ("if the draft…"): a rule for any draft.
_CONDITION_EN = r"\b(?:if|when|whenever)\b[^.;!?]*$"
#: Someone other than the speaker, as the subject of a sentence (not "I", "you", "we", "it").
_THIRD_PERSON = r"(?:\b(?:the\s+)?users?|\bthey|\bhe|\bshe|\b(?!(?:You|We|It|This|That|There|The)\b)[A-Z][a-z]+)"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MODIFIER = r"(?:(?:particular|specific|current|very|same|one|single|exact|upcoming|latest|last|first|whole)\s+)?"
#: This thread, these slides, this particular letter: one thing at hand.
_THIS_THING_EN = rf"\b(?:this|these)\s+{_MODIFIER}(?:{_THINGS_EN})\b{_LASTING_COMPOUND}(?!['’]s\s+(?:kind|type|sort)\b)"
_ONE_OFF_EN = (
    _THIS_THING_EN,
    # to that email, for those slides (a bare "that" is too often a conjunction)
    rf"\b(?:to|in|on|for|with|from|into|of|about|reply|answer|translate|rewrite|forward|send|edit|make)\s+"
    rf"(?:that|those)\s+{_MODIFIER}(?:{_THINGS_EN})\b{_LASTING_COMPOUND}",
    # the paragraph above, the attached report, the email I just sent
    # ("the summary above the details" places it: "above" then has an object)
    rf"\bthe\s+(?:\w+\s+)?(?:{_THINGS_EN})\s+(?:(?:above|below)(?!\s+(?:the|a|an|my|your|our|all|each|every|any|it|them|"
    r"this|that|those|these)\b)|attached|here|I\s+(?:just\s+)?"
    r"(?:sent|wrote|pasted|shared|forwarded|mentioned)|you\s+just)",
    # ("the last section", an ordinal, is read with the numbered parts: of long documents, it is general)
    rf"\bthe\s+(?:above|attached|following|previous|pasted|enclosed)\s+(?:\w+\s+)?(?:{_THINGS_EN})\b",
    rf"\b(?:yesterday|today|tomorrow|tonight|{_WEEKDAY})['’]s\s+(?:\w+\s+)?(?:{_THINGS_EN})\b",
    # an imperative on one particular thing: "shorten this", "format it as a table"
    r"\b(?:rewrite|reword|shorten|summari[sz]e|proofread|polish|forward|send|format|edit|fix\s+up)\s+(?:this|that|it)\b",
    # a point earlier in this conversation: "the question from earlier", "what you just wrote"
    # ("a draft before anything goes out": "before" opens a clause, it points at no earlier point)
    rf"\b(?:{_THINGS_EN})\s+(?:from\s+(?:earlier|before)|earlier|just\s+now|before(?=\s*(?:[.,;:!?]|$|in\b|into\b|as\b)))\b",
    # one thing picked by whose it is: Priya's email, Tom's wedding, my last message
    rf"\b(?-i:[A-Z])[\w-]*['’]s\s+{_MODIFIER}(?:{_ONE_THING_EN})\b(?!s|-){_LASTING_COMPOUND}",
    rf"\b(?:my|your|our|his|her|their)\s+(?:last|latest|previous|recent|current|next|upcoming|first)\s+"
    rf"(?:\w+\s+)?(?:{_ONE_THING_EN})\b(?!s)",
    # one thing being made now: the blog post we're drafting, the toast I'm giving
    rf"\bthe\s+(?:\w+\s+){{0,2}}(?:{_THINGS_EN})\s+(?:I|we|you|he|she|they|(?-i:[A-Z])[a-z]+)(?:['’](?:m|re|s)|\s+(?:am|are|is|was|were))"
    r"\s+\w+ing\b",
    # time-bounded scope: today, tomorrow, this week, one named day (not "on Mondays")
    r"\b(?:today|tonight|tomorrow)\b(?!['’]s\s+date)",
    rf"\b(?:on|for|by|before)\s+(?:the\s+)?{_WEEKDAY}\b(?!s|\s+(?:mornings|afternoons|evenings|nights)\b)",
    r"\bthis\s+(?:morning|afternoon|evening|week|weekend|month|quarter|sprint|round|trip)\b",
    rf"\b(?:this|next)\s+(?:week|{_WEEKDAY})\b",
    # the current one, the rest of this one: the current sprint, the rest of this chat
    rf"\bthe\s+current\s+(?:sprint|week|month|quarter|cycle|iteration|term|semester|phase|milestone|{_THINGS_EN})\b"
    + _LASTING_COMPOUND,
    r"\b(?:for\s+)?the\s+rest\s+of\s+(?:this|the|today|tonight)\b",
    # until an event that ends it: "until the API settles", "until I'm back" (not "until 9am" each day)
    r"\buntil\s+the\s+\w+(?:\s+\w+)?\s+(?:is|are|has|have|gets?|settles?|closes?|ends?|ships?|lands?|"
    r"stabili[sz]es|goes|comes|finishes|calms?)\b|"
    r"\buntil\s+(?:I|we)(?:['’](?:m|re)|\s+(?:am|are))?\s+(?:back|done|finished|ready|sure|hear|decide|know|"
    r"confirm|get\s+back)\b",
    # another round on one thing already there: "make it a bit shorter", "make the summary even snappier"
    r"\bmake\s+(?:it|this|that|the\s+\w+(?<!s))\s+(?:a\s+(?:bit|little|lot|touch)|even|slightly|somewhat)\s+"
    r"(?:\w+er|more|less)\b",
    # an imperative for now: "don't add tests yet" (not "anything that isn't reviewed yet")
    r"(?:^|[.!?;,]\s*)(?:please\s+)?(?:don['’]t|do\s+not|no\s+need\s+to)\s+(?:\w+\s+){1,4}yet\b",
)
#: 这封, 这份, 这一版, 这个 PR: one thing at hand.
_THIS_THING_ZH = (
    r"[这那本此][一]?[封份篇段条句页章场通版稿]|[这那][一]?[张幅](?!卡)|"
    r"[这那]个?\s*(?:会议|电话|邮件|帖子|话题|文档|段落|对话|线程|回复|报告|草稿|句子|表格|幻灯片|演示|附件|问题|"
    r"(?:PR|MR|issue|bug|ticket|commit|diff|patch|demo|PPT)(?![A-Za-z])|合并请求|版本|需求|工单|函数|方法|文件(?!夹)|脚本|"
    r"方案|稿子|图表|简历|合同|提纲|章节|链接|代码(?!库|仓库|风格|规范)|图片|照片|截图|日志|视频|录音)"
)
_ONE_OFF_ZH = (
    r"这[一]?[次回趟轮]|本[次周月轮场]|此次|这[个]?(?:星期|礼拜|周末)|这周|这个月|本周末",
    r"今天|今晚|今早|今日|今儿|明天|明早|明晚|明儿|后天|下周[一二三四五六日天]?",
    _THIS_THING_ZH,
    # a work item named as the thing handled: 把标题…, 把草稿…
    r"把(?:草稿|初稿|稿子|方案|简历|标题|开头|结尾|摘要|提纲|幻灯片|PPT|合同|表格|图表|变量|结论)",
    # one numbered part: 第二段, 把最后两节
    # (第一段都写结论: "all" after it, the first paragraph of each one)
    r"第[一二两三四五六七八九十\d]+[段节章页行列张句条](?!都|一律|总是|始终)|把(?:最后|前|后)[一二两三四五六七八九十\d]*[段节章页行列张句条]",
    r"上面(?:的|这|那)|下面这|刚才(?:的|那)|附件里",
    # the previous one (上一条消息, 上次); one named day, not a recurrence or a range (周四面试, not 每周四)
    r"[上前]一?[条封份篇段句次](?!数)",
    r"(?<![每到至])(?<!一般|通常|平时|平常|向来)(?:周|星期|礼拜)[一二三四五六日天](?![到至~\-—])",
)
#: Verbs of handing an item over in this conversation: what "I just pasted" or "the ticket I linked" points at.
_SHARED_EN = (
    r"pasted|linked|attached|uploaded|sent(?:\s+over)?|shared|forwarded|posted|dropped(?:\s+in)?|typed|quoted|"
    r"highlighted|selected|underlined|circled|marked|"
    r"screenshotted|showed\s+you|gave\s+you|put\s+(?:in|into)\s+the\s+chat"
)
#: Nouns that name something lasting even when it was handed over ("the template I shared", "the
#: address I sent"): the request is about a standing thing, not one item.
_STANDING_EN = (
    r"addresse?s?|templates?|formats?|styles?|names?|nicknames?|signatures?|rules?|guidelines?|checklists?|"
    r"conventions?|preferences?|accounts?|guides?|glossar(?:y|ies)|examples?|standards?|instructions?"
)
#: Events a request may be for: one of them is picked out by its clock time ("the investor call at 3").
_EVENT_EN = (
    r"calls?|meetings?|interviews?|talks?|demos?|presentations?|pitch(?:es)?|stand-?ups?|syncs?|reviews?|sessions?|"
    r"briefings?|webinars?|lectures?|class(?:es)?|appointments?|flights?|trains?|dinners?|lunch(?:es)?|part(?:y|ies)|"
    r"hearings?|exams?|workshops?|one-on-ones?|1:1s?|check-ins?|catch-ups?|keynotes?|panels?|screenings?|events?"
)
_CLOCK_EN = (
    r"(?:\d{1,2}(?:[:.]\d{2})?(?:\s*(?:[ap]\.?m\b\.?|o['’]clock))?|noon|midday|midnight|"
    r"(?:half|(?:a\s+)?quarter)\s+(?:past|to)\s+\w+)"
)
#: Not one event but a series ("the daily standup at 9").
_NOT_REGULAR = r"(?!(?:daily|weekly|monthly|yearly|annual|quarterly|nightly|usual|regular|recurring|standing)\b)"
_MONTH_EN = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
#: One day of the calendar: the 14th, March 3, 3 March.
_DATE_EN = (
    rf"(?:\d{{1,2}}(?:st|nd|rd|th)\b|{_MONTH_EN}\s+\d{{1,2}}\b|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_EN})"
)
_ORDINAL_EN = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final|penultimate|"
    r"second[- ]to[- ]last|opening|closing|\d+(?:st|nd|rd|th)"
)
#: Requests bound to one item or event by the sentence's structure, English: an item handed over
#: just now ("what I just pasted", "the ticket I linked"), one numbered part ("the second
#: paragraph", "slide 3"), an event at a clock time ("the investor call at 3", "my 4pm demo").
#: They are read only where nothing makes them general (:func:`_bound`): a rule for every item
#: ("when I paste code, review it"), "always put the summary in the first paragraph", plurals.
_BOUND_EN = (
    rf"\bjust[- ](?:{_SHARED_EN})\b",
    rf"\b(?:what|the\s+(?:[\w-]+\s+){{0,2}}?(?!(?:{_STANDING_EN})\b)[\w-]+|th(?:at|ose|ese)\s+(?:[\w-]+\s+){{0,2}}?[\w-]+)"
    rf"\s+(?:that\s+|which\s+)?(?:I|we)(?:['’]ve|\s+have|\s+had)?\s+(?:just\s+)?(?:{_SHARED_EN})\b",
    rf"\bthe\s+(?:very\s+)?(?:{_ORDINAL_EN})\s+(?:(?:two|three|four|five|few|couple\s+of)\s+)?"
    rf"(?:{_PART_EN}|{_THINGS_EN}|lines?|rows?|columns?|bullets?|points?|steps?|items?)\b",
    r"\b(?:paragraph|slide|page|section|chapter|line|row|column|cell|bullet|step|figure|table|question|item)s?\s+"
    r"(?:\d+(?:\.\d+)?|[ivx]+)\b(?!\s*(?:%|percent|characters|chars|words|lines|minutes|px|pt)\b|"
    r"\s*(?:onwards?|and\s+(?:up|later|beyond|after)|or\s+later|\+))",
    rf"\b(?:the|my|our|your|his|her|their)\s+{_NOT_REGULAR}(?:[\w-]+\s+){{0,2}}?(?:{_EVENT_EN})(?<![^s]s)"
    r"(?:\s+(?:with|for|about|on)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?"
    rf"\s+(?:at\s+{_CLOCK_EN}|@\s*{_CLOCK_EN}|on\s+(?:the\s+)?{_DATE_EN})"
    r"(?![\d:]|\s*(?:%|percent|minutes|people|times)\b)",
    rf"\b(?:the|my|our|your|his|her|their)\s+(?:\d{{1,2}}(?:[:.]\d{{2}})?\s*(?:[ap]\.?m\b\.?|o['’]clock)|\d{{1,2}}:\d{{2}}|noon|"
    rf"midday)\s+(?:[\w-]+\s+){{0,2}}?(?:{_EVENT_EN})\b(?<![^s]s)",
    # one message picked out by who sent it: "the email from my landlord", "the invite from Dana"
    r"\bthe\s+(?:[\w-]+\s+)?(?:e-?mail|message|letter|invite|invitation|text|note|voicemail|request|complaint|offer|"
    r"quote|contract)\s+from\s+(?!now\b|then\b|here\b|scratch\b|time\b|the\s+(?:template|start|top)\b)",
    rf"\b(?:the|my|our|your|his|her|their)\s+{_NOT_REGULAR}(?:[\w-]+\s+){{0,2}}?(?:{_EVENT_EN})(?<![^s]s)\s+later\b"
    r"(?!\s+than)",
)
#: Plural items named in general, without a determiner ("start emails with…", "in slides, …"):
#: "the first paragraph" then means the first paragraph of any of them.
_PLURAL_EN = (
    r"(?<!\bthe\s)(?<!\bthese\s)(?<!\bthose\s)(?<!\bmy\s)(?<!\byour\s)(?<!\bour\s)(?<!\bboth\s)(?<!\btwo\s)"
    r"(?<!\bthree\s)(?<!\bfour\s)(?<!\bfive\s)(?<!\bfew\s)(?<!\bsome\s)(?<!\d\s)"
    r"\b(?:e-?mails|reports|letters|documents|docs|drafts|essays|memos|decks|presentations|articles|posts|messages|"
    r"replies|responses|answers|summaries|tickets|prs|pull\s+requests|commits|threads|papers|proposals|invoices|"
    r"meetings|calls|interviews|chapters|sections|slides)\b"
)
#: Every one of a kind of item ("each report", "any email"): the numbered part of any of them.
_ANY_EN = rf"\b(?:any|every|each|all|no)\s+(?:[\w-]+\s+)?(?:{_THINGS_EN}|{_EVENT_EN})\b"
#: The speaker's standing taste ("I like the first slide to be a title"; not "I'd like"): a habit.
_TASTE_EN = r"\bI\s+(?:(?:usually|generally|normally|really)\s+)?(?:like|prefer|love|hate|dislike)\b"
#: A habit told in Chinese ("附件中的文件名一律不要有空格", 平时下午的会): the same in general.
_HABIT_ZH = r"一律|凡是|无论|不管|总是|一向|向来|通常|一般|平时|平常|习惯"
_CJK_NUMBER = r"[\d一二两三四五六七八九十]{1,3}"
#: 下午, 四点, 下午三点半, 明早: a clock time or part of day.
_CLOCK_ZH = (
    rf"(?:等一?会儿?|待会儿?|一会儿|晚些时候|(?:今天|明天|后天|周[一二三四五六日天])?(?:上午|下午|中午|晚上|傍晚|早上|凌晨)(?:{_CJK_NUMBER}点(?:半|钟|{_CJK_NUMBER}分?)?)?|"
    rf"{_CJK_NUMBER}点(?:半|钟|{_CJK_NUMBER}分?)?|\d{{1,2}}[:：]\d{{2}}|(?:{_CJK_NUMBER}月)?{_CJK_NUMBER}[号日])"
)
_EVENT_ZH = (
    r"会议?|电话会?|面试|演讲|汇报|分享会?|讲座|课|航班|约会?|饭局|聚餐|演示|评审|答辩|幻灯片|PPT|讲稿|稿子|发言|路演|直播|"
    r"培训|见面|访谈|晚宴|活动|考试|沟通会?|展示"
)
#: The same in Chinese: an item handed over just now (刚贴的代码, 刚才发的链接, 上面列的), a few of
#: the things at hand (那几页, 这几段), an event at a clock time or part of day (下午的会, 我四点要讲
#: 的那几页幻灯片); not a recurrence (每天下午的会, 平时), which :func:`lasting` reads first.
_BOUND_ZH = (
    r"(?:刚刚?|刚才|方才)[我你他她]?们?(?:给你|发给你|跟你)?(?:贴|粘贴|粘|发|传|上传|分享|附|转|转发|截|录|拍|扫|导出|复制|"
    r"列|写|提到|提过|说|给)",
    r"(?:上面|前面|上边|下面|下边)[我你]?(?:贴|粘贴|发|给|列|写|附|提到)的|附件[中内]",
    r"[这那](?:[两二三四五六七八九十]|几)[页张段条份篇句行节章]",
    r"(?:发来|发过来|传来|转来|寄来)的(?![^，。！？,.!?]{0,10}?(?:都|一律))",
    rf"(?=[上下中晚傍早凌今明后周等待一二两三四五六七八九十\d])(?<!每)(?<!每天)(?<!每月)(?<!平时)(?<!通常)(?<!一般)(?<!平常)(?<!工作日){_CLOCK_ZH}[^，。！？,.!?；;\s]{{0,6}}?的"
    rf"(?:[这那][几个场份次]?[页张个场份次篇段]?)?\s*(?:{_EVENT_ZH})",
)
#: Wording that makes a request lasting, even one that names a time ("from today on"). "Always"
#: (一直, 总是, 始终, 一律) is not here: a request bound to one thing or time ("always use metric in
#: this report", "这一版一直用英文") says how to treat that thing throughout, and the frame, not the
#: adverb, bounds it; without a frame there is nothing to outweigh, and it reads as lasting anyway.
LASTING_EN = (
    r"from\s+(?:now|here|today|tomorrow|this\s+\w+|next\s+\w+)\s+on(?:wards?)?|from\s+now\b|going\s+forward|"
    r"henceforth|hereafter|starting\s+(?:today|tomorrow|now|this\s+\w+|next\s+\w+)",
    r"all\s+future|in\s+(?:the\s+)?future",
    r"(?:that['’]s|it['’]s|this\s+is)\s+(?:my|our)\s+(?:rule|habit|standard|convention|policy|practice)|"
    r"by\s+default|permanently|as\s+a\s+rule|from\s+this\s+point|for\s+good|no\s+matter\s+what",
    r"(?:every|each)\s+(?:day|week|month|morning|evening|(?:mon|tues|wednes|thurs|fri|satur|sun)day|e-?mail|thread|meeting|"
    r"call|report|letter|message|reply)",
)
LASTING_ZH = (
    r"以后(?!再(?:说|议|看|定|讲|决定))|今后|往后|日后|从现在起|从现在开始|从今以后|从今往后|从此|自今日起",
    r"从(?:今天|明天|下周|本周)(?:起|开始)",
    r"每天|每周|每封|每份|每篇|默认|长期|以后都",
    r"(?:这|那)是(?:我|我们)[^，。！？,.!?]{0,8}?(?:规矩|习惯|惯例|原则|规定|做法)|我(?:一向|一贯)",
)
#: Each occasion ("every time", "whenever", 每次): lasting, unless the occasions are inside one
#: thing ("every time you mention money in this report", "每次在这份报告里…"), like "always".
OCCASIONS = r"\b(?:every\s+time|each\s+time|whenever)\b|每次|每一次"

#: Someone's guess about the user, not the user's statement.
_INFERRED = (
    r"\b(?:seems?|seemed|appears?|appeared)\s+(?:to\b|(?:like\s+|that\s+)?(?:the\s+user|he|she|they)\b)|\bit\s+(?:seems|appears|looks\s+like)\b|\bseemingly\b|"
    r"\bapparently\b|\bprobably\b|\bpresumably\b|\bperhaps\b|\bmaybe\b|\bpossibly\b|\blikely\s+(?:prefers?|likes?|wants?|to)\b|"
    r"\b(?:is|are|most|very|quite)\s+likely\b|\blooks\s+like\s+(?:the\s+)?(?:user|they|he|she)\b|"
    r"\bjudging\s+(?:by|from)\b|\bI\s+(?:guess|suspect|assume|infer)\b|\bmight\s+(?:prefer|like|want)\b|"
    r"\bmay\s+(?:prefer|like|want)\b|\bmust\s+(?:prefer|like)\b|\bI\s+get\s+the\s+impression\b|"
    r"看起来|看上去|看来|好像|似乎|貌似|大概|也许|估计|推测|猜测|据观察|(?<!尽)(?<!不)可能(?!性)|"
    # someone else's preference told as a prediction or judged from evidence, not their statement
    r"看样子|想必|多半|八成|十有八九|(?:从|根据|基于|由于).{1,15}?(?:来看|看来|[，,].{0,6}(?:用户|他|她|对方))|(?:用户|他|她|对方)[^，,。！？\s]{0,6}?(?:会|应该|应当)(?:是|喜欢|想要|偏好|更|习惯|需要)|"
    r"我?(?:觉得|认为|猜|感觉)(?:用户|他|她|对方)|"
    # a hedge: a modal guess (I'd guess, chances are, 说不定, 应该是…), or a trailing "I think" / 吧
    r"\bI['’]d\s+(?:guess|bet|imagine)\b|\bI\s+reckon\b|\bmy\s+(?:guess|hunch|sense|impression)\s+is\b|\b(?:as\s+far\s+as|from\s+what)\s+I\s+can\s+(?:tell|see)\b|\bnot\s+(?:100%\s+)?(?:sure|certain)\s*,?\s*but\b|\bcould\s+be\s+(?:that\s+)?(?:the\s+user|he|she|they)\b|\bI(?:['’]ve)?\s+heard\s+(?:that\s+)?(?:the\s+user|he|she|they)\b|"
    r"\b(?:chances|odds)\s+are\b|\bguess\s+(?:that\s+)?(?:the\s+user|he|she|they)\b|"
    r"\b(?:he|she|they|user)['’](?:s|re)\s+(?:most\s+)?(?:likely|probably|presumably)\b|"
    # a third person's taste read from evidence: "from his questions, he …"
    r"(?:^|[.!?;]\s+)(?:from|based\s+on|going\s+by|given)\s+[^,.;]{1,40},\s*(?:the\s+user|he|she|they)\b|\bsounds\s+like\s+(?:the\s+)?(?:user|they|he|she)\b|"
    r"[,;]\s*I\s+(?:think|believe|guess|suppose|reckon|assume)\s*[.!?…]*\s*$|"
    r"\b(?:the\s+user|he|she|they)\s+must\s+(?:be|prefer|like|want|love|enjoy)\b|"
    r"或许|说不定|没准|兴许|我猜|听说|据说|看得出|看着像|仿佛|搞不好|应该(?:是|会)?(?:更|比较)?(?:喜欢|偏好|偏爱|习惯|想要|倾向|爱)|应该是[^。！？!?\n]{0,30}吧|"
    r"(?:喜欢|偏好|偏爱|习惯|想要|倾向|爱用)[^。！？!?\n]{0,30}吧\s*[。？?！!…]*\s*$"
)
#: The same told of a third person in English: "Maria seems more comfortable", "the user likely
#: works in finance", "the user would like digests" (the speaker's own "I'd like" is a statement).
_INFERRED_OF_SOMEONE = (
    rf"{_THIRD_PERSON}\s+(?:(?:seems?|appears?)\b|(?:most\s+)?(?:likely|probably|possibly|presumably)\b|"
    r"(?:could|might|may|would|will)\s+(?:probably\s+|likely\s+)?(?:prefer|like|want|enjoy|appreciate|rather|"
    r"be\s+(?:happier|more|less))\b|tends?\s+to\b)|"
    rf"\bI['’]d\s+say\s+(?:that\s+)?{_THIRD_PERSON}\s|"
    r"\bI\s+(?:think|believe|suppose|feel)\s+(?:that\s+)?(?:the\s+user|he|she|they)(?:['’]s|\s+(?:\w+\s+)?"
    r"(?:prefers?|likes?|wants?|enjoys?|loves?|hates?|dislikes?|would|is|are))\b"
)
#: A claim that something always or never holds: from one observation, not yet knowledge.
_DURABLE = (
    r"\b(?:never|always|permanently|forever|at\s+all\s+times|under\s+no\s+circumstances|in\s+no\s+case|"
    r"no\s+longer\s+(?:exists?|available|supported)|will\s+not\s+ever|cannot\s+ever|is\s+not\s+ever)\b|"
    r"从不|从来不|从来没|永远|永久|总是|始终|一直都|绝不|决不|再也不|"
    # an end told as final: "down for good", "shut indefinitely", "not coming back", 彻底下线, 不复存在
    # ("down for good", not "tech for good": the end of a state, not a purpose)
    r"\b(?:(?:\w+ed|down|gone|off|out|over|away|offline|dead|shut|done|broken)\s+for\s+good\b"
    r"(?!\s+(?:measure|reasons?|luck|causes?|purposes?|things?|use))|once\s+and\s+for\s+all|for\s+ever|indefinitely|"
    r"(?:not|n['’]t|never)\s+(?:ever\s+)?(?:be\s+)?(?:coming|come)\s+back)\b|"
    r"彻底(?:下线|关闭|停用|废弃|移除|删除|停止|关停|淘汰|弃用|停服|退役|下架|失效|不可用|不能用|没了)|不复存在|"
    r"再也(?:无法|没法|不能|用不了|回不来)|以后(?:都|也)?(?:不能|不会|用不了|无法)|不再(?:恢复|开放|上线|更新)|永不|不会再(?:恢复|上线|开放|回来|可用|更新|修复|支持|维护)|从此(?:停|下线|关闭|不再)|"
    r"\b(?:will\s+not|won['’]t)\s+(?:ever\s+)?(?:be\s+)?(?:restored|return|reopen(?:ed)?|be\s+back)\b|"
    # a recurrence seen once: "every night", "on Mondays", 每周一都
    rf"\bevery\s+(?:time|day|night|morning|evening|week|month|{_WEEKDAY})\b|\bon\s+{_WEEKDAY}s\b|"
    # every one of a kind of event: "every deploy fails", "each build"
    r"\b(?:every|each)\s+(?:\w+\s+)?(?:deploy(?:ment)?|build|run|release|push|merge|attempt|request|call|job|upload|"
    r"sync|restart|login|install(?:ation)?)\b|不再(?:支持|可用|提供|存在|维护|兼容)|"
    r"每个?(?:次|天|晚|周|月|年|逢|星期|礼拜)|每周[一二三四五六日天]"
)

#: A rule: an instruction to always or never do something, at the start of a line or sentence.
_RULE = (
    r"(?im)(?:^|[.!?;:。！？；：]\s*)(?:[-*•]\s*)?(?:"
    r"never(?!\s+(?:mind|been|had|saw|thought|knew|seen|heard)\b)"
    r"|always(?!\s+(?:here|good|happy|been|nice|great|fun|glad|a|an|the|so|up)\b)"
    r"|(?:do\s+not|don['’]t)(?!\s+(?:worry|know|think|mind|get|be\s+sorry|you|we|they)\b)"
    r"|must(?!['’]ve|\s+(?:have|be|feel)\b)(?:\s+not)?"
    r"|avoid|stop\s+using|only\s+use|make\s+sure\s+to|should\s+(?:never|always))\b"
    r"|不要|别再|禁止|永远不要|切勿|必须|务必|一定要|总是|避免"
)
#: Just before "always"/"never": wording that takes the durability back ("not always", "as always").
_HEDGED = re.compile(r"(?i)(?:\bnot|n['’]t|\bas|\blike|\balmost|\bnearly|\bhardly)\s+$")


@dataclass(frozen=True)
class _Patterns:
    phrases: re.Pattern[str]
    one_off: re.Pattern[str]
    lasting: re.Pattern[str]
    rule: re.Pattern[str]
    inferred: re.Pattern[str]
    durable: re.Pattern[str]
    definite: re.Pattern[str]
    occasions: re.Pattern[str]
    this_thing: re.Pattern[str]
    generic: re.Pattern[str]
    condition: re.Pattern[str]
    bound: re.Pattern[str]
    bound_general: re.Pattern[str]


@functools.cache
def _patterns() -> _Patterns:
    """The wording rules compiled on first use, not at import: ~35 ms that every command
    importing the gate would pay, and only a gate decision needs."""
    return _Patterns(
        re.compile("(?i)" + "|".join(f"\\b(?:{p})" for p in PHRASES_EN) + "|" + "|".join(PHRASES_ZH)),
        re.compile("(?i)" + "|".join(_ONE_OFF_EN) + "|" + "|".join(_ONE_OFF_ZH)),
        re.compile("(?i)" + "|".join(f"\\b(?:{p})" for p in LASTING_EN) + "|" + "|".join(LASTING_ZH)),
        re.compile(_RULE),
        re.compile("(?i)" + _INFERRED + "|" + _INFERRED_OF_SOMEONE.replace("[A-Z][a-z]+", "(?-i:[A-Z][a-z]+)")),
        re.compile("(?i)" + _DURABLE),
        re.compile("(?i)" + _DEFINITE_EN),
        re.compile("(?i)" + OCCASIONS),
        re.compile("(?i)" + _THIS_THING_EN + "|" + _THIS_THING_ZH),
        re.compile("(?i)" + _GENERIC_EN),
        re.compile("(?i)" + _CONDITION_EN),
        re.compile("(?i)" + "|".join(_BOUND_EN) + "|" + "|".join(_BOUND_ZH)),
        re.compile("(?i)" + _PLURAL_EN + "|" + _ANY_EN + "|" + _TASTE_EN + r"|\b(?:always|never)\b|" + _HABIT_ZH),
    )


@dataclass(frozen=True)
class Reading:
    """The answer to one question about a candidate: its ``label`` (one of :data:`CHOICES`), who
    read it (``rules``, or the judge's name) and, for the offline rules, the wording that decided
    it (``start``/``end`` offsets into the body)."""

    question: Question
    label: str
    by: str = "rules"
    start: int | None = None
    end: int | None = None

    def cue(self, text: str) -> str | None:
        return text[self.start : self.end] if self.start is not None and self.end is not None else None


def lasting(text: str) -> bool:
    """Whether ``text`` says the request is meant to last ("from now on", "以后", "from today on"),
    or is for every occasion ("whenever", 每次) that is not inside one thing at hand ("in this report")."""
    patterns = _patterns()
    if patterns.lasting.search(text) is not None:
        return True
    return patterns.occasions.search(text) is not None and patterns.this_thing.search(text) is None


#: A word or two in quotation marks is mentioned, not used ("dates like 'tomorrow' confuse me",
#: 别写“明天”这种说法): up to three words with no sentence's end inside, quoted after a word that
#: talks about words (like, the word, write, say, 用, 写) or before one (这种说法), so a quoted
#: request ("the user asked: 'reply to this thread in French'") or a quoted name of one thing
#: (“本周例会”的纪要) is still read.
_MENTION = re.compile(r"""(?<!\w)['"][^'"‘’“”「」『』.!?。！？\n]{1,30}?['"](?!\w)|"""
                      r"""[‘“「『][^'"‘’“”「」『』.!?。！？\n]{1,30}?[’”」』]""")
_TALKS_OF_WORDS_BEFORE = re.compile(
    r"(?i)(?:\b(?:like|such\s+as|words?|phrases?|terms?|expressions?|say|saying|said|writ(?:e|ing)|use|using|"
    r"called|labell?ed)|[用写说叫讲])\s*$")
_TALKS_OF_WORDS_AFTER = re.compile(r"^\s*(?:这种|这样的|这类|之类的?|等)?(?:说法|词|字眼|表达|措辞|字样)")


def _unquote_mentions(text: str) -> str:
    """``text`` with each quoted mention blanked out (same length, so offsets still point into
    ``text``)."""
    def blank(m: re.Match[str]) -> str:
        mention = len(m.group(0).split()) <= 3 and (
            _TALKS_OF_WORDS_BEFORE.search(text, 0, m.start()) is not None
            or _TALKS_OF_WORDS_AFTER.match(text[m.end():]) is not None)
        return " " * len(m.group(0)) if mention else m.group(0)
    return _MENTION.sub(blank, text)


def one_off_marker(text: str) -> re.Match[str] | None:
    """The first wording of ``text`` that asks for this time only (a phrase family: "just this
    once", "暂时"; a reference: this thread, the paragraph above, tomorrow, 本周; or a task asked
    for now, :mod:`memfs.policy.task_request`), unless
    ``text`` also says the request is lasting; ``None`` otherwise. Words quoted as mentions
    (:data:`_MENTION`) are not read."""
    text = _unquote_mentions(text)
    if lasting(text):
        return None
    found = [m for m in (_patterns().phrases.search(text), _patterns().one_off.search(text), _definite(text),
                         _bound(text), task_request.asked_once(text)) if m is not None]
    return min(found, key=lambda m: m.start()) if found else None


def _definite(text: str) -> re.Match[str] | None:
    """"The draft", "the pull request": one work item under way, unless the text names such items
    in general ("a draft", "every PR"), under a condition ("if the draft is long, …") or as a habit
    ("always review the draft", "never merge the PR unreviewed": unlike "this draft", "the draft" may
    mean each one in turn)."""
    patterns = _patterns()
    if patterns.generic.search(text) or re.search(r"(?i)\b(?:always|never)\b", text):
        return None
    return next((m for m in patterns.definite.finditer(text) if not patterns.condition.search(text, 0, m.start())),
                None)


def _bound(text: str) -> re.Match[str] | None:
    """The first item or event the request is bound to by its structure (:data:`_BOUND_EN`,
    :data:`_BOUND_ZH`), unless the text makes it general: items of a kind named in general ("each
    report", "start emails with…"), a habit ("always", "never") or a condition open before it
    ("when I paste code, review what I pasted")."""
    patterns = _patterns()
    found = next((m for m in patterns.bound.finditer(text) if not patterns.condition.search(text, 0, m.start())),
                 None)
    if found is None or patterns.bound_general.search(text) or patterns.generic.search(text):
        return None
    return found


def rule_marker(text: str) -> re.Match[str] | None:
    """An instruction to always or never do something, at the start of a line or sentence."""
    return _patterns().rule.search(text)


def read_preference(text: str) -> Reading:
    """The offline reading of a preference's wording: one-off, inferred, or lasting."""
    marker = one_off_marker(text)
    if marker is not None:
        return Reading("preference", "one-off", start=marker.start(), end=marker.end())
    guess = _patterns().inferred.search(text)
    if guess is not None:
        return Reading("preference", "inferred", start=guess.start(), end=guess.end())
    return Reading("preference", "lasting")


#: Someone other than the speaker, talked about: "the user", he, she, they, 用户, 他, 她.
_SOMEONE = re.compile(r"(?i)\b(?:the\s+)?users?\b|\b(?:he|she|they|him|her|them)\b|用户|[他她]")


def guess_about_someone(text: str) -> Reading | None:
    """A fact told as a guess about someone else ("the user appears to live in Toronto", 用户多半是
    做前端的): the inferred reading, for a fact that claims the user's word; ``None`` when the text
    is no guess, or only the speaker's own hedge ("I think I'll move next year")."""
    guess = _patterns().inferred.search(text)
    if guess is None or _SOMEONE.search(text) is None:
        return None
    return Reading("preference", "inferred", start=guess.start(), end=guess.end())


def read_observation(text: str) -> Reading:
    """The offline reading of a tool's or an agent's fact or note: a durable claim (an imperative
    rule, "do not use X", or durable wording anywhere, "it is never available") or a status."""
    durable = next((m for m in _patterns().durable.finditer(text) if not _HEDGED.search(text, 0, m.start())), None)
    found = [m for m in (_patterns().rule.search(text), durable) if m is not None]
    if found:
        first = min(found, key=lambda m: m.start())
        return Reading("observation", "durable-claim", start=first.start(), end=first.end())
    return Reading("observation", "status")
