"""Which parts of the recall index the current person reads.

The index keeps each claim's rows in a part (memory_core.store.tables.postings): ``'*'`` for the
team's shared claims, the owner's login for personal ones. On PostgreSQL a person reads the
shared part and their own (the store's owner also ``''``, rows copied from SQLite), so
another member's personal claims are left out before ranking, for the administrator too,
whom row-level security does not bind. On SQLite every part is the one owner's and nothing
is filtered.

Standard library only: the per-turn recall reads through :func:`part_filter`.
"""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.schema.owners import own_owners
from memory_core.store.tables.postings import SHARED_PART


def visible_parts(conn: DbConn) -> tuple[str, ...] | None:
    """The parts the current person reads, or ``None`` when they read every part (SQLite)."""
    return (SHARED_PART, *own_owners(conn)) if is_postgres(conn) else None


def part_filter(conn: DbConn, column: str = "part") -> tuple[str, tuple[str, ...]]:
    """SQL to AND into a query of an index table so it reads only the visible parts, with
    its parameters; empty on SQLite."""
    parts = visible_parts(conn)
    if parts is None:
        return "", ()
    return f" AND {column} IN ({','.join('?' * len(parts))})", parts
