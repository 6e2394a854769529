"""Reading and writing source rows (captured evidence plus job-state columns)."""

from __future__ import annotations

import json
from collections.abc import Iterator

from pydantic import ValidationError

from memory_core.errors import CorruptRecordError, NotFoundError, short_error
from memory_core.records import Source
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import SOURCE_BODY_FIELDS as _BODY_FIELDS
from memory_core.store.schema.columns import SOURCE_COLUMNS, SOURCE_JOB_FIELDS
from memory_core.store.tables.source_rows import insert_source_row


def source_from_row(row: tuple) -> Source:
    """Validate one ``sources`` row (body JSON plus job columns)."""
    values = tuple(row)
    row_id, origin, source_type, dedupe_key, created_at, body = values[:6]
    job = dict(zip(SOURCE_JOB_FIELDS, values[6:], strict=True))
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or set(data) - set(_BODY_FIELDS):
            raise ValueError("unexpected body fields")
        return Source.model_validate(
            {
                "id": row_id,
                "origin": origin,
                "source_type": source_type,
                "dedupe_key": dedupe_key,
                "created_at": created_at,
                **data,
                **job,
            }
        )
    except (ValidationError, ValueError, TypeError) as exc:
        raise CorruptRecordError("sources", str(row_id), short_error(exc)) from None


def get_source(conn: DbConn, source_id: str) -> Source | None:
    row = conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id=?", (source_id,)).fetchone()
    return None if row is None else source_from_row(row)


def require_source(conn: DbConn, source_id: str) -> Source:
    source = get_source(conn, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}; see `memevo status`")
    return source


def insert_source(conn: DbConn, source: Source) -> bool:
    """Insert a new source record; returns False if its dedupe key was already captured."""
    job = source.model_dump(mode="json", include=set(SOURCE_JOB_FIELDS))
    return insert_source_row(
        conn,
        source_id=source.id,
        origin=source.origin,
        source_type=source.source_type,
        dedupe_key=source.dedupe_key,
        created_at=source.created_at,
        text=source.text,
        agent=source.agent,
        session_id=source.session_id,
        target_ids=source.target_ids,
        job=job,
    )


def iter_source_rows(conn: DbConn) -> Iterator[tuple]:
    yield from conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources ORDER BY created_at, id")
