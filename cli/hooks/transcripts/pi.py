"""What memevo reads from Pi's messages and session files (observed with Pi 0.73).

Pi keeps a session as JSON lines (``~/.pi/agent/sessions/<cwd>/<time>_<uuid>.jsonl``): a
``session`` header, then entries that form a tree through ``id``/``parentId`` (``/tree`` and
``/fork`` branch it). ``message`` entries hold one message; an extension's injected message
is a ``custom_message`` entry (never the user's words). A message has a ``role``:

- ``user``: what the user sent (``content`` a string or text/image parts);
- ``assistant``: ``text``, ``thinking`` and ``toolCall`` parts (``id``, ``name``,
  ``arguments``), a ``stopReason`` (``stop``, ``toolUse``, ``length``, ``error``,
  ``aborted``) and an ``errorMessage`` on failure;
- ``toolResult``: the result of one call (``toolCallId``, ``toolName``, ``content``,
  ``isError``);
- ``custom`` (an extension's message, memevo's recall digest among them),
  ``bashExecution`` (the user's own ``!`` commands), summaries: none is the user's words.

The same message objects arrive in the ``agent_end`` event (``messages``: what the prompt
added, from the user's message to the last answer), so one reader serves both.
"""

from __future__ import annotations

from collections.abc import Iterable

from cli.hooks.event import MAX_OPERATIONS, Operation
from cli.hooks.transcripts.common import RECALL_TAG, Turn, fenced, input_text, nonempty, result_text, texts
from cli.hooks.transcripts.tail import read_tail

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

# The earlier turns a prompt needs are near the end; Pi writes the prompt only after it is sent.
EARLIER_WINDOW_BYTES = 512 * 1024
FAILED_STOPS = ("error", "aborted")
# Injected text removed from the user's messages: memevo's recall fence and system reminders.
_INJECTED = fenced("system-reminder", RECALL_TAG)


def user_text(message: object) -> str | None:
    """What the user wrote in ``message`` (memevo's own recall fence removed), or ``None`` for
    any other message."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    text = _INJECTED.sub("", "\n".join(texts(message.get("content")))).strip()
    return text or None


def read_turn(messages: Iterable[object]) -> Turn:
    """The run of one prompt from its messages (``agent_end``'s ``messages``), oldest first.

    Tool calls are paired with their results by id: ``isError`` makes a call ``error``, and a
    call whose result never came (an aborted run) stays ``interrupted``.
    """
    user_messages: list[str] = []
    calls: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    final: str | None = None
    ended_in_error = False
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "user":
            text = user_text(message)
            if text is not None:
                user_messages.append(text)
        elif role == "assistant":
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "toolCall":
                    call: dict[str, Any] = {
                        "tool": nonempty(part.get("name")) or "unknown",
                        "input": input_text(part.get("arguments")),
                        "output": "",
                        "status": "interrupted",
                        "call_id": nonempty(part.get("id")),
                        "result_id": None,
                    }
                    order.append(call)
                    if call["call_id"]:
                        calls[call["call_id"]] = call
            text = "\n".join(texts(content)).strip()
            if text:
                final = text
            ended_in_error = message.get("stopReason") in FAILED_STOPS
        elif role == "toolResult":
            answered = calls.get(str(message.get("toolCallId")))
            if answered is not None:
                answered["output"] = result_text(message.get("content"))
                answered["result_id"] = answered["call_id"]
                answered["status"] = "error" if message.get("isError") is True else "ok"
    operations = tuple(
        Operation.bounded(c["tool"], c["input"], c["output"], c["status"], c["call_id"], c["result_id"])
        for c in order[-MAX_OPERATIONS:]
    )
    return Turn(tuple(user_messages), operations, final, ended_in_error)


def earlier_user_texts(session_file: str | None, limit: int) -> list[str]:
    """The last ``limit`` messages the user wrote on the session's current branch, oldest
    first. At ``before_agent_start`` the current prompt is not in the file yet: Pi writes a
    message when it ends, after the extensions had their say."""
    if not session_file or limit <= 0:
        return []
    entries = [
        r for r in read_tail(session_file, max_bytes=EARLIER_WINDOW_BYTES).records if isinstance(r.get("id"), str)
    ]
    by_id = {entry["id"]: entry for entry in entries}
    found: list[str] = []
    entry = entries[-1] if entries else None
    seen: set[str] = set()
    while entry is not None and entry["id"] not in seen and len(found) < limit:
        seen.add(entry["id"])
        if entry.get("type") == "message":
            text = user_text(entry.get("message"))
            if text is not None:
                found.append(text)
        parent = entry.get("parentId")
        entry = by_id.get(parent) if isinstance(parent, str) else None
    found.reverse()
    return found
