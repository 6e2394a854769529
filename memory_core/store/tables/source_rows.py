"""The ``sources`` row layout and its one INSERT, with the standard library only.

Capture writes through here without loading the record models, so a hook that captures a
user statement stays cheap; every read still validates the row as a ``Source`` record
(:mod:`memory_core.store.tables.sources`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from memory_core.store.schema.columns import SOURCE_COLUMNS, SOURCE_JOB_FIELDS

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from memory_core.store.engines.dbapi import DbConn


def new_job(next_due_at: float) -> dict[str, Any]:
    """Job columns of a freshly captured source: pending, due at ``next_due_at``."""
    return {
        "state": "pending",
        "attempt": 0,
        "consecutive_failures": 0,
        "next_due_at": next_due_at,
        "lease_owner": None,
        "lease_expires_at": None,
        "last_error_code": None,
        "last_failure_at": None,
        "origin_generation": 0,
        "completed_at": None,
        "last_error_reason": None,
        "forced_at": None,
    }


def insert_source_row(
    conn: DbConn,
    *,
    source_id: str,
    origin: str,
    source_type: str,
    dedupe_key: str,
    created_at: float,
    text: str,
    agent: str,
    session_id: str | None,
    target_ids: Sequence[str],
    job: Mapping[str, Any],
) -> bool:
    """Insert one source; False if a source with this id or dedupe key already exists."""
    body = json.dumps(
        {"text": text, "agent": agent, "session_id": session_id, "target_ids": list(target_ids)}, ensure_ascii=False
    )
    cursor = conn.execute(
        f"INSERT INTO sources ({SOURCE_COLUMNS}) VALUES ({', '.join('?' * (6 + len(SOURCE_JOB_FIELDS)))}) "
        "ON CONFLICT DO NOTHING",
        (source_id, origin, source_type, dedupe_key, created_at, body, *(job[f] for f in SOURCE_JOB_FIELDS)),
    )
    return cursor.rowcount == 1


def source_exists(conn: DbConn, source_id: str) -> bool:
    return conn.execute("SELECT 1 FROM sources WHERE id=?", (source_id,)).fetchone() is not None
