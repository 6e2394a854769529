"""Explicit learning cues in user messages ("remember that …", "记住…").

Only the user's own words are scanned. A question about memory ("do you remember …?")
is a recall request, not something to learn.
"""

from __future__ import annotations

import re

_CUE = re.compile(
    r"(?is)(?:^|[\s,.;!:])(?:please\s+)?(?:remember|note|keep in mind|don't forget|do not forget)"
    r"(?:\s+that)?\s*[:,]?\s+(?P<body>.{4,})"
)
_ZH_CUE = re.compile(r"(?s)(?:请)?(?:记住|记一下|记下|别忘了|不要忘记)[:：,，]?\s*(?P<body>.{2,})")
_STANDING_EN = re.compile(r"(?i)\b(?:from now on|always|never|i prefer|we prefer|my preference is)\b")
_STANDING_ZH = re.compile(r"我(?:更)?喜欢|我偏好|以后都|以后请|总是|永远不要|不要再")
_QUESTION = re.compile(r"(?i)(?:\?\s*$|？\s*$|^\s*(?:do|did|can|could) you (?:still )?remember\b|还记得|记得.*吗)")


def is_recall_question(text: str) -> bool:
    """True for questions that ask memevo to recall, not to learn."""
    return bool(_QUESTION.search(text.strip()))


def explicit_statements(messages: list[str]) -> list[str]:
    """User messages that explicitly ask to remember something or state a standing preference."""
    found = []
    for message in messages:
        text = message.strip()
        if not text or is_recall_question(text):
            continue
        if any(p.search(text) for p in (_CUE, _ZH_CUE, _STANDING_EN, _STANDING_ZH)):
            found.append(text)
    return found
