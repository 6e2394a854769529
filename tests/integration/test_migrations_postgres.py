"""Migrations on PostgreSQL: the same numbered steps as on SQLite, refusals before any DDL,
and a consistent copy of memevo's tables taken before the first step."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from memory_core.errors import SchemaVersionError
from memory_core.store.engines import pg
from memory_core.store.engines.copying import STORE_TABLES, table_digests
from memory_core.store.engines.database import Store
from memory_core.store.engines.dialect import user_tables
from memory_core.store.schema import migration_steps, migrations
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory

pytestmark = pytest.mark.postgres_only


def connect() -> pg.PgConnection:
    return pg.connect(os.environ["MEMEVO_DATABASE_URL"])


def test_a_fresh_database_gets_every_table_at_the_current_version(pg_url: str, home: Path) -> None:
    with Store.open(home) as store:
        assert store.schema_version() == migrations.SCHEMA_VERSION
        assert set(STORE_TABLES) <= user_tables(store.conn)
        assert store.backup_path is None  # nothing to back up in an empty database


def test_text_keys_sort_by_code_point_as_on_sqlite(pg_url: str, home: Path) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            conn.executemany(
                "INSERT INTO metadata (key, value) VALUES (?, '')", [("b",), ("B",), ("a",), ("_",), ("é",)]
            )
        keys = [
            row[0]
            for row in store.conn.execute("SELECT key FROM metadata WHERE key <> ? ORDER BY key", ("schema_version",))
        ]
    assert keys == sorted(["b", "B", "a", "_", "é"])  # Python sorts by code point, as SQLite's BINARY


def test_an_older_schema_is_backed_up_then_migrated(pg_url: str, home: Path) -> None:
    conn = connect()
    try:
        migrations.build_schema(conn, 3)
        with conn.write_transaction():
            conn.execute("INSERT INTO metadata (key, value) VALUES ('marker', 'kept')")
            conn.execute(
                "INSERT INTO sources (id, origin, source_type, dedupe_key, created_at, body) "
                "VALUES ('s1', '/w', 'summary', 'k1', 1.5, '{\"text\": \"x\"}')"
            )
        before = table_digests_of(conn, ("metadata", "sources"))
    finally:
        conn.close()
    with Store.open(home) as store:
        assert store.schema_version() == migrations.SCHEMA_VERSION
        backup = store.backup_path
        assert backup is not None and backup.parent == home / "backups" and backup.name.startswith("memory-v3-")
        assert oct(backup.stat().st_mode & 0o777) == "0o600"
        assert store.conn.execute("SELECT value FROM metadata WHERE key='marker'").fetchone()[0] == "kept"
    copy = sqlite3.connect(backup)
    try:
        assert copy.execute("SELECT value FROM metadata WHERE key='schema_version'").fetchone()[0] == "3"
        assert copy.execute("SELECT id, created_at FROM sources").fetchall() == [("s1", 1.5)]
        assert "bodies" not in {r[0] for r in copy.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        copy.close()
    assert before["sources"][0] == 1


def table_digests_of(conn: pg.PgConnection, tables: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    return {t: (conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0], 0) for t in tables}


def test_a_newer_version_is_refused_before_any_ddl(pg_url: str, home: Path) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            conn.execute("UPDATE metadata SET value='99' WHERE key='schema_version'")
            put_memory(conn, make_memory("The api listens on port 8080"))
    conn = connect()
    try:
        tables = user_tables(conn)
        digests = table_digests(conn)
    finally:
        conn.close()
    for opener in (Store.open, Store.open_readonly):
        with pytest.raises(SchemaVersionError, match="schema version 99"):
            opener(home)
    conn = connect()
    try:
        assert user_tables(conn) == tables and table_digests(conn) == digests
    finally:
        conn.close()
    assert not (home / "backups").exists()


def test_tables_not_written_by_memevo_are_refused(pg_url: str, home: Path) -> None:
    conn = connect()
    try:
        conn.execute("CREATE TABLE customers (id bigint)")
    finally:
        conn.close()
    with pytest.raises(SchemaVersionError, match="not written by memevo"):
        Store.open(home)
    conn = connect()
    try:
        assert user_tables(conn) == {"customers"}
    finally:
        conn.close()


def test_writers_are_serialized_by_the_advisory_lock(pg_url: str, home: Path) -> None:
    first, second = connect(), connect()
    try:
        Store.open(home).close()
        second.execute("SET lock_timeout = 200")
        with first.write_transaction():
            with pytest.raises(Exception, match="busy"):
                with second.write_transaction():
                    pass
        with second.write_transaction():  # free again once the first committed
            second.execute("INSERT INTO metadata (key, value) VALUES ('after', '1')")
    finally:
        first.close()
        second.close()


def test_a_store_opened_while_another_process_migrates_it_waits_for_the_end(pg_url: str, home: Path) -> None:
    """A second machine opening a store halfway through its creation (or upgrade) neither backs
    up a schema between two versions nor runs the steps alongside: it waits, then finds it current."""
    import threading

    migrator = connect()
    opened: list[Store | BaseException] = []

    def open_meanwhile() -> None:
        try:
            opened.append(Store.open(home))
        except BaseException as exc:  # reported by the assertion below
            opened.append(exc)

    try:
        with migrator.migration_lock():
            for step in (1, 2):
                with migrator.write_transaction():
                    migration_steps.MIGRATIONS[step](migrator)
                    migrations.set_version(migrator, step)
            other = threading.Thread(target=open_meanwhile)
            other.start()
            other.join(timeout=1.0)
            assert other.is_alive(), f"opened a store halfway through its migration: {opened}"
            for step in range(3, migrations.SCHEMA_VERSION + 1):
                with migrator.write_transaction():
                    migration_steps.MIGRATIONS[step](migrator)
                    migrations.set_version(migrator, step)
        other.join(timeout=30)
    finally:
        migrator.close()
    (store,) = opened
    assert isinstance(store, Store), store
    with store:
        assert store.schema_version() == migrations.SCHEMA_VERSION
        assert store.backup_path is None  # it found the store current: nothing to back up
    assert not (home / "backups").exists() or not list((home / "backups").iterdir())


def test_version_6_usage_becomes_the_migrating_logins_keeping_its_numbers(pg_url: str, home: Path) -> None:
    """A version-6 store with usage rows: the backup keeps them keyed by day, the migration
    gives each to the migrating login, and that login's budget counts the same numbers."""
    from memory_core.jobs.budget import count_call, usage_on

    today, yesterday = 1_700_000_000.0, 1_700_000_000.0 - 86_400
    conn = connect()
    try:
        migrations.build_schema(conn, 6)
        with conn.write_transaction():
            conn.executemany(
                "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?)",
                [("2023-11-14", 3, 1_200, 300), ("2023-11-13", 1, 50, 7)],
            )
        (login,) = conn.execute("SELECT current_user").fetchone()
    finally:
        conn.close()
    with Store.open(home) as store:
        assert store.schema_version() == migrations.SCHEMA_VERSION
        backup = store.backup_path
        assert backup is not None and backup.name.startswith("memory-v6-")
        c = store.conn
        rows = sorted(c.execute("SELECT owner, day, calls, prompt_tokens, completion_tokens FROM model_usage"))
        assert rows == [(login, "2023-11-13", 1, 50, 7), (login, "2023-11-14", 3, 1_200, 300)]
        usage = usage_on(c, today)
        assert (usage.day, usage.calls, usage.tokens) == ("2023-11-14", 3, 1_500)
        assert usage_on(c, yesterday).calls == 1
        with store.transaction() as w:
            count_call(w, today)
        assert usage_on(c, today).calls == 4
        assert c.execute("SELECT COUNT(*) FROM model_usage").fetchone()[0] == 2
    copy = sqlite3.connect(backup)
    try:
        assert sorted(copy.execute("SELECT * FROM model_usage").fetchall()) == [
            ("2023-11-13", 1, 50, 7),
            ("2023-11-14", 3, 1_200, 300),
        ]
    finally:
        copy.close()


def test_version_7_index_gets_parts_and_blocks_get_owners_and_scopes(pg_url: str, home: Path) -> None:
    """A version-7 store with claims and blocks: version 8 rebuilds the index with each
    claim's rows in its part (shared ``*``, a personal claim its owner's), version 9 gives
    each block the scope of its claim and that claim's owner."""
    from memory_core.recall.service import recall
    from memory_core.store.schema.columns import MEMORY_COLUMNS

    shared = make_memory("The deploy runs on Fridays", origin="github.com/acme/shop")
    personal = make_memory("Answer in French about deploys", origin="github.com/acme/shop", kind="preference")
    conn = connect()
    try:
        migrations.build_schema(conn, 7)
        (login,) = conn.execute("SELECT current_user").fetchone()
        with conn.write_transaction():
            for memory, scope in ((shared, "shared"), (personal, "personal")):
                conn.execute(
                    f"INSERT INTO memories ({MEMORY_COLUMNS}, scope) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        memory.id,
                        memory.origin,
                        memory.kind,
                        memory.status,
                        memory.content_hash,
                        memory.updated_at,
                        memory.model_dump_json(),
                        scope,
                    ),
                )
            conn.executemany(
                "INSERT INTO blocked_hashes (origin, content_hash, created_at, reason) VALUES (?, ?, 1.0, 'forgotten')",
                [(shared.origin, shared.content_hash), (personal.origin, personal.content_hash), ("/w", "h")],
            )
    finally:
        conn.close()
    with Store.open(home) as store:
        assert store.schema_version() == migrations.SCHEMA_VERSION
        c = store.conn
        parts = dict(c.execute("SELECT memory_id, part FROM index_docs").fetchall())
        assert parts == {shared.id: "*", personal.id: login}
        assert {row[0] for row in c.execute("SELECT DISTINCT part FROM postings")} == {"*", login}
        blocks = sorted(c.execute("SELECT origin, content_hash, owner, scope FROM blocked_hashes").fetchall())
        assert blocks == sorted(
            [
                (shared.origin, shared.content_hash, login, "shared"),
                (personal.origin, personal.content_hash, login, "personal"),
                ("/w", "h", login, "personal"),
            ]
        )
        found = recall(c, "when does the deploy run?", now=shared.updated_at)
        assert shared.id in [claim.memory_id for claim in found.claims]


def test_version_10_usage_gains_its_cost_and_members_may_count_theirs(pg_url: str, home: Path) -> None:
    """A version-10 team store: usage keeps its numbers and gains a cost; a member added
    before the migration may still count their own calls, now with their cost (version 11
    grants members the new columns: a member's UPDATE is column by column)."""
    from cli.commands.team_cmd import member_url
    from memory_core.jobs.budget import count_call, count_tokens, usage_on
    from memory_core.store.engines.backend import POSTGRESQL, Backend
    from memory_core.store.schema.team import add_member, remove_member

    today = 1_700_000_000.0
    name, password = "dora_" + os.urandom(4).hex(), "p" + os.urandom(12).hex()
    conn = connect()
    try:
        migrations.build_schema(conn, 10)
        with conn.write_transaction():
            conn.execute(
                "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) "
                "VALUES ('2023-11-14', 3, 1200, 300)"
            )
            add_member(conn, name, password)
        (login,) = conn.execute("SELECT current_user").fetchone()
    finally:
        conn.close()
    try:
        with Store.open(home) as store:
            assert store.schema_version() == migrations.SCHEMA_VERSION == 11
            c = store.conn
            rows = c.execute(
                "SELECT owner, day, calls, prompt_tokens, completion_tokens, cost_usd, costed_calls FROM model_usage"
            )
            assert rows.fetchall() == [(login, "2023-11-14", 3, 1200, 300, 0.0, 0)]
            url = member_url(store.backend.url, name, password)
        with Store.open(home / name, Backend(POSTGRESQL, url, None)) as member:
            with member.transaction() as w:
                count_call(w, today)
                count_tokens(w, today, 100, 20, cost_usd=0.004)
            with member.transaction() as w:
                count_call(w, today)
                count_tokens(w, today, 100, 20, cost_usd=0.006)
            usage = usage_on(member.conn, today)
            assert (usage.calls, usage.tokens, usage.costed_calls) == (2, 240, 2)
            assert abs(usage.cost_usd - 0.01) < 1e-12
        with Store.open(home) as store:  # the administrator's own day is untouched
            usage = usage_on(store.conn, today)
            assert (usage.calls, usage.cost_usd) == (3, 0.0)
    finally:
        with Store.open(home) as store, store.transaction() as w:
            remove_member(w, name)
