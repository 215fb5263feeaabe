"""A request for a task now, told by how it is asked (pure): the one-off request that names no day or thing.

"下午跟供应商开会，帮我列三个问题", "Can you rewrite that last reply?", "Tomorrow, remind me to
call the bank": each asks the assistant to *do* something, once, and says nothing about what
should hold afterwards. The forms of asking are few and general: 帮我 / 帮忙 / 麻烦(你) / 请你帮 /
替我 / 给我…一下 in Chinese; "can / could / would / will you …" at the start and "remind me
to …" in English. A standing rule is asked the same way only with wording that makes it general,
and that wording is what this module looks for to let it pass: the future ("以后", "from now on",
"going forward"), every occasion ("每次", 所有, "every", "any", "whenever"), a habit (总是, 一律,
"usually"), a default (默认, "by default") or an open condition (…时, 的时候, 如果, "if I", "when I").
So "以后帮我写周报时，按三段来写" and "Can you always answer in French?" stay lasting.
"""

from __future__ import annotations

import re

_ASKED_ZH = re.compile(r"帮我|帮忙|麻烦(?:你|您)?|请(?:你|您)?帮|替我|给我[^，。,.！？!?]{0,12}一下")
_GENERAL_ZH = re.compile(
    r"以后|今后|往后|从今|每[次个回天周月年封份篇]|所有|凡是|总是|一律|一向|向来|默认|[^同及临]时[，,按要请用都先]|"
    r"的时候|只要|如果|要是|一般|通常|平时|平常|习惯|始终|永远|都[要用按得]")
_ASKED_EN = re.compile(
    r"(?i)^\W*(?:(?:hey|hi|ok|okay|so)\b\W*)?(?:please\s+)?(?:can|could|would|will)\s+you\b"
    r"|\bremind\s+me\s+(?:to|about|that)\b")
_GENERAL_EN = re.compile(
    r"(?i)\b(?:always|never|from\s+now|going\s+forward|in\s+(?:the\s+)?future|by\s+default|whenever|every|each|"
    r"any(?:thing|one)?|everything|ever|all|daily|weekly|monthly|as\s+a\s+rule|in\s+general|generally|usually|"
    r"(?:when|if)\s+I)\b")


def asked_once(text: str) -> re.Match[str] | None:
    """Where ``text`` asks for a task now (its form of asking), unless it also makes the request
    general; ``None`` otherwise."""
    for asked, general in ((_ASKED_ZH, _GENERAL_ZH), (_ASKED_EN, _GENERAL_EN)):
        found = asked.search(text)
        if found is not None:
            return None if general.search(text) else found
    return None
