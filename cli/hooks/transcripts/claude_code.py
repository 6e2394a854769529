"""What memevo reads from a Claude Code transcript (``transcript_path``, JSON lines).

Observed with Claude Code 2.1.x: each line is one record with a ``type``. ``user`` records
hold what the user typed (``message.content`` a string or a list of blocks), but also tool
results (``tool_result`` blocks, ``toolUseResult``), meta text the CLI injects (``isMeta``),
slash-command echoes (``<command-name>``, ``<local-command-stdout>``), the compaction
summary (``isCompactSummary``) and system reminders. ``assistant`` records hold ``text``
and ``tool_use`` blocks; an API failure is an assistant record with ``isApiErrorMessage``.
Hook context and listings are ``attachment`` records. Subagent records are sidechains
(``isSidechain``). Records of the current turn carry the ``promptId`` the hooks get as
``prompt_id``. Unknown record types are skipped.

Only the user's own words are ever returned as user turns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_OPERATION_INPUT, MAX_OPERATIONS, Frozen, Operation, clip_middle
from cli.hooks.transcripts.claude_compaction import summary_from_compact_message
from cli.hooks.transcripts.common import RECALL_TAG, Turn, fenced, input_text, nonempty, result_text, texts
from cli.hooks.transcripts.tail import MAX_TAIL_BYTES, parse_record, read_tail, read_tail_lines

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from cli.hooks.transcripts.stream import TurnMark

# Text the CLI writes into user records on the user's behalf: slash commands and their
# output, shell-mode echoes, hook output of older versions.
_NOT_TYPED = re.compile(
    r"^<(?:command-name|command-message|command-args|command-contents|local-command-[a-z-]+|bash-input|bash-stdout"
    r"|bash-stderr|user-memory-input|user-prompt-submit-hook|task-notification)>"
)
# Injected context, wherever a CLI version puts it: system reminders and memevo's own recall
# fence (memory_core.recall.digest.OPEN/CLOSE), so recalled text is never learned back.
_INJECTED = fenced("system-reminder", RECALL_TAG)
_INTERRUPTED = "[Request interrupted by user"


class UserTurn(Frozen):
    """One message the user typed, with the ``promptId`` of its turn when the CLI wrote one."""

    fields = ("text", "prompt_id")
    text: str
    prompt_id: str | None

    def __init__(self, text: str, prompt_id: str | None) -> None:
        self._set(text=text, prompt_id=prompt_id)


class Transcript:
    """The main-chain records at the end of one transcript, oldest first."""

    def __init__(self, records: Iterable[dict[str, Any]], *, found: bool = True, clipped: bool = False) -> None:
        self.records = [r for r in records if r.get("isSidechain") is not True]
        self.found = found
        self.clipped = clipped

    def user_turns(self) -> list[UserTurn]:
        """Every message the user typed, oldest first."""
        return [UserTurn(text, _prompt_id(r)) for r in self.records if (text := user_text(r)) is not None]

    @property
    def malformed(self) -> int:
        """User records whose message is not text (dropped from the earlier user turns)."""
        return sum(malformed_user_record(r) for r in self.records)

    def earlier_user_texts(self, prompt_id: str | None, prompt: str | None, limit: int) -> list[str]:
        """The last ``limit`` user messages before the current prompt (which may not be written yet)."""
        return _earlier_texts(self.user_turns(), prompt_id, prompt, limit)

    def current_turn(self, prompt_id: str | None, is_prompt: Callable[[str], bool] | None = None) -> Turn | None:
        """The turn that starts at the first user record of ``prompt_id``; without prompt ids, at
        the last message the user typed, which ``is_prompt`` must accept when given. ``None`` while
        the turn is not written yet."""
        start = self._turn_start(prompt_id, is_prompt)
        if start is None:
            return None
        end = len(self.records)
        if prompt_id is not None:  # a later turn's records (a re-read transcript) are not this turn's
            end = next(
                (
                    i
                    for i in range(start, end)
                    if self.records[i].get("type") == "user" and _prompt_id(self.records[i]) not in (None, prompt_id)
                ),
                end,
            )
        return _read_turn(self.records[start:end])

    def latest_compact_summary(self, session_id: str | None = None) -> str | None:
        """The newest compaction summary, in the form ``claude_compaction.canonical_summary`` gives the raw one."""
        for record in reversed(self.records):
            if record.get("type") != "user" or record.get("isCompactSummary") is not True:
                continue
            if session_id and record.get("sessionId") not in (None, session_id):
                continue
            text = "\n".join(texts(_content(record)))
            return summary_from_compact_message(text) or None
        return None

    def _turn_start(self, prompt_id: str | None, is_prompt: Callable[[str], bool] | None) -> int | None:
        if prompt_id is not None and any("promptId" in r for r in self.records):
            for i, record in enumerate(self.records):
                if record.get("type") == "user" and record.get("promptId") == prompt_id:
                    return i
            return None
        for i in range(len(self.records) - 1, -1, -1):
            text = user_text(self.records[i])
            if text is not None:
                return i if is_prompt is None or is_prompt(text) else None
        return None


def read_transcript(path: str | None, *, max_bytes: int = MAX_TAIL_BYTES) -> Transcript:
    """The bounded tail of ``path`` (missing or unreadable: an empty transcript)."""
    tail = read_tail(path, max_bytes=max_bytes)
    return Transcript(tail.records, found=tail.found, clipped=tail.clipped)


def read_user_records(path: str | None, *, max_bytes: int = MAX_TAIL_BYTES) -> Transcript:
    """:func:`read_transcript` holding only the user records, for what the user typed
    (:meth:`Transcript.earlier_user_texts`): a line without ``"user"`` is not parsed. The CLI
    writes plain JSON, so every user record holds ``"type":"user"``. The lines are parsed
    when first needed, and for the earlier user turns from the end only as far as they go."""
    lines, found, clipped = read_tail_lines(path, max_bytes=max_bytes, keep=b'"user"')
    return _UserRecords(lines, found=found, clipped=clipped)


def read_current_turn(
    path: str | None, prompt_id: str | None, is_prompt: Callable[[str], bool] | None = None
) -> Turn | None:
    """:meth:`Transcript.current_turn` of the whole transcript, however long, in bounded memory:
    the turn's first record is found from the end (:func:`.stream.backward_lines`) and the
    turn streamed from there (:mod:`.stream`)."""
    from cli.hooks.transcripts.stream import forward_records, open_transcript, turn_start_offset  # a turn end only

    source = open_transcript(path)
    if source is None:
        return None
    with source:
        start = turn_start_offset(source, prompt_id, is_prompt, _turn_mark)
        if start is None:
            return None
        offset, by_id = start
        records: Iterable[dict[str, Any]] = (
            r for r in forward_records(source, offset) if r.get("isSidechain") is not True
        )
        if by_id:
            records = _until_other_prompt(records, prompt_id)
        return _read_turn(records, lambda: source.skipped)


def _turn_mark(line: bytes) -> TurnMark | None:
    """What a line says of turns (:func:`.stream.turn_start_offset`): a main user record, its
    prompt id (Claude Code writes them from 2.1 on) and the text the user typed."""
    if b'"user"' not in line:
        return None
    record = parse_record(line)
    if record is None or not _is_main_user(record):
        return None
    return "promptId" in record, _prompt_id(record), lambda: user_text(record)


def _until_other_prompt(records: Iterable[dict[str, Any]], prompt_id: str | None) -> Iterator[dict[str, Any]]:
    """``records`` up to a later turn's first user record (a transcript re-read after it)."""
    for record in records:
        if record.get("type") == "user" and _prompt_id(record) not in (None, prompt_id):
            return
        yield record


class _UserRecords(Transcript):
    """The user records of a transcript's tail, parsed from the newest line on demand.

    ``records`` (every user record, as :func:`read_user_records` promises) is parsed on first
    use; :meth:`earlier_user_texts` parses back from the newest line only until older lines
    can no longer change its answer (most prompts: the tool results of the last few turns)."""

    def __init__(self, lines: list[bytes], *, found: bool, clipped: bool) -> None:
        self._lines = lines
        self.found = found
        self.clipped = clipped

    @property
    def malformed(self) -> int:
        """Of the user records :meth:`earlier_user_texts` read, those whose message is not text."""
        return getattr(self, "_malformed", 0)

    def __getattr__(self, name: str) -> Any:
        if name != "records":
            raise AttributeError(name)
        parsed = (parse_record(line) for line in self._lines)
        self.records = [r for r in parsed if r is not None and _is_main_user(r)]
        return self.records

    def earlier_user_texts(self, prompt_id: str | None, prompt: str | None, limit: int) -> list[str]:
        if limit <= 0:
            return []
        newest_first: list[UserTurn] = []
        with_id = False  # any turn with a prompt id decides how the current prompt is left out
        others = 0  # turns not of ``prompt_id``
        self._malformed = 0
        for line in reversed(self._lines):
            record = parse_record(line)
            text = user_text(record) if record is not None else None
            if record is None or text is None:
                self._malformed += record is not None and malformed_user_record(record)
                continue
            turn = UserTurn(text, _prompt_id(record))
            newest_first.append(turn)
            with_id = with_id or turn.prompt_id is not None
            others += turn.prompt_id != prompt_id
            # Enough when no older line can change the answer: with prompt ids, the last
            # ``limit`` turns of other prompts; without a prompt id, the last ``limit`` + 1.
            if (prompt_id is not None and with_id and others >= limit) or (
                prompt_id is None and len(newest_first) > limit
            ):
                break
        newest_first.reverse()
        return _earlier_texts(newest_first, prompt_id, prompt, limit)


def _is_main_user(record: dict[str, Any]) -> bool:
    return record.get("type") == "user" and record.get("isSidechain") is not True


def _earlier_texts(turns: list[UserTurn], prompt_id: str | None, prompt: str | None, limit: int) -> list[str]:
    """The last ``limit`` of ``turns`` (oldest first) before the current prompt."""
    if prompt_id is not None and any(t.prompt_id for t in turns):
        turns = [t for t in turns if t.prompt_id != prompt_id]
    elif turns and prompt is not None and turns[-1].text == prompt.strip():
        turns = turns[:-1]
    return [t.text for t in turns[-limit:]] if limit > 0 else []


def malformed_user_record(record: dict[str, Any]) -> bool:
    """A main-chain user record whose message is not text: no object, or its content
    neither a string nor a list of blocks."""
    if record.get("type") != "user" or record.get("isSidechain") is True:
        return False
    message = record.get("message")
    return not isinstance(message, dict) or not isinstance(message.get("content"), str | list)


def user_text(record: dict[str, Any]) -> str | None:
    """What the user typed in ``record``, or ``None`` if the record is anything else."""
    if record.get("type") != "user" or record.get("isSidechain") is True:
        return None
    if record.get("isMeta") or record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly"):
        return None
    if "toolUseResult" in record or "sourceToolAssistantUUID" in record:
        return None
    message = record.get("message")
    if not isinstance(message, dict) or message.get("role", "user") != "user":
        return None
    content = message.get("content")
    if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
        return None
    text = _INJECTED.sub("", "\n".join(texts(content))).strip()
    if not text or _NOT_TYPED.match(text) or text.startswith(_INTERRUPTED):
        return None
    return text


def _read_turn(records: Iterable[dict[str, Any]], skipped: Callable[[], int] = lambda: 0) -> Turn:
    """The turn in ``records`` (oldest first, streamed or not), bounded whatever its length."""
    from cli.hooks.transcripts.keeper import KeptMessages, KeptOperations, bounded_final, reading_notes

    messages = KeptMessages()
    kept = KeptOperations()
    pending: dict[str, tuple[int, dict[str, Any]]] = {}  # calls waiting for their result
    position = 0
    final_id: object = None
    final_parts: list[str] = []
    ended_in_error = False
    for record in records:
        kind = record.get("type")
        if kind == "user":
            text = user_text(record)
            if text is not None:
                messages.add(text)
            for block in _blocks(_content(record), "tool_result"):
                waiting = pending.pop(str(block.get("tool_use_id")), None)
                if waiting is not None:
                    call = waiting[1]
                    call["output"] = result_text(block.get("content"))
                    call["result_id"] = block.get("tool_use_id")
                    call["status"] = _result_status(block, record, call["output"])
                    kept.add(waiting[0], _operation(call))
        elif kind == "assistant":
            content = _content(record)
            for block in _blocks(content, "tool_use"):
                call = {
                    "tool": str(block.get("name") or "unknown"),
                    # clipped now, as the operation clips it: a waiting call holds no file it writes
                    "input": clip_middle(input_text(block.get("input")), MAX_OPERATION_INPUT),
                    "output": "",
                    "status": "interrupted",
                    "call_id": nonempty(block.get("id")),
                    "result_id": None,
                }
                position += 1
                if call["call_id"] and call["call_id"] not in pending:
                    pending[call["call_id"]] = (position, call)
                    if len(pending) > MAX_OPERATIONS:  # never answered: interrupted, as at the end
                        oldest = next(iter(pending))
                        kept.add(*_as_operation(pending.pop(oldest)))
                else:
                    kept.add(position, _operation(call))
            said = texts(content)
            if said:
                message = record.get("message")
                message_id = message.get("id") if isinstance(message, dict) else None
                if message_id is None or message_id != final_id:
                    final_id, final_parts = message_id, []
                final_parts.extend(said)
                if sum(map(len, final_parts)) > 2 * MAX_FINAL_MESSAGE:
                    final_parts = [bounded_final("\n".join(final_parts))]
            ended_in_error = record.get("isApiErrorMessage") is True or record.get("apiErrorStatus") is not None
    for waiting in pending.values():
        kept.add(*_as_operation(waiting))
    final = "\n".join(final_parts).strip() or None
    notes = reading_notes(kept, messages, skipped())
    return Turn(messages.messages(), kept.operations(), final, ended_in_error, notes)


def _operation(call: dict[str, Any]) -> Operation:
    return Operation.bounded(
        call["tool"], call["input"], call["output"], call["status"], call["call_id"], nonempty(call["result_id"])
    )


def _as_operation(waiting: tuple[int, dict[str, Any]]) -> tuple[int, Operation]:
    return waiting[0], _operation(waiting[1])


def _result_status(block: dict[str, Any], record: dict[str, Any], output: str) -> str:
    result = record.get("toolUseResult")
    if (isinstance(result, dict) and result.get("interrupted") is True) or output.startswith(_INTERRUPTED):
        return "interrupted"
    return "error" if block.get("is_error") is True else "ok"


def _content(record: dict[str, Any]) -> object:
    message = record.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _blocks(content: object, kind: str) -> list[dict[str, Any]]:
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


def _prompt_id(record: dict[str, Any]) -> str | None:
    return nonempty(record.get("promptId"))
