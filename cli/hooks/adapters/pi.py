"""Pi's events, as memevo's Pi extension sends them (observed with Pi 0.73; see docs/agents/pi.md).

Pi has no command hooks: the extension ``memevo install pi`` writes (``memevo.ts``) runs
``memevo hook --agent pi`` on Pi's events and writes one JSON object to its stdin::

    {"hook_event_name": "agent_end", "event": {…Pi's event object…}, "cwd": "…",
     "session_file": "…/<time>_<uuid>.jsonl", "session_id": "<uuid>", "model": "…"}

``session_id`` is optional (else taken from the session file's name); late events in print
mode may carry ``null`` where Pi had already torn the session down. What each event becomes:

==================  =========================================================================
session_start       ``session_start``
before_agent_start  ``user_prompt`` for ``event.prompt``, with up to 5 earlier user messages of
                    the session's current branch (read from the session file) as context;
                    prints the digest as plain text, which the extension injects
agent_end           ``turn_end``: ``event.messages`` are what the prompt added (the user's
                    messages, the answers, the tool calls and their results by id)
session_compact     ``compaction`` with ``event.compactionEntry.summary``
session_shutdown    ``session_end``
==================  =========================================================================

Every other event (``tool_call``, ``tool_result``, ``input``, …) is ignored: ``agent_end``
already holds every call and result of the run. Only ``user_prompt`` prints anything.
"""

from __future__ import annotations

import re
from pathlib import Path

from cli.hooks.adapters.native import Handler, NativePayload, parse_native
from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, MAX_USER_MESSAGES, HookEvent, clip_middle
from cli.hooks.transcripts.pi import earlier_user_texts, read_turn
from memory_core.errors import UsageError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

AGENT = "pi"
EARLIER_TURNS = 5
# Pi names session files "<ISO time>_<session uuid>.jsonl".
_SESSION_FILE_ID = re.compile(r"_([0-9A-Za-z-]{8,})\.jsonl$")


def _event(call: NativePayload) -> dict[str, Any]:
    """Pi's own event object."""
    event = call.payload.get("event")
    if not isinstance(event, dict):
        raise UsageError(f'a Pi {call.event} hook input needs the event object in "event"')
    kind = event.get("type")
    if kind is not None and kind != call.event:
        raise UsageError(f"a Pi hook input names {call.event!r} but its event is of type {kind!r}")
    return event


def _base(call: NativePayload) -> dict[str, Any]:
    """The fields every normalized event gets; the session file is the session's transcript."""
    session_file = call.text("session_file") or None
    session_id = call.text("session_id") or None
    if session_id is None and session_file:
        match = _SESSION_FILE_ID.search(session_file)
        session_id = match.group(1) if match else None
    return {"agent": AGENT, "session_id": session_id, "cwd": call.text("cwd") or "", "transcript_path": session_file}


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """The normalized events of one Pi extension call (none for an ignored event)."""
    return parse_native(payload, event_arg, _EVENTS, agent=AGENT, title="Pi", home=home, now=now)


def render(event: HookEvent, output: str) -> str:
    """The recall digest as plain text (the extension injects it as a hidden message); nothing else."""
    return output if event.event == "user_prompt" else ""


def _session_start(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    _event(call)
    return (HookEvent("session_start", **_base(call)),)


def _before_agent_start(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    prompt = _event(call).get("prompt")
    if not isinstance(prompt, str):
        raise UsageError('a Pi before_agent_start hook input needs a string in "event.prompt"')
    if not prompt.strip():
        return ()
    base = _base(call)
    earlier = earlier_user_texts(base["transcript_path"], EARLIER_TURNS)
    return (
        HookEvent(
            "user_prompt",
            user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
            prompt=clip_middle(prompt, MAX_TEXT),
            **base,
        ),
    )


def _agent_end(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    messages = _event(call).get("messages")
    if not isinstance(messages, list):
        raise UsageError('a Pi agent_end hook input needs a list in "event.messages"')
    malformed = sum(not isinstance(m, dict) for m in messages)
    if malformed:  # read_turn skips them: the rest of the run is still the turn
        from cli.hooks.hook_log import log_failure

        log_failure(f"agent_end: {malformed} of event.messages dropped: not an object (a Pi message is one)")
    turn = read_turn(messages)
    return (
        HookEvent(
            "turn_end",
            user_messages=tuple(clip_middle(t, MAX_TEXT) for t in turn.user_messages[-MAX_USER_MESSAGES:]),
            operations=turn.operations,
            final_message=clip_middle(turn.final_message, MAX_FINAL_MESSAGE) if turn.final_message else None,
            ended_in_error=turn.ended_in_error,
            **_base(call),
        ),
    )


def _session_compact(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    entry = _event(call).get("compactionEntry")
    summary = entry.get("summary") if isinstance(entry, dict) else None
    if not isinstance(summary, str) or not summary.strip():
        raise UsageError('a Pi session_compact hook input needs a non-empty "event.compactionEntry.summary"')
    return (HookEvent("compaction", summary=clip_middle(summary.strip(), MAX_TEXT), **_base(call)),)


def _session_shutdown(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    _event(call)
    return (HookEvent("session_end", **_base(call)),)


_EVENTS: dict[str, Handler] = {
    "session_start": _session_start,
    "before_agent_start": _before_agent_start,
    "agent_end": _agent_end,
    "session_compact": _session_compact,
    "session_shutdown": _session_shutdown,
}
