"""Shared parts of adapters for agents whose native hook payloads name their event.

Claude Code, Codex and Gemini CLI (and memevo's Pi extension) write one JSON object per
event with ``hook_event_name``, ``session_id``, ``transcript_path`` and ``cwd``. An adapter
module lists a handler per native event and calls :func:`parse_native`; the helpers here
read typed fields with errors naming the agent, wait briefly for a transcript that lags the
hooks, and build the ``hookSpecificOutput`` envelope that injects context.

:class:`StashedTurns` holds the prompt and turn-end handlers of the agents whose turn-end
hook may run before the transcript holds the turn (Claude Code, Codex): the prompt hook
stashes the prompt (:mod:`cli.hooks.session_stash`), the turn-end hook waits briefly for the
turn and falls back to the stash.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from cli.hooks.event import (
    MAX_FINAL_MESSAGE,
    MAX_TEXT,
    MAX_USER_MESSAGES,
    Frozen,
    HookEvent,
    HookInputError,
    clip_middle,
)
from memory_core.errors import UsageError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:  # types only: a hook process defines no protocol classes
    from typing import Any, Protocol, TypeVar

    from cli.hooks.session_stash import StashedPrompt
    from cli.hooks.transcripts.common import Turn

    T = TypeVar("T")

    class TurnTranscript(Protocol):
        """What :class:`StashedTurns` reads of a transcript (Claude Code's, Codex's rollout)."""

        clipped: bool

        @property
        def malformed(self) -> int: ...

        def earlier_user_texts(self, turn_id: str | None, prompt: str | None, limit: int, /) -> list[str]: ...

        def current_turn(
            self, turn_id: str | None, is_prompt: Callable[[str], bool] | None = None, /
        ) -> Turn | None: ...

    class ReadTranscript(Protocol):
        def __call__(self, path: str | None, *, max_bytes: int = ...) -> TurnTranscript: ...

    class ReadTurn(Protocol):
        def __call__(
            self, path: str | None, turn_id: str | None, is_prompt: Callable[[str], bool] | None = None, /
        ) -> Turn | None: ...


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
        return {
            "agent": self.agent,
            "session_id": self.text("session_id"),
            "cwd": self.text("cwd") or "",
            "transcript_path": self.text("transcript_path"),
        }


Handler = Callable[[NativePayload, Path, float], tuple[HookEvent, ...]]


def parse_native(
    payload: dict[str, Any],
    event_arg: str | None,
    handlers: Mapping[str, Handler],
    *,
    agent: str,
    title: str,
    home: Path,
    now: float,
    skip_subagents: bool = True,
) -> tuple[HookEvent, ...]:
    """Run the handler of the payload's ``hook_event_name`` (none: nothing to do).

    ``event_arg``, the EVENT on the command line, must name the same event when given.
    Payloads of a subagent (``agent_id``) are skipped unless ``skip_subagents`` is false: a
    subagent's work is not the user's turn.
    """
    name = payload.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise UsageError(f'a {title} hook input needs "hook_event_name" (a string)')
    if event_arg is not None and event_arg != name:
        raise UsageError(f"hook input is {title}'s {name!r} event but the command was `memevo hook {event_arg}`")
    handler = handlers.get(name)
    if handler is None or (skip_subagents and payload.get("agent_id") is not None):
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


# What the learning log says of a turn the transcript did not hold when the turn ended.
NOT_IN_TRANSCRIPT = "the transcript did not hold this turn: only the prompt the prompt hook kept was read"
NOTHING_TO_READ = "the transcript did not hold this turn and no prompt was kept: nothing of it was read"


class StashedTurns(Frozen):
    """The prompt and turn-end handlers of an agent whose transcript can lag its hooks.

    ``turn_key`` is the payload field naming the current turn (``prompt_id``, ``turn_id``);
    the prompt hook reads the last ``earlier_turns`` user messages from the transcript's last
    ``window_bytes`` first (the whole bound only if they are not in it) and stashes the
    prompt; the turn-end hook polls the transcript for the turn for up to ``lag_wait`` seconds.
    """

    fields = ("read", "turn_key", "earlier_turns", "window_bytes", "lag_wait", "lag_poll", "read_prompts", "read_turn")
    read: ReadTranscript
    turn_key: str
    earlier_turns: int
    window_bytes: int
    lag_wait: float
    lag_poll: float
    # Reads what is needed for the earlier user turns only, when cheaper than ``read``.
    read_prompts: ReadTranscript | None
    # Reads the current turn from a transcript of any size (:mod:`cli.hooks.transcripts.stream`).
    read_turn: ReadTurn | None

    def __init__(
        self,
        read: ReadTranscript,
        turn_key: str,
        earlier_turns: int,
        window_bytes: int,
        lag_wait: float,
        lag_poll: float,
        read_prompts: ReadTranscript | None = None,
        read_turn: ReadTurn | None = None,
    ) -> None:
        self._set(
            read=read,
            turn_key=turn_key,
            earlier_turns=earlier_turns,
            window_bytes=window_bytes,
            lag_wait=lag_wait,
            lag_poll=lag_poll,
            read_prompts=read_prompts,
            read_turn=read_turn,
        )

    def user_prompt(self, call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
        """``user_prompt`` with the earlier user turns; the prompt is stashed for the turn end."""
        from cli.hooks import session_stash

        prompt = call.text("prompt", required=True) or ""
        if not prompt.strip():
            return ()
        base = call.base()
        turn_id = call.text(self.turn_key)
        if base["session_id"]:
            session_stash.write_prompt(home, base["session_id"], prompt, turn_id, now)
        earlier = self.earlier_user_texts(base["transcript_path"], turn_id, prompt)
        return (
            HookEvent(
                "user_prompt",
                user_messages=tuple(clip_middle(t, MAX_TEXT) for t in earlier),
                prompt=clip_middle(prompt, MAX_TEXT),
                **base,
            ),
        )

    def earlier_user_texts(self, path: str | None, turn_id: str | None, prompt: str) -> list[str]:
        # Every prompt pays for this read: the recent end usually holds the last turns already.
        read = self.read_prompts or self.read
        transcript = read(path, max_bytes=self.window_bytes)
        earlier = transcript.earlier_user_texts(turn_id, prompt, self.earlier_turns)
        if len(earlier) < self.earlier_turns and transcript.clipped:
            transcript = read(path)
            earlier = transcript.earlier_user_texts(turn_id, prompt, self.earlier_turns)
        log_malformed(transcript.malformed)
        return earlier

    def turn_end(self, call: NativePayload, home: Path, now: float, *, failed: bool = False) -> tuple[HookEvent, ...]:
        """``turn_end`` from the transcript once it holds the turn, else from the stash and the payload."""
        from cli.hooks import session_stash

        if call.flag("stop_hook_active"):  # the agent is continuing because of a Stop hook: seen already
            return ()
        base = call.base()
        turn_id = call.text(self.turn_key)
        last_message = call.text("last_assistant_message")
        stash = session_stash.read_prompt(home, base["session_id"]) if base["session_id"] else None
        if stash is not None and turn_id and stash.prompt_id and stash.prompt_id != turn_id:
            stash = None  # an earlier turn's prompt
        turn = self.await_turn(base["transcript_path"], turn_id, stash)
        stashed = (clip_middle(stash.prompt, MAX_TEXT),) if stash is not None else ()
        # A long turn keeps its last messages, each head and tail: bounded, never refused.
        said = tuple(clip_middle(t, MAX_TEXT) for t in turn.user_messages[-MAX_USER_MESSAGES:]) if turn else ()
        final = last_message if last_message is not None else (turn.final_message if turn else None)
        notes = turn.notes if turn else ()
        if turn is None and base["transcript_path"]:
            notes = (NOT_IN_TRANSCRIPT if stash is not None else NOTHING_TO_READ,)
        return (
            HookEvent(
                "turn_end",
                user_messages=said or stashed,
                operations=turn.operations if turn else (),
                final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
                ended_in_error=failed or (turn.ended_in_error if turn else False),
                notes=notes,
                **base,
            ),
        )

    def failed_turn_end(self, call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
        """``turn_end`` of a turn that ended in an API error."""
        return self.turn_end(call, home, now, failed=True)

    def await_turn(self, path: str | None, turn_id: str | None, stash: StashedPrompt | None) -> Turn | None:
        """The current turn from the transcript, polling briefly while it is not written yet."""
        if not path:
            return None
        from cli.hooks import session_stash

        is_prompt: Callable[[str], bool] | None = None
        if stash is not None:
            digest = stash.prompt_digest

            def is_prompt(text: str) -> bool:  # without turn ids, the stashed prompt names the turn
                return session_stash.prompt_digest(text) == digest

        read_turn = self.read_turn
        if read_turn is None:
            return await_value(
                lambda: self.read(path).current_turn(turn_id, is_prompt), wait=self.lag_wait, poll=self.lag_poll
            )
        return await_value(lambda: read_turn(path, turn_id, is_prompt), wait=self.lag_wait, poll=self.lag_poll)


def log_malformed(count: int) -> None:
    """Say in the hook log that earlier user messages were dropped because they are not text;
    the current prompt is answered from the rest."""
    if count:
        from cli.hooks.hook_log import log_failure

        log_failure(f"user_prompt: {count} earlier user message(s) of the transcript dropped: not text")


def session_end(call: NativePayload, home: Path, now: float) -> tuple[HookEvent, ...]:
    """``session_end``; the session's stash is deleted (one small file, no database: agents
    allow these hooks a second or two)."""
    from cli.hooks import session_stash

    base = call.base()
    if base["session_id"]:
        session_stash.forget_session(home, base["session_id"])
    return (HookEvent("session_end", **base),)
