"""Origin generations: a counter per origin that manual changes bump.

A job records its origin's generation when it is claimed; model output is applied only if
the generation is unchanged, so a person's forget/correct/feedback made while the model
was thinking is never overwritten by a stale answer.
"""

from __future__ import annotations

from memory_core.store.dbapi import DbConn
from memory_core.store.origin_aliases import project_origins


def current_generation(conn: DbConn, origin: str) -> int:
    row = conn.execute("SELECT generation FROM origin_generations WHERE origin=?", (origin,)).fetchone()
    return 0 if row is None else int(row[0])


def bump_generation(conn: DbConn, origin: str) -> int:
    """Invalidate in-flight model output for ``origin``'s project, its aliases included
    (memory_core.store.origin_aliases; call inside the changing transaction)."""
    for member in project_origins(conn, origin):
        conn.execute(
            "INSERT INTO origin_generations (origin, generation) VALUES (?, 1) "
            "ON CONFLICT(origin) DO UPDATE SET generation = origin_generations.generation + 1",
            (member,),
        )
    return current_generation(conn, origin)
