"""Copying a whole store between engines, row for row: ``memevo migrate-to`` (SQLite into an
empty PostgreSQL database, or back into a new SQLite file) and the PostgreSQL backup taken
before a migration (into a SQLite file in ``backups/``).

Every table of the store is copied, job state, sources, history and the recall index
included, in key order, values as stored. The source is read in one consistent snapshot;
the target is written in one write transaction, so a failed copy leaves it empty. A digest
per table (:func:`table_digests`) over every value in key order proves the copy identical.
"""

from __future__ import annotations

import contextlib
import hashlib
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

from memory_core.errors import UsageError
from memory_core.store.dbapi import DbConn, is_postgres
from memory_core.store.dialect import read_snapshot_begin, user_tables

# Every table of the store at the current schema version, with the columns that order its
# rows (its key). tests/unit/test_copying.py checks this against a freshly migrated store.
STORE_TABLES: dict[str, str] = {
    "metadata": "key",
    "memories": "id",
    "sources": "id",
    "events": "id",
    "blocked_hashes": "origin, content_hash",
    "feedback_receipts": "source_id, memory_id",
    "postings": "feature, memory_id, field",
    "index_docs": "memory_id",
    "origin_generations": "origin",
    "model_usage": "day",
    "bodies": "id",
    "body_postings": "feature, body, field",
}
# Tables whose integer id the engine assigns: after a copy into PostgreSQL, the next id
# must follow the largest copied one.
IDENTITY_TABLES = ("events", "bodies")
BATCH = 2_000


def columns_of(conn: DbConn, table: str) -> list[str]:
    cursor = conn.execute(f"SELECT * FROM {table} LIMIT 0")  # noqa: S608 (a name from STORE_TABLES)
    return [str(column[0]) for column in cursor.description]


@contextlib.contextmanager
def snapshot(conn: DbConn) -> Iterator[DbConn]:
    """One consistent read of the whole store (nothing is written)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute(read_snapshot_begin(conn))
    try:
        yield conn
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")


def iter_rows(conn: DbConn, table: str) -> Iterator[tuple[object, ...]]:
    """Every row of ``table`` in key order, in batches (call inside :func:`snapshot`)."""
    key = STORE_TABLES[table]
    offset = 0
    while True:
        rows = conn.execute(
            f"SELECT * FROM {table} ORDER BY {key} LIMIT ? OFFSET ?",  # noqa: S608
            (BATCH, offset),
        ).fetchall()
        yield from (tuple(row) for row in rows)
        if len(rows) < BATCH:
            return
        offset += len(rows)


def is_empty(conn: DbConn) -> bool:
    """True when the target holds none of the store's tables, or only empty ones."""
    present = user_tables(conn) & set(STORE_TABLES)
    for table in present:
        if table == "metadata":
            rows = conn.execute("SELECT key FROM metadata WHERE key <> 'schema_version' LIMIT 1").fetchone()
        else:
            rows = conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()  # noqa: S608
        if rows is not None:
            return False
    return True


def copy_rows(source: DbConn, target: DbConn) -> dict[str, int]:
    """Copy every row of every store table from ``source`` (in a snapshot) into ``target``
    (inside the caller's write transaction, its tables created and empty); rows per table."""
    counts: dict[str, int] = {}
    with snapshot(source):
        for table in STORE_TABLES:
            names = columns_of(source, table)
            wanted = columns_of(target, table)
            if sorted(names) != sorted(wanted):
                raise UsageError(
                    f"table {table} has columns {names} in the source but {wanted} in the target; "
                    "both must be at the same schema version"
                )
            if table == "metadata":
                target.execute("DELETE FROM metadata")
            sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"  # noqa: S608
            n = 0
            batch: list[tuple[object, ...]] = []
            for row in iter_rows(source, table):
                batch.append(row)
                if len(batch) >= BATCH:
                    target.executemany(sql, batch)
                    n += len(batch)
                    batch = []
            if batch:
                target.executemany(sql, batch)
                n += len(batch)
            counts[table] = n
    if is_postgres(target):
        for table in IDENTITY_TABLES:
            target.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false) FROM {table}"  # noqa: S608
            )
    return counts


def _value_bytes(value: object) -> bytes:
    if value is None:
        return b"N"
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return b"I" + str(value).encode()
    if isinstance(value, float):
        return b"F" + struct.pack("<d", value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return b"B" + bytes(value)
    if hasattr(value, "as_integer_ratio") and not isinstance(value, float):  # Decimal of a sum
        return b"I" + str(int(value)).encode()  # type: ignore[call-overload]
    return b"S" + str(value).encode("utf-8", "surrogatepass")


def table_digests(conn: DbConn) -> dict[str, tuple[int, str]]:
    """``table -> (rows, sha256)`` over every value of every row in key order, columns in
    name order (so two engines whose column order differs still agree)."""
    out: dict[str, tuple[int, str]] = {}
    with snapshot(conn):
        for table in STORE_TABLES:
            names = columns_of(conn, table)
            order = sorted(range(len(names)), key=lambda i: names[i])
            digest = hashlib.sha256()
            n = 0
            for row in iter_rows(conn, table):
                n += 1
                for i in order:
                    part = _value_bytes(row[i])
                    digest.update(len(part).to_bytes(4, "little") + part)
            out[table] = (n, digest.hexdigest())
    return out


def copy_to_sqlite(source: DbConn, target_path: Path, build_schema: Callable[[DbConn], None]) -> dict[str, int]:
    """A new SQLite store at ``target_path`` holding every row of ``source``, its tables made
    by ``build_schema`` (the migrations up to the source's version): the PostgreSQL backup
    before a migration, and the way back to SQLite."""
    from memory_core.store.connection import connect, write_transaction

    target = connect(target_path)
    try:
        build_schema(target)
        with write_transaction(target):
            return copy_rows(source, target)
    finally:
        target.close()
