"""Database integrity: SQLite's own check plus validation of every stored record."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from memory_core.errors import CorruptRecordError
from memory_core.ids import is_memory_id
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.tables.events import event_from_row, iter_event_rows
from memory_core.store.tables.memories import iter_memory_rows, memory_from_row
from memory_core.store.tables.sources import iter_source_rows, source_from_row

MAX_LISTED = 50

_CHECKS: tuple[tuple[Callable[[DbConn], Iterator[tuple]], Callable[[Any], Any]], ...] = (
    (iter_memory_rows, memory_from_row),
    (iter_source_rows, source_from_row),
    (iter_event_rows, event_from_row),
)


_VERDICTS = ("useful", "unhelpful", "accurate", "incorrect")


def iter_receipt_rows(conn: DbConn) -> Iterator[tuple]:
    yield from conn.execute("SELECT source_id, memory_id, verdict, at FROM feedback_receipts ORDER BY at")


def receipt_from_row(row: tuple) -> tuple:
    """Check one feedback receipt's shape (they are audit data, so they are checked too)."""
    source_id, memory_id, verdict, at = row
    ok = (
        isinstance(source_id, str)
        and source_id
        and is_memory_id(str(memory_id))
        and verdict in _VERDICTS
        and isinstance(at, (int, float))
    )
    if not ok:
        raise CorruptRecordError("feedback_receipts", f"{source_id}/{memory_id}", "malformed receipt")
    return row


def check_integrity(conn: DbConn) -> dict[str, Any]:
    """``PRAGMA quick_check`` and every row validated; corrupt rows listed by table and id.

    On PostgreSQL the server keeps its own pages (checking them needs amcheck and rights
    memevo's login should not have): the page check reads "ok" as long as the rows can be
    read, and every row is still validated."""
    if is_postgres(conn):
        messages = ["ok"]
    else:
        messages = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    quick_ok = messages == ["ok"]
    corrupt: list[dict[str, str]] = []
    total = 0
    for iterate, validate in (*_CHECKS, (iter_receipt_rows, receipt_from_row)):
        for row in iterate(conn):
            try:
                validate(row)
            except CorruptRecordError as exc:
                total += 1
                if len(corrupt) < MAX_LISTED:
                    corrupt.append({"table": exc.table, "id": exc.row_id, "detail": exc.detail})
    return {
        "quick_check": "ok" if quick_ok else messages[:10],
        "corrupt_rows": corrupt,
        "corrupt_count": total,
        "ok": quick_ok and total == 0,
    }
