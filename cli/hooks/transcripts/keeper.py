"""What a turn read record by record keeps: bounded, the most important first.

A turn hands capture at most :data:`~cli.hooks.event.MAX_OPERATIONS` operations, and
progress capture keeps the few most important of them (commits, pushes and merges, then
test, build and process results, …; :mod:`memory_core.capture.work.work_operations`). A turn
with more operations than that used to keep its *last* ones, so a long turn lost its early
commit; streamed, it keeps the most important ones by the same ranking (a failure before a
success of the same rank, then the later one), in the order they ran, and counts what it
left out so the learning log can say so.
"""

from __future__ import annotations

from collections import deque

from cli.hooks.event import MAX_FINAL_MESSAGE, MAX_OPERATIONS, MAX_TEXT, MAX_USER_MESSAGES, Operation, clip_middle

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Iterable


class KeptOperations:
    """Operations added in the order they ran, at most ``limit`` kept (ranked only once more
    than twice that many are held, so a turn within the bound never pays for ranking)."""

    def __init__(self, limit: int = MAX_OPERATIONS) -> None:
        self.limit = limit
        self.total = 0
        self._held: list[tuple[int, Operation]] = []

    def add(self, position: int, operation: Operation) -> None:
        self.total += 1
        self._held.append((position, operation))
        if len(self._held) >= 2 * self.limit:
            self._trim()

    @property
    def dropped(self) -> int:
        return self.total - min(len(self._held), self.limit)

    def operations(self) -> tuple[Operation, ...]:
        """The kept operations, in the order they ran."""
        if len(self._held) > self.limit:
            self._trim()
        return tuple(operation for _, operation in sorted(self._held, key=lambda item: item[0]))

    def _trim(self) -> None:
        from memory_core.capture.work.work_operations import IMPORTANCE, read_operation

        def rank(item: tuple[int, Operation]) -> tuple[int, int, int]:
            position, operation = item
            category = read_operation(operation.tool, operation.input).category
            return IMPORTANCE[category], int(operation.status != "ok"), position

        self._held = sorted(self._held, key=rank, reverse=True)[: self.limit]


class KeptMessages:
    """The user's messages of a turn, the last :data:`MAX_USER_MESSAGES`, each clipped."""

    def __init__(self) -> None:
        self.total = 0
        self._kept: deque[str] = deque(maxlen=MAX_USER_MESSAGES)

    def add(self, text: str) -> None:
        self.total += 1
        self._kept.append(clip_middle(text, MAX_TEXT))

    def extend(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.add(text)

    @property
    def dropped(self) -> int:
        return self.total - len(self._kept)

    def messages(self) -> tuple[str, ...]:
        return tuple(self._kept)


def bounded_final(text: str) -> str:
    """An assistant text kept for the final message: no longer than the event can hold."""
    return clip_middle(text, MAX_FINAL_MESSAGE)


def reading_notes(operations: KeptOperations, messages: KeptMessages, skipped_records: int) -> tuple[str, ...]:
    """What a streamed turn left out and why, in the words `memevo learning` shows."""
    notes = []
    if operations.dropped:
        notes.append(
            f"{operations.dropped} of {operations.total} operations left out: a turn keeps its "
            f"{operations.limit} most important (commits, pushes and merges first, routine reads last)"
        )
    if messages.dropped:
        notes.append(
            f"{messages.dropped} of {messages.total} user messages left out: a turn keeps its last {MAX_USER_MESSAGES}"
        )
    if skipped_records:
        from cli.hooks.transcripts.stream import MAX_RECORD_BYTES

        notes.append(f"{skipped_records} transcript records over {MAX_RECORD_BYTES >> 20} MB skipped unread")
    return tuple(notes)
