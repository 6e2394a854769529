"""The one normalized hook event every adapter produces.

A plain frozen dataclass checked by hand: the per-turn recall hook must not pay for
loading a validation library on every user message.
"""

from __future__ import annotations

from dataclasses import dataclass

EVENT_NAMES: tuple[str, ...] = ("session_start", "compaction", "turn_end", "user_prompt", "session_end")

MAX_USER_MESSAGES = 64
MAX_TEXT = 200_000  # raw input bound before sanitizing and capping
MAX_LABEL = 256
MAX_CWD = 4096


class HookInputError(ValueError):
    """A field of the hook input is invalid; the message names it."""


@dataclass(frozen=True)
class HookEvent:
    """What happened in the agent, in memevo's terms."""

    event: str
    agent: str = "generic"
    session_id: str | None = None
    cwd: str = ""
    summary: str | None = None
    user_messages: tuple[str, ...] = ()
    prompt: str | None = None

    def __post_init__(self) -> None:
        if self.event not in EVENT_NAMES:
            raise HookInputError(f"event must be one of {', '.join(EVENT_NAMES)}")
        _check_text("agent", self.agent, 64, required=True)
        _check_text("session_id", self.session_id, MAX_LABEL)
        _check_text("cwd", self.cwd, MAX_CWD)
        if "\x00" in self.cwd:
            raise HookInputError("cwd must be a path without NUL characters")
        _check_text("summary", self.summary, MAX_TEXT)
        _check_text("prompt", self.prompt, MAX_TEXT)
        if not isinstance(self.user_messages, tuple):
            raise HookInputError("user_messages must be a list of strings")
        if len(self.user_messages) > MAX_USER_MESSAGES:
            raise HookInputError(f"user_messages holds at most {MAX_USER_MESSAGES} messages")
        for i, message in enumerate(self.user_messages):
            _check_text(f"user_messages[{i}]", message, MAX_TEXT, required=True)


def _check_text(name: str, value: object, max_chars: int, *, required: bool = False) -> None:
    if value is None and not required:
        return
    if not isinstance(value, str):
        raise HookInputError(f"{name} must be a string")
    if required and not value:
        raise HookInputError(f"{name} must not be empty")
    if len(value) > max_chars:
        raise HookInputError(f"{name} is longer than {max_chars} characters")
