"""Claude Code's native hook payloads (observed with 2.1.x; see docs/hooks.md).

Every payload carries ``hook_event_name``, ``session_id``, ``transcript_path`` and ``cwd``;
most carry ``prompt_id``. What each event becomes:

=================  ===========================================================================
SessionStart       ``session_start``; after a compaction (``source: compact``) also
                   ``compaction`` with the summary read from the transcript
UserPromptSubmit   ``user_prompt`` with up to 5 earlier user turns from the transcript; the
                   prompt is stashed for Stop (:mod:`cli.hooks.session_stash`)
Stop, StopFailure  ``turn_end`` for the current turn, read from the transcript once it holds
                   the turn (bounded wait), else from the stash and the payload
PostCompact        ``compaction`` with ``compact_summary``
SessionEnd         ``session_end``; the session's stash is deleted
=================  ===========================================================================

Subagent payloads (``agent_id``, SubagentStart/Stop) and every other event are ignored.
Unknown fields are ignored; a field an event needs that is missing or of the wrong type is
a usage error. Only ``user_prompt`` prints anything: the ``hookSpecificOutput`` envelope.
A Stop hook must print nothing, or Claude Code continues the turn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.hooks import session_stash
from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, HookEvent, HookInputError, clip_middle
from cli.hooks.transcripts.claude_code import Turn, canonical_summary, read_transcript
from memory_core.errors import UsageError

AGENT = "claude-code"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it
# Claude Code may run Stop before the turn's records reach the transcript; they appeared
# within 0.05 s in every observed run.
LAG_WAIT_SECONDS = 0.3
LAG_POLL_SECONDS = 0.05


class _Payload:
    """Typed reads of a native payload: a wrong type is a usage error naming the field."""

    def __init__(self, payload: dict[str, Any], event: str) -> None:
        self.payload = payload
        self.event = event

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.payload.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            need = "needs" if value is None else "needs a string in"
            raise UsageError(f'a Claude Code {self.event} hook input {need} "{key}"')
        return value

    def flag(self, key: str) -> bool:
        value = self.payload.get(key)
        if value is not None and not isinstance(value, bool):
            raise UsageError(f'a Claude Code {self.event} hook input needs true or false in "{key}"')
        return bool(value)

    def base(self) -> dict[str, Any]:
        """The fields every normalized event gets."""
        return {"agent": AGENT, "session_id": self.text("session_id"), "cwd": self.text("cwd") or "",
                "transcript_path": self.text("transcript_path")}


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """The normalized events of one Claude Code hook call (none for an ignored event)."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise UsageError('a Claude Code hook input needs "hook_event_name" (a string)')
    if event_arg is not None and event_arg != name:
        raise UsageError(f"hook input is Claude Code's {name!r} event but the command was `memevo hook {event_arg}`")
    handler = _EVENTS.get(name)
    if handler is None or payload.get("agent_id") is not None:  # subagents are not the user's session
        return ()
    try:
        return handler(_Payload(payload, name), home, now)
    except HookInputError as exc:
        raise UsageError(f"Claude Code hook input field {exc}") from None


def render(event: HookEvent, output: str) -> str:
    """Only the recall digest is printed, in the envelope Claude Code injects as context."""
    if event.event != "user_prompt" or not output:
        return ""
    return json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": output}})


def _session_start(call: _Payload, home: Path, now: float) -> tuple[HookEvent, ...]:
    base = call.base()
    events = [HookEvent("session_start", **base)]
    if call.text("source") == "compact" and base["transcript_path"]:
        # Claude Code runs this before PostCompact; both give the same text, captured once.
        summary = read_transcript(base["transcript_path"]).latest_compact_summary(base["session_id"])
        if summary:
            events.append(HookEvent("compaction", summary=summary[:MAX_TEXT], **base))
    return tuple(events)


def _user_prompt(call: _Payload, home: Path, now: float) -> tuple[HookEvent, ...]:
    prompt = call.text("prompt", required=True) or ""
    if not prompt.strip():
        return ()
    base = call.base()
    prompt_id = call.text("prompt_id")
    if base["session_id"]:
        session_stash.write_prompt(home, base["session_id"], prompt, prompt_id, now)
    earlier = _earlier_user_texts(base["transcript_path"], prompt_id, prompt)
    return (HookEvent("user_prompt", user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
                      prompt=clip_middle(prompt, MAX_TEXT), **base),)


def _earlier_user_texts(path: str | None, prompt_id: str | None, prompt: str) -> list[str]:
    # Every prompt pays for this read: the recent end usually holds the last turns already.
    transcript = read_transcript(path, max_bytes=PROMPT_WINDOW_BYTES)
    earlier = transcript.earlier_user_texts(prompt_id, prompt, EARLIER_TURNS)
    if len(earlier) < EARLIER_TURNS and transcript.clipped:
        earlier = read_transcript(path).earlier_user_texts(prompt_id, prompt, EARLIER_TURNS)
    return earlier


def _stop(call: _Payload, home: Path, now: float, *, failed: bool = False) -> tuple[HookEvent, ...]:
    if call.flag("stop_hook_active"):  # Claude is continuing because of a Stop hook: seen already
        return ()
    base = call.base()
    prompt_id = call.text("prompt_id")
    last_message = call.text("last_assistant_message")
    stash = session_stash.read_prompt(home, base["session_id"]) if base["session_id"] else None
    if stash is not None and prompt_id and stash.prompt_id and stash.prompt_id != prompt_id:
        stash = None  # an earlier turn's prompt
    turn = _await_turn(base["transcript_path"], prompt_id, stash)
    stashed = (clip_middle(stash.prompt, MAX_TEXT),) if stash is not None else ()
    final = last_message if last_message is not None else (turn.final_message if turn else None)
    return (HookEvent(
        "turn_end",
        user_messages=(turn.user_messages if turn else ()) or stashed,
        operations=turn.operations if turn else (),
        final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
        ended_in_error=failed or (turn.ended_in_error if turn else False),
        **base,
    ),)


def _await_turn(path: str | None, prompt_id: str | None, stash: session_stash.StashedPrompt | None) -> Turn | None:
    """The current turn from the transcript, polling briefly while it is not written yet."""
    if not path:
        return None
    is_prompt: Callable[[str], bool] | None = None
    if stash is not None:
        digest = stash.prompt_digest

        def is_prompt(text: str) -> bool:  # without prompt ids, the stashed prompt names the turn
            return session_stash.prompt_digest(text) == digest

    deadline = time.monotonic() + LAG_WAIT_SECONDS
    while True:
        turn = read_transcript(path).current_turn(prompt_id, is_prompt)
        remaining = deadline - time.monotonic()
        if turn is not None or remaining <= 0:
            return turn
        time.sleep(min(LAG_POLL_SECONDS, remaining))


def _post_compact(call: _Payload, home: Path, now: float) -> tuple[HookEvent, ...]:
    summary = canonical_summary(call.text("compact_summary", required=True) or "")
    if not summary:
        raise UsageError('a Claude Code PostCompact hook input needs a non-empty "compact_summary"')
    return (HookEvent("compaction", summary=summary[:MAX_TEXT], **call.base()),)


def _session_end(call: _Payload, home: Path, now: float) -> tuple[HookEvent, ...]:
    # Claude Code allows SessionEnd hooks 1.5 s: delete one small file, open no database.
    base = call.base()
    if base["session_id"]:
        session_stash.forget_session(home, base["session_id"])
    return (HookEvent("session_end", **base),)


def _stop_failure(call: _Payload, home: Path, now: float) -> tuple[HookEvent, ...]:
    # Claude Code runs StopFailure instead of Stop when the turn ends in an API error.
    return _stop(call, home, now, failed=True)


_EVENTS: dict[str, Callable[[_Payload, Path, float], tuple[HookEvent, ...]]] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
    "Stop": _stop,
    "StopFailure": _stop_failure,
    "PostCompact": _post_compact,
    "SessionEnd": _session_end,
    # PreCompact: the summary does not exist yet. Everything else is not memevo's business.
}
