"""The one normalized hook event every adapter produces."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EventName = Literal["session_start", "compaction", "turn_end", "user_prompt", "session_end"]
EVENT_NAMES: tuple[str, ...] = ("session_start", "compaction", "turn_end", "user_prompt", "session_end")

MAX_USER_MESSAGES = 64
MAX_TEXT = 200_000  # raw input bound before sanitizing and capping


class HookEvent(BaseModel):
    """What happened in the agent, in memevo's terms (frozen once built)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agent: str = Field(default="generic", min_length=1, max_length=64)
    event: EventName
    session_id: str | None = Field(default=None, max_length=256)
    cwd: str = Field(default="", max_length=4096)
    summary: str | None = Field(default=None, max_length=MAX_TEXT)
    user_messages: tuple[str, ...] = Field(default=(), max_length=MAX_USER_MESSAGES)
    prompt: str | None = Field(default=None, max_length=MAX_TEXT)
