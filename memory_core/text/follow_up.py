"""Whether a message continues the conversation's subject rather than naming its own.

Recall replays the user's last messages into a query plan
(:func:`memory_core.recall.query_plan.build_plan`) and progress capture carries a request's
topic from the previous one (:mod:`memory_core.capture.work.topic_carry`); both read a message
the same way, here: it *continues* the last subject when it says nothing topical
("continue", "继续"), when none of its words is a subject (only attributes, generic words,
numbers or words in a verb's place: "port?", "now push it"), or when it is short and points
back with a pronoun ("does it support WAL?").
"""

from __future__ import annotations

from memory_core.text.query_features import Term, query_terms
from memory_core.text.value_classes import is_value_class
from memory_core.text.vocabulary import ANAPHORA, CONTINUATION, RESET

# A bare continuation ("ok, go on please") is short; longer texts are never tested as one.
MAX_CONTINUATION_CHARS = 256
# A pronoun only marks a follow-up in a short question ("does it support WAL?"); a longer
# sentence that happens to say "it" is usually about what it names itself.
MAX_ANAPHORIC_UNITS = 3


def is_subject(term: Term) -> bool:
    """Terms that name what is talked about (not an attribute, generic word, number or a
    word in a verb's place: "Let's fix the widget API server" is about the server)."""
    return not (term.attribute or term.generic or term.numeric or term.verb)


def is_continuation(text: str) -> bool:
    """A whole message that only asks to keep going ("continue", "ok, next")."""
    return len(text) <= MAX_CONTINUATION_CHARS and CONTINUATION.match(text) is not None


def points_back(terms: tuple[Term, ...] | list[Term], anaphoric: bool) -> bool:
    """Whether a message of these terms continues the last subject: none of them is a
    subject, or it is short and says "it"/"它"."""
    # A value class is the asked attribute said another way, no unit of the message's own.
    units = {t.unit for t in terms if not is_value_class(t.feature)}
    return not any(is_subject(t) for t in terms) or (anaphoric and len(units) <= MAX_ANAPHORIC_UNITS)


def continues_subject(text: str) -> bool:
    """Whether ``text`` continues the conversation's last subject (never after a reset)."""
    if RESET.search(text):
        return False
    if is_continuation(text):
        return True
    terms = query_terms(text)
    return not terms or points_back(terms, bool(ANAPHORA.search(text)))
