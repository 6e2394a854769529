"""The documented generic protocol: ``{"schema": "memevo.hook/v1", …}`` (see docs/hooks.md).

Strict on purpose: a field memevo does not know is an error, so a typo never silently
drops what an integration meant to send. Sizes are bounded the way the native adapters
bound them, never refused: a long conversation keeps its last :data:`MAX_USER_MESSAGES`
messages and a long text its head and tail, so the current message is always answered.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli.hooks.event import (
    EVENT_NAMES,
    MAX_FINAL_MESSAGE,
    MAX_OPERATIONS,
    MAX_TEXT,
    MAX_USER_MESSAGES,
    HookEvent,
    HookInputError,
    Operation,
    clip_middle,
)
from memory_core.errors import UsageError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

SCHEMA = "memevo.hook/v1"
# The protocol's fields are the event's own, but for the transcript path (native payloads only)
# and the notes an adapter makes of what it left out of a turn.
_FIELDS = {"schema", *HookEvent.fields} - {"transcript_path", "notes"}
_OPERATION_FIELDS = set(Operation.fields)


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """Validate a generic hook payload; ``event_arg`` is the event named on the command line."""
    if payload.get("schema") != SCHEMA:
        raise UsageError(
            f'hook input must have "schema": "{SCHEMA}" (or be a Claude Code hook payload with '
            '"hook_event_name"; see docs/hooks.md)'
        )
    if event_arg is None:
        raise UsageError(f"missing EVENT: run `memevo hook EVENT` with one of {', '.join(EVENT_NAMES)}")
    if event_arg not in EVENT_NAMES:
        raise UsageError(f"unknown hook event {event_arg!r}; use one of: {', '.join(EVENT_NAMES)}")
    unknown = sorted(set(payload) - _FIELDS)
    if unknown:
        raise UsageError(f"hook input has unknown field {unknown[0]!r}; allowed: {', '.join(sorted(_FIELDS))}")
    event = payload.get("event", event_arg)
    if event != event_arg:
        raise UsageError(f"hook input says event {event!r} but the command was `memevo hook {event_arg}`")
    messages = payload.get("user_messages", [])
    if not isinstance(messages, list):
        raise UsageError("hook input field user_messages must be a list of strings (see docs/hooks.md)")
    messages = _string_messages(messages, event_arg)
    try:
        final_message = payload.get("final_message")
        if isinstance(final_message, str):
            final_message = clip_middle(final_message, MAX_FINAL_MESSAGE)
        return (
            HookEvent(
                event=event_arg,
                agent=payload.get("agent", "generic"),
                session_id=payload.get("session_id"),
                cwd=payload.get("cwd", ""),
                summary=_bounded_text(payload.get("summary")),
                user_messages=tuple(_bounded_text(m) for m in messages[-MAX_USER_MESSAGES:]),
                prompt=_bounded_text(payload.get("prompt")),
                operations=_operations(payload.get("operations", [])),
                final_message=final_message,
                ended_in_error=payload.get("ended_in_error", False),
            ),
        )
    except HookInputError as exc:
        raise UsageError(f"hook input field {exc} (see docs/hooks.md)") from None


def _string_messages(messages: list[Any], event: str) -> list[str]:
    """The messages that are strings. One malformed message (an object, a number, null) is
    dropped and named in the hook log, so the rest of the conversation is still read and the
    current message answered."""
    kept = [message for message in messages if isinstance(message, str)]
    if len(kept) < len(messages):
        from cli.hooks.hook_log import log_failure

        dropped = [f"[{i}] ({_json_type(m)})" for i, m in enumerate(messages) if not isinstance(m, str)]
        log_failure(
            f"{event}: user_messages{', '.join(dropped[:8])}{' …' if len(dropped) > 8 else ''} dropped: "
            "not a string (send each message as a JSON string; see docs/hooks.md)"
        )
    return kept


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    return "an object" if isinstance(value, dict) else "a list"


def as_payload(event: HookEvent) -> bytes:
    """``event`` in this protocol, which :func:`parse` reads back as the same event but for
    the transcript path and the notes an adapter made (a capture kept in the spool while
    ``memory.db`` was damaged: cli.hooks.damaged_store.keep_for_restore)."""
    fields: dict[str, Any] = {"schema": SCHEMA, "event": event.event, "agent": event.agent, "cwd": event.cwd}
    for name in ("session_id", "summary", "prompt", "final_message"):
        if getattr(event, name) is not None:
            fields[name] = getattr(event, name)
    if event.user_messages:
        fields["user_messages"] = list(event.user_messages)
    if event.operations:
        fields["operations"] = [
            {name: getattr(op, name) for name in Operation.fields if getattr(op, name) is not None}
            for op in event.operations
        ]
    if event.ended_in_error:
        fields["ended_in_error"] = True
    return json.dumps(fields, ensure_ascii=False).encode("utf-8")


def render(event: HookEvent, output: str) -> str:
    """The generic protocol prints the recall digest as plain text."""
    return output


def _operations(value: object) -> tuple[Operation, ...]:
    """The last :data:`MAX_OPERATIONS` operations, each field clipped to its bound."""
    if not isinstance(value, list):
        raise HookInputError("operations must be a list of objects")
    operations = []
    for i, item in enumerate(value[-MAX_OPERATIONS:]):
        if not isinstance(item, dict):
            raise HookInputError(f"operations[{i}] must be an object")
        unknown = sorted(set(item) - _OPERATION_FIELDS)
        if unknown:
            raise HookInputError(
                f"operations[{i}] has unknown key {unknown[0]!r}; allowed: {', '.join(sorted(_OPERATION_FIELDS))}"
            )
        tool = item.get("tool")
        if not isinstance(tool, str) or not tool:
            raise HookInputError(f"operations[{i}].tool must be a non-empty string")
        for key in ("status", "call_id", "result_id"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise HookInputError(f"operations[{i}].{key} must be a string")
        operations.append(
            Operation.bounded(
                tool,
                _as_text(item.get("input")),
                _as_text(item.get("output")),
                item.get("status") or "ok",
                item.get("call_id"),
                item.get("result_id"),
            )
        )
    return tuple(operations)


def _bounded_text(value: Any) -> Any:
    """A string clipped to :data:`MAX_TEXT` (head and tail kept); anything else as it is, for
    the event to refuse with the field's name."""
    return clip_middle(value, MAX_TEXT) if isinstance(value, str) else value


def _as_text(value: object) -> str:
    """Strings as they are; any other JSON value as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
