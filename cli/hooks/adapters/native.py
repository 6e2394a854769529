"""Shared parts of adapters for agents whose native hook payloads name their event.

Several agents (Codex, and Claude Code's format they follow) write one JSON object per
event with ``hook_event_name``, ``session_id``, ``transcript_path`` and ``cwd``. An adapter
module lists a handler per native event and calls :func:`parse_native`; the helpers here
read typed fields with errors naming the agent, wait briefly for a transcript that lags the
hooks, and build the ``hookSpecificOutput`` envelope that injects context.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from cli.hooks.event import HookEvent, HookInputError
from memory_core.errors import UsageError

T = TypeVar("T")


class NativePayload:
    """Typed reads of one native payload: a wrong type is a usage error naming the field."""

    def __init__(self, payload: dict[str, Any], event: str, *, agent: str, title: str) -> None:
        self.payload = payload
        self.event = event
        self.agent = agent
        self.title = title

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.payload.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            need = "needs" if value is None else "needs a string in"
            raise UsageError(f'a {self.title} {self.event} hook input {need} "{key}"')
        return value

    def flag(self, key: str) -> bool:
        value = self.payload.get(key)
        if value is not None and not isinstance(value, bool):
            raise UsageError(f'a {self.title} {self.event} hook input needs true or false in "{key}"')
        return bool(value)

    def base(self) -> dict[str, Any]:
        """The fields every normalized event gets."""
        return {"agent": self.agent, "session_id": self.text("session_id"), "cwd": self.text("cwd") or "",
                "transcript_path": self.text("transcript_path")}


Handler = Callable[[NativePayload, Path, float], tuple[HookEvent, ...]]


def parse_native(payload: dict[str, Any], event_arg: str | None, handlers: Mapping[str, Handler], *, agent: str,
                 title: str, home: Path, now: float) -> tuple[HookEvent, ...]:
    """Run the handler of the payload's ``hook_event_name`` (none: nothing to do).

    ``event_arg``, the EVENT on the command line, must name the same event when given.
    Payloads of a subagent (``agent_id``) are skipped: a subagent's work is not the user's turn.
    """
    name = payload.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise UsageError(f'a {title} hook input needs "hook_event_name" (a string)')
    if event_arg is not None and event_arg != name:
        raise UsageError(f"hook input is {title}'s {name!r} event but the command was `memevo hook {event_arg}`")
    handler = handlers.get(name)
    if handler is None or payload.get("agent_id") is not None:
        return ()
    try:
        return handler(NativePayload(payload, name, agent=agent, title=title), home, now)
    except HookInputError as exc:
        raise UsageError(f"{title} hook input field {exc}") from None


def await_value(read: Callable[[], T | None], *, wait: float, poll: float) -> T | None:
    """``read()`` until it returns something, for at most ``wait`` seconds (at least once)."""
    deadline = time.monotonic() + wait
    while True:
        value = read()
        remaining = deadline - time.monotonic()
        if value is not None or remaining <= 0:
            return value
        time.sleep(min(poll, remaining))


def additional_context(event_name: str, context: str) -> str:
    """The one-line envelope that injects ``context`` beside the prompt ("" for no context).

    Exactly ``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}`` and no
    other key: Codex fails a hook whose output has any key it does not know.
    """
    if not context:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}})
