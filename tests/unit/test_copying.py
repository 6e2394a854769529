"""The copy's table list and keys stay complete as the schema grows, on both backends."""

from __future__ import annotations

from memory_core.store.engines.copying import STORE_TABLES, is_empty, occupied_tables
from memory_core.store.engines.dbapi import is_postgres
from memory_core.store.engines.dialect import user_tables
from memory_core.store.engines.relocate import describe_occupied
from tests.factories import make_memory, seed


def test_store_tables_are_every_table_of_a_fresh_store(store) -> None:
    assert user_tables(store.conn) == set(STORE_TABLES)


def primary_key(conn, table: str) -> list[str]:
    if is_postgres(conn):
        rows = conn.execute(
            "SELECT k.column_name FROM information_schema.table_constraints c "
            "JOIN information_schema.key_column_usage k ON k.constraint_name = c.constraint_name "
            "AND k.table_schema = c.table_schema AND k.table_name = c.table_name "
            "WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema() AND c.table_name = ? "
            "ORDER BY k.ordinal_position",
            (table,),
        ).fetchall()
        return [str(row[0]) for row in rows]
    info = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5] > 0]


def test_each_key_is_its_tables_primary_key(store) -> None:
    """Rows are copied and digested in key order: a key that did not identify a row would
    leave their order, and the digest, to chance."""
    for table, key in STORE_TABLES.items():
        assert primary_key(store.conn, table) == [part.strip() for part in key.split(",")], table


def test_a_fresh_store_is_an_empty_target_and_a_used_one_is_not(store) -> None:
    assert is_empty(store.conn) and describe_occupied(store.conn) == ""
    seed(store, make_memory())
    assert not is_empty(store.conn)
    assert occupied_tables(store.conn)[:1] == ["memories"]
    assert "memories" in describe_occupied(store.conn)


def test_rows_are_read_in_key_order_across_batches(store, monkeypatch) -> None:
    from memory_core.store.engines import copying

    seed(store, *(make_memory(f"Service {n} listens on port {8000 + n} behind the proxy") for n in range(12)))
    monkeypatch.setattr(copying, "BATCH", 3)
    for table, key in STORE_TABLES.items():
        whole = [tuple(row) for row in store.conn.execute(f"SELECT * FROM {table} ORDER BY {key}")]  # noqa: S608
        assert list(copying.iter_rows(store.conn, table)) == whole, table
    assert sum(rows for rows, _ in copying.table_digests(store.conn).values()) > 3 * 12
