"""Shared pieces of the statement rules: the verdict type, punctuation folding and markers.

Marker lists are plain tuples searched with ``str.find`` rather than regular expressions:
compiling a regex costs a few microseconds per pattern character in Python (and more when
a character class holds CJK characters), and the hook starts a fresh process each time.
"""

from __future__ import annotations

HEADER = "header"  # a line that introduces a list ("remember this:", "我们的规矩：")
Verdict = tuple[str | None, str]

# Full-width punctuation and typographic quotes folded to ASCII, one character for one, so
# offsets stay valid and patterns need only ASCII classes.
TO_ASCII = (
    ("，", ","),
    ("。", "."),
    ("！", "!"),
    ("？", "?"),
    ("：", ":"),
    ("；", ";"),
    ("（", "("),
    ("）", ")"),
    ("、", ","),
    ("～", "~"),
    ("“", '"'),
    ("”", '"'),
    ("「", '"'),
    ("」", '"'),
    ("『", '"'),
    ("』", '"'),
    ("’", "'"),
    ("‘", "'"),
    ("＞", ">"),
)


def fold(text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """Replace each ``(char, ascii)`` pair; ``str.replace`` is much faster than ``str.translate`` here."""
    if text.isascii():
        return text
    for char, ascii_char in pairs:
        if char in text:
            text = text.replace(char, ascii_char)
    return text


def first_of(text: str, words: tuple[str, ...]) -> tuple[int, str] | None:
    """The earliest occurrence of any of ``words`` (the first listed wins a tie)."""
    best: tuple[int, str] | None = None
    for word in words:
        pos = text.find(word)
        if pos >= 0 and (best is None or pos < best[0]):
            best = (pos, word)
    return best


def any_of(text: str, words: tuple[str, ...]) -> str | None:
    """The first of ``words`` (in list order) that occurs in ``text``."""
    for word in words:
        if word in text:
            return word
    return None


def ends_with(text: str, words: tuple[str, ...]) -> str | None:
    for word in words:
        if text.endswith(word):
            return word
    return None


def words(text: str) -> tuple[str, ...]:
    """``words("以后 今后 每次")`` -> ``("以后", "今后", "每次")``: marker lists written compactly."""
    return tuple(text.split())
