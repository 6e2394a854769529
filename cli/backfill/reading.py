"""What every agent's session reader shares: streamed records with bad lines counted, the
time of a record, and the event a reader yields.

Each line is read as the hooks read a transcript (:mod:`cli.hooks.transcripts.stream`): up to
the size the file had when it was opened (a file still being written is read as far as it
was), one block and one record in memory, a line longer than the record bound skipped. A
line that is not a JSON object (truncated, cut by a crash, not JSON) is skipped and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_TEXT, MAX_USER_MESSAGES, HookEvent, clip_middle
from cli.hooks.transcripts.common import Turn
from cli.hooks.transcripts.stream import forward_lines, open_transcript
from cli.hooks.transcripts.tail import parse_record


class SessionSkipped(Exception):
    """A session file that cannot be read as a session of its agent; the message says why."""


class Tally:
    """What reading sessions counted: bad lines, and the lines saying what was skipped."""

    def __init__(self) -> None:
        self.bad_lines = 0
        self.turns = 0
        self.skipped: list[str] = []

    def skip(self, line: str) -> None:
        self.skipped.append(line)


class SessionEvent(tuple[HookEvent, float]):
    """A normalized event of a saved session and the time it happened (seconds since the epoch)."""

    __slots__ = ()

    def __new__(cls, event: HookEvent, at: float) -> SessionEvent:
        return tuple.__new__(cls, (event, at))

    @property
    def event(self) -> HookEvent:
        return self[0]

    @property
    def at(self) -> float:
        return self[1]


def stream_records(path: str, tally: Tally) -> Iterator[dict[str, Any]]:
    """The JSON objects of ``path``'s lines, oldest first; every other line counted in
    ``tally.bad_lines``. :class:`SessionSkipped` when the file cannot be opened."""
    source = open_transcript(path)
    if source is None:
        raise SessionSkipped("cannot be opened as a regular file")
    with source:
        for line in forward_lines(source, 0):
            record = parse_record(line) if line is not None else None
            if record is None:
                tally.bad_lines += 1
                continue
            yield record


def time_of(value: object) -> float | None:
    """Seconds since the epoch of an ISO 8601 time (``…Z`` or with an offset) or of a number
    of milliseconds (Pi's messages); ``None`` for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = value / 1000.0 if value > 1e11 else float(value)
        return seconds if seconds > 0 else None
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.timestamp()


def turn_end_event(turn: Turn, base: dict[str, Any], *, last: int | None = MAX_USER_MESSAGES) -> HookEvent:
    """The ``turn_end`` event a live hook would have sent for ``turn``: its ``last`` user
    messages (all of them with ``None``) and its final message clipped as the adapters clip."""
    messages = turn.user_messages if last is None else turn.user_messages[-last:]
    final = turn.final_message
    return HookEvent(
        "turn_end",
        user_messages=tuple(clip_middle(t, MAX_TEXT) for t in messages),
        operations=turn.operations,
        final_message=clip_middle(final, MAX_FINAL_MESSAGE) if final else None,
        ended_in_error=turn.ended_in_error,
        notes=turn.notes,
        **base,
    )
