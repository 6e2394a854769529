"""Pi's saved sessions (``~/.pi/agent/sessions/<cwd>/<time>_<id>.jsonl``) as the events memevo's
Pi extension would have sent.

A turn is what ``agent_end`` carries (:func:`cli.hooks.transcripts.pi.read_turn`): the
messages from one message the user wrote up to the next; a ``compaction`` entry's summary is
what ``session_compact`` carries. The ``session`` header names the session and its working
directory. Entries are taken in file order (a branched session's branches one after another).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

from cli.hooks.event import MAX_TEXT, HookEvent, clip_middle
from cli.hooks.transcripts.pi import read_turn, user_text

from .reading import SessionEvent, SessionSkipped, Tally, stream_records, time_of, turn_end_event

AGENT = "pi"


class _TurnKeys:
    def __init__(self) -> None:
        self.number = 0
        self.last_at: dict[int, float] = {}
        self.summaries: dict[int, list[tuple[str, float | None]]] = {}

    def key(self, entry: dict[str, Any]) -> int:
        if entry.get("type") == "message" and user_text(entry.get("message")) is not None:
            self.number += 1
        at = time_of(entry.get("timestamp"))
        if at is not None:
            self.last_at[self.number] = at
        summary = entry.get("summary")
        if entry.get("type") == "compaction" and isinstance(summary, str) and summary.strip():
            self.summaries.setdefault(self.number, []).append((summary.strip(), at))
        return self.number


def read_session(path: str, tally: Tally, fallback_at: float) -> Iterator[SessionEvent]:
    """The compaction and turn-end events of the saved session at ``path``, in order."""
    entries = stream_records(path, tally)
    header = next(entries, None)
    if header is None:
        return
    if header.get("type") != "session":
        raise SessionSkipped(f"not a Pi session (its first entry is {header.get('type')!r}, not session)")
    session_id = header.get("id") if isinstance(header.get("id"), str) else None
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else ""
    base: dict[str, Any] = {"agent": AGENT, "session_id": session_id, "cwd": cwd, "transcript_path": path}
    keys = _TurnKeys()
    for number, group in groupby(entries, key=keys.key):
        turn = read_turn(e.get("message") for e in group if e.get("type") == "message")
        at = keys.last_at.pop(number, fallback_at)
        for summary, summary_at in keys.summaries.pop(number, []):
            yield SessionEvent(
                HookEvent("compaction", summary=clip_middle(summary, MAX_TEXT), **base), summary_at or at
            )
        if number == 0 or not turn.user_messages:
            continue
        tally.turns += 1
        event = turn_end_event(turn, base)
        yield SessionEvent(event, at)
