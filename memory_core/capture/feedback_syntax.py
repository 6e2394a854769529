"""Feedback written as a whole user message: ``memory <id> is incorrect.`` / ``记忆 <id> 有用。``

The syntax is deliberately narrow: one message, one exact 24-hex id, one verdict word, and
nothing else. Questions, quotes, examples, several statements or a vague "wrong" do not
match, and only the user's own messages are ever scanned.
"""

from __future__ import annotations

import re

_ENGLISH = re.compile(
    r"^\s*memory\s+([0-9a-f]{24})\s+is\s+(useful|unhelpful|accurate|incorrect)\s*[.!]?\s*$", re.IGNORECASE
)
_CHINESE = re.compile(r"^\s*记忆\s*([0-9a-f]{24})\s*(有用|没用|正确|错误)\s*[。.!！]?\s*$")
_CHINESE_VERDICTS = {"有用": "useful", "没用": "unhelpful", "正确": "accurate", "错误": "incorrect"}


def parse_feedback_message(text: str) -> tuple[str, str] | None:
    """``(memory_id, verdict)`` if the whole message is a feedback statement, else ``None``."""
    match = _ENGLISH.match(text)
    if match and match.group(1) == match.group(1).lower():
        return match.group(1), match.group(2).lower()
    match = _CHINESE.match(text)
    if match:
        return match.group(1), _CHINESE_VERDICTS[match.group(2)]
    return None
