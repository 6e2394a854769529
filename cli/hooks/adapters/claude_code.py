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
a usage error. Only ``user_prompt`` (the recall digest) and ``session_start`` (the standing
digest) print anything: the ``hookSpecificOutput`` envelope.
A Stop hook must print nothing, or Claude Code continues the turn.
"""

from __future__ import annotations

from pathlib import Path

from cli.hooks.adapters.native import (
    Handler,
    NativePayload,
    StashedTurns,
    additional_context,
    parse_native,
    session_end,
)
from cli.hooks.event import MAX_TEXT, HookEvent
from cli.hooks.transcripts.claude_compaction import canonical_summary
from memory_core.errors import UsageError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from cli.hooks.transcripts.claude_code import Transcript
    from cli.hooks.transcripts.common import Turn

AGENT = "claude-code"
TITLE = "Claude Code"
EARLIER_TURNS = 5
PROMPT_WINDOW_BYTES = 512 * 1024  # read first for the earlier turns; the whole bound only if they are not in it
# Claude Code may run Stop before the turn's records reach the transcript; they appeared
# within 0.05 s in every observed run.
LAG_WAIT_SECONDS = 0.3
LAG_POLL_SECONDS = 0.05


# The transcript reader (with its records and tail reader) loads when a handler reads the
# transcript: a PostCompact hook has its summary in the payload and reads none.
def read_transcript(path: str | None, *, max_bytes: int | None = None) -> Transcript:
    from cli.hooks.transcripts.claude_code import read_transcript

    return read_transcript(path) if max_bytes is None else read_transcript(path, max_bytes=max_bytes)


def read_user_records(path: str | None, *, max_bytes: int | None = None) -> Transcript:
    from cli.hooks.transcripts.claude_code import read_user_records

    return read_user_records(path) if max_bytes is None else read_user_records(path, max_bytes=max_bytes)


def read_current_turn(
    path: str | None, prompt_id: str | None, is_prompt: Callable[[str], bool] | None = None
) -> Turn | None:
    from cli.hooks.transcripts.claude_code import read_current_turn

    return read_current_turn(path, prompt_id, is_prompt)


_TURNS = StashedTurns(
    read_transcript,
    "prompt_id",
    EARLIER_TURNS,
    PROMPT_WINDOW_BYTES,
    LAG_WAIT_SECONDS,
    LAG_POLL_SECONDS,
    read_prompts=read_user_records,
    read_turn=read_current_turn,
)


def parse(payload: dict[str, Any], event_arg: str | None, *, home: Path, now: float) -> tuple[HookEvent, ...]:
    """The normalized events of one Claude Code hook call (none for an ignored event)."""
    return parse_native(payload, event_arg, _EVENTS, agent=AGENT, title=TITLE, home=home, now=now)


def render(event: HookEvent, output: str) -> str:
    """The recall and standing digests are printed, in the envelope Claude Code injects as context."""
    if event.event == "session_start":  # the standing digest
        return additional_context("SessionStart", output)
    if event.event != "user_prompt":
        return ""
    return additional_context("UserPromptSubmit", output)


def _session_start(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    base = call.base()
    events = [HookEvent("session_start", **base)]
    if call.text("source") == "compact" and base["transcript_path"]:
        # Claude Code runs this before PostCompact; both give the same text, captured once.
        summary = read_transcript(base["transcript_path"]).latest_compact_summary(base["session_id"])
        if summary:
            events.append(HookEvent("compaction", summary=summary[:MAX_TEXT], **base))
    return tuple(events)


def _post_compact(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    summary = canonical_summary(call.text("compact_summary", required=True) or "")
    if not summary:
        raise UsageError('a Claude Code PostCompact hook input needs a non-empty "compact_summary"')
    return (HookEvent("compaction", summary=summary[:MAX_TEXT], **call.base()),)


_EVENTS: dict[str, Handler] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _TURNS.user_prompt,
    "Stop": _TURNS.turn_end,
    # Claude Code runs StopFailure instead of Stop when the turn ends in an API error.
    "StopFailure": _TURNS.failed_turn_end,
    "PostCompact": _post_compact,
    # Claude Code allows SessionEnd hooks 1.5 s: delete one small file, open no database.
    "SessionEnd": session_end,
    # PreCompact: the summary does not exist yet. Everything else is not memevo's business.
}
