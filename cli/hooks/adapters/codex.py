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
from typing import Any

from cli.hooks import session_stash
from cli.hooks.adapters.native import Handler, NativePayload, additional_context, await_value, parse_native
from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, HookEvent, clip_middle
from cli.hooks.transcripts.claude_code import Turn
from cli.hooks.transcripts.codex import read_rollout

AGENT = "codex"
TITLE = "Codex"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it
# Codex 0.169.1 wrote the whole turn before running Stop in every observed run; the wait
# only guards against a slower disk or a future version.
LAG_WAIT_SECONDS = 0.3
LAG_POLL_SECONDS = 0.05


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


def _user_prompt(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    prompt = call.text("prompt", required=True) or ""
    if not prompt.strip():
        return ()
    base = call.base()
    turn_id = call.text("turn_id")
    if base["session_id"]:
        session_stash.write_prompt(home, base["session_id"], prompt, turn_id, now)
    earlier = _earlier_user_texts(base["transcript_path"], turn_id, prompt)
    return (HookEvent("user_prompt", user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
                      prompt=clip_middle(prompt, MAX_TEXT), **base),)


def _earlier_user_texts(path: str | None, turn_id: str | None, prompt: str) -> list[str]:
    rollout = read_rollout(path, max_bytes=PROMPT_WINDOW_BYTES)
    earlier = rollout.earlier_user_texts(turn_id, prompt, EARLIER_TURNS)
    if len(earlier) < EARLIER_TURNS and rollout.clipped:
        earlier = read_rollout(path).earlier_user_texts(turn_id, prompt, EARLIER_TURNS)
    return earlier


def _stop(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    if call.flag("stop_hook_active"):  # Codex is continuing because of a Stop hook: seen already
        return ()
    base = call.base()
    turn_id = call.text("turn_id")
    last_message = call.text("last_assistant_message")
    stash = session_stash.read_prompt(home, base["session_id"]) if base["session_id"] else None
    if stash is not None and turn_id and stash.prompt_id and stash.prompt_id != turn_id:
        stash = None  # an earlier turn's prompt
    turn = _await_turn(base["transcript_path"], turn_id, stash)
    stashed = (clip_middle(stash.prompt, MAX_TEXT),) if stash is not None else ()
    final = last_message if last_message is not None else (turn.final_message if turn else None)
    return (HookEvent(
        "turn_end",
        user_messages=(turn.user_messages if turn else ()) or stashed,
        operations=turn.operations if turn else (),
        final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
        ended_in_error=turn.ended_in_error if turn else False,
        **base,
    ),)


def _await_turn(path: str | None, turn_id: str | None, stash: session_stash.StashedPrompt | None) -> Turn | None:
    """The current turn from the rollout, polling briefly while it is not written yet."""
    if not path:
        return None
    digest = stash.prompt_digest if stash is not None else None

    def is_prompt(text: str) -> bool:  # without turn ids, the stashed prompt names the turn
        return digest is None or session_stash.prompt_digest(text) == digest

    return await_value(lambda: read_rollout(path).current_turn(turn_id, is_prompt),
                       wait=LAG_WAIT_SECONDS, poll=LAG_POLL_SECONDS)


def _session_end(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    # Codex clamps SessionEnd hooks to 3 s: delete one small file, open no database.
    base = call.base()
    if base["session_id"]:
        session_stash.forget_session(home, base["session_id"])
    return (HookEvent("session_end", **base),)


_EVENTS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
    "Stop": _stop,
    "SessionEnd": _session_end,
    # PreToolUse / PostToolUse: Stop reads the calls from the rollout. Everything else is not memevo's business.
}
