"""The kind of thing a what/which question asks, read from English word order.

"what charting *library* is used …", "which hosting *platform* do we …": the phrase's last word
before its auxiliary or its form of "be" names the kind, and the answer names an instance
of it (:mod:`memory_core.recall.kinds`; docs/recall.md, gate 4).
"""

from __future__ import annotations

from collections import namedtuple

from memory_core.lazy_pattern import lazy

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import NamedTuple

# The kind a what/which question asks, named by its phrase's last word right before the
# auxiliary or the form of "be" ("what charting *library* is used …", "which hosting
# *platform* do we …", "what *ORM* does …"): the answer names an instance of it ("Recharts",
# "Fly.io"), which need not hold the word. The phrase's other words qualify the kind
# ("charting"), and a participle right after a form of "be" is the question's verb ("is
# *used*"). One thing asked, not a list ("which *events* has Jon …" is left as it was: a
# list's items are often stated by their kind).
_KIND_AUXILIARY = r"(?:is|are|was|were|am|do|does|did|has|have|had|can|could|should|would|will)"
_ASKED_KIND = lazy(
    rf"(?:^|[.?!;]\s+)(?:what|which)((?:\s+(?!{_KIND_AUXILIARY}\b)[a-z0-9'-]+){{0,3}}?)"
    rf"\s+(?!{_KIND_AUXILIARY}\b)([a-z][a-z0-9-]*)\s+({_KIND_AUXILIARY})\b(?:(?:\s+[a-z]+ly)?\s+([a-z]+(?:ed|en))\b)?"
)
_PLURAL_WORD = lazy(r"[^su']s$")
_BE = frozenset("is are was were am".split())


if TYPE_CHECKING:

    class AskedKind(NamedTuple):
        """The kind a question asks: its word, the words qualifying it, and a passive verb."""

        word: str
        qualifiers: tuple[str, ...]
        verb: str | None

else:
    AskedKind = namedtuple("AskedKind", ("word", "qualifiers", "verb"))


def asked_kind(text: str) -> AskedKind | None:
    """The one kind of thing normalized ``text`` asks for, or ``None``."""
    if "what" not in text and "which" not in text:
        return None
    match = _ASKED_KIND.search(text.strip())
    if match is None or _PLURAL_WORD.search(match.group(2)) is not None:
        return None
    qualifiers, word, auxiliary, participle = match.groups()
    return AskedKind(word, tuple(qualifiers.split()), participle if auxiliary in _BE else None)
