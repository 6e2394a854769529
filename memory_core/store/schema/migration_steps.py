"""The numbered steps of the schema, each what one version adds (memory_core.store.schema.migrations
runs them: refusals, backups, one transaction per step). Their DDL is written once for
SQLite and adapted by memory_core.store.engines.dialect; a step that must differ says so. A step's
text stays as it was when that version was released: a store at any older version takes
the same path to the current one.
"""

from __future__ import annotations

from collections.abc import Callable

from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import JSON_FUNCTION, run_script
from memory_core.store.schema.index_migrations import MIGRATION_3, migrate_4, migrate_8

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

# Version 5: owners and scopes (memory_core.store.schema.owners). Every claim, source and history
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
    run_script(conn, MIGRATION_5)
    from memory_core.store.schema.owners import backfill_scopes

    if is_postgres(conn):
        for table in OWNED_TABLES:
            conn.execute(f"ALTER TABLE {table} ALTER COLUMN owner SET DEFAULT current_user")
            conn.execute(f"UPDATE {table} SET owner = current_user WHERE owner = ''")
    backfill_scopes(conn)


# Version 6: whether a history event is shared with the team (every claim it holds is
# shared) or personal, so the database can keep another member's personal history from a
# member's login (memory_core.store.schema.team); existing events get the scope their claims give.
MIGRATION_6 = """
ALTER TABLE events ADD COLUMN scope TEXT NOT NULL DEFAULT 'personal'
"""


def _migrate_6(conn: DbConn) -> None:
    run_script(conn, MIGRATION_6)
    from memory_core.store.schema.owners import backfill_event_scopes

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
        run_script(conn, MIGRATION_7_SQLITE)
        return
    run_script(conn, MIGRATION_7_POSTGRES)
    _replace_primary_key(conn, "model_usage", "owner, day")


# Version 9: a block of forgotten or superseded content has an owner and a scope
# (memory_core.store.tables.suppression): a personal claim's block holds for its owner only, a
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
        run_script(conn, MIGRATION_9_SQLITE)
        return
    run_script(conn, MIGRATION_9_POSTGRES)
    _replace_primary_key(conn, "blocked_hashes", "origin, content_hash, owner")
    from memory_core.store.schema.policies import enable_row_security, row_security_on

    if row_security_on(conn):
        enable_row_security(conn)


# Version 10: on a store with members, the policies made anew with the rules that cover the
# rest of the store (memory_core.store.schema.policies: metadata, origin generations, feedback
# receipts, the index's version row). No table or row changes.
def _migrate_10(conn: DbConn) -> None:
    if is_postgres(conn):
        from memory_core.store.schema.policies import enable_row_security, row_security_on

        if row_security_on(conn):
            enable_row_security(conn)


# Version 11: what a model call cost, where its provider reports it (an agent's CLI: Claude
# Code's ``total_cost_usd``, Pi's ``usage.cost.total``), per owner and day beside the calls
# and tokens (memory_core.jobs.budget), with the number of calls that reported one, so a
# day's total says how much of it is known. A team member's login may update only the
# columns it was granted when it was added (memory_core.store.schema.team), so each member is
# granted the new ones; row-level security is per row and needs no change.
MIGRATION_11 = """
ALTER TABLE model_usage ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE model_usage ADD COLUMN costed_calls INTEGER NOT NULL DEFAULT 0
"""
COST_COLUMNS = ("cost_usd", "costed_calls")


def _migrate_11(conn: DbConn) -> None:
    run_script(conn, MIGRATION_11)
    if not is_postgres(conn):
        return
    members = conn.execute(
        "SELECT DISTINCT grantee FROM information_schema.column_privileges "
        "WHERE table_schema = current_schema() AND table_name = 'model_usage' AND privilege_type = 'UPDATE' "
        "AND grantee <> current_user"
    ).fetchall()
    columns = ", ".join(f'"{column}"' for column in COST_COLUMNS)
    for (member,) in members:
        name = '"' + str(member).replace('"', '""') + '"'
        conn.execute(f"GRANT UPDATE ({columns}) ON model_usage TO {name}")


def _replace_primary_key(conn: DbConn, table: str, columns: str) -> None:
    """PostgreSQL: give ``table`` the primary key ``columns`` in place (which keeps members'
    grants and policies; SQLite rebuilds such a table instead)."""
    (key,) = conn.execute(
        f"SELECT conname FROM pg_constraint WHERE conrelid = '{table}'::regclass AND contype = 'p'"
    ).fetchone()
    conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{key}"')
    conn.execute(f"ALTER TABLE {table} ADD PRIMARY KEY ({columns})")


def _migrate_1(conn: DbConn) -> None:
    run_script(conn, MIGRATION_1)
    if is_postgres(conn):
        conn.execute(JSON_FUNCTION)


MIGRATIONS: dict[int, Callable[[DbConn], None]] = {
    1: _migrate_1,
    2: lambda conn: run_script(conn, MIGRATION_2),
    3: lambda conn: run_script(conn, MIGRATION_3),
    4: migrate_4,
    5: _migrate_5,
    6: _migrate_6,
    7: _migrate_7,
    8: migrate_8,
    9: _migrate_9,
    10: _migrate_10,
    11: _migrate_11,
}
