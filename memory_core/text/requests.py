"""Requests made to the assistant, and questions asking what it said.

A conversation stored turn by turn holds the user's requests ("Can you suggest a few hiking
trails near Boulder that are dog friendly?") beside the replies that answered them. A
question asking what the assistant recommended, suggested, said or gave (:func:`asks_reply`)
is answered by a reply, not by the request, which shares more of its words
(:mod:`memory_core.recall.replies`). Rules of the two languages' word order, not a parser.
"""

from __future__ import annotations

from memory_core.lazy_pattern import lazy
from memory_core.text.tokenize import normalize

_SAID = "recommend|suggest|say|tell|mention|give|provide|list|share|propose|advise|explain|show|write|send|name|offer"
_SAID_PAST = (
    "recommended|suggested|said|told|mentioned|gave|provided|listed|shared|proposed|advised|explained|showed|"
    "wrote|sent|named|offered"
)
_ASKS_REPLY = lazy(
    rf"\b(?:did|do|had|have)\s+(?:you|u)\s+(?:ever\s+|once\s+|previously\s+|already\s+|just\s+)?(?:{_SAID})\b"
    rf"|\b(?:you|u)\s+(?:had\s+|have\s+)?(?:previously\s+|once\s+|already\s+|just\s+)?(?:{_SAID_PAST})\b"
    r"|\byour\s+(?:recommendations?|suggestions?|advice|answer|reply|response|list|recipe|tips)\b"
    "|[你您](?:之前|上次|刚才|以前|当时|那天|曾经)?(?:给我)?(?:推荐|建议|说|提到|提过|给|告诉|列|讲|介绍|分享)(?:过|了)?(?:的|我)"
)
# Every match of _ASKS_REPLY holds one of these.
_REPLY_WORDS = ("you", "u ", "你", "您")

# A request made to the assistant: a question put to it ("can you …?", "any ideas for …?",
# "what should I …?", 能不能推荐…？) or an order to it ("recommend …", "please list …").
_QUESTION_END = lazy(r"[?？]\s*$|吗\s*[。.!！]?\s*$")
# A question within a longer text: a sentence ending in a question mark.
# A text's sentences, each with the marks that end it (split, not searched: one pass however
# long a text without them is).
_SENTENCE_END = lazy(r"(?<=[.!?。！？])(?![.!?。！？])")
_OFFER = lazy(r"\b(?:would|do)\s+you\s+(?:like|want)\b|\bwant\s+me\s+to\b|\bshall\s+i\b|要不要|需要我")
_PUT_TO_YOU = lazy(
    r"\b(?:can|could|would|will)\s+(?:you|u)\b|\bdo\s+you\s+(?:know|have|think)\b"
    r"|\b(?:any|some)\s+(?:good\s+)?(?:ideas|tips|suggestions|recommendations|advice)\b"
    r"|\b(?:what|which|how|where)\s+(?:should|would|could|can|do)\s+(?:i|we)\b|\b(?:recommend|suggest)"
    "|[你您]|推荐|建议|帮我|能不能|可不可以|有没有"
)
_ORDER = lazy(
    r"^\s*(?:(?:hi|hey|ok|okay|so)[\s,!]+)?(?:please\s+)?"
    r"(?:recommend|suggest|give\s+me|tell\s+me|show\s+me|list|help\s+me|find\s+me|write\s+me)\b"
    r"|^\s*(?:请|麻烦)?(?:帮我|给我)?(?:推荐|建议|列)"
)

# A need told to the assistant is a request too ("so we'll need restaurant ideas that work for
# her.", "所以得找些适合她的餐厅。"): what it asks for is ideas, or a few of some thing.
_NEED = lazy(
    r"\b(?:i|we)(?:'ll|\s+will|'d|\s+would)?\s+(?:need|want)\s+(?:some\s+|a\s+few\s+|more\s+)?(?:good\s+)?"
    r"(?:[a-z-]+\s+){0,2}(?:ideas|suggestions|recommendations|options|tips)\b"
    "|(?:我|我们)?(?:得|需要|要|想)(?:找|推荐)(?:些|一些|几家|几个|几条|几款|点)"
)


def asks_reply(text: str) -> bool:
    """Whether normalized question ``text`` asks what the assistant said or gave before."""
    if not any(w in text for w in _REPLY_WORDS):
        return False
    return _ASKS_REPLY.search(text) is not None


def is_request(content: str) -> bool:
    """Whether a claim's text is a request made to the assistant, not a statement of fact."""
    text = normalize(content).strip()
    if _ORDER.search(text) is not None or _NEED.search(text) is not None:
        return True
    sentences = [s for s in _SENTENCE_END.compiled.split(text) if s.strip()]
    if _QUESTION_END.search(text) is not None and _PUT_TO_YOU.search(text) is not None:
        # (not an offer the assistant ends its reply with: "… Would you like a shopping list?")
        return not sentences or _OFFER.search(sentences[-1]) is None
    # A question put to the assistant before more of the person's own words ("Can you recommend
    # some budget-friendly recipes for two people? We're trying to eat in more."), not an offer.
    return any(
        s.rstrip().endswith(("?", "？")) and _PUT_TO_YOU.search(s) is not None and _OFFER.search(s) is None
        for s in sentences
    )
