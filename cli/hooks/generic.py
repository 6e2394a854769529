"""The documented generic protocol: ``{"schema": "memevo.hook/v1", …}`` (see docs/hooks.md)."""

from __future__ import annotations

from typing import Any

from cli.hooks.event import HookEvent, HookInputError
from memory_core.errors import UsageError

SCHEMA = "memevo.hook/v1"
_FIELDS = {"schema", "agent", "event", "session_id", "cwd", "summary", "user_messages", "prompt"}


def parse_generic(payload: dict[str, Any], event_arg: str) -> HookEvent:
    """Validate a generic hook payload; ``event_arg`` is the event named on the command line."""
    if payload.get("schema") != SCHEMA:
        raise UsageError(f'hook input must have "schema": "{SCHEMA}" (see docs/hooks.md)')
    unknown = sorted(set(payload) - _FIELDS)
    if unknown:
        raise UsageError(f"hook input has unknown field {unknown[0]!r}; allowed: {', '.join(sorted(_FIELDS))}")
    event = payload.get("event", event_arg)
    if event != event_arg:
        raise UsageError(f"hook input says event {event!r} but the command was `memevo hook {event_arg}`")
    messages = payload.get("user_messages", [])
    if not isinstance(messages, list):
        raise UsageError("hook input field user_messages must be a list of strings (see docs/hooks.md)")
    try:
        return HookEvent(
            event=event_arg,
            agent=payload.get("agent", "generic"),
            session_id=payload.get("session_id"),
            cwd=payload.get("cwd", ""),
            summary=payload.get("summary"),
            user_messages=tuple(messages),
            prompt=payload.get("prompt"),
        )
    except HookInputError as exc:
        raise UsageError(f"hook input field {exc} (see docs/hooks.md)") from None
