"""Gemini CLI's saved chats (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) as the events
its hooks would have sent.

The chat file is an append-only log the CLI replays into its messages (messages rewritten in
place, the history replaced on a resume, rewinds), so the messages are replayed first
(:func:`cli.hooks.transcripts.gemini.replay`): that holds the file's messages in memory, and
a file larger than :data:`MAX_REPLAY_BYTES` is skipped with a line saying so. A turn is what
AfterAgent reads: a message the user typed and the messages after it up to the next one.

The chat names no working directory: it is the project directory the CLI recorded beside
the chats (``.project_root``), else the first workspace directory of the CLI's
``<session_context>`` preamble.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from cli.hooks.transcripts.gemini import _read_turn, replay, user_text

from .reading import SessionEvent, SessionSkipped, Tally, stream_records, time_of, turn_end_event

AGENT = "gemini"
MAX_REPLAY_BYTES = 256 * 1024 * 1024
_WORKSPACE = re.compile(r"Workspace Directories:\*\*\s*\n\s*-\s*(/[^\n]*)")


def read_session(path: str, tally: Tally, fallback_at: float) -> Iterator[SessionEvent]:
    """The turn-end events of the saved chat at ``path``, in order."""
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        raise SessionSkipped(f"cannot be read ({exc.strerror or exc})") from None
    if size > MAX_REPLAY_BYTES:
        raise SessionSkipped(f"{size:,} bytes: larger than the {MAX_REPLAY_BYTES:,} a Gemini chat is replayed in")
    session_id: str | None = None
    records: list[dict[str, Any]] = []
    for record in stream_records(path, tally):
        if session_id is None and isinstance(record.get("sessionId"), str):
            session_id = record["sessionId"]
        records.append(record)
    if not records:
        return
    if session_id is None and not any(isinstance(r.get("id"), str) or "$set" in r for r in records):
        raise SessionSkipped("not a Gemini CLI chat (no session metadata, no messages)")
    messages = replay(records)
    del records
    cwd = _project_root(path) or _workspace(messages)
    base: dict[str, Any] = {"agent": AGENT, "session_id": session_id, "cwd": cwd, "transcript_path": path}
    starts = [i for i, m in enumerate(messages) if user_text(m) is not None]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(messages)
        text = user_text(messages[start])
        assert text is not None
        turn = _read_turn(text, messages[start + 1 : end])
        tally.turns += 1
        at = next(
            (t for m in reversed(messages[start:end]) if (t := time_of(m.get("timestamp"))) is not None), fallback_at
        )
        event = turn_end_event(turn, base, last=None)
        yield SessionEvent(event, at)


def _project_root(path: str) -> str:
    marker = os.path.join(os.path.dirname(os.path.dirname(path)), ".project_root")
    try:
        with open(marker, encoding="utf-8") as handle:
            root = handle.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return root if os.path.isabs(root) else ""


def _workspace(messages: list[dict[str, Any]]) -> str:
    for message in messages[:4]:
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"text": content}]
        for part in parts:
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and "<session_context>" in text:
                match = _WORKSPACE.search(text)
                if match:
                    return match.group(1).strip()
    return ""
