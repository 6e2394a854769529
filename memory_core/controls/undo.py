"""Undo one event by restoring the actual records it recorded as ``before``.

An undo is safe only while nothing has moved on: every record the event wrote must still
be stored exactly as the event left it. Then each record the event changed gets its prior
state back — content, status, aliases, feedback, pin, evidence and dates — and each record
the event created becomes a ``forgotten`` tombstone (never erased, so history keeps
pointing at something real). The undo is itself an event, so it can be undone in turn.

Undo does not touch suppression (blocked content stays blocked), feedback receipts or
source jobs (a retired or finished job stays so).
"""

from __future__ import annotations

from memory_core import ids
from memory_core.errors import ConflictError, CorruptRecordError, NotFoundError
from memory_core.records import Event, Memory
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import hidden_claim_ids
from memory_core.store.tables.changes import ChangeSet
from memory_core.store.tables.events import get_event
from memory_core.store.tables.memories import get_memory


def _paired(event: Event) -> tuple[dict[str, Memory], dict[str, Memory]]:
    before = {m.id: m for m in event.before}
    after = {m.id: m for m in event.after}
    if len(before) != len(event.before) or len(after) != len(event.after):
        raise CorruptRecordError("events", str(event.id), "a record appears twice on one side")
    if not set(before) <= set(after):
        raise CorruptRecordError("events", str(event.id), "a prior record has no later state")
    return before, after


def undo(conn: DbConn, event_id: int, now: float) -> int:
    """Revert event ``event_id`` (inside the caller's transaction); returns the undo's event id.

    Raises :class:`NotFoundError` for an unknown event and :class:`ConflictError` when the
    event changed no records or any of them has changed since.
    """
    changes = ChangeSet(conn, "undo")
    event = get_event(conn, event_id)
    hidden = hidden_claim_ids(conn)  # another member's personal history is not theirs to see
    if event is None or any(m.id in hidden for m in event.before + event.after):
        raise NotFoundError(f"no event with id {event_id}; see `memevo history`")
    before, after = _paired(event)
    if not after:
        raise ConflictError(f"event {event_id} ({event.operation}) changed no memories; nothing to undo")
    current: list[Memory] = []
    for memory_id, expected in after.items():
        stored = get_memory(conn, memory_id)
        if stored != expected:
            raise ConflictError(
                f"event {event_id} ({event.operation}) can no longer be undone: memory {memory_id} "
                "has changed since; undo the later events first (see `memevo history`)"
            )
        current.append(expected)
    restored: list[Memory] = []
    created: list[str] = []
    for memory_id, later in after.items():
        if memory_id in before:
            restored.append(before[memory_id])
        else:
            created.append(memory_id)
            restored.append(later.model_copy(update={"status": "forgotten"}))
    changes.write_all(current, restored)
    undo_id = changes.commit(
        at=now,
        actor="user",
        operation="undo",
        source_id=ids.random_id(),
        manual=True,
        reason=f"undo of event {event_id} ({event.operation})",
        details={"undone_event": event_id, "tombstoned": created},
    )
    assert undo_id is not None  # an undo always restores at least one record
    return undo_id
