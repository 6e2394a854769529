"""Numbered schema migrations, recorded in ``metadata``.

Opening a database migrates it: versions newer than this build, or layouts it cannot
identify, are refused before any DDL runs. An existing database is copied into ``backups/``
before its first migration step (SQLite's online backup API; on PostgreSQL a consistent
copy of memevo's tables into a SQLite file). Each migration runs inside one write
transaction (DDL is transactional on both engines); the steps are the same numbered steps
on both, their DDL written once for SQLite and adapted by memory_core.store.dialect.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from memory_core.errors import SchemaVersionError
from memory_core.store.connection import FILE_MODE, ensure_private_dir, write_transaction
from memory_core.store.dbapi import DbConn, is_postgres
from memory_core.store.dialect import JSON_FUNCTION, ddl, user_tables

SCHEMA_VERSION = 10
VERSION_KEY = "schema_version"

# The pre-release layout ("version 0"): the tables whose rows every later version keeps
# byte-for-byte. Migration 1 creates them when absent, so a fresh database and an
# upgraded one take the same path.
PRE_RELEASE_TABLES = """
CREATE TABLE IF NOT EXISTS metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    id TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    updated_at REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sources (
    id TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    source_type TEXT NOT NULL,
    dedupe_key TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    actor TEXT NOT NULL,
    operation TEXT NOT NULL,
    reason TEXT,
    source_id TEXT,
    body TEXT NOT NULL
);
"""

MIGRATION_1 = (
    PRE_RELEASE_TABLES
    + """
ALTER TABLE sources ADD COLUMN state TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE sources ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN next_due_at REAL NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN lease_owner TEXT;
ALTER TABLE sources ADD COLUMN lease_expires_at REAL;
ALTER TABLE sources ADD COLUMN last_error_code TEXT;
ALTER TABLE sources ADD COLUMN last_failure_at REAL;
ALTER TABLE sources ADD COLUMN origin_generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN completed_at REAL;
CREATE INDEX sources_due ON sources (state, next_due_at, created_at);
CREATE INDEX memories_updated ON memories (updated_at, id);
CREATE INDEX memories_origin ON memories (origin, updated_at);
CREATE INDEX memories_hash ON memories (origin, content_hash);
CREATE INDEX events_source ON events (source_id);
CREATE TABLE blocked_hashes (
    origin TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    reason TEXT NOT NULL,
    PRIMARY KEY (origin, content_hash)
) WITHOUT ROWID;
CREATE TABLE feedback_receipts (
    source_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    verdict TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (source_id, memory_id)
) WITHOUT ROWID;
CREATE TABLE postings (
    feature TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    field TEXT NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (feature, memory_id, field)
) WITHOUT ROWID;
CREATE INDEX postings_memory ON postings (memory_id);
CREATE TABLE index_docs (
    memory_id TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    updated_at REAL NOT NULL,
    clock_at REAL NOT NULL,
    pinned INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    basis TEXT,
    method TEXT,
    utility TEXT,
    accuracy TEXT,
    feature_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE origin_generations (
    origin TEXT PRIMARY KEY,
    generation INTEGER NOT NULL
);
CREATE TABLE model_usage (
    day TEXT PRIMARY KEY,
    calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL
);
"""
)

# Version 2: why the last attempt failed (an allowlisted reason code beside the error code),
# and whether a forced attempt (`memevo evolve`) is queued or running, so a second evolve
# reuses it instead of queueing another.
MIGRATION_2 = """
ALTER TABLE sources ADD COLUMN last_error_reason TEXT;
ALTER TABLE sources ADD COLUMN forced_at REAL;
"""

# Version 3: each posting carries its claim's ``updated_at`` (``recency``; 0 on header rows),
# written with the posting, so recall can read only the most recent claims of a very long
# posting list (memory_core.recall.candidates.MAX_LIST_CLAIMS) through the index.
MIGRATION_3 = """
ALTER TABLE postings ADD COLUMN recency REAL NOT NULL DEFAULT 0;
UPDATE postings SET recency = COALESCE(
    (SELECT d.updated_at FROM index_docs d WHERE d.memory_id = postings.memory_id), 0
) WHERE memory_id > '';
CREATE INDEX postings_recent ON postings (feature, recency DESC);
"""

# Version 4: claims with the same indexed fields share one body (``bodies``, ``body_postings``),
# named with the claim's grade in ``index_docs``, so recall scores repeated content once
# (memory_core.store.postings).
MIGRATION_4 = """
CREATE TABLE bodies (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    claims INTEGER NOT NULL,
    feature_count INTEGER NOT NULL
);
CREATE TABLE body_postings (
    feature TEXT NOT NULL,
    body INTEGER NOT NULL,
    field TEXT NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (feature, body, field)
) WITHOUT ROWID;
CREATE INDEX body_postings_body ON body_postings (body);
ALTER TABLE index_docs ADD COLUMN body INTEGER NOT NULL DEFAULT 0;
ALTER TABLE index_docs ADD COLUMN grade INTEGER NOT NULL DEFAULT 0;
CREATE INDEX index_docs_rank ON index_docs (body, kind, grade, clock_at DESC);
CREATE INDEX index_docs_origin ON index_docs (body, origin);
CREATE INDEX index_docs_body ON index_docs (body)
"""


def _migrate_4(conn: DbConn) -> None:
    # The bodies of the claims already indexed are derived by version 8, which rebuilds the
    # whole index (migrations run to the end in one open; a step that stopped is resumed).
    _run_script(conn, MIGRATION_4)


# Version 5: owners and scopes (memory_core.store.owners). Every claim, source and history
# event records the login that wrote it; a claim says whether the team shares it. On
# PostgreSQL the owner defaults to ``current_user`` (no client names it) and existing rows
# become the migrating login's; on SQLite it stays ``''``, the one owner. Existing claims
# get the scope the sharing rule gives them.
MIGRATION_5 = """
ALTER TABLE memories ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN scope TEXT NOT NULL DEFAULT 'personal';
ALTER TABLE sources ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX memories_owner ON memories (owner, scope)
"""
OWNED_TABLES = ("memories", "sources", "events")


def _migrate_5(conn: DbConn) -> None:
    _run_script(conn, MIGRATION_5)
    from memory_core.store.owners import backfill_scopes

    if is_postgres(conn):
        for table in OWNED_TABLES:
            conn.execute(f"ALTER TABLE {table} ALTER COLUMN owner SET DEFAULT current_user")
            conn.execute(f"UPDATE {table} SET owner = current_user WHERE owner = ''")
    backfill_scopes(conn)


# Version 6: whether a history event is shared with the team (every claim it holds is
# shared) or personal, so the database can keep another member's personal history from a
# member's login (memory_core.store.team); existing events get the scope their claims give.
MIGRATION_6 = """
ALTER TABLE events ADD COLUMN scope TEXT NOT NULL DEFAULT 'personal'
"""


def _migrate_6(conn: DbConn) -> None:
    _run_script(conn, MIGRATION_6)
    from memory_core.store.owners import backfill_event_scopes

    backfill_event_scopes(conn)


# Version 7: model usage per owner and day (memory_core.jobs.budget), so each member's
# worker spends and checks the budget of its own login, not one the whole team shares. On
# PostgreSQL the owner defaults to ``current_user`` and existing rows become the migrating
# login's, as in version 5; on SQLite it stays ``''``. SQLite cannot change a primary key
# in place, so its table is rebuilt; PostgreSQL alters it, which keeps members' grants.
MIGRATION_7_SQLITE = """
CREATE TABLE model_usage_v7 (
    owner TEXT NOT NULL DEFAULT '',
    day TEXT NOT NULL,
    calls INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    PRIMARY KEY (owner, day)
);
INSERT INTO model_usage_v7 (owner, day, calls, prompt_tokens, completion_tokens)
    SELECT '', day, calls, prompt_tokens, completion_tokens FROM model_usage;
DROP TABLE model_usage;
ALTER TABLE model_usage_v7 RENAME TO model_usage
"""
MIGRATION_7_POSTGRES = """
ALTER TABLE model_usage ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE model_usage ALTER COLUMN owner SET DEFAULT current_user;
UPDATE model_usage SET owner = current_user WHERE owner = ''
"""


def _migrate_7(conn: DbConn) -> None:
    if not is_postgres(conn):
        _run_script(conn, MIGRATION_7_SQLITE)
        return
    _run_script(conn, MIGRATION_7_POSTGRES)
    (key,) = conn.execute(
        "SELECT conname FROM pg_constraint WHERE conrelid = 'model_usage'::regclass AND contype = 'p'"
    ).fetchone()
    conn.execute(f'ALTER TABLE model_usage DROP CONSTRAINT "{key}"')
    conn.execute("ALTER TABLE model_usage ADD PRIMARY KEY (owner, day)")


# Version 8: every row of the recall index in a part, who may read it (``'*'`` for a shared
# claim, its owner for a personal one; memory_core.store.postings), the part in the keys of
# the header rows, so each part counts its own claims and bodies and the database can keep
# one member's words from another (memory_core.store.team). The four tables are made anew
# and the index rebuilt from the claims: a store that has members gets their policies on
# the new tables in the same transaction, and their grants from the default privileges.
# Key columns come first: SQLite 3.40's quick_check misreads a WITHOUT ROWID table whose key
# columns follow another column.
MIGRATION_8 = """
DROP TABLE body_postings;
DROP TABLE bodies;
DROP TABLE index_docs;
DROP TABLE postings;
CREATE TABLE postings (
    feature TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    field TEXT NOT NULL,
    part TEXT NOT NULL DEFAULT '',
    tf INTEGER NOT NULL,
    recency REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (feature, memory_id, field, part)
) WITHOUT ROWID;
CREATE INDEX postings_memory ON postings (memory_id);
CREATE INDEX postings_recent ON postings (feature, recency DESC);
CREATE TABLE index_docs (
    memory_id TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    updated_at REAL NOT NULL,
    clock_at REAL NOT NULL,
    pinned INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    basis TEXT,
    method TEXT,
    utility TEXT,
    accuracy TEXT,
    feature_count INTEGER NOT NULL,
    body INTEGER NOT NULL DEFAULT 0,
    grade INTEGER NOT NULL DEFAULT 0,
    part TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;
CREATE INDEX index_docs_rank ON index_docs (body, kind, grade, clock_at DESC);
CREATE INDEX index_docs_origin ON index_docs (body, origin);
CREATE INDEX index_docs_body ON index_docs (body);
CREATE TABLE bodies (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    claims INTEGER NOT NULL,
    feature_count INTEGER NOT NULL,
    part TEXT NOT NULL DEFAULT ''
);
CREATE TABLE body_postings (
    feature TEXT NOT NULL,
    body INTEGER NOT NULL,
    field TEXT NOT NULL,
    part TEXT NOT NULL DEFAULT '',
    tf INTEGER NOT NULL,
    PRIMARY KEY (feature, body, field, part)
) WITHOUT ROWID;
CREATE INDEX body_postings_body ON body_postings (body)
"""


def _migrate_8(conn: DbConn) -> None:
    _run_script(conn, MIGRATION_8)
    # Imported here: every store open reads this module, and only this step rebuilds.
    from memory_core.store.memories import iter_indexable_memories
    from memory_core.store.postings import rebuild_index

    if conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None:
        rebuild_index(conn, iter_indexable_memories(conn))  # an empty store's index stays empty
    if is_postgres(conn):
        from memory_core.store.policies import enable_row_security, row_security_on

        if row_security_on(conn):
            enable_row_security(conn)


# Version 9: a block of forgotten or superseded content has an owner and a scope
# (memory_core.store.suppression): a personal claim's block holds for its owner only, a
# shared claim's for everyone. An existing block takes the scope of a claim of that origin
# and content (shared if any such claim is shared) and, on PostgreSQL, the owner of such a
# claim (else the migrating login's); on SQLite the owner stays ``''``. The owner joins
# the key, so two people block the same content each for themselves.
MIGRATION_9_SQLITE = """
CREATE TABLE blocked_hashes_v9 (
    origin TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    reason TEXT NOT NULL,
    scope TEXT NOT NULL DEFAULT 'personal',
    PRIMARY KEY (origin, content_hash, owner)
) WITHOUT ROWID;
INSERT INTO blocked_hashes_v9 (origin, content_hash, owner, created_at, reason, scope)
    SELECT b.origin, b.content_hash, '', b.created_at, b.reason,
        CASE WHEN EXISTS (
            SELECT 1 FROM memories m WHERE m.origin = b.origin AND m.content_hash = b.content_hash
            AND m.scope = 'shared'
        ) THEN 'shared' ELSE 'personal' END
    FROM blocked_hashes b;
DROP TABLE blocked_hashes;
ALTER TABLE blocked_hashes_v9 RENAME TO blocked_hashes
"""
MIGRATION_9_POSTGRES = """
ALTER TABLE blocked_hashes ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE blocked_hashes ADD COLUMN scope TEXT NOT NULL DEFAULT 'personal';
ALTER TABLE blocked_hashes ALTER COLUMN owner SET DEFAULT current_user;
UPDATE blocked_hashes SET scope = 'shared' WHERE EXISTS (
    SELECT 1 FROM memories m WHERE m.origin = blocked_hashes.origin
    AND m.content_hash = blocked_hashes.content_hash AND m.scope = 'shared'
);
UPDATE blocked_hashes SET owner = COALESCE((
    SELECT MIN(m.owner) FROM memories m WHERE m.origin = blocked_hashes.origin
    AND m.content_hash = blocked_hashes.content_hash
), current_user)
"""


def _migrate_9(conn: DbConn) -> None:
    if not is_postgres(conn):
        _run_script(conn, MIGRATION_9_SQLITE)
        return
    _run_script(conn, MIGRATION_9_POSTGRES)
    (key,) = conn.execute(
        "SELECT conname FROM pg_constraint WHERE conrelid = 'blocked_hashes'::regclass AND contype = 'p'"
    ).fetchone()
    conn.execute(f'ALTER TABLE blocked_hashes DROP CONSTRAINT "{key}"')
    conn.execute("ALTER TABLE blocked_hashes ADD PRIMARY KEY (origin, content_hash, owner)")
    from memory_core.store.policies import enable_row_security, row_security_on

    if row_security_on(conn):
        enable_row_security(conn)


# Version 10: on a store with members, the policies made anew with the rules that cover the
# rest of the store (memory_core.store.policies: metadata, origin generations, feedback
# receipts, the index's version row). No table or row changes.
def _migrate_10(conn: DbConn) -> None:
    if is_postgres(conn):
        from memory_core.store.policies import enable_row_security, row_security_on

        if row_security_on(conn):
            enable_row_security(conn)


def _run_script(conn: DbConn, script: str) -> None:
    # executescript() would COMMIT first; run statement by statement inside our transaction,
    # each as the connection's engine needs it (memory_core.store.dialect.ddl).
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(ddl(conn, statement))


def _migrate_1(conn: DbConn) -> None:
    _run_script(conn, MIGRATION_1)
    if is_postgres(conn):
        conn.execute(JSON_FUNCTION)


MIGRATIONS: dict[int, Callable[[DbConn], None]] = {
    1: _migrate_1,
    2: lambda conn: _run_script(conn, MIGRATION_2),
    3: lambda conn: _run_script(conn, MIGRATION_3),
    4: _migrate_4,
    5: _migrate_5,
    6: _migrate_6,
    7: _migrate_7,
    8: _migrate_8,
    9: _migrate_9,
    10: _migrate_10,
}


def read_version(conn: DbConn) -> int | None:
    """The stored schema version; ``None`` for an empty database.

    Raises :class:`SchemaVersionError` for a layout this build cannot identify.
    """
    tables = user_tables(conn)
    if not tables:
        return None
    supported = f"this build supports schema versions 0-{SCHEMA_VERSION}"
    if "metadata" not in tables:
        raise SchemaVersionError(
            f"the memory database has no schema marker ({supported}); "
            "it was not written by memevo; move it aside or restore a backup"
        )
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (VERSION_KEY,)).fetchone()
    if row is None or not str(row[0]).isdigit():
        raise SchemaVersionError(
            f"the memory database has an unreadable schema marker {row[0] if row else None!r} "
            f"({supported}); restore a backup"
        )
    return int(row[0])


def check_supported(version: int | None) -> None:
    """Refuse a database newer than this build, before anything touches it."""
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the memory database is at schema version {version}, but this build supports "
            f"up to {SCHEMA_VERSION}; upgrade memevo (do not downgrade the marker)"
        )


def backup_database(conn: DbConn, backups_dir: Path, version: int, now: float) -> Path:
    """Copy the live database into ``backups_dir``; the copy is private (0600).

    SQLite: the online backup API. PostgreSQL: every memevo table read in one consistent
    snapshot into a SQLite file at the same schema version (memory_core.store.copying), which
    ``memevo migrate-to`` can load into an empty database again."""
    ensure_private_dir(backups_dir)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    target = backups_dir / f"memory-v{version}-{stamp}.db"
    n = 1
    while target.exists():
        n += 1
        target = backups_dir / f"memory-v{version}-{stamp}-{n}.db"
    target.touch(mode=FILE_MODE)
    if is_postgres(conn):
        from memory_core.store.copying import copy_to_sqlite

        copy_to_sqlite(conn, target, lambda new: build_schema(new, version))
        target.chmod(FILE_MODE)
        return target
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)  # type: ignore[attr-defined]
    finally:
        dest.close()
    target.chmod(FILE_MODE)
    return target


def migrate(conn: DbConn, backups_dir: Path, now: float) -> Path | None:
    """Bring the database to :data:`SCHEMA_VERSION`; returns the backup path if one was made
    (named after ``now``)."""
    version = read_version(conn)
    check_supported(version)
    if version == SCHEMA_VERSION:
        return None
    if is_postgres(conn):
        # Several machines may open a new or older store at once: one migrates (and backs up)
        # while the others wait, then find it current.
        with conn.migration_lock():  # type: ignore[attr-defined]
            return _migrate_steps(conn, backups_dir, now)
    return _migrate_steps(conn, backups_dir, now)


def _migrate_steps(conn: DbConn, backups_dir: Path, now: float) -> Path | None:
    version = read_version(conn)
    check_supported(version)
    if version == SCHEMA_VERSION:
        return None
    backup = None
    if version is not None:
        backup = backup_database(conn, backups_dir, version, now)
    current = version or 0
    for target in range(current + 1, SCHEMA_VERSION + 1):
        with write_transaction(conn):
            # Re-check inside the lock: another process may have migrated meanwhile.
            inside = read_version(conn)
            check_supported(inside)
            if inside is not None and inside >= target:
                continue
            MIGRATIONS[target](conn)
            set_version(conn, target)
    return backup


def build_schema(conn: DbConn, version: int = SCHEMA_VERSION) -> None:
    """Create an empty store at ``version`` on an empty database, one step per transaction."""
    for step in range(1, version + 1):
        with write_transaction(conn):
            MIGRATIONS[step](conn)
            set_version(conn, step)


def set_version(conn: DbConn, version: int) -> None:
    """Record ``version`` as the schema version (inside the migration's transaction)."""
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (VERSION_KEY, str(version)),
    )
