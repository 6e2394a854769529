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

from pathlib import Path

from cli.hooks.adapters.native import Handler, NativePayload, additional_context, log_malformed, parse_native
from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, HookEvent, clip_middle
from cli.hooks.transcripts.common import Turn
from cli.hooks.transcripts.gemini import NO_RESPONSE, is_typed_text, read_current_turn, read_transcript, strip_injected

# What the learning log says of a turn the transcript did not hold when AfterAgent ran.
_NOT_IN_TRANSCRIPT = "the transcript did not hold this turn: only the prompt in the hook's payload was read"

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

AGENT = "gemini"
TITLE = "Gemini CLI"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it

# How a payload is told apart from Claude Code's (which has no ``timestamp`` and none of
# these names but the shared ones): see :func:`is_gemini_payload`.
GEMINI_ONLY_EVENTS = frozenset(
    {
        "BeforeAgent",
        "AfterAgent",
        "BeforeTool",
        "AfterTool",
        "BeforeModel",
        "AfterModel",
        "BeforeToolSelection",
        "PreCompress",
    }
)
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
    # No Gemini payload is known to name a subagent: none is skipped for an ``agent_id``.
    return parse_native(payload, event_arg, _EVENTS, agent=AGENT, title=TITLE, home=home, now=now, skip_subagents=False)


def render(event: HookEvent, output: str) -> str:
    """Only the recall digest is printed, in the envelope Gemini adds to the prompt."""
    if event.event != "user_prompt":
        return ""
    return additional_context("BeforeAgent", output)


def _session_start(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    return (HookEvent("session_start", **call.base()),)


def _before_agent(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    prompt = strip_injected(call.text("prompt", required=True) or "")
    if not prompt:
        return ()
    base = call.base()
    # Every prompt pays for this read: the recent end usually holds the last turns already.
    transcript = read_transcript(base["transcript_path"], max_bytes=PROMPT_WINDOW_BYTES)
    earlier = transcript.earlier_user_texts(prompt, EARLIER_TURNS)
    if len(earlier) < EARLIER_TURNS and transcript.clipped:
        transcript = read_transcript(base["transcript_path"])
        earlier = transcript.earlier_user_texts(prompt, EARLIER_TURNS)
    log_malformed(transcript.malformed)
    return (
        HookEvent(
            "user_prompt",
            user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
            prompt=clip_middle(prompt, MAX_TEXT),
            **base,
        ),
    )


def _after_agent(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    if call.flag("stop_hook_active"):  # an AfterAgent hook made the agent go on: not the user's turn
        return ()
    base = call.base()
    prompt = strip_injected(call.text("prompt", required=True) or "")
    response = call.text("prompt_response")
    if not prompt:
        return ()
    # The CLI writes each record before the next step, so the turn is in the transcript when
    # AfterAgent runs; without one (recording off, unreadable), the payload still has the turn.
    turn = read_current_turn(base["transcript_path"], prompt)
    if turn is None:
        notes = (_NOT_IN_TRANSCRIPT,) if base["transcript_path"] else ()
        turn = Turn((prompt,) if is_typed_text(prompt) else (), (), None, False, notes)
    final = turn.final_message
    if final is None and response and response.strip() != NO_RESPONSE:
        final = response.strip()
    return (
        HookEvent(
            "turn_end",
            user_messages=tuple(clip_middle(m, MAX_TEXT) for m in turn.user_messages),
            operations=turn.operations,
            final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
            ended_in_error=turn.ended_in_error,
            notes=turn.notes,
            **base,
        ),
    )


def _session_end(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    return (HookEvent("session_end", **call.base()),)


_EVENTS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "BeforeAgent": _before_agent,
    "AfterAgent": _after_agent,
    "SessionEnd": _session_end,  # nothing to do: no per-session state is kept
}
