"""Codex's saved sessions (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) as the events
its hooks would have sent.

A turn is what the Stop hook reads (:mod:`cli.hooks.transcripts.codex`): the records of one
``turn_id``, as the rollout assigns them. The session is the ``session_meta`` record's id and
working directory, as in the hooks' payloads. Codex's hooks capture no compaction summary, so
neither does backfill.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

from cli.hooks.transcripts.codex import _current_after, _turn_of, read_turn

from .reading import SessionEvent, SessionSkipped, Tally, stream_records, time_of, turn_end_event

AGENT = "codex"


class _TurnKeys:
    """The turn of each record and the time of each turn's last record."""

    def __init__(self) -> None:
        self.current: str | None = None
        self.number = 0
        self.key_of: str | None = None
        self.last_at: dict[int, float] = {}

    def key(self, record: dict[str, Any]) -> int:
        turn = _turn_of(record, self.current)
        self.current = _current_after(record, self.current)
        if turn != self.key_of:
            self.number += 1
            self.key_of = turn
        at = time_of(record.get("timestamp"))
        if at is not None:
            self.last_at[self.number] = at
        return self.number


def read_session(path: str, tally: Tally, fallback_at: float) -> Iterator[SessionEvent]:
    """The turn-end events of the saved rollout at ``path``, in order."""
    every = stream_records(path, tally)
    first = next(every, None)
    if first is None:
        return
    if first.get("type") != "session_meta" or not isinstance(first.get("payload"), dict):
        raise SessionSkipped(f"not a Codex rollout (its first record is {first.get('type')!r}, not session_meta)")
    meta = first["payload"]
    session_id = meta.get("id") if isinstance(meta.get("id"), str) else None
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) else ""
    records = (r for r in every if isinstance(r.get("payload"), dict))
    base: dict[str, Any] = {"agent": AGENT, "session_id": session_id, "cwd": cwd, "transcript_path": path}
    keys = _TurnKeys()
    for number, group in groupby(records, key=keys.key):
        turn = read_turn(group, typed_events=None)
        if not turn.user_messages:
            continue  # records outside any turn, or a turn whose message was never written
        tally.turns += 1
        event = turn_end_event(turn, base)
        yield SessionEvent(event, keys.last_at.pop(number, fallback_at))
