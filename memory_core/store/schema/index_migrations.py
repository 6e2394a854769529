"""The steps of the schema that lay out the recall index (memory_core.store.tables.postings):
version 3 (each posting's recency), 4 (bodies) and 8 (parts, who may read each row; the
tables made anew and the index rebuilt). memory_core.store.schema.migration_steps numbers them
with the rest.
"""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import run_script

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
# (memory_core.store.tables.postings).
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


def migrate_4(conn: DbConn) -> None:
    # The bodies of the claims already indexed are derived by version 8, which rebuilds the
    # whole index (migrations run to the end in one open; a step that stopped is resumed).
    run_script(conn, MIGRATION_4)


# Version 8: every row of the recall index in a part, who may read it (``'*'`` for a shared
# claim, its owner for a personal one; memory_core.store.tables.postings), the part in the keys of
# the header rows, so each part counts its own claims and bodies and the database can keep
# one member's words from another (memory_core.store.schema.team). The four tables are made anew
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


def migrate_8(conn: DbConn) -> None:
    run_script(conn, MIGRATION_8)
    # Imported here: every store open reads this module, and only this step rebuilds.
    from memory_core.store.tables.memories import iter_indexable_memories
    from memory_core.store.tables.postings import rebuild_index

    if conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None:
        rebuild_index(conn, iter_indexable_memories(conn))  # an empty store's index stays empty
    if is_postgres(conn):
        from memory_core.store.schema.policies import enable_row_security, row_security_on

        if row_security_on(conn):
            enable_row_security(conn)
