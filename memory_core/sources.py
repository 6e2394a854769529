"""Reading and writing source rows (captured evidence plus job-state columns)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

from pydantic import ValidationError

from memory_core.errors import CorruptRecordError, NotFoundError
from memory_core.memories import short_error
from memory_core.records import SOURCE_JOB_FIELDS, Source

_BODY_FIELDS = ("text", "agent", "session_id", "target_ids")
SOURCE_COLUMNS = "id, origin, source_type, dedupe_key, created_at, body, " + ", ".join(
    SOURCE_JOB_FIELDS
)


def source_from_row(row: sqlite3.Row | tuple) -> Source:
    """Validate one ``sources`` row (body JSON plus job columns)."""
    values = tuple(row)
    row_id, origin, source_type, dedupe_key, created_at, body = values[:6]
    job = dict(zip(SOURCE_JOB_FIELDS, values[6:], strict=True))
    try:
        data = json.loads(body)
        if not isinstance(data, dict) or set(data) - set(_BODY_FIELDS):
            raise ValueError("unexpected body fields")
        return Source.model_validate(
            {"id": row_id, "origin": origin, "source_type": source_type,
             "dedupe_key": dedupe_key, "created_at": created_at, **data, **job}
        )
    except (ValidationError, ValueError, TypeError) as exc:
        raise CorruptRecordError("sources", str(row_id), short_error(exc)) from None


def source_body_json(source: Source) -> str:
    return json.dumps({f: getattr(source, f) for f in _BODY_FIELDS}, ensure_ascii=False)


def get_source(conn: sqlite3.Connection, source_id: str) -> Source | None:
    row = conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources WHERE id=?", (source_id,)).fetchone()
    return None if row is None else source_from_row(row)


def require_source(conn: sqlite3.Connection, source_id: str) -> Source:
    source = get_source(conn, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}; see `memevo status`")
    return source


def insert_source(conn: sqlite3.Connection, source: Source) -> bool:
    """Insert a new source; returns False if its dedupe key was already captured."""
    cursor = conn.execute(
        f"INSERT INTO sources ({SOURCE_COLUMNS}) VALUES ({', '.join('?' * 16)}) "
        "ON CONFLICT DO NOTHING",
        (source.id, source.origin, source.source_type, source.dedupe_key, source.created_at,
         source_body_json(source), *(
             getattr(source, f).value if hasattr(getattr(source, f), "value")
             else getattr(source, f) for f in SOURCE_JOB_FIELDS
         )),
    )
    return cursor.rowcount == 1


def iter_source_rows(conn: sqlite3.Connection) -> Iterator[tuple]:
    yield from conn.execute(f"SELECT {SOURCE_COLUMNS} FROM sources ORDER BY created_at, id")
