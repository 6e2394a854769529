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
import operator
import struct
from collections.abc import Callable, Iterator
from pathlib import Path

from memory_core.errors import StoreError, UsageError
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import read_snapshot_begin, user_tables

# Every table of the store at the current schema version, with the columns that order its
# rows (its key). tests/unit/test_copying.py checks this against a freshly migrated store.
STORE_TABLES: dict[str, str] = {
    "metadata": "key",
    "memories": "id",
    "sources": "id",
    "events": "id",
    "blocked_hashes": "origin, content_hash, owner",
    "feedback_receipts": "source_id, memory_id",
    "postings": "feature, memory_id, field, part",
    "index_docs": "memory_id",
    "origin_generations": "origin",
    "model_usage": "owner, day",
    "bodies": "id",
    "body_postings": "feature, body, field, part",
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
    """Every row of ``table`` in key order, in batches (call inside :func:`snapshot`).

    Batches continue after the last key read (a row-value comparison both engines answer
    from the primary key), so each batch costs the same however far into the table it is.
    A table of an older schema (a backup before a migration) is ordered by the key columns it
    has: ``model_usage`` before version 7 had no ``owner`` and was keyed by ``day``."""
    names = columns_of(conn, table)
    key = [part.strip() for part in STORE_TABLES[table].split(",") if part.strip() in names]
    positions = [names.index(column) for column in key]
    order = ", ".join(key)
    first = f"SELECT * FROM {table} ORDER BY {order} LIMIT ?"  # noqa: S608 (names from STORE_TABLES)
    after = f"SELECT * FROM {table} WHERE ({order}) > ({', '.join('?' * len(key))}) ORDER BY {order} LIMIT ?"  # noqa: S608
    last: tuple[object, ...] | None = None
    while True:
        if last is None:
            rows = conn.execute(first, (BATCH,)).fetchall()
        else:
            rows = conn.execute(after, (*last, BATCH)).fetchall()
        yield from (tuple(row) for row in rows)
        if len(rows) < BATCH:
            return
        last = tuple(rows[-1][i] for i in positions)


def occupied_tables(conn: DbConn) -> list[str]:
    """The store's tables that hold rows on ``conn`` (``metadata`` counts beyond its schema
    version), in :data:`STORE_TABLES` order."""
    present = user_tables(conn) & set(STORE_TABLES)
    occupied = []
    for table in STORE_TABLES:
        if table not in present:
            continue
        if table == "metadata":
            rows = conn.execute("SELECT key FROM metadata WHERE key <> 'schema_version' LIMIT 1").fetchone()
        else:
            rows = conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone()  # noqa: S608
        if rows is not None:
            occupied.append(table)
    return occupied


def is_empty(conn: DbConn) -> bool:
    """True when the target holds none of the store's tables, or only empty ones."""
    return not occupied_tables(conn)


def copy_rows(source: DbConn, target: DbConn) -> dict[str, int]:
    """Copy every row of every store table from ``source`` (in a snapshot) into ``target``
    (inside the caller's write transaction, its tables created and empty); rows per table."""
    counts: dict[str, int] = {}
    with snapshot(source):
        present = user_tables(source)  # an older schema (a backup before a migration) has fewer
        for table in [name for name in STORE_TABLES if name in present]:
            names = columns_of(source, table)
            wanted = columns_of(target, table)
            if sorted(names) != sorted(wanted):
                raise UsageError(
                    f"table {table} has columns {names} in the source but {wanted} in the target; "
                    "both must be at the same schema version"
                )
            if table == "metadata":
                target.execute("DELETE FROM metadata")
            if is_postgres(target):
                counts[table] = _copy_into_postgres(target, table, names, iter_rows(source, table))
                continue
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


def _copy_into_postgres(target: DbConn, table: str, names: list[str], rows: Iterator[tuple[object, ...]]) -> int:
    """Rows into ``table`` through PostgreSQL's COPY (several times faster than INSERTs)."""
    import psycopg

    from memory_core.store.engines.pg import describe_error

    n = 0
    try:
        with target.raw.cursor() as cursor:  # type: ignore[attr-defined]
            with cursor.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    n += 1
    except psycopg.OperationalError as exc:
        raise StoreError(describe_error(exc, target.url)) from None  # type: ignore[attr-defined]
    except psycopg.Error as exc:
        raise StoreError(
            f"PostgreSQL refused a row of {table}: {' '.join(str(exc).split())[:300]}; nothing was kept in the target"
        ) from None
    return n


_PLAIN = frozenset((str, int, float, type(None)))


def _row_bytes(row: tuple[object, ...], pick: Callable[[tuple[object, ...]], tuple[object, ...]]) -> bytes:
    """One row's values as ``pick`` orders them, typed and unambiguous: ``repr`` of text, integers,
    floats (shortest round-trip form) and NULL is the same on both engines; other values
    (bytes, booleans) are spelled by :func:`_value_bytes`."""
    values = pick(row)
    if set(map(type, values)) <= _PLAIN:
        return repr(values).encode("utf-8", "surrogatepass") + b"\n"
    return b"\0" + b"".join(len(part).to_bytes(4, "little") + part for part in map(_value_bytes, values)) + b"\n"


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
        present = user_tables(conn)
        for table in [name for name in STORE_TABLES if name in present]:
            names = columns_of(conn, table)
            order = sorted(range(len(names)), key=lambda i: names[i])
            pick = operator.itemgetter(*order) if len(order) > 1 else lambda row, i=order[0]: (row[i],)
            digest = hashlib.sha256()
            n = 0
            for row in iter_rows(conn, table):
                n += 1
                digest.update(_row_bytes(row, pick))
            out[table] = (n, digest.hexdigest())
    return out


def copy_to_sqlite(source: DbConn, target_path: Path, build_schema: Callable[[DbConn], None]) -> dict[str, int]:
    """A new SQLite store at ``target_path`` holding every row of ``source``, its tables made
    by ``build_schema`` (the migrations up to the source's version): the PostgreSQL backup
    before a migration, and the way back to SQLite."""
    from memory_core.store.engines.connection import connect, write_transaction

    target = connect(target_path)
    try:
        build_schema(target)
        with write_transaction(target):
            return copy_rows(source, target)
    finally:
        target.close()


def vacuum_analyze(conn: DbConn) -> None:
    """PostgreSQL: mark the freshly written tables all-visible and gather planner statistics
    (outside any transaction); SQLite: ``ANALYZE``."""
    if is_postgres(conn):
        for table in STORE_TABLES:
            conn.execute(f"VACUUM (ANALYZE) {table}")
    else:
        conn.execute("ANALYZE")


def postgres_size(conn: DbConn) -> int:
    """Bytes the store's tables take on the PostgreSQL server, indexes and TOAST included."""
    total = 0
    for table in sorted(user_tables(conn) & set(STORE_TABLES)):
        row = conn.execute("SELECT pg_total_relation_size(?::regclass)", (table,)).fetchone()
        total += int(row[0])
    return total
