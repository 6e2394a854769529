"""The documented generic protocol: ``{"schema": "memevo.hook/v1", …}`` (see docs/hooks.md)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from cli.hooks.event import HookEvent
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
    data = {k: v for k, v in payload.items() if k != "schema"}
    data["event"] = event_arg
    if isinstance(data.get("user_messages"), list):
        data["user_messages"] = tuple(data["user_messages"])
    try:
        return HookEvent.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise UsageError(f"hook input field {where}: {first['msg']} (see docs/hooks.md)") from None
