"""The ``events`` row and its one write, with the standard library only.

:func:`memory_core.store.tables.events.record_event` writes records' events through here; capture
writes the event of a compaction summary's labelled lines with plain claim bodies
(memory_core.store.tables.claim_rows), so a compaction hook loads no record models. Reads validate
the row as an ``Event`` record.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from memory_core.store.engines.dbapi import DbConn


def insert_event(
    conn: DbConn,
    *,
    at: float,
    actor: str,
    operation: str,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    scope: str,
    reason: str | None = None,
    source_id: str | None = None,
    details: dict[str, Any] | None = None,
) -> int:
    """Append one event whose claims are ``before``/``after`` as JSON bodies, with ``scope``
    (memory_core.store.schema.owners.event_scope); call inside the transaction that made the change."""
    body = {"before": before, "after": after, "details": details or {}}
    row = conn.execute(
        "INSERT INTO events (at, actor, operation, reason, source_id, body, scope) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (at, actor, operation, reason, source_id, json.dumps(body, ensure_ascii=False, sort_keys=True), scope),
    ).fetchone()
    return int(row[0])
