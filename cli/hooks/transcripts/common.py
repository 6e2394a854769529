"""What every transcript reader shares: the turn it returns and the small readers of content.

Each agent's reader (:mod:`.claude_code`, :mod:`.codex`, :mod:`.gemini`, :mod:`.pi`) knows
its own records; the pieces here are those whose logic is the same for all of them.
"""

from __future__ import annotations

import json
import re

from cli.hooks.event import Frozen, Operation

# memevo's own recall fence (memory_core.recall.digest.OPEN/CLOSE): every reader removes it,
# so recalled text is never learned back.
RECALL_TAG = "memevo-recall"


class Turn(Frozen):
    """The current turn: the user's messages, the tool calls in order and how it ended.

    The records of this module and the readers are :class:`~cli.hooks.event.Frozen` rather
    than named tuples: defining a ``typing.NamedTuple`` costs about 0.3 ms of every hook
    process that imports it."""

    fields = ("user_messages", "operations", "final_message", "ended_in_error", "notes")
    user_messages: tuple[str, ...]
    operations: tuple[Operation, ...]
    final_message: str | None
    ended_in_error: bool
    notes: tuple[str, ...]  # what reading the turn left out and why (the learning log shows it)

    def __init__(
        self,
        user_messages: tuple[str, ...],
        operations: tuple[Operation, ...],
        final_message: str | None,
        ended_in_error: bool,
        notes: tuple[str, ...] = (),
    ) -> None:
        self._set(
            user_messages=user_messages,
            operations=operations,
            final_message=final_message,
            ended_in_error=ended_in_error,
            notes=notes,
        )


def fenced(*tags: str) -> re.Pattern[str]:
    """``<tag>…</tag>`` of any of ``tags`` (an unclosed one: to the end of the text)."""
    return re.compile(rf"<({'|'.join(re.escape(tag) for tag in tags)})>.*?(?:</\1>|\Z)", re.DOTALL)


def texts(content: object, kind: str = "text") -> list[str]:
    """The texts of a content: a string, or the ``text`` of its blocks of type ``kind``."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == kind and isinstance(block.get("text"), str)
    ]


def result_text(content: object) -> str:
    """A tool result's content as text: a string, or its text blocks (an image as ``[image]``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def input_text(value: object) -> str:
    """A shell command as typed; any other tool input as compact JSON."""
    if isinstance(value, dict) and isinstance(value.get("command"), str):
        return value["command"]
    return "" if value is None else compact_json(value)


def compact_json(value: object) -> str:
    """``value`` as compact JSON, or "" when it cannot be written as JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return ""


def nonempty(value: object) -> str | None:
    """``value`` if it is a non-empty string."""
    return value if isinstance(value, str) and value else None
