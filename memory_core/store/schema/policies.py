"""The row-level security of a team store: what a member's own login may read and write.

The administrator owns the tables and is not bound (PostgreSQL's rule without ``FORCE``);
memevo's own queries filter for them (memory_core.store.schema.owners). A member's login may:

* sources: only their own;
* claims, history, blocks: read the shared ones and their own, write as themselves
  (claims: change shared ones and their own, never into another's personal one);
* the recall index (memory_core.store.tables.postings, parts): the shared part and their own, but
  not the index's version row, which only the administrator writes;
* model usage: their own;
* feedback receipts: those of claims they may see;
* origin generations: a project's (the team's), and their own directories' (keyed
  ``PATH@LOGIN``, memory_core.store.tables.generations), never another's directory;
* metadata: the schema marker (read), and the keys each person keeps for themselves
  (``KEY@LOGIN`` or ``KEY@LOGIN:…``, memory_core.store.schema.owners.person_key), nothing else;
* the queue: the rows of their own queue (``memevo@LOGIN``, workers.app).

Policies are made anew whenever they are turned on (a member added, a migration of a store
with members), all in the administrator's transaction, so a changed rule replaces the old.
"""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.postings import SHARED_PART

_SHARED_OR_OWN = "scope = 'shared' OR owner = current_user"
_PARTS = f"part IN ('{SHARED_PART}', current_user)"
_NOT_VERSION = f"{_PARTS} AND field <> 'version'"
# A key of the current login's own (person_key): ``KEY@LOGIN`` or ``KEY@LOGIN:…``.
_OWN_KEY = "(right(key, length(current_user) + 1) = '@' || current_user OR strpos(key, '@' || current_user || ':') > 0)"
# An origin naming a directory, not a project (memory_core.store.schema.owners.is_repository_origin).
_PATH_ORIGIN = (
    "(btrim(origin) IN ('', 'unknown', 'legacy') OR left(btrim(origin), 1) IN ('/', '~', '\\') "
    "OR btrim(origin) ~ '^[A-Za-z]:[/\\\\]')"
)
_GENERATION = f"(NOT {_PATH_ORIGIN} OR right(origin, length(current_user) + 1) = '@' || current_user)"
_VISIBLE_CLAIM = "EXISTS (SELECT 1 FROM memories m WHERE m.id = feedback_receipts.memory_id)"

POLICIES = {
    "memevo_own_sources": "ON sources FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user)",
    "memevo_claims_read": f"ON memories FOR SELECT USING ({_SHARED_OR_OWN})",
    "memevo_claims_insert": "ON memories FOR INSERT WITH CHECK (owner = current_user)",
    "memevo_claims_update": f"ON memories FOR UPDATE USING ({_SHARED_OR_OWN}) WITH CHECK ({_SHARED_OR_OWN})",
    "memevo_claims_delete": f"ON memories FOR DELETE USING ({_SHARED_OR_OWN})",
    "memevo_events_read": f"ON events FOR SELECT USING ({_SHARED_OR_OWN})",
    "memevo_events_insert": "ON events FOR INSERT WITH CHECK (owner = current_user)",
    "memevo_blocks_read": f"ON blocked_hashes FOR SELECT USING ({_SHARED_OR_OWN})",
    "memevo_blocks_insert": "ON blocked_hashes FOR INSERT WITH CHECK (owner = current_user)",
    "memevo_own_usage": "ON model_usage FOR ALL USING (owner = current_user) WITH CHECK (owner = current_user)",
    "memevo_receipts": f"ON feedback_receipts FOR ALL USING ({_VISIBLE_CLAIM}) WITH CHECK ({_VISIBLE_CLAIM})",
    "memevo_generations": f"ON origin_generations FOR ALL USING ({_GENERATION}) WITH CHECK ({_GENERATION})",
    "memevo_meta_read": f"ON metadata FOR SELECT USING (key = 'schema_version' OR {_OWN_KEY})",
    "memevo_meta_insert": f"ON metadata FOR INSERT WITH CHECK ({_OWN_KEY})",
    "memevo_meta_update": f"ON metadata FOR UPDATE USING ({_OWN_KEY}) WITH CHECK ({_OWN_KEY})",
    "memevo_meta_delete": f"ON metadata FOR DELETE USING ({_OWN_KEY})",
    "memevo_postings_read": f"ON postings FOR SELECT USING ({_PARTS})",
    "memevo_postings_insert": f"ON postings FOR INSERT WITH CHECK ({_NOT_VERSION})",
    "memevo_postings_update": f"ON postings FOR UPDATE USING ({_NOT_VERSION}) WITH CHECK ({_NOT_VERSION})",
    "memevo_postings_delete": f"ON postings FOR DELETE USING ({_NOT_VERSION})",
}
POLICIES.update(
    {
        f"memevo_index_{table}": f"ON {table} FOR ALL USING ({_PARTS}) WITH CHECK ({_PARTS})"
        for table in ("index_docs", "bodies", "body_postings")
    }
)
ROW_SECURITY_TABLES = (
    "sources",
    "memories",
    "events",
    "blocked_hashes",
    "model_usage",
    "feedback_receipts",
    "origin_generations",
    "metadata",
    "postings",
    "index_docs",
    "bodies",
    "body_postings",
)


# huey's queue tables in the store's database (workers.app, PostgresHuey with the prefix
# ``memevo_huey``): each person's queue is ``memevo@LOGIN`` (workers.queue_names), and a
# member's login reads and writes only its own, so no one queues work, or code, for another
# person's worker. Made only where the tables exist (a queue elsewhere has none here).
QUEUE_TABLES = ("memevo_huey_task", "memevo_huey_schedule", "memevo_huey_kv", "memevo_huey_counter")
_OWN_QUEUE = "queue = 'memevo@' || current_user"


def row_security_on(conn: DbConn) -> bool:
    """Whether the policies were turned on (the store has or had members)."""
    row = conn.execute(
        "SELECT relrowsecurity FROM pg_class WHERE oid = to_regclass(current_schema() || '.memories')"
    ).fetchone()
    return bool(row and row[0])


def enable_row_security(conn: DbConn) -> None:
    """Turn on the policies of :data:`POLICIES`, made anew (call in the administrator's
    transaction), and make sure the index's version row exists: members may not write it."""
    from memory_core.store.schema.index_version import INDEX_VERSION

    present = conn.execute(
        "SELECT policyname, tablename FROM pg_policies WHERE schemaname = current_schema() "
        "AND policyname LIKE 'memevo\\_%'"
    ).fetchall()
    for name, table in present:
        conn.execute(f'DROP POLICY "{name}" ON "{table}"')
    for table in ROW_SECURITY_TABLES:
        conn.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
    for name, rule in POLICIES.items():
        conn.execute(f"CREATE POLICY {name} {rule}")
    for table in QUEUE_TABLES:
        if conn.execute("SELECT to_regclass(current_schema() || '.' || ?)", (table,)).fetchone()[0] is None:
            continue
        conn.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        conn.execute(
            f"CREATE POLICY memevo_queue_{table[len('memevo_huey_') :]} ON {table} FOR ALL "
            f"USING ({_OWN_QUEUE}) WITH CHECK ({_OWN_QUEUE})"
        )
    conn.execute(
        "INSERT INTO postings (feature, memory_id, field, part, tf) VALUES ('', '', 'version', ?, ?) "
        "ON CONFLICT DO NOTHING",
        (SHARED_PART, INDEX_VERSION),
    )
