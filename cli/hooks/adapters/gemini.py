"""Gemini CLI's native hook payloads (observed with 0.61; see docs/agents/gemini.md).

Every payload carries ``hook_event_name``, ``session_id``, ``transcript_path``, ``cwd`` and
``timestamp``. What each event becomes:

============  =================================================================================
SessionStart  ``session_start``
BeforeAgent   ``user_prompt`` for ``prompt``, with up to 5 earlier user turns from the transcript
AfterAgent    ``turn_end`` for the turn that just ended, read from the transcript (the user's
              message, the tool calls and their results, the last model message); when the
              transcript lacks the turn, from the payload's ``prompt`` and ``prompt_response``.
              Skipped when ``stop_hook_active`` is true (a hook made the agent go on)
SessionEnd    ``session_end`` (nothing to do: no per-session state is kept)
============  =================================================================================

Everything else is ignored without opening the database: ``PreCompress`` runs before every
model call whether or not anything is compressed and no summary exists yet (Gemini has no
hook after compressing), ``BeforeTool``/``AfterTool`` are covered by reading the turn's tool
calls from the transcript at ``AfterAgent``, and the model and notification events are not
memevo's business. ``memevo install gemini`` registers only SessionStart, BeforeAgent and
AfterAgent, so a turn pays for no other hook process.

Unknown fields are ignored; a field an event needs that is missing or of the wrong type is
a usage error. Only ``user_prompt`` prints anything: the ``hookSpecificOutput`` envelope,
which Gemini adds to the prompt as a ``<hook_context>`` part. AfterAgent prints nothing: a
``decision`` there would make Gemini run the agent again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, HookEvent, HookInputError, clip_middle
from cli.hooks.transcripts.gemini import NO_RESPONSE, Turn, is_typed_text, read_transcript, strip_injected
from memory_core.errors import UsageError

AGENT = "gemini"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it

# How a payload is told apart from Claude Code's (which has no ``timestamp`` and none of
# these names but the shared ones): see :func:`is_gemini_payload`.
GEMINI_ONLY_EVENTS = frozenset({"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel",
                                "AfterModel", "BeforeToolSelection", "PreCompress"})
SHARED_EVENTS = frozenset({"SessionStart", "SessionEnd", "Notification"})


def is_gemini_payload(payload: dict[str, Any]) -> bool:
    """Whether a native payload is Gemini CLI's: an event name only Gemini uses, or a name it
    shares with Claude Code together with the ``timestamp`` every Gemini payload carries."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str):
        return False
    return name in GEMINI_ONLY_EVENTS or (name in SHARED_EVENTS and isinstance(payload.get("timestamp"), str))


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """The normalized events of one Gemini CLI hook call (none for an ignored event)."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise UsageError('a Gemini CLI hook input needs "hook_event_name" (a string)')
    if event_arg is not None and event_arg != name:
        raise UsageError(f"hook input is Gemini CLI's {name!r} event but the command was `memevo hook {event_arg}`")
    try:
        if name == "SessionStart":
            return (HookEvent("session_start", **_base(payload, name)),)
        if name == "BeforeAgent":
            return _before_agent(payload, name)
        if name == "AfterAgent":
            return _after_agent(payload, name)
        if name == "SessionEnd":
            return (HookEvent("session_end", **_base(payload, name)),)
    except HookInputError as exc:
        raise UsageError(f"Gemini CLI hook input field {exc}") from None
    return ()


def render(event: HookEvent, output: str) -> str:
    """Only the recall digest is printed, in the envelope Gemini adds to the prompt."""
    if event.event != "user_prompt" or not output:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": output}})


def _text(payload: dict[str, Any], event: str, key: str, *, required: bool = False) -> str | None:
    value = payload.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        need = "needs" if value is None else "needs a string in"
        raise UsageError(f'a Gemini CLI {event} hook input {need} "{key}"')
    return value


def _base(payload: dict[str, Any], event: str) -> dict[str, Any]:
    """The fields every normalized event gets."""
    return {"agent": AGENT, "session_id": _text(payload, event, "session_id"),
            "cwd": _text(payload, event, "cwd") or "", "transcript_path": _text(payload, event, "transcript_path")}


def _before_agent(payload: dict[str, Any], event: str) -> tuple[HookEvent, ...]:
    prompt = strip_injected(_text(payload, event, "prompt", required=True) or "")
    if not prompt:
        return ()
    base = _base(payload, event)
    # Every prompt pays for this read: the recent end usually holds the last turns already.
    transcript = read_transcript(base["transcript_path"], max_bytes=PROMPT_WINDOW_BYTES)
    earlier = transcript.earlier_user_texts(prompt, EARLIER_TURNS)
    if len(earlier) < EARLIER_TURNS and transcript.clipped:
        earlier = read_transcript(base["transcript_path"]).earlier_user_texts(prompt, EARLIER_TURNS)
    return (HookEvent("user_prompt", user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
                      prompt=clip_middle(prompt, MAX_TEXT), **base),)


def _after_agent(payload: dict[str, Any], event: str) -> tuple[HookEvent, ...]:
    active = payload.get("stop_hook_active")
    if active is not None and not isinstance(active, bool):
        raise UsageError('a Gemini CLI AfterAgent hook input needs true or false in "stop_hook_active"')
    if active:  # the agent goes on because an AfterAgent hook asked it to: not the user's turn
        return ()
    base = _base(payload, event)
    prompt = strip_injected(_text(payload, event, "prompt", required=True) or "")
    response = _text(payload, event, "prompt_response")
    if not prompt:
        return ()
    # The CLI writes each record before the next step, so the turn is in the transcript when
    # AfterAgent runs; without one (recording off, unreadable), the payload still has the turn.
    turn = read_transcript(base["transcript_path"]).current_turn(prompt)
    if turn is None:
        turn = Turn((prompt,) if is_typed_text(prompt) else (), (), None, False)
    final = turn.final_message
    if final is None and response and response.strip() != NO_RESPONSE:
        final = response.strip()
    return (HookEvent(
        "turn_end",
        user_messages=tuple(clip_middle(m, MAX_TEXT) for m in turn.user_messages),
        operations=turn.operations,
        final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
        ended_in_error=turn.ended_in_error,
        **base,
    ),)
