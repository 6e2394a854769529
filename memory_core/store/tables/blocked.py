"""Whether content may come back in a project: the read side of suppression, with the
standard library only, so capture checks a summary's labelled lines without loading the
record models (memory_core.store.tables.suppression writes the blocks)."""

from __future__ import annotations

from memory_core.store.schema.owners import visible_clause
from memory_core.store.tables.origin_aliases import project_origins

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.store.engines.dbapi import DbConn


def is_blocked(conn: DbConn, origin: str, content_hash: str) -> bool:
    """True if ``content_hash`` may not be added again in ``origin``'s project (content
    forgotten under an old path origin stays forgotten in the project it now belongs to,
    memory_core.store.tables.origin_aliases) by the current person: a shared block, or their own."""
    origins = project_origins(conn, origin)
    mine, params = visible_clause(conn)
    row = conn.execute(
        f"SELECT 1 FROM blocked_hashes WHERE origin IN ({','.join('?' * len(origins))}) AND content_hash=?{mine}",
        (*origins, content_hash, *params),
    ).fetchone()
    return row is not None
