"""Claude Code's saved sessions (``~/.claude/projects/<slug>/<session>.jsonl``) as the events
its hooks would have sent.

A turn is what the Stop hook reads (:mod:`cli.hooks.transcripts.claude_code`): the main-chain
records of one ``promptId`` (without prompt ids, from one typed message to the next); a
compaction summary is the ``isCompactSummary`` record PostCompact and SessionStart(compact)
read. Subagent sidechains are not turns of the session, as for the hooks.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from typing import Any

from cli.hooks.event import MAX_TEXT, HookEvent
from cli.hooks.transcripts.claude_code import _prompt_id, _read_turn, user_text
from cli.hooks.transcripts.claude_compaction import summary_from_compact_message
from cli.hooks.transcripts.common import texts

from .reading import SessionEvent, SessionSkipped, Tally, stream_records, time_of, turn_end_event

AGENT = "claude-code"


class _TurnKeys:
    """The turn each record belongs to, and what each turn's records said: the session, the
    directory, the time of its last record and its compaction summaries (kept per turn:
    grouping reads the next turn's first record before the last turn is handled)."""

    def __init__(self) -> None:
        self.turn = 0
        self.prompt: str | None = None
        self.session_id: str | None = None
        self.cwd = ""
        self.last_at: dict[int, float] = {}
        self.where: dict[int, tuple[str | None, str]] = {}
        self.summaries: dict[int, list[tuple[str, float | None]]] = {}

    def key(self, record: dict[str, Any]) -> int:
        if record.get("type") == "user":
            prompt = _prompt_id(record)
            if prompt is not None:
                if prompt != self.prompt:
                    self.turn += 1
                    self.prompt = prompt
            elif user_text(record) is not None:
                self.turn += 1
        if isinstance(record.get("sessionId"), str) and record["sessionId"]:
            self.session_id = record["sessionId"]
        if isinstance(record.get("cwd"), str) and record["cwd"]:
            self.cwd = record["cwd"]
        self.where.setdefault(self.turn, (self.session_id, self.cwd))
        at = time_of(record.get("timestamp"))
        if at is not None:
            self.last_at[self.turn] = at
        if record.get("type") == "user" and record.get("isCompactSummary") is True:
            message = record.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            summary = summary_from_compact_message("\n".join(texts(content)))
            if summary:
                self.summaries.setdefault(self.turn, []).append((summary, at))
        return self.turn

    def done(self, turn: int) -> tuple[str | None, str, float | None, list[tuple[str, float | None]]]:
        """What turn ``turn`` said, forgotten here."""
        session_id, cwd = self.where.pop(turn, (self.session_id, self.cwd))
        return session_id, cwd, self.last_at.pop(turn, None), self.summaries.pop(turn, [])


def read_session(path: str, tally: Tally, fallback_at: float) -> Iterator[SessionEvent]:
    """The compaction and turn-end events of the saved session at ``path``, in order."""
    records = stream_records(path, tally)
    first = next(records, None)
    if first is None:
        return
    if not isinstance(first.get("type"), str) or "payload" in first:  # a Codex rollout's records hold a payload
        raise SessionSkipped("not a Claude Code transcript (its first record has no type, or is another agent's)")
    keys = _TurnKeys()

    def main_chain() -> Iterator[dict[str, Any]]:
        for part in ((first,), records):
            for record in part:
                if record.get("isSidechain") is not True:
                    yield record

    for number, group in groupby(main_chain(), key=keys.key):
        turn = _read_turn(group)
        session_id, cwd, last_at, summaries = keys.done(number)
        at = last_at or fallback_at
        base: dict[str, Any] = {"agent": AGENT, "session_id": session_id, "cwd": cwd, "transcript_path": path}
        for summary, summary_at in summaries:
            yield SessionEvent(HookEvent("compaction", summary=summary[:MAX_TEXT], **base), summary_at or at)
        if number == 0 or not turn.user_messages:
            continue  # records before the first prompt; a turn without typed words (a slash command)
        tally.turns += 1
        event = turn_end_event(turn, base)
        yield SessionEvent(event, at)
