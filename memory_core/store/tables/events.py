"""Event history: every change to claims, with the actual records before and after."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from memory_core.errors import CorruptRecordError, short_error
from memory_core.records import Event, Memory
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import EVENT_COLUMNS
from memory_core.store.schema.owners import event_scope
from memory_core.store.tables.event_rows import insert_event


def record_event(
    conn: DbConn,
    *,
    at: float,
    actor: str,
    operation: str,
    before: Iterable[Memory] = (),
    after: Iterable[Memory] = (),
    reason: str | None = None,
    source_id: str | None = None,
    details: dict[str, Any] | None = None,
) -> int:
    """Append one event (call inside the transaction that made the change)."""
    before, after = list(before), list(after)
    # Shared with the team only when every claim it holds is (memory_core.store.schema.owners).
    scope = event_scope((m.kind, m.origin, m.content, m.search_terms) for m in [*before, *after])
    return insert_event(
        conn,
        at=at,
        actor=actor,
        operation=operation,
        before=[m.model_dump(mode="json") for m in before],
        after=[m.model_dump(mode="json") for m in after],
        scope=scope,
        reason=reason,
        source_id=source_id,
        details=details,
    )


def event_from_row(row: tuple) -> Event:
    """Validate one ``events`` row."""
    event_id, at, actor, operation, reason, source_id, body = tuple(row)
    try:
        data = json.loads(body)
        return Event.model_validate(
            {
                "id": event_id,
                "at": at,
                "actor": actor,
                "operation": operation,
                "reason": reason,
                "source_id": source_id,
                **data,
            }
        )
    except (ValidationError, ValueError, TypeError) as exc:
        raise CorruptRecordError("events", str(event_id), short_error(exc)) from None


def get_event(conn: DbConn, event_id: int) -> Event | None:
    row = conn.execute(f"SELECT {EVENT_COLUMNS} FROM events WHERE id=?", (event_id,)).fetchone()
    return None if row is None else event_from_row(row)


def latest_events(conn: DbConn, *, limit: int, offset: int = 0) -> list[Event]:
    """Newest first."""
    rows = conn.execute(
        f"SELECT {EVENT_COLUMNS} FROM events ORDER BY id DESC LIMIT ? OFFSET ?", (limit, offset)
    ).fetchall()
    return [event_from_row(row) for row in rows]


def iter_event_rows(conn: DbConn) -> Iterator[tuple]:
    yield from conn.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY id")
