"""What memevo reads from a Gemini CLI chat transcript (``transcript_path``, JSON lines).

Observed with Gemini CLI 0.61: ``~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl``
is an append-only log the CLI replays into a list of messages:

- a **message** record has an ``id`` and a ``type`` (``user``, ``gemini``, ``info``,
  ``error``, ``warning``); writing a record whose ``id`` is already known *replaces* that
  message in place (a ``gemini`` message is written again once its ``toolCalls`` are known);
- ``{"$set": {"messages": [...]}}`` replaces the whole list (the CLI writes the whole
  history this way on every ``--resume``, after a rollback and after compressing); other
  ``$set`` keys are metadata;
- ``{"$rewindTo": ID}`` drops that message and everything after it (all of them when the id
  is unknown);
- a metadata record (``sessionId``, ``projectHash`` …) starts the file and every resume.

``user`` messages hold parts: what the user typed (``displayContent`` when present, else
``content``), but also the CLI's ``<session_context>`` preamble, ``<hook_context>`` parts
that hooks injected (memevo's recall digest among them, with ``<`` and ``>`` escaped),
``functionResponse`` parts (tool results) and, after compression, the model's
``<state_snapshot>`` summary. ``gemini`` messages hold the model's text in ``content`` and
its tool calls in ``toolCalls`` (``id``, ``name``, ``args``, ``status`` and ``result``: the
``functionResponse`` parts sent back).

For a prompt the file is read from its end, bounded (:mod:`cli.hooks.transcripts.tail`);
replaying a clipped tail starts from what the window holds. At the turn's end the last
message the user typed is found from the end and the turn streamed from it, however long
(:func:`read_current_turn`). Only the user's own words are ever returned as user turns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from cli.hooks.event import MAX_OPERATION_OUTPUT, MAX_OPERATIONS, Operation, clip_middle
from cli.hooks.transcripts.common import RECALL_TAG, Turn, compact_json, fenced, nonempty
from cli.hooks.transcripts.tail import MAX_TAIL_BYTES, parse_record, read_tail

SHELL_TOOL = "run_shell_command"
# Text the CLI or a hook put into a user message on the user's behalf. memevo's own fence
# (memory_core.recall.digest.OPEN/CLOSE) is listed too, so recalled text is never learned back.
_INJECTED = fenced("hook_context", "session_context", RECALL_TAG)
# The content of ``@file`` references, which the CLI appends to the prompt it sends and reports.
_REFERENCED = re.compile(r"\s*--- Content from referenced files ---.*?(?:--- End of content ---|\Z)", re.DOTALL)
# Messages the CLI itself leaves out of a resumed conversation: slash commands and "?" help
# (its isIgnoredUserContent), and the compression summary it writes as a user message.
_IGNORED_PREFIXES = ("/", "?")
_SNAPSHOT = "<state_snapshot>"
_UNTRUSTED = re.compile(r"\A\s*<untrusted_context>\n?(.*?)\n?</untrusted_context>\s*\Z", re.DOTALL)
# The shell tool's result ends with labelled lines; "Exit Code: N" only when N is not 0.
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
NO_RESPONSE = "[no response text]"  # what the CLI reports for a turn without model text
# A call's arguments and result are kept this long (head and tail) until it becomes an
# operation, which clips them again to its own bounds.
_KEEP_CHARS = 4 * MAX_OPERATION_OUTPUT


class UserTurn(NamedTuple):
    """One message the user typed, with the id of its message record."""

    text: str
    message_id: str | None


class Transcript:
    """The messages of one transcript's tail after replaying it, oldest first."""

    def __init__(self, records: Iterable[dict[str, Any]], *, found: bool = True, clipped: bool = False) -> None:
        self.messages = replay(records)
        self.found = found
        self.clipped = clipped

    def user_turns(self) -> list[UserTurn]:
        """Every message the user typed, oldest first."""
        return [UserTurn(text, nonempty(m.get("id"))) for m in self.messages if (text := user_text(m)) is not None]

    @property
    def malformed(self) -> int:
        """User messages whose content is not text (dropped from the earlier user turns)."""
        return sum(
            m.get("type") == "user"
            and not isinstance(m.get("displayContent") or m.get("content"), str | list | type(None))
            for m in self.messages
        )

    def earlier_user_texts(self, prompt: str | None, limit: int) -> list[str]:
        """The last ``limit`` user messages before ``prompt`` (the CLI writes the prompt's
        message only after the BeforeAgent hook ran; if it is there already it is left out)."""
        turns = self.user_turns()
        if turns and prompt is not None and _same_prompt(turns[-1].text, prompt):
            turns = turns[:-1]
        return [t.text for t in turns[-limit:]] if limit > 0 else []

    def current_turn(self, prompt: str) -> Turn | None:
        """The turn that starts at the last message the user typed, if it is ``prompt``;
        ``None`` when the transcript lacks it."""
        for i in range(len(self.messages) - 1, -1, -1):
            text = user_text(self.messages[i])
            if text is None:
                continue
            return _read_turn(text, self.messages[i + 1 :]) if _same_prompt(text, prompt) else None
        return None


def read_transcript(path: str | None, *, max_bytes: int = MAX_TAIL_BYTES) -> Transcript:
    """The bounded tail of ``path`` (missing or unreadable: an empty transcript)."""
    tail = read_tail(path, max_bytes=max_bytes)
    return Transcript(tail.records, found=tail.found, clipped=tail.clipped)


def read_current_turn(path: str | None, prompt: str) -> Turn | None:
    """:meth:`Transcript.current_turn` of the whole transcript, however long, in bounded memory:
    the last message the user typed is found from the end and the turn streamed from there
    (:mod:`.stream`). A history rewritten after it (``$set`` of the messages, ``$rewindTo``)
    is replayed from the bounded tail instead, as before."""
    from cli.hooks.transcripts.stream import forward_records, open_transcript  # a turn end only

    source = open_transcript(path)
    if source is None:
        return None
    with source:
        start = _turn_start_offset(source)
        if start is None:
            return read_transcript(path).current_turn(prompt)
        offset, text = start
        if not _same_prompt(text, prompt):
            return None
        streamed = _RewrittenCheck(forward_records(source, offset))
        turn = _read_turn(text, streamed.messages(), lambda: source.skipped)
    return turn if not streamed.rewritten else read_transcript(path).current_turn(prompt)


def _turn_start_offset(source: Any) -> tuple[int, str] | None:
    """The offset and text of the last message the user typed, read from the end; ``None``
    when a rewrite of the history comes first (the bounded replay then decides)."""
    from cli.hooks.transcripts.stream import backward_lines

    for offset, line in backward_lines(source):
        if line is None or not (b'"user"' in line or b'"$' in line):
            continue
        record = parse_record(line)
        if record is None:
            continue
        if _rewrites(record):
            return None
        text = user_text(record) if isinstance(record.get("id"), str) else None
        if text is not None:
            return offset, text
    return None


def _rewrites(record: dict[str, Any]) -> bool:
    changes = record.get("$set")
    return "$rewindTo" in record or (isinstance(changes, dict) and "messages" in changes)


class _RewrittenCheck:
    """The message records after the turn's first one, noting a rewrite of the history."""

    def __init__(self, records: Iterator[dict[str, Any]]) -> None:
        self.records = records
        self.rewritten = False

    def messages(self) -> Iterator[dict[str, Any]]:
        next(self.records, None)  # the user's message itself
        for record in self.records:
            if _rewrites(record):
                self.rewritten = True
                return
            if isinstance(record.get("id"), str):
                yield record


def replay(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The message list the CLI would rebuild from ``records`` (see the module docstring)."""
    messages: dict[str, dict[str, Any]] = {}
    for record in records:
        rewind = record.get("$rewindTo")
        changes = record.get("$set")
        if isinstance(rewind, str):
            if rewind in messages:
                ids = list(messages)
                for message_id in ids[ids.index(rewind) :]:
                    del messages[message_id]
            else:
                messages.clear()
        elif isinstance(changes, dict):
            if isinstance(changes.get("messages"), list):
                messages.clear()
                for message in changes["messages"]:
                    if isinstance(message, dict) and isinstance(message.get("id"), str):
                        messages[message["id"]] = message
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record  # a known id keeps its place
    return list(messages.values())


def strip_injected(text: str) -> str:
    """``text`` without what the CLI or hooks injected into it, trimmed."""
    return _REFERENCED.sub("", _INJECTED.sub("", text)).strip()


def is_typed_text(text: str) -> bool:
    """Whether a user message's text (already stripped of injected context) is the user's own
    conversation: not empty, not a slash command or ``?`` help, not a compression summary."""
    return bool(text) and not text.startswith(_IGNORED_PREFIXES) and _SNAPSHOT not in text


def user_text(message: dict[str, Any]) -> str | None:
    """What the user typed in ``message``, or ``None`` if it is anything else."""
    if message.get("type") != "user":
        return None
    parts = message.get("displayContent")
    if not parts:
        parts = message.get("content")
    if isinstance(parts, list) and any(isinstance(p, dict) and "functionResponse" in p for p in parts):
        return None
    text = strip_injected("\n".join(_texts(parts)))
    return text if is_typed_text(text) else None


def _same_prompt(text: str, prompt: str) -> bool:
    """Whether a typed message is the hook's ``prompt``, once injected context and
    surrounding whitespace are gone from both."""
    return bool(text) and text == strip_injected(prompt)


def _read_turn(user_message: str, messages: Iterable[dict[str, Any]], skipped: Callable[[], int] = lambda: 0) -> Turn:
    """The turn of ``user_message`` from the messages after it (replayed, or streamed records
    whose rewrites of a message re-add its calls by id), bounded whatever its length."""
    from cli.hooks.transcripts.keeper import KeptMessages, KeptOperations, bounded_final, reading_notes

    calls: dict[str, list[Any]] = {}  # call id → [position, the call, its arguments and result slimmed]
    kept = KeptOperations()
    position = 0
    final: str | None = None
    ended_in_error = False
    for message in messages:
        kind = message.get("type")
        content = message.get("content")
        if kind == "gemini":
            recorded = [c for c in message.get("toolCalls") or [] if isinstance(c, dict)]
            if not recorded:  # the API form the CLI writes when it rewrites the whole history
                recorded = [
                    {"id": c.get("id"), "name": c.get("name"), "args": c.get("args")}
                    for c in _parts(content, "functionCall")
                ]
            for recorded_call in recorded:
                key = nonempty(recorded_call.get("id")) or f"#{position}"
                entry = calls.get(key)
                if entry is None:
                    position += 1
                    calls[key] = [position, _slim_call(recorded_call)]
                else:  # the message written again once its calls are known: same place
                    entry[1] = _slim_call(recorded_call)
            if len(calls) > 2 * MAX_OPERATIONS:  # the oldest calls are settled: ranked from here on
                for key in list(calls)[:MAX_OPERATIONS]:
                    settled = calls.pop(key)
                    kept.add(settled[0], _operation(settled[1]))
            text = "\n".join(_texts(content)).strip()
            if text:
                final = bounded_final(text)
            ended_in_error = False
        elif kind == "user":  # tool results sent back, which the API form only has here
            for response in _parts(content, "functionResponse"):
                answered = calls.get(str(response.get("id")))
                if answered is not None and not answered[1].get("result"):
                    answered[1]["result"] = [{"functionResponse": _slim_response(response)}]
        elif kind == "error":
            ended_in_error = True
    for entry in calls.values():
        kept.add(entry[0], _operation(entry[1]))
    messages_kept = KeptMessages()
    messages_kept.add(user_message)
    return Turn(
        (user_message,), kept.operations(), final, ended_in_error, reading_notes(kept, messages_kept, skipped())
    )


def _slim_call(call: dict[str, Any]) -> dict[str, Any]:
    """What :func:`_operation` reads of a recorded call, its long texts clipped (head and tail)."""
    slim = {key: call.get(key) for key in ("id", "name", "status")}
    slim["input"] = clip_middle(_input_text(nonempty(call.get("name")) or "unknown", call.get("args")), _KEEP_CHARS)
    result = call.get("result")
    if isinstance(result, list):
        slim["result"] = [
            {"functionResponse": _slim_response(part["functionResponse"])}
            for part in result
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
        ]
    return slim


def _slim_response(response: dict[str, Any]) -> dict[str, Any]:
    """A ``functionResponse`` with its ``response`` text clipped, its meaning (output or error) kept."""
    value = response.get("response")
    if isinstance(value, dict) and ("output" in value or "error" in value):
        value = {
            k: clip_middle(v, _KEEP_CHARS) if isinstance(v, str) else v
            for k, v in value.items()
            if k in ("output", "error")
        }
    elif value is not None:
        value = clip_middle(value if isinstance(value, str) else compact_json(value), _KEEP_CHARS)
    return {"id": response.get("id"), "response": value}


def _operation(call: dict[str, Any]) -> Operation:
    tool = nonempty(call.get("name")) or "unknown"
    call_id = nonempty(call.get("id"))
    response, result_id = _function_response(call.get("result"), call_id)
    output = _output_text(response)
    status = call.get("status")
    if status == "cancelled" or (result_id is None and status != "error"):
        state = "interrupted"
    elif status == "error" or (isinstance(response, dict) and "error" in response and "output" not in response):
        state = "error"
    elif tool == SHELL_TOOL and _failed_exit(output):
        state = "error"
    else:
        state = "ok"
    return Operation.bounded(tool, call["input"], output, state, call_id, result_id)


def _function_response(result: object, call_id: str | None) -> tuple[object, str | None]:
    """The ``response`` of the result part answering ``call_id`` (else the first one) and the
    id that part names."""
    found: dict[str, Any] | None = None
    for part in result if isinstance(result, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            continue
        if found is None or (call_id is not None and response.get("id") == call_id):
            found = response
    if found is None:
        return None, None
    return found.get("response"), nonempty(found.get("id")) or call_id


def _output_text(response: object) -> str:
    """A tool result as text: its ``output`` (or ``error``) without the CLI's
    ``<untrusted_context>`` wrapper and any hook context; anything else as compact JSON."""
    if isinstance(response, dict):
        value = response.get("output", response.get("error", response))
    else:
        value = response
    if value is None:
        return ""
    text = value if isinstance(value, str) else compact_json(value)
    text = _INJECTED.sub("", text)
    wrapped = _UNTRUSTED.match(text)
    return (wrapped.group(1) if wrapped else text).strip()


def _failed_exit(output: str) -> bool:
    codes = _EXIT_CODE.findall(output)
    return bool(codes) and codes[-1] != "0"


def _input_text(tool: str, args: object) -> str:
    """A shell command as typed (with the directory it ran in, when the call named one, as
    ``{"command", "cwd"}``); any other tool's arguments as compact JSON."""
    if tool == SHELL_TOOL and isinstance(args, dict) and isinstance(args.get("command"), str):
        directory = args.get("dir_path")
        if isinstance(directory, str) and directory:
            return compact_json({"command": args["command"], "cwd": directory})
        return args["command"]
    return "" if args is None else compact_json(args)


def _parts(content: object, kind: str) -> list[dict[str, Any]]:
    """The ``kind`` objects (``functionCall``, ``functionResponse``) of a content's parts."""
    if not isinstance(content, list):
        return []
    return [p[kind] for p in content if isinstance(p, dict) and isinstance(p.get(kind), dict)]


def _texts(parts: object) -> list[str]:
    """The text parts of a content: a string, or a list of parts (thoughts left out)."""
    if isinstance(parts, str):
        return [parts]
    if not isinstance(parts, list):
        return []
    return [
        p["text"]
        for p in parts
        if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("thought") is not True
    ]
