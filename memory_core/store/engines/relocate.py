"""``memevo migrate-to``: the whole store into an empty database of either engine, verified
before it commits.

The rows are copied by memory_core.store.engines.copying; this module adds what a move needs around
them: the target's emptiness, its schema at the current version (the numbered steps of
memory_core.store.schema.migrations), and the per-table digests compared before the one write
transaction commits, so the target holds an identical copy or is left as it was found.
(Kept apart from copying, which the migrations themselves use for PostgreSQL backups.)
"""

from __future__ import annotations

from typing import NamedTuple

from memory_core.errors import StoreError, UsageError
from memory_core.store.engines import copying
from memory_core.store.engines.connection import write_transaction
from memory_core.store.engines.copying import STORE_TABLES, occupied_tables, snapshot, table_digests
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import user_tables
from memory_core.store.schema.migration_steps import MIGRATIONS
from memory_core.store.schema.migrations import SCHEMA_VERSION, read_version, set_version


class CopyReport(NamedTuple):
    """What :func:`copy_store` did: rows per table (all verified by digest) and whether the
    source changed while it was read (a hook or worker wrote to it after the snapshot)."""

    tables: dict[str, int]
    source_changed: bool


def _data_version(conn: DbConn) -> int | None:
    """SQLite's counter of commits by other connections (``None`` on PostgreSQL)."""
    if is_postgres(conn):
        return None
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def describe_occupied(conn: DbConn) -> str:
    """Why ``conn`` is no target for a copy (``""`` when it is one): memevo tables with rows,
    or memevo tables at another schema version."""
    occupied = occupied_tables(conn)
    if occupied:
        return f"it holds rows in {', '.join(occupied)}"
    present = user_tables(conn) & set(STORE_TABLES)
    if not present:
        return ""
    if "metadata" not in present:
        return f"it holds tables named {', '.join(sorted(present))} that memevo did not make"
    version = read_version(conn)
    if version != SCHEMA_VERSION or present != set(STORE_TABLES):
        return f"it holds empty memevo tables at schema version {version} (this build writes {SCHEMA_VERSION})"
    return ""


def _create_schema(target: DbConn) -> None:
    """The store's tables at the current version, inside the caller's transaction (the same
    numbered steps as memory_core.store.schema.migrations.build_schema, all in one transaction so a
    failed copy leaves the target as it was found)."""
    for step in range(1, SCHEMA_VERSION + 1):
        MIGRATIONS[step](target)
        set_version(target, step)


def _verify(expected: dict[str, tuple[int, str]], target: DbConn) -> None:
    got = table_digests(target)
    differ = [table for table in STORE_TABLES if got.get(table) != expected.get(table)]
    if differ:
        detail = ", ".join(f"{t} ({expected[t][0]} rows in the source, {got[t][0]} in the copy)" for t in differ)
        raise StoreError(
            f"the copy is not identical to the source in {detail}; nothing was kept in the target. "
            "Check both with `memevo doctor` and report it"
        )


def copy_store(source: DbConn, target: DbConn) -> CopyReport:
    """Copy the whole store on ``source`` (at the current schema version) into ``target``,
    which must hold no memevo rows: its schema is created when absent, every row copied and
    every table's digest compared with the source's, all in one write transaction on the
    target, so it commits only an identical copy and a failure leaves it as it was."""
    version = read_version(source)
    if version != SCHEMA_VERSION:
        raise UsageError(
            f"the store to copy is at schema version {version}; run `memevo status` once to migrate it, then retry"
        )
    with snapshot(source):
        before = _data_version(source)
        expected = table_digests(source)
        with write_transaction(target):
            why = describe_occupied(target)  # checked again under the write lock
            if why:
                raise UsageError(
                    f"the target is not empty: {why}; migrate-to fills an empty database only: "
                    "create a new one (createdb) or drop memevo's tables there first"
                )
            if not user_tables(target) & set(STORE_TABLES):
                _create_schema(target)
            counts = copying.copy_rows(source, target)
            _verify(expected, target)
    return CopyReport(counts, before is not None and _data_version(source) != before)
