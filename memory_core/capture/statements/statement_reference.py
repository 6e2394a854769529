"""Statements that refer back: "it now listens on port 6544, not 6543", "它保留 30 天".

A captured statement is all the consolidating model sees of the message, so a sentence whose
subject is a pronoun ("it", "they", "that one", "它", "前者") says nothing it can replace or
remember. Such a statement is captured together with the sentence before it, which names
what "it" is (memory_core/capture/statements/statements.py, cues.py). Only the start of the sentence is
looked at, after a cue or filler ("remember that", "correction:", "记住：", "另外"), where a
subject stands; a demonstrative with a noun ("this repo", "这个项目") names its subject and
does not refer back.
"""

from __future__ import annotations

import re

# Openers that come before the subject: fillers, explicit cues, corrections, standing frames.
_EN_OPENERS = re.compile(
    r"(?:(?:ok(?:ay)?|oh|so|and|also|btw|by the way|actually|fyi|note|nb|correction|update|"
    r"careful|heads up|remember(?: that)?|note that|keep in mind(?: that)?|don'?t forget(?: that)?|"
    r"for (?:future )?reference|please|now|from now on|going forward|these days|nowadays)"
    r"\s*[,:;!\-–—]?\s+)+",
    re.IGNORECASE,
)
# A pronoun subject, or a demonstrative standing alone (followed by a verb, not a noun).
_EN_REFERS = re.compile(
    r"(?:it|it'?s|its|they|they'?re|their|them|the former|the latter|the same|"
    r"(?:that|this|these|those)(?: ones?)?(?=\s+(?:one|ones|is|was|are|were|'s|has|had|should|must|will|"
    r"would|can|cannot|can't|does|doesn't|do|don't|needs?|now|still|also|only|always|never|runs?|lives?|"
    r"listens?|uses?|goes|belongs?)\b)|(?:that|this)'s)\b",
    re.IGNORECASE,
)
_ZH_OPENERS = re.compile(
    r"(?:(?:好的|好|嗯|哦|对了|另外|还有|而且|并且|顺便说一下|注意|更正|纠正|补充|说明|记住|记一下|记得|别忘了|"
    r"以后|今后|从现在开始|现在|目前)\s*[,，:：;；!！]?\s*)+"
)
_ZH_REFERS = re.compile(
    r"(?:它们?|前者|后者|(?:这|那)(?:个|些)?(?=现在|目前|还|也|只|要|必须|得|应该|需要|是|在|用|不|已经|会|就))"
)


def refers_back(sentence: str) -> bool:
    """True when the sentence's subject is a word that points at an earlier sentence."""
    text = sentence.strip().lstrip("-*•+ ").strip()
    if not text:
        return False
    if text.isascii():
        opened = _EN_OPENERS.match(text)
        return _EN_REFERS.match(text, opened.end() if opened else 0) is not None
    opened = _ZH_OPENERS.match(text)
    rest = text[opened.end() if opened else 0 :]
    if _ZH_REFERS.match(rest):
        return True
    opened = _EN_OPENERS.match(text)  # an English sentence with a few non-ASCII characters
    return _EN_REFERS.match(text, opened.end() if opened else 0) is not None
