"""User statements worth learning from one turn's user messages.

The hook passes only the user's own messages here (never assistant or tool text). Each
message is classified by :func:`memory_core.capture.statements.statements.classify_statement`:
standing requirements, preferences, decisions and conventions (English and Chinese, with
or without an explicit cue such as "remember that …" / "记住…") are captured; questions,
recall requests ("do you remember …?"), one-off task requests, narration, failure
complaints, quotes and pasted logs are not. See ``docs/statements.md``.
"""

from __future__ import annotations

from memory_core.capture.statements.statement_reference import refers_back
from memory_core.capture.statements.statements import StatementDecision, classify_statement, is_recall_request

__all__ = ["StatementDecision", "classify_statement", "explicit_statements", "is_recall_question"]


def is_recall_question(text: str) -> bool:
    """True for messages that ask memevo to recall ("do you remember …?", "还记得…吗"), not to learn."""
    return is_recall_request(text)


def explicit_statements(messages: list[str]) -> list[str]:
    """The captured statement text of each message that holds one, in order (the user's words).

    A message whose statement opens it and refers back ("it now listens on port 6544") is
    captured after the last sentence of the message before it, which says what "it" is.
    """
    found = []
    previous: tuple[str, StatementDecision] | None = None
    for message in messages:
        decision = classify_statement(message)
        if decision.kind is not None and decision.text:
            found.append(_with_previous_sentence(message, decision, previous))
        previous = (message, decision)
    return found


def _with_previous_sentence(
    message: str, decision: StatementDecision, previous: tuple[str, StatementDecision] | None
) -> str:
    first = decision.sentences[0] if decision.sentences else None
    if previous is None or first is None or first.kind is None:
        return decision.text
    if not refers_back(message[first.start : first.end]):
        return decision.text
    before_text, before = previous
    if not before.sentences:
        return decision.text
    last = before.sentences[-1]
    context = before_text[last.start : last.end].strip()
    if not context or context in decision.text:
        return decision.text
    return f"{context}\n{decision.text}"
