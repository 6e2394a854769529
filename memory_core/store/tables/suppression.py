"""Suppression: content that was forgotten or superseded may not come back in its origin.

A block is an origin-qualified content hash. The same text in another origin can mean a
different fact, so blocks never cross origins. Nothing clears a block: undo restores
records, not the right of automatic learning to re-add their content.

On a team store a block has the scope of the claim it came from (schema 9): a shared
claim's block holds for everyone, a personal claim's only for its owner (the person whose
login wrote it), so one member forgetting their preference never stops another member's
identical preference from being learned, and no one reads another's personal blocks.
"""

from __future__ import annotations

from memory_core.errors import CorruptRecordError
from memory_core.ids import normalize_content
from memory_core.records import JobState, Memory
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import SOURCE_COLUMNS
from memory_core.store.schema.owners import PERSONAL, claim_scope, source_owner_clause, visible_clause
from memory_core.store.tables.blocked import is_blocked as is_blocked
from memory_core.store.tables.sources import source_from_row

# Queued sources that have not started (or that paused after failing) can still be
# retired; a leased source is mid-flight and is stopped by the origin generation instead.
RETIRABLE_STATES = (JobState.PENDING.value, JobState.PAUSED.value)


def block(conn: DbConn, origin: str, content_hash: str, at: float, reason: str, scope: str = PERSONAL) -> bool:
    """Block ``content_hash`` in ``origin`` with ``scope`` (the writer's own block); returns
    False if the writer had already blocked it.

    The first block keeps its time and reason, so history shows when suppression began.
    The owner is the database's, as for claims (memory_core.store.schema.owners).
    """
    cursor = conn.execute(
        "INSERT INTO blocked_hashes (origin, content_hash, created_at, reason, scope) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        (origin, content_hash, at, reason, scope),
    )
    return cursor.rowcount == 1


def block_claim(conn: DbConn, memory: Memory, at: float, reason: str) -> bool:
    """Block a claim's content in its origin, with the claim's scope."""
    scope = claim_scope(memory.kind, memory.origin, memory.content, memory.search_terms)
    return block(conn, memory.origin, memory.content_hash, at, reason, scope)


def blocked_rows(conn: DbConn) -> list[tuple[str, str, float, str]]:
    """Every block the current person may see as ``(origin, content_hash, created_at,
    reason)``, in a stable order (one row per content, the first block's time and reason)."""
    mine, params = visible_clause(conn)
    rows: dict[tuple[str, str], tuple[str, str, float, str]] = {}
    for o, h, t, r in conn.execute(
        f"SELECT origin, content_hash, created_at, reason FROM blocked_hashes WHERE 1 = 1{mine} "
        "ORDER BY origin, content_hash, created_at",
        params,
    ):
        rows.setdefault((str(o), str(h)), (str(o), str(h), float(t), str(r)))
    return list(rows.values())


def retire_repeating_sources(
    conn: DbConn,
    origin: str,
    contents: list[str],
    at: float,
    except_source_id: str | None = None,
) -> list[str]:
    """Retire the current person's queued sources of ``origin`` whose text repeats any of
    ``contents`` (another member's sources are theirs: a shared block keeps what they
    propose out anyway).

    A source that still contains suppressed text would hand it to the model (or to local
    extraction) again, so its whole pending pass is skipped. Texts are compared in
    normalized form (NFC, collapsed whitespace), the same form content hashes use.
    ``except_source_id`` spares the source whose own transaction is doing the blocking.
    A retired job records ``at`` as ``completed_at``: the time it stopped for good.
    Returns the retired source ids.
    """
    needles = [n for n in (normalize_content(c) for c in contents) if n]
    if not needles:
        return []
    placeholders = ", ".join("?" * len(RETIRABLE_STATES))
    own, owners = source_owner_clause(conn)  # one person's forget never stops another's work
    rows = conn.execute(
        f"SELECT {SOURCE_COLUMNS} FROM sources WHERE origin=? AND state IN ({placeholders}){own} "
        "ORDER BY created_at, id",
        (origin, *RETIRABLE_STATES, *owners),
    ).fetchall()
    retired: list[str] = []
    for row in rows:
        try:
            source = source_from_row(row)
        except CorruptRecordError:
            # `memevo status` reports the corrupt row; it must not stop a person's forget.
            continue
        if source.id == except_source_id:
            continue
        text = normalize_content(source.text)
        if any(needle in text for needle in needles):
            retired.append(source.id)
    for source_id in retired:
        conn.execute(
            "UPDATE sources SET state=?, completed_at=? WHERE id=?",
            (JobState.RETIRED.value, at, source_id),
        )
    return retired
