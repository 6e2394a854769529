"""Origin generations: a counter per origin that manual changes bump.

A job records its origin's generation when it is claimed; model output is applied only if
the generation is unchanged, so a person's forget/correct/feedback made while the model
was thinking is never overwritten by a stale answer.

A project's counter is the team's (a teammate's correction refuses everyone's older answer);
a directory outside a repository is one person's, so on a team store its counter is kept
under that person's key (``PATH@LOGIN``, memory_core.store.schema.owners.person_key) and no one
else reads its name.
"""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import is_repository_origin, person_key
from memory_core.store.tables.origin_aliases import project_origins


def _key(conn: DbConn, origin: str) -> str:
    return origin if is_repository_origin(origin) else person_key(conn, origin)


def current_generation(conn: DbConn, origin: str) -> int:
    row = conn.execute("SELECT generation FROM origin_generations WHERE origin=?", (_key(conn, origin),)).fetchone()
    return 0 if row is None else int(row[0])


def bump_generation(conn: DbConn, origin: str) -> int:
    """Invalidate in-flight model output for ``origin``'s project, its aliases included
    (memory_core.store.tables.origin_aliases; call inside the changing transaction)."""
    for member in project_origins(conn, origin):
        conn.execute(
            "INSERT INTO origin_generations (origin, generation) VALUES (?, 1) "
            "ON CONFLICT(origin) DO UPDATE SET generation = origin_generations.generation + 1",
            (_key(conn, member),),
        )
    return current_generation(conn, origin)
