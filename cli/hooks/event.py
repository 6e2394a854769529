"""The one normalized hook event every adapter produces.

Plain immutable classes checked by hand: the per-turn recall hook must not pay for
loading a validation library on every user message, nor for defining dataclasses (about
1 ms each on every start). Adapters shape what an agent sends into these bounds (see
:func:`clip_middle` and :meth:`Operation.bounded`); the checks here only refuse what no
adapter should have let through.
"""

from __future__ import annotations

from memory_core.privacy.private_text import strip_private
from memory_core.privacy.sanitize import valid_text

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any, ClassVar


EVENT_NAMES: tuple[str, ...] = ("session_start", "compaction", "turn_end", "user_prompt", "session_end")
OPERATION_STATUSES: tuple[str, ...] = ("ok", "error", "interrupted")

MAX_USER_MESSAGES = 64
MAX_TEXT = 200_000  # raw input bound before sanitizing and capping
MAX_LABEL = 256
MAX_CWD = 4096
# The operations of a turn, the last ones: as many as the 4,096 messages a reader scans can
# hold. Progress capture keeps the 8 most important of them (commits and pushes, test
# results first), so a turn's early commit is never cut before that choice.
MAX_OPERATIONS = 4_096
MAX_TOOL_NAME = 128
MAX_OPERATION_INPUT = 2_000
MAX_OPERATION_OUTPUT = 4_000
MAX_FINAL_MESSAGE = 8_000
MAX_NOTES = 8


class HookInputError(ValueError):
    """A field of the hook input is invalid; the message names it."""


def clip_middle(text: str, limit: int) -> str:
    """At most ``limit`` characters: the head and the tail of a long text, with a marker between.

    Tool output and long messages say what happened at the start and how it ended at the
    end, so both are kept. Text marked private is removed first (memory_core.privacy.private_text),
    so a cut can never part a ``<private>`` tag from the text it covers.
    """
    text = strip_private(text)
    if len(text) <= limit:
        return text
    marker = f"\n[… {len(text) - limit} characters omitted …]\n"
    room = max(limit - len(marker), 0)
    head = (room + 1) // 2
    tail = room - head
    return (text[:head] + marker + (text[len(text) - tail :] if tail else ""))[:limit]


class Frozen:
    """An immutable record of the fields named in ``fields``: compared, hashed, shown, copied
    and pickled by their values, changed only through :meth:`replace`."""

    fields: ClassVar[tuple[str, ...]] = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def values(self) -> tuple[Any, ...]:
        """The field values, in field order."""
        return tuple(getattr(self, name) for name in self.fields)

    def replace(self, **changes: Any) -> Any:
        """A copy with ``changes`` (checked again, as a new instance)."""
        unknown = set(changes) - set(self.fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        return type(self)(*(changes.get(name, getattr(self, name)) for name in self.fields))

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), self.values()

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


class Operation(Frozen):
    """One tool call of the turn and what came back, in the order the agent made them.

    ``call_id`` is the id the agent gave the call and ``result_id`` the call id its result
    names (``None`` when no result arrived), so a reader can check the pair.
    """

    fields = ("tool", "input", "output", "status", "call_id", "result_id")
    tool: str
    input: str
    output: str
    status: str
    call_id: str | None
    result_id: str | None

    def __init__(
        self,
        tool: str,
        input: str = "",
        output: str = "",
        status: str = "ok",
        call_id: str | None = None,
        result_id: str | None = None,
    ) -> None:
        self._set(tool=tool, input=input, output=output, status=status, call_id=call_id, result_id=result_id)
        _check_text("operation tool", self.tool, MAX_TOOL_NAME, required=True)
        _check_text("operation input", self.input, MAX_OPERATION_INPUT)
        _check_text("operation output", self.output, MAX_OPERATION_OUTPUT)
        if self.status not in OPERATION_STATUSES:
            raise HookInputError(f"operation status must be one of {', '.join(OPERATION_STATUSES)}")
        _check_text("operation call_id", self.call_id, MAX_LABEL)
        _check_text("operation result_id", self.result_id, MAX_LABEL)

    @classmethod
    def bounded(
        cls,
        tool: str,
        input: str = "",
        output: str = "",
        status: str = "ok",
        call_id: str | None = None,
        result_id: str | None = None,
    ) -> Operation:
        """An operation with every text field clipped to its bound (output keeps head and tail)."""
        return cls(
            tool=tool[:MAX_TOOL_NAME] or "unknown",
            input=clip_middle(input, MAX_OPERATION_INPUT),
            output=clip_middle(output, MAX_OPERATION_OUTPUT),
            status=status,
            call_id=call_id[:MAX_LABEL] if call_id else None,
            result_id=result_id[:MAX_LABEL] if result_id else None,
        )


class HookEvent(Frozen):
    """What happened in the agent, in memevo's terms.

    For ``turn_end``, ``user_messages`` are the user's own messages of the turn and
    ``operations``, ``final_message`` and ``ended_in_error`` describe what the agent did.
    """

    fields = (
        "event",
        "agent",
        "session_id",
        "cwd",
        "summary",
        "user_messages",
        "prompt",
        "operations",
        "final_message",
        "ended_in_error",
        "transcript_path",
        "notes",
    )
    event: str
    agent: str
    session_id: str | None
    cwd: str
    summary: str | None
    user_messages: tuple[str, ...]
    prompt: str | None
    operations: tuple[Operation, ...]
    final_message: str | None
    ended_in_error: bool
    transcript_path: str | None
    notes: tuple[str, ...]  # what an adapter left out of the turn and why (the learning log shows it)

    def __init__(
        self,
        event: str,
        agent: str = "generic",
        session_id: str | None = None,
        cwd: str = "",
        summary: str | None = None,
        user_messages: tuple[str, ...] = (),
        prompt: str | None = None,
        operations: tuple[Operation, ...] = (),
        final_message: str | None = None,
        ended_in_error: bool = False,
        transcript_path: str | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        self._set(
            event=event,
            agent=agent,
            session_id=session_id,
            cwd=cwd,
            summary=summary,
            user_messages=user_messages,
            prompt=prompt,
            operations=operations,
            final_message=final_message,
            ended_in_error=ended_in_error,
            transcript_path=transcript_path,
            notes=notes,
        )
        if self.event not in EVENT_NAMES:
            raise HookInputError(f"event must be one of {', '.join(EVENT_NAMES)}")
        _check_text("agent", self.agent, 64, required=True)
        _check_text("session_id", self.session_id, MAX_LABEL)
        _check_path("cwd", self.cwd)
        _check_text("summary", self.summary, MAX_TEXT)
        _check_text("prompt", self.prompt, MAX_TEXT)
        if not isinstance(self.user_messages, tuple):
            raise HookInputError("user_messages must be a list of strings")
        if len(self.user_messages) > MAX_USER_MESSAGES:
            raise HookInputError(f"user_messages holds at most {MAX_USER_MESSAGES} messages")
        for i, message in enumerate(self.user_messages):
            _check_text(f"user_messages[{i}]", message, MAX_TEXT, required=True)
        if not isinstance(self.operations, tuple) or not all(isinstance(o, Operation) for o in self.operations):
            raise HookInputError("operations must be a list of operations")
        if len(self.operations) > MAX_OPERATIONS:
            raise HookInputError(f"operations holds at most {MAX_OPERATIONS} operations")
        _check_text("final_message", self.final_message, MAX_FINAL_MESSAGE)
        if not isinstance(self.ended_in_error, bool):
            raise HookInputError("ended_in_error must be true or false")
        if self.transcript_path is not None:
            _check_path("transcript_path", self.transcript_path)
        if not isinstance(self.notes, tuple) or len(self.notes) > MAX_NOTES:
            raise HookInputError(f"notes must be a list of at most {MAX_NOTES} strings")
        for i, note in enumerate(self.notes):
            _check_text(f"notes[{i}]", note, MAX_LABEL, required=True)


def _check_path(name: str, value: object) -> None:
    _check_text(name, value, MAX_CWD)
    if isinstance(value, str) and "\x00" in value:
        raise HookInputError(f"{name} must be a path without NUL characters")


def _check_text(name: str, value: object, max_chars: int, *, required: bool = False) -> None:
    if value is None and not required:
        return
    if not isinstance(value, str):
        raise HookInputError(f"{name} must be a string")
    if required and not value:
        raise HookInputError(f"{name} must not be empty")
    if len(value) > max_chars:
        raise HookInputError(f"{name} is longer than {max_chars} characters")


def valid_event(event: HookEvent) -> HookEvent:
    """``event`` with every text made valid UTF-8: strings, tuples of strings and the text
    fields of nested event parts (operations), whatever fields an adapter fills."""
    fixed = _valid_value(event)
    assert isinstance(fixed, HookEvent)
    return fixed


def without_private(event: HookEvent) -> HookEvent | None:
    """``event`` without the text its person marked private (memory_core.privacy.private_text) in
    the texts an agent sent or a transcript held: messages, prompt, summary, final message,
    tool input and output. A message private as a whole is left out; ``None`` when nothing
    of what the event is about is left (a summary private as a whole)."""
    changes: dict[str, Any] = {}
    for name in ("summary", "prompt", "final_message"):
        text = getattr(event, name)
        if text:
            kept = strip_private(text)
            if kept != text:
                changes[name] = kept or None
    messages = tuple(kept for kept in (strip_private(m) for m in event.user_messages) if kept)
    if messages != event.user_messages:
        changes["user_messages"] = messages
    operations = tuple(
        op.replace(input=strip_private(op.input), output=strip_private(op.output)) for op in event.operations
    )
    if operations != event.operations:
        changes["operations"] = operations
    if not changes:
        return event
    event = event.replace(**changes)
    if event.event == "compaction" and not event.summary:
        return None
    return event


def _valid_value(value: Any) -> Any:
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, tuple):
        items = tuple(_valid_value(item) for item in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if isinstance(value, Frozen):
        changes = {}
        for name in value.fields:
            item = getattr(value, name)
            fixed = _valid_value(item)
            if fixed is not item:
                changes[name] = fixed
        return value.replace(**changes) if changes else value
    return value
