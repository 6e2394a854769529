"""What a Chinese query's construction says: the verb of a task stated with a verb of need,
obligation or request ("帮我看看订单服务", "我们来修一下订单服务", "麻烦排查订单服务").

Chinese has no spaces, so the task's verb runs into its object and their bigrams into one
segment ("排查订单服务": 排查 查订 订单 单服 服务); the verb and the boundary bigram then
read as parts of the subject a follow-up carries. Such a request is built the same way
whatever its words: at the start of a clause, an optional subject pronoun, one or more
verbs of request, need, obligation or proposal (帮我, 请, 麻烦, 需要, 得, 必须, 来 …), then the
task's verb, delimited by what Chinese puts after it or by its form:

* an aspect or quantity after it: 一下, 下, 一次 ("修一下", "检查一下");
* a reduplicated verb (看看, 查查, 试试);
* otherwise the two characters that follow, the commonest length of such verbs (排查, 修复,
  重启, 调试).

:func:`task_verbs` cuts the text after each such span, so the object is a segment of its
own, and names the spans: their features are the act, not a subject (query side only).
"""

from __future__ import annotations

import re

from memory_core.text.vocabulary import CHINESE_STOP_CHARS, CHINESE_STOP_WORDS

_HAN = "[\u4e00-\u9fff]"
_PRONOUN = "(?:我们|咱们|你们|我|咱|你|您)"
_ADVERB = "(?:马上|赶紧|赶快|现在|今天|一起|先|再|就|也|还|快)"
# Verbs of request, need, obligation or proposal. The one-character ones start many other
# words (要求, 得到, 来源, 去年, 能力), so they count only after a subject pronoun.
_MARKER = (
    "(?:帮我们|帮我|帮忙|请你|请您|请(?!求|假|教)|麻烦你|麻烦您|麻烦|劳驾|能不能|能否|可不可以|给我|替我|"
    "需要|得要|不得不|必须|应该|应当)"
)
_AFTER_PRONOUN = f"(?:{_MARKER}|可以|要|得|该|来|去|能|帮)"
_VERB = rf"(?P<verb>(?P<twice>{_HAN})(?P=twice)|{_HAN}{{1,2}}?(?=一下|下|一次)|{_HAN}{{2}})(?:一下|下|一次)?"
_TASK = re.compile(
    rf"(?:^|(?<=[\s，。！？；：,.!?;:、]))"
    rf"(?:{_PRONOUN}(?:{_ADVERB})*{_AFTER_PRONOUN}|(?:{_ADVERB})*{_MARKER})"
    rf"(?:{_PRONOUN}?(?:{_ADVERB})*{_AFTER_PRONOUN})*{_PRONOUN}?(?:{_ADVERB})*{_VERB}"
)


def task_verbs(text: str) -> tuple[str, tuple[str, ...]]:
    """``text`` with a space after each stated task's verb, and those spans (markers and verb).

    A verb that would be filler (什么, 多少, 的 …) is no task: such a span is left as it is."""
    if not any("\u4e00" <= c <= "\u9fff" for c in text):
        return text, ()
    spans: list[str] = []

    def cut(match: re.Match[str]) -> str:
        verb = match.group("verb")
        if any(c in CHINESE_STOP_CHARS for c in verb) or any(text.startswith(w, match.start("verb")) for w in _FILLER):
            return match.group()
        spans.append(match.group())
        return match.group() + " "

    cut_text = _TASK.sub(cut, text)
    return (cut_text, tuple(spans)) if spans else (text, ())


# Filler a two-character verb must not begin (then the verb guessed is no verb).
_FILLER = tuple(sorted((w for w in CHINESE_STOP_WORDS if len(w) <= 3), key=len, reverse=True))
