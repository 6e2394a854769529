"""Migration from the pre-release layout, refusal of unknown versions, backups."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from memory_core.errors import SchemaVersionError
from memory_core.store.engines.database import Store
from memory_core.store.schema.migrations import SCHEMA_VERSION
from tests.factories import make_memory
from tests.support.processes import memevo_process

# The pre-release layout, written out here independently of the migration code.
V0_LAYOUT = """
CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE memories (id TEXT PRIMARY KEY, origin TEXT NOT NULL, kind TEXT NOT NULL,
    status TEXT NOT NULL, content_hash TEXT NOT NULL, updated_at REAL NOT NULL,
    body TEXT NOT NULL);
CREATE TABLE sources (id TEXT PRIMARY KEY, origin TEXT NOT NULL, source_type TEXT NOT NULL,
    dedupe_key TEXT NOT NULL UNIQUE, created_at REAL NOT NULL, body TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL,
    actor TEXT NOT NULL, operation TEXT NOT NULL, reason TEXT, source_id TEXT,
    body TEXT NOT NULL);
INSERT INTO metadata VALUES ('schema_version', '0');
"""

# SQLite files of older layouts; PostgreSQL migrations: test_migrations_postgres.py
pytestmark = pytest.mark.sqlite_only


def build_v0(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    conn = sqlite3.connect(path)
    conn.executescript(V0_LAYOUT)
    for i, text in enumerate(["Uses port 5432 for PostgreSQL", "偏好使用中文回答", "Deploys on Fridays"]):
        m = make_memory(text, at=1_600_000_000.0 + i)
        # Key order and spacing as an older writer left them: must survive untouched.
        body = json.dumps(m.model_dump(mode="json"), indent=1, ensure_ascii=True)
        conn.execute(
            "INSERT INTO memories VALUES (?,?,?,?,?,?,?)",
            (m.id, m.origin, m.kind, m.status, m.content_hash, m.updated_at, body),
        )
        conn.execute(
            "INSERT INTO events (at, actor, operation, reason, source_id, body) VALUES (?,?,?,?,?,?)",
            (
                m.created_at,
                "local",
                "add",
                "pre-release",
                m.source_id,
                json.dumps({"before": [], "after": [m.model_dump(mode="json")], "details": {}}),
            ),
        )
    conn.execute(
        "INSERT INTO sources VALUES (?,?,?,?,?,?)",
        (
            "a" * 24,
            "/work/app",
            "summary",
            "k1",
            1_600_000_000.0,
            json.dumps({"text": "old summary", "agent": "generic", "session_id": None, "target_ids": []}),
        ),
    )
    conn.commit()
    conn.close()


def snapshot(path: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    try:
        return {
            "memories": conn.execute("SELECT id, body FROM memories ORDER BY id").fetchall(),
            "events": conn.execute(
                "SELECT id, at, actor, operation, reason, source_id, body FROM events ORDER BY id"
            ).fetchall(),
            "sources": conn.execute(
                "SELECT id, origin, source_type, dedupe_key, created_at, body FROM sources"
            ).fetchall(),
        }
    finally:
        conn.close()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def back_to_version_10(conn: sqlite3.Connection) -> None:
    """Undo what version 11 added: model usage without its cost."""
    for statement in (
        "ALTER TABLE model_usage DROP COLUMN cost_usd",
        "ALTER TABLE model_usage DROP COLUMN costed_calls",
        "UPDATE metadata SET value='10' WHERE key='schema_version'",
    ):
        conn.execute(statement)


def back_to_version_8(conn: sqlite3.Connection) -> None:
    """Undo what versions 9 to 11 added: blocks without owner or scope, keyed by origin and
    content (the index tables keep their parts: version 8 makes them anew whatever they hold)."""
    back_to_version_10(conn)
    for statement in (
        "CREATE TABLE blocked_hashes_v8 (origin TEXT NOT NULL, content_hash TEXT NOT NULL, "
        "created_at REAL NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (origin, content_hash)) WITHOUT ROWID",
        "INSERT INTO blocked_hashes_v8 SELECT origin, content_hash, MIN(created_at), MIN(reason) "
        "FROM blocked_hashes GROUP BY origin, content_hash",
        "DROP TABLE blocked_hashes",
        "ALTER TABLE blocked_hashes_v8 RENAME TO blocked_hashes",
        "UPDATE metadata SET value='8' WHERE key='schema_version'",
    ):
        conn.execute(statement)


def back_to_version_6(conn: sqlite3.Connection) -> None:
    """Undo what versions 7 to 9 added: model usage keyed by day alone, every owner's summed."""
    back_to_version_8(conn)
    for statement in (
        "CREATE TABLE model_usage_v6 (day TEXT PRIMARY KEY, calls INTEGER NOT NULL, "
        "prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL)",
        "INSERT INTO model_usage_v6 SELECT day, SUM(calls), SUM(prompt_tokens), SUM(completion_tokens) "
        "FROM model_usage GROUP BY day",
        "DROP TABLE model_usage",
        "ALTER TABLE model_usage_v6 RENAME TO model_usage",
        "UPDATE metadata SET value='6' WHERE key='schema_version'",
    ):
        conn.execute(statement)


def back_to_version_5(conn: sqlite3.Connection) -> None:
    """Undo what versions 6 and 7 added: no event scopes, usage keyed by day."""
    back_to_version_6(conn)
    conn.execute("ALTER TABLE events DROP COLUMN scope")
    conn.execute("UPDATE metadata SET value='5' WHERE key='schema_version'")


def back_to_version_4(conn: sqlite3.Connection) -> None:
    """Undo what versions 5 to 7 added: no owners, no scopes."""
    back_to_version_5(conn)
    for statement in (
        "DROP INDEX memories_owner",
        "ALTER TABLE memories DROP COLUMN owner",
        "ALTER TABLE memories DROP COLUMN scope",
        "ALTER TABLE sources DROP COLUMN owner",
        "ALTER TABLE events DROP COLUMN owner",
        "UPDATE metadata SET value='4' WHERE key='schema_version'",
    ):
        conn.execute(statement)


# What versions 5 and 6 append to each row: memories (owner, scope), sources (owner),
# events (owner, scope).
V5_COLUMNS = {"memories": 2, "sources": 1, "events": 2}


def without_v5(table: str, rows: list[tuple]) -> list[tuple]:
    cut = V5_COLUMNS.get(table, 0)
    return sorted(row[:-cut] for row in rows) if cut else rows


def back_to_version_3(conn: sqlite3.Connection) -> None:
    """Undo what versions 4 and 5 added: no bodies, index_docs without body and grade."""
    back_to_version_4(conn)
    for statement in (
        "DROP INDEX index_docs_rank",
        "DROP INDEX index_docs_origin",
        "DROP INDEX index_docs_body",
        "ALTER TABLE index_docs DROP COLUMN body",
        "ALTER TABLE index_docs DROP COLUMN grade",
        "DROP TABLE bodies",
        "DROP TABLE body_postings",
        "UPDATE metadata SET value='3' WHERE key='schema_version'",
    ):
        conn.execute(statement)


def test_pre_release_layout_migrates_without_rewriting_rows(home: Path) -> None:
    db = home / "memory.db"
    build_v0(db)
    before = snapshot(db)
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None
        backup = store.backup_path
        job = store.conn.execute(
            "SELECT state, attempt, consecutive_failures, next_due_at, last_error_reason, forced_at FROM sources"
        ).fetchone()
        assert job == ("pending", 0, 0, 0, None, None)
    after = snapshot(db)
    assert after == before  # ids, JSON bodies and history byte-for-byte
    assert backup.parent == home / "backups"
    assert oct(backup.stat().st_mode & 0o777) == "0o600"
    copy = sqlite3.connect(backup)
    assert copy.execute("SELECT value FROM metadata WHERE key='schema_version'").fetchone() == ("0",)
    assert copy.execute("SELECT COUNT(*) FROM memories").fetchone() == (3,)
    copy.close()
    # The migrated records validate: status reports a healthy database.
    result = memevo_process("status", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["ok"] is True


def test_the_schema_version_is_the_newest_step() -> None:
    from memory_core.store.schema.migration_steps import MIGRATIONS

    assert sorted(MIGRATIONS) == list(range(1, SCHEMA_VERSION + 1))


def test_fresh_database_makes_no_backup(home: Path) -> None:
    with Store.open(home) as store:
        assert store.backup_path is None
    assert not (home / "backups").exists() or not any((home / "backups").iterdir())


def test_newer_version_is_refused_before_any_change(home: Path) -> None:
    with Store.open(home) as store:
        store.set_meta("schema_version", str(SCHEMA_VERSION + 1))
    db = home / "memory.db"
    digest = file_digest(db)
    with pytest.raises(SchemaVersionError, match=f"supports up to {SCHEMA_VERSION}"):
        Store.open(home)
    assert file_digest(db) == digest
    result = memevo_process("status")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert f"schema version {SCHEMA_VERSION + 1}" in result.stderr and "Traceback" not in result.stderr
    assert file_digest(db) == digest


def test_rollback_journal_database_refused_untouched(home: Path) -> None:
    """Even a database not in WAL mode is not converted before the version check."""
    db = home / "memory.db"
    build_v0(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE metadata SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    digest = file_digest(db)
    with pytest.raises(SchemaVersionError):
        Store.open(home)
    assert file_digest(db) == digest


def test_unknown_layout_is_refused(home: Path) -> None:
    home.mkdir(parents=True)
    conn = sqlite3.connect(home / "memory.db")
    conn.execute("CREATE TABLE something_else (x)")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaVersionError, match="no schema marker"):
        Store.open(home)


def test_version_1_gains_the_failure_reason_and_forced_request_columns(home: Path) -> None:
    from memory_core.store.schema.migration_steps import MIGRATION_1
    from memory_core.store.tables.sources import get_source

    db = home / "memory.db"
    build_v0(db)
    conn = sqlite3.connect(db)
    for statement in MIGRATION_1.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("UPDATE metadata SET value='1' WHERE key='schema_version'")
    conn.execute("UPDATE sources SET consecutive_failures=2, last_error_code='invalid_output', last_failure_at=1.6e9")
    conn.commit()
    conn.close()
    before = snapshot(db)
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v1-")
        source = get_source(store.conn, "a" * 24)
        assert source is not None
        assert (source.consecutive_failures, source.last_error_code, source.last_error_reason, source.forced_at) == (
            2,
            "invalid_output",
            None,
            None,
        )
    assert snapshot(db) == before


def table_rows(conn: sqlite3.Connection, table: str, *, recency: bool = True) -> list[tuple]:
    """A table's rows, sorted; the index tables in the columns every version since 2 has
    (version 8 made them anew, the part among the key columns)."""
    from memory_core.store.tables.postings import DOC_COLUMNS

    columns = {
        "postings": "feature, memory_id, field, tf" + (", recency" if recency else ""),
        "index_docs": DOC_COLUMNS,
    }
    return sorted(conn.execute(f"SELECT {columns.get(table, '*')} FROM {table}").fetchall())


def test_version_2_postings_gain_recency_and_its_index(home: Path) -> None:
    """A real version-2 file: every row is kept, each posting gets its claim's updated_at."""
    from memory_core.store.tables.memories import iter_memory_rows, memory_from_row, put_memory
    from memory_core.store.tables.postings import rebuild_index

    with Store.open(home) as store, store.transaction() as conn:
        for i, text in enumerate(["Uses port 5432 for PostgreSQL", "偏好使用中文回答", "Deploys on Fridays"]):
            put_memory(conn, make_memory(text, at=1_600_000_000.0 + i, search_terms=["db"]))
        put_memory(conn, make_memory("Forgotten claim", status="forgotten"))
    db = home / "memory.db"
    # Back to the version-2 layout: postings without recency or its index.
    conn = sqlite3.connect(db)
    back_to_version_3(conn)
    conn.execute("DROP INDEX postings_recent")
    conn.execute("ALTER TABLE postings DROP COLUMN recency")
    conn.execute("UPDATE metadata SET value='2' WHERE key='schema_version'")
    conn.commit()
    tables = ("memories", "sources", "events", "index_docs", "postings", "metadata")
    before = {t: table_rows(conn, t, recency=False) for t in tables}
    conn.close()
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v2-")
        c = store.conn
        after = {t: table_rows(c, t) for t in tables}
        assert after["metadata"] == [("schema_version", str(SCHEMA_VERSION))]
        for table in ("memories", "sources", "events"):
            assert without_v5(table, after[table]) == before[table]
        # index_docs keeps its rows (body, grade and part are read by other tests).
        assert after["index_docs"] == before["index_docs"]
        # The same postings, each with recency appended: updated_at of its claim, 0 on headers.
        updated = dict(c.execute("SELECT memory_id, updated_at FROM index_docs"))
        assert len(updated) == 3
        assert after["postings"] == sorted((*row, updated.get(row[1], 0.0)) for row in before["postings"])
        assert c.execute("SELECT COUNT(*) FROM postings WHERE memory_id > ''").fetchone()[0] > 0
        plan = c.execute(
            "EXPLAIN QUERY PLAN SELECT memory_id, field FROM postings INDEXED BY postings_recent "
            "WHERE feature='db' ORDER BY recency DESC, memory_id"
        ).fetchall()
        assert "USING COVERING INDEX postings_recent" in plan[-1][-1]
        assert not any("TEMP B-TREE" in row[-1] for row in plan)
        # What the migration filled in is what writing every claim again gives.
        with store.transaction() as w:
            rebuild_index(w, [memory_from_row(row) for row in list(iter_memory_rows(w))])
        assert table_rows(c, "postings") == after["postings"]


def test_version_3_claims_share_bodies_derived_from_their_postings(home: Path) -> None:
    """A real version-3 file: every row is kept, claims with the same indexed fields share a
    body, and what the migration derives is what writing every claim again gives."""
    from memory_core.store.tables.memories import iter_memory_rows, memory_from_row, put_memory
    from memory_core.store.tables.postings import rebuild_index

    with Store.open(home) as store, store.transaction() as conn:
        for i, origin in enumerate(["/work/a", "/work/b", "/work/c"]):
            put_memory(conn, make_memory("Uses port 5432 for PostgreSQL", origin=origin, at=1_600_000_000.0 + i))
        # The same words in another case: the same body, another content.
        put_memory(conn, make_memory("USES PORT 5432 FOR POSTGRESQL", origin="/work/a", at=1_600_000_005.0))
        put_memory(conn, make_memory("偏好使用中文回答", pinned=True, at=1_600_000_003.0))
        put_memory(conn, make_memory("Deploys on Fridays", search_terms=["release"], at=1_600_000_004.0))
        put_memory(conn, make_memory("Forgotten claim", status="forgotten"))
    db = home / "memory.db"
    conn = sqlite3.connect(db)
    back_to_version_3(conn)
    conn.commit()
    tables = ("memories", "sources", "events", "index_docs", "postings", "metadata")
    before = {t: table_rows(conn, t) for t in tables}
    conn.close()

    def bodies(c: sqlite3.Connection) -> tuple[list[tuple], list[tuple], list[tuple]]:
        return (
            sorted(c.execute("SELECT id, key, claims, feature_count FROM bodies").fetchall()),
            sorted(c.execute("SELECT * FROM body_postings").fetchall()),
            sorted(c.execute("SELECT memory_id, body, grade FROM index_docs").fetchall()),
        )

    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v3-")
        c = store.conn
        after = {t: table_rows(c, t) for t in tables}
        assert after["metadata"] == [("schema_version", str(SCHEMA_VERSION))]
        for table in ("memories", "sources", "events", "postings"):
            assert without_v5(table, after[table]) == before[table]
        assert after["index_docs"] == before["index_docs"]
        # Four claims of one body (three origins, two contents), two of their own.
        assert sorted(claims for _, _, claims, _ in bodies(c)[0]) == [1, 1, 4]
        assert c.execute("SELECT tf FROM body_postings WHERE feature='' AND body=0").fetchone() == (3,)
        assert c.execute("SELECT tf FROM body_postings WHERE feature='postgresql' AND body=0").fetchone() == (1,)
        grades = dict(c.execute("SELECT d.pinned, d.grade FROM index_docs d"))
        assert grades[1] >= 1_000_000 > grades[0]
        migrated = bodies(c)
        with store.transaction() as w:
            rebuild_index(w, [memory_from_row(row) for row in list(iter_memory_rows(w))])
        assert bodies(c) == migrated
        # Recall reads the bodies through their indexes.
        for statement, args in (
            (
                "SELECT kind, grade FROM index_docs INDEXED BY index_docs_rank WHERE body=? "
                "AND (kind, grade) > (?, ?) ORDER BY kind, grade LIMIT 1",
                (1, "", -1),
            ),
            (
                "SELECT memory_id FROM index_docs INDEXED BY index_docs_rank WHERE body=? AND kind=? AND grade=? "
                "ORDER BY clock_at DESC, memory_id LIMIT 4",
                (1, "fact", 100),
            ),
            (
                "SELECT memory_id FROM index_docs INDEXED BY index_docs_body WHERE body=? ORDER BY memory_id LIMIT 4",
                (1,),
            ),
        ):
            plan = c.execute("EXPLAIN QUERY PLAN " + statement, args).fetchall()
            assert not any("TEMP B-TREE" in row[-1] for row in plan), plan


def test_version_6_usage_is_keyed_by_owner_and_day_keeping_its_numbers(home: Path) -> None:
    """A real version-6 file with usage on two days: every number is kept, each row becomes
    the one owner's (``''``), and counting goes on in the same row."""
    from memory_core.jobs.budget import count_call, count_tokens, usage_on

    today, yesterday = 1_700_000_000.0, 1_700_000_000.0 - 86_400
    with Store.open(home) as store, store.transaction() as conn:
        for _ in range(3):
            count_call(conn, today)
        count_tokens(conn, today, 1_200, 300)
        count_call(conn, yesterday)
        count_tokens(conn, yesterday, 50, 7)
    db = home / "memory.db"
    conn = sqlite3.connect(db)
    back_to_version_6(conn)
    conn.commit()
    before = sorted(conn.execute("SELECT day, calls, prompt_tokens, completion_tokens FROM model_usage").fetchall())
    assert [name for _, name, *_ in conn.execute("PRAGMA table_info(model_usage)")][0] == "day"
    conn.close()
    assert len(before) == 2
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v6-")
        c = store.conn
        after = sorted(c.execute("SELECT owner, day, calls, prompt_tokens, completion_tokens FROM model_usage"))
        assert after == [("", *row) for row in before]
        keyed = sorted((row[5], row[1]) for row in c.execute("PRAGMA table_info(model_usage)") if row[5])
        assert [name for _, name in keyed] == ["owner", "day"]
        usage = usage_on(c, today)
        assert (usage.calls, usage.prompt_tokens, usage.completion_tokens) == (3, 1_200, 300)
        with store.transaction() as w:
            count_call(w, today)
        assert usage_on(c, today).calls == 4
        assert c.execute("SELECT COUNT(*) FROM model_usage").fetchone() == (2,)
    copy = sqlite3.connect(store.backup_path)
    try:
        assert sorted(copy.execute("SELECT * FROM model_usage").fetchall()) == before
    finally:
        copy.close()


def test_version_10_usage_gains_its_cost_keeping_its_numbers(home: Path) -> None:
    """A real version-10 file with usage: every number is kept, the cost starts at nothing
    known, and the next call counts its cost in the same row."""
    from memory_core.jobs.budget import count_call, count_tokens, usage_on

    today = 1_700_000_000.0
    with Store.open(home) as store, store.transaction() as conn:
        count_call(conn, today)
        count_tokens(conn, today, 1_200, 300)
    conn = sqlite3.connect(home / "memory.db")
    back_to_version_10(conn)
    conn.commit()
    before = conn.execute("SELECT owner, day, calls, prompt_tokens, completion_tokens FROM model_usage").fetchall()
    conn.close()
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION == 11
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v10-")
        c = store.conn
        assert c.execute("SELECT * FROM model_usage").fetchall() == [(*before[0], 0.0, 0)]
        usage = usage_on(c, today)
        assert (usage.calls, usage.tokens, usage.cost_usd, usage.costed_calls) == (1, 1_500, 0.0, 0)
        with store.transaction() as w:
            count_call(w, today)
            count_tokens(w, today, 100, 20, cost_usd=0.0125)
        usage = usage_on(c, today)
        assert (usage.calls, usage.tokens, usage.cost_usd, usage.costed_calls) == (2, 1_620, 0.0125, 1)
    copy = sqlite3.connect(store.backup_path)
    try:
        assert copy.execute("SELECT * FROM model_usage").fetchall() == before
    finally:
        copy.close()


def test_version_8_blocks_take_the_scope_of_their_claims(home: Path) -> None:
    """A real version-8 file: every block is kept, with the one owner (``''``) and the scope
    of the claim it came from; forgotten content stays forgotten."""
    from memory_core.controls.manual import forget
    from memory_core.store.tables.memories import put_memory
    from memory_core.store.tables.suppression import blocked_rows, is_blocked

    shared = make_memory("The deploy runs on Fridays", origin="github.com/acme/shop")
    personal = make_memory("Answer in French", origin="github.com/acme/shop", kind="preference")
    with Store.open(home) as store, store.transaction() as conn:
        put_memory(conn, shared)
        put_memory(conn, personal)
        forget(conn, shared.id, 1_700_000_100.0)
        forget(conn, personal.id, 1_700_000_200.0)
    db = home / "memory.db"
    conn = sqlite3.connect(db)
    back_to_version_8(conn)
    conn.commit()
    before = sorted(conn.execute("SELECT * FROM blocked_hashes").fetchall())
    conn.close()
    assert len(before) == 2
    with Store.open(home) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v8-")
        c = store.conn
        after = sorted(c.execute("SELECT origin, content_hash, created_at, reason, owner, scope FROM blocked_hashes"))
        scopes = {shared.content_hash: "shared", personal.content_hash: "personal"}
        assert after == sorted((*row, "", scopes[row[1]]) for row in before)
        keyed = sorted((row[5], row[1]) for row in c.execute("PRAGMA table_info(blocked_hashes)") if row[5])
        assert [name for _, name in keyed] == ["origin", "content_hash", "owner"]
        assert is_blocked(c, shared.origin, shared.content_hash) and is_blocked(
            c, personal.origin, personal.content_hash
        )
        assert blocked_rows(c) == sorted(before)
        assert c.execute("PRAGMA quick_check").fetchall() == [("ok",)]


BACKUP_AT_ONCE = """
import sqlite3, sys, time
from pathlib import Path
from memory_core.store.schema.migrations import backup_database
source, backups, start = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
conn = sqlite3.connect(source)
while time.time() < start:
    pass
print(backup_database(conn, backups, 3, 1_700_000_000.0).name)
"""


def test_processes_backing_up_at_the_same_second_each_get_a_file(tmp_path: Path) -> None:
    # Processes opening an older store at once each back it up before migrating, all
    # named after the same second: each must claim a file of its own (two copying into one
    # failed with "database is locked", and the capture that had opened the store with it).
    import subprocess
    import sys
    import time

    from tests.support.processes import REPO

    source = tmp_path / "source.db"
    conn = sqlite3.connect(source)
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [(f"row {i} " * 50,) for i in range(4000)])
    conn.commit()
    conn.close()
    backups = tmp_path / "backups"
    start = time.time() + 1.5
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", BACKUP_AT_ONCE, str(source), str(backups), str(start)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    names = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        names.append(out.strip())
    assert len(set(names)) == 6
    for name in names:
        copy = sqlite3.connect(backups / name)
        assert copy.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 4000
        copy.close()
        assert (backups / name).stat().st_mode & 0o777 == 0o600


def test_a_failed_backup_leaves_no_file_to_be_taken_for_one(tmp_path: Path, monkeypatch) -> None:
    from memory_core.store.safekeeping import backups
    from memory_core.store.schema.migrations import backup_database

    source = sqlite3.connect(tmp_path / "source.db")
    source.execute("CREATE TABLE t (x TEXT)")

    def failing(conn, target):  # the copy fails after its file was claimed
        target.write_bytes(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(backups, "copy_into", failing)
    with pytest.raises(OSError, match="disk full"):
        backup_database(source, tmp_path / "backups", 3, 1_700_000_000.0)
    source.close()
    assert list((tmp_path / "backups").iterdir()) == []
