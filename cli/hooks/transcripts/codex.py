"""What memevo reads from a Codex rollout (``transcript_path``: JSON lines under ``$CODEX_HOME/sessions/``).

Observed with Codex 0.169.1: each line is ``{"timestamp", "ordinal", "type", "payload"}``.

- ``event_msg`` records are what happened: ``task_started`` / ``task_complete`` open and
  close a turn (``turn_id``); ``item_completed`` with a ``UserMessage`` item is a message
  the user typed (older versions wrote a ``user_message`` event instead); a
  ``CommandExecution`` item holds a shell call's ``exit_code`` and ``aggregated_output``.
- ``response_item`` records are the model's history: ``message`` items with role
  ``developer`` (Codex's instructions and hook context: memevo's own recall digest is one),
  ``user`` (what the user typed, but also the AGENTS.md instructions and the
  ``<environment_context>`` block) and ``assistant``; ``function_call`` /
  ``function_call_output`` pairs linked by ``call_id`` (the shell tool is ``exec_command``
  with ``{"cmd": …}``), and their ``custom_tool_call`` and ``local_shell_call`` variants.
  Records of a turn carry its ``turn_id`` in ``internal_chat_message_metadata_passthrough``.
- ``session_meta``, ``turn_context``, ``world_state``, ``token_usage_record``,
  ``compacted`` and any record type not known here are skipped.

Only the user's own words are ever returned as user messages: the ``UserMessage`` events
(never developer, system, assistant or tool text), with memevo's recall fence removed;
a rollout without such events falls back to user-role messages, keeping only their parts
marked as typed by the user and never Codex's own context blocks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from cli.hooks.event import MAX_OPERATIONS
from cli.hooks.transcripts.codex_calls import execution_of, hold_execution, operation_of, output_text, tool_call
from cli.hooks.transcripts.common import RECALL_TAG, Turn, fenced, texts
from cli.hooks.transcripts.tail import MAX_TAIL_BYTES, parse_record, read_tail

if TYPE_CHECKING:
    from cli.hooks.transcripts.stream import TurnMark

# memevo's own recall fence: recalled text is never learned back.
_RECALL = fenced(RECALL_TAG)
# Blocks Codex writes into user-role messages on the user's behalf.
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "# AGENTS.md instructions for",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
    "<user_shell_command>",
    "<subagent_notification>",
    "<codex_internal_context",
    "<skill>",
)
# A unified-exec tool output starts with a header ("Chunk ID: …\nProcess exited with code 0\n…\nOutput:\n").


class UserTurn(NamedTuple):
    """One message the user typed, with the ``turn_id`` of its turn when the rollout names it."""

    text: str
    turn_id: str | None


class Rollout:
    """The records at the end of one rollout, oldest first, each with the turn it belongs to."""

    def __init__(self, records: Iterable[dict[str, Any]], *, found: bool = True, clipped: bool = False) -> None:
        self.records = [r for r in records if isinstance(r.get("payload"), dict)]
        self.found = found
        self.clipped = clipped
        self.turn_ids = _assign_turns(self.records)
        # Versions with UserMessage events: only those are user turns (never the context blocks).
        self.typed_events = any(_is_user_event(r) for r in self.records)

    def user_text(self, record: dict[str, Any]) -> str | None:
        """What the user typed in ``record``, or ``None`` if the record is anything else."""
        return user_event_text(record) if self.typed_events else user_message_text(record)

    def user_turns(self) -> list[UserTurn]:
        """Every message the user typed, oldest first."""
        return [
            UserTurn(text, turn_id)
            for record, turn_id in zip(self.records, self.turn_ids, strict=True)
            if (text := self.user_text(record)) is not None
        ]

    @property
    def malformed(self) -> int:
        """User messages whose content is not text (dropped from the earlier user turns)."""
        return sum(_malformed_user_message(r, self.typed_events) for r in self.records)

    def earlier_user_texts(self, turn_id: str | None, prompt: str | None, limit: int) -> list[str]:
        """The last ``limit`` user messages before the current prompt (which is not written yet
        when the prompt hook runs)."""
        turns = self.user_turns()
        if turn_id is not None and any(t.turn_id == turn_id for t in turns):
            turns = [t for t in turns if t.turn_id != turn_id]
        elif turns and prompt is not None and turns[-1].text == prompt.strip():
            turns = turns[:-1]
        return [t.text for t in turns[-limit:]] if limit > 0 else []

    def current_turn(self, turn_id: str | None, is_prompt: Callable[[str], bool] | None = None) -> Turn | None:
        """The records of ``turn_id``; without turn ids in the rollout, those from the last
        message the user typed on, which ``is_prompt`` must accept when given. ``None`` while
        the turn's user message is not written yet."""
        if turn_id is not None and any(t is not None for t in self.turn_ids):
            records = [r for r, t in zip(self.records, self.turn_ids, strict=True) if t == turn_id]
            if not any(self.user_text(r) is not None for r in records):
                return None
            return self._read_turn(records)
        for i in range(len(self.records) - 1, -1, -1):
            text = self.user_text(self.records[i])
            if text is not None:
                return self._read_turn(self.records[i:]) if is_prompt is None or is_prompt(text) else None
        return None

    def _read_turn(self, records: list[dict[str, Any]]) -> Turn:
        return read_turn(records, typed_events=self.typed_events)


def read_rollout(path: str | None, *, max_bytes: int = MAX_TAIL_BYTES) -> Rollout:
    """The bounded tail of ``path`` (missing or unreadable: an empty rollout)."""
    tail = read_tail(path, max_bytes=max_bytes)
    return Rollout(tail.records, found=tail.found, clipped=tail.clipped)


def read_current_turn(
    path: str | None, turn_id: str | None, is_prompt: Callable[[str], bool] | None = None
) -> Turn | None:
    """:meth:`Rollout.current_turn` of the whole rollout, however long, in bounded memory: the
    turn's first record is found from the end and the turn streamed from there (:mod:`.stream`)."""
    from cli.hooks.transcripts.stream import forward_records, open_transcript, turn_start_offset  # a turn end only

    source = open_transcript(path)
    if source is None:
        return None
    with source:
        start = turn_start_offset(source, turn_id, is_prompt, _turn_mark)
        if start is None:
            return None
        offset, by_id = start
        records: Iterable[dict[str, Any]] = (
            r for r in forward_records(source, offset) if isinstance(r.get("payload"), dict)
        )
        if by_id:
            records = _of_turn(records, turn_id)
        turn = read_turn(records, typed_events=None, skipped=lambda: source.skipped)
    return turn if turn.user_messages else None  # its user message is not written yet


def _turn_mark(line: bytes) -> TurnMark | None:
    """What a line says of turns (:func:`.stream.turn_start_offset`): the turn a record names,
    or the message the user typed in a record that names none."""
    record = parse_record(line)
    if record is None or not isinstance(record.get("payload"), dict):
        return None
    own = _own_turn(record["payload"])
    if own is not None:
        return True, own, lambda: None
    text = user_event_text(record) or user_message_text(record)
    return None if text is None else (False, None, lambda: text)


def _of_turn(records: Iterable[dict[str, Any]], turn_id: str | None) -> Iterator[dict[str, Any]]:
    """The records of ``turn_id``, as :func:`_assign_turns` assigns them, streamed."""
    current: str | None = None
    for record in records:
        if _turn_of(record, current) == turn_id:
            yield record
        current = _current_after(record, current)


def read_turn(
    records: Iterable[dict[str, Any]], *, typed_events: bool | None, skipped: Callable[[], int] = lambda: 0
) -> Turn:
    """The turn in ``records`` (oldest first, streamed or not), bounded whatever its length.
    ``typed_events``: whether the rollout has UserMessage events (``None``: whether the turn has)."""
    from cli.hooks.transcripts.keeper import KeptMessages, KeptOperations, bounded_final, reading_notes

    events, messages = KeptMessages(), KeptMessages()
    kept = KeptOperations()
    pending: dict[str, tuple[int, dict[str, Any]]] = {}  # calls waiting for their output
    executions: dict[str, dict[str, Any]] = {}  # command records waiting for their call's output
    position = 0
    final: str | None = None
    ended_in_error = False
    for record in records:
        payload = record["payload"]
        if (text := user_event_text(record)) is not None:
            events.add(text)
        elif (text := user_message_text(record)) is not None:
            messages.add(text)
        kind = payload.get("type")
        if record.get("type") == "event_msg":
            item = payload.get("item")
            if kind == "item_completed" and isinstance(item, dict) and item.get("type") == "CommandExecution":
                if isinstance(item.get("id"), str):
                    hold_execution(executions, item["id"], execution_of(item))
            elif kind == "exec_command_end" and isinstance(payload.get("call_id"), str):  # older versions
                hold_execution(executions, payload["call_id"], execution_of(payload))
            elif kind == "error" or (kind == "task_complete" and payload.get("error")):
                ended_in_error = True  # an API failure (retry notices are ``stream_error``)
            continue
        if record.get("type") != "response_item":
            continue
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call = tool_call(payload)
            position += 1
            if call["call_id"] and call["call_id"] not in pending:
                pending[call["call_id"]] = (position, call)
                if len(pending) > MAX_OPERATIONS:  # never answered: interrupted, as at the end
                    oldest = pending.pop(next(iter(pending)))
                    kept.add(oldest[0], operation_of(oldest[1], None))
            else:
                kept.add(position, operation_of(call, None))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            waiting = pending.pop(str(payload.get("call_id")), None)
            if waiting is not None:
                call = waiting[1]
                call["output"] = output_text(payload.get("output"))
                call["result_id"] = payload.get("call_id")
                kept.add(waiting[0], operation_of(call, executions.pop(call["call_id"] or "", None)))
        elif kind == "message" and payload.get("role") == "assistant":
            said = "\n".join(texts(payload.get("content"), "output_text")).strip()
            if said:
                final = bounded_final(said)
    for waiting in pending.values():
        kept.add(waiting[0], operation_of(waiting[1], executions.get(waiting[1]["call_id"] or "")))
    typed = events if (events.total if typed_events is None else typed_events) else messages
    notes = reading_notes(kept, typed, skipped())
    return Turn(typed.messages(), kept.operations(), final, ended_in_error, notes)


def user_event_text(record: dict[str, Any]) -> str | None:
    """The text of a ``UserMessage`` (or older ``user_message``) event, else ``None``."""
    if not _is_user_event(record):
        return None
    payload = record["payload"]
    if payload.get("type") == "user_message":
        message = payload.get("message")
        return _typed(message) if isinstance(message, str) else None
    return _typed("\n".join(texts(payload["item"].get("content"), "text")))


def user_message_text(record: dict[str, Any]) -> str | None:
    """The typed parts of a user-role ``message`` item (for rollouts without user events).

    Parts Codex marks as its own (``content_item_kinds`` other than ``user.*``) and its
    context blocks are dropped.
    """
    payload = record.get("payload")
    if record.get("type") != "response_item" or not isinstance(payload, dict):
        return None
    if payload.get("type") != "message" or payload.get("role") != "user":
        return None
    content = payload.get("content")
    if not isinstance(content, list):
        return None
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if not (isinstance(kinds, list) and len(kinds) == len(content)):
        kinds = None  # no marks: only the context blocks can be told apart
    parts = []
    for i, part in enumerate(content):
        if not (isinstance(part, dict) and part.get("type") == "input_text" and isinstance(part.get("text"), str)):
            continue
        if kinds is not None and not (isinstance(kinds[i], str) and kinds[i].startswith("user.")):
            continue
        if (text := _typed(part["text"])) is not None:
            parts.append(text)
    return "\n".join(parts) or None


def _malformed_user_message(record: dict[str, Any], typed_events: bool) -> bool:
    """A user message (an event, or a user-role item without events) whose content is not text."""
    payload = record["payload"]
    if typed_events:
        if not _is_user_event(record):
            return False
        if payload.get("type") == "user_message":
            return not isinstance(payload.get("message"), str)
        return not isinstance(payload["item"].get("content"), list)
    is_user_item = record.get("type") == "response_item" and payload.get("type") == "message"
    return is_user_item and payload.get("role") == "user" and not isinstance(payload.get("content"), list)


def _is_user_event(record: dict[str, Any]) -> bool:
    payload = record.get("payload")
    if record.get("type") != "event_msg" or not isinstance(payload, dict):
        return False
    if payload.get("type") == "user_message":
        return True
    item = payload.get("item")
    return payload.get("type") == "item_completed" and isinstance(item, dict) and item.get("type") == "UserMessage"


def _typed(text: str) -> str | None:
    """``text`` without memevo's recall fence; ``None`` if nothing the user typed is left."""
    cleaned = _RECALL.sub("", text).strip()
    if not cleaned or cleaned.startswith(_CONTEXT_PREFIXES):
        return None
    return cleaned


def _assign_turns(records: list[dict[str, Any]]) -> list[str | None]:
    """The turn of each record: its own ``turn_id``, else that of the turn last started."""
    current: str | None = None
    out: list[str | None] = []
    for record in records:
        out.append(_turn_of(record, current))
        current = _current_after(record, current)
    return out


def _own_turn(payload: dict[str, Any]) -> str | None:
    """The ``turn_id`` a record names itself (in its payload or its message metadata)."""
    own = payload.get("turn_id")
    if not isinstance(own, str):
        meta = payload.get("internal_chat_message_metadata_passthrough")
        own = meta.get("turn_id") if isinstance(meta, dict) else None
    return own if isinstance(own, str) and own else None


def _turn_of(record: dict[str, Any], current: str | None) -> str | None:
    return _own_turn(record["payload"]) or current


def _current_after(record: dict[str, Any], current: str | None) -> str | None:
    """The turn last started once ``record`` is read."""
    payload = record["payload"]
    if record.get("type") in ("turn_context", "event_msg") and payload.get("type") in (None, "task_started"):
        return _own_turn(payload) or current
    return current
