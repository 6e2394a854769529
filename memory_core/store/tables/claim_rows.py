"""The ``memories`` row and its one write, with the standard library only.

Every claim write goes through :func:`write_claim_row` (records through
:func:`memory_core.store.tables.memories.put_memory`). Capture writes a compaction summary's
labelled lines as plain bodies (:func:`new_claim_body`) without loading the record models,
so a compaction hook stays cheap; every read still validates the row as a ``Memory``
record, and a test keeps the plain body byte-identical to the record's own JSON.
"""

from __future__ import annotations

import json

from memory_core.store.schema.columns import MEMORY_COLUMNS

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

    from memory_core.store.engines.dbapi import DbConn


def new_claim_body(
    *,
    memory_id: str,
    origin: str,
    kind: str,
    content: str,
    content_hash: str,
    source_id: str,
    evidence: dict[str, Any],
    now: float,
) -> dict[str, Any]:
    """A new active claim as ``Memory.model_dump(mode="json")`` gives it, field for field in
    the model's order (``content`` normalized, ``content_hash`` its hash, ``evidence`` the
    four fields of an ``Evidence``)."""
    at = float(now)
    return {
        "id": memory_id,
        "origin": origin,
        "kind": kind,
        "status": "active",
        "content": content,
        "content_hash": content_hash,
        "search_terms": [],
        "source_id": source_id,
        "model_id": None,
        "evidence": {
            "basis": evidence["basis"],
            "method": evidence["method"],
            "source_id": evidence["source_id"],
            "at": float(evidence["at"]),
        },
        "feedback": {"utility": None, "accuracy": None},
        "pinned": False,
        "created_at": at,
        "updated_at": at,
        "confirmed_at": None,
        "revision": 1,
        "replaces": None,
        "replaced_by": None,
    }


def body_json(body: dict[str, Any]) -> str:
    """A claim body as the row stores it: ``Memory.model_dump_json()``'s compact form."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def write_claim_row(
    conn: DbConn,
    *,
    memory_id: str,
    origin: str,
    kind: str,
    status: str,
    content_hash: str,
    updated_at: float,
    body: str,
    scope: str,
) -> tuple[str, str]:
    """Insert or replace one claim row (inside a transaction); its ``(scope, owner)``.

    The owner is the database's (memory_core.store.schema.owners): the writer's login on a new
    row, unchanged on an update, so a member's change to a shared claim keeps whose it was.
    """
    row = conn.execute(
        f"INSERT INTO memories ({MEMORY_COLUMNS}, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT(id) DO UPDATE SET origin=excluded.origin, kind=excluded.kind, "
        "status=excluded.status, content_hash=excluded.content_hash, "
        "updated_at=excluded.updated_at, body=excluded.body, scope=excluded.scope RETURNING scope, owner",
        (memory_id, origin, kind, status, content_hash, updated_at, body, scope),
    ).fetchone()
    return str(row[0]), str(row[1])


def claim_exists(conn: DbConn, memory_id: str) -> bool:
    """Whether a row with this id is stored (whatever its state, valid or not)."""
    return conn.execute("SELECT 1 FROM memories WHERE id=?", (memory_id,)).fetchone() is not None
