"""The asking part of a query's text: after any "what I actually want to ask is", after a
sentence turning to another matter, without recall framing ("do you remember", "还记得"),
relative time ("yesterday", "最近") and an aspectual verb in a question of time (the word
lists and patterns: :mod:`memory_core.text.vocabulary`).
"""

from __future__ import annotations

from memory_core.text.tokenize import normalize
from memory_core.text.vocabulary import (
    ANAPHORA,
    ASKS,
    ASKS_TIME,
    ASKS_TIME_WORDS,
    ASPECT,
    ASPECT_WORDS,
    FRAMING,
    FRAMING_WORDS,
    PIVOT,
    PIVOT_WORDS,
    RELATIVE_TIME,
    RELATIVE_TIME_WORDS,
    SELF_CORRECTION,
    SELF_CORRECTION_WORDS,
)


def query_text(text: str) -> str:
    """The asking part of a query: normalized, after any "what I actually want to ask is",
    without recall framing ("do you remember", "还记得", "多少")."""
    normalized = normalize(text)
    # A lower-case ASCII text (most queries) runs a pattern only when it holds a word every
    # match of it holds: in ASCII the case-insensitive patterns match exactly those letters.
    # Any other text runs all three (case folding reaches beyond ASCII: the dotless i, the
    # long s and the Kelvin sign match i, s and k). Cutting keeps the text's tail and removing
    # puts a space where a match was, so the result holds no word the text did not hold.
    plain = normalized.isascii()
    if not plain or _holds(normalized, SELF_CORRECTION_WORDS):
        corrections = list(SELF_CORRECTION.finditer(normalized))
        if corrections and corrections[-1].end() < len(normalized.rstrip()):
            normalized = normalized[corrections[-1].end() :]
    if not plain or _holds(normalized, PIVOT_WORDS):
        normalized = turned_to(normalized)
    if (not plain or (_holds(normalized, ASPECT_WORDS) and _holds(normalized, ASKS_TIME_WORDS))) and ASKS_TIME.search(
        normalized
    ):
        normalized = ASPECT.sub(" ", normalized)
    if not plain or _holds(normalized, FRAMING_WORDS):
        normalized = FRAMING.sub(" ", normalized)
    if not plain or _holds(normalized, RELATIVE_TIME_WORDS):
        normalized = RELATIVE_TIME.sub(" ", normalized)
    return normalized


def turned_to(text: str) -> str:
    """After the last sentence turning to another matter ("……。对了，…", "By the way, …"), what
    follows it when that is a question standing on its own; else all of ``text``."""
    turns = list(PIVOT.finditer(text))
    if not turns:
        return text
    tail = text[turns[-1].end() :]
    if tail.strip() and ASKS.search(tail) is not None and ANAPHORA.search(tail) is None:
        return tail
    return text


def _holds(text: str, words: tuple[str, ...]) -> bool:
    for word in words:
        if word in text:
            return True
    return False
