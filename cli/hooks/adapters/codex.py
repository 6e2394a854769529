"""Codex CLI's native hook payloads (observed with 0.169.1; see docs/agents/codex.md).

Every payload carries ``hook_event_name``, ``session_id``, ``transcript_path`` (the rollout
under ``$CODEX_HOME/sessions/``, ``null`` for an ephemeral session) and ``cwd``; the events
of a turn also carry ``turn_id``. What each event becomes:

================  ============================================================================
SessionStart      ``session_start`` (``source``: startup or resume)
UserPromptSubmit  ``user_prompt`` with up to 5 earlier user turns from the rollout; the
                  prompt is stashed for Stop (:mod:`cli.hooks.session_stash`)
Stop              ``turn_end`` for the turn ``turn_id`` names, read from the rollout once it
                  holds the turn (bounded wait), else from the stash and the payload
SessionEnd        ``session_end``; the session's stash is deleted
================  ============================================================================

PreToolUse, PostToolUse, subagent payloads (``agent_id``) and every other event are ignored
without opening the database: Stop reads the turn's tool calls from the rollout. Only
``user_prompt`` prints anything: exactly the ``hookSpecificOutput`` envelope, because Codex
fails a hook whose JSON output has a key it does not know. Stop prints nothing: Codex
treats any other Stop output as invalid, and ``{"decision": "block"}`` as a new prompt.
"""

from __future__ import annotations

import os
from pathlib import Path

from cli.hooks.adapters.native import (
    Handler,
    NativePayload,
    StashedTurns,
    additional_context,
    parse_native,
    session_end,
)
from cli.hooks.event import HookEvent
from cli.hooks.transcripts.codex import read_current_turn, read_rollout

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

AGENT = "codex"
TITLE = "Codex"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it
# Codex 0.169.1 wrote the whole turn before running Stop in every observed run; the wait
# only guards against a slower disk or a future version.
LAG_WAIT_SECONDS = 0.3
LAG_POLL_SECONDS = 0.05
_TURNS = StashedTurns(
    read_rollout,
    "turn_id",
    EARLIER_TURNS,
    PROMPT_WINDOW_BYTES,
    LAG_WAIT_SECONDS,
    LAG_POLL_SECONDS,
    read_turn=read_current_turn,
)


def is_codex_payload(payload: dict[str, Any]) -> bool:
    """Whether a native payload is Codex's: a ``turn_id`` without Claude Code's ``prompt_id``
    (every turn event), or a rollout as its transcript (SessionStart, SessionEnd)."""
    if isinstance(payload.get("turn_id"), str) and "prompt_id" not in payload:
        return True
    path = payload.get("transcript_path")
    return isinstance(path, str) and os.path.basename(path).startswith("rollout-") and path.endswith(".jsonl")


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """The normalized events of one Codex hook call (none for an ignored event)."""
    return parse_native(payload, event_arg, _EVENTS, agent=AGENT, title=TITLE, home=home, now=now)


def render(event: HookEvent, output: str) -> str:
    """Only the recall digest is printed, in the one envelope Codex injects as context."""
    if event.event != "user_prompt":
        return ""
    return additional_context("UserPromptSubmit", output)


def _session_start(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    return (HookEvent("session_start", **call.base()),)


_EVENTS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _TURNS.user_prompt,
    "Stop": _TURNS.turn_end,
    # Codex clamps SessionEnd hooks to 3 s: delete one small file, open no database.
    "SessionEnd": session_end,
    # PreToolUse / PostToolUse: Stop reads the calls from the rollout. Everything else is not memevo's business.
}
