"""Path origins that now belong to a project: old claims found from the new identity.

Before projects were repositories (memory_core.project), a capture's origin was the
real path of its working directory. Those claims keep their origins and ids; instead, when a
capture resolves a project, each path origin of its directory, the parents up to the
checkout's root and the main worktree's root that holds claims is recorded as an alias of
the project in ``metadata`` (key ``origin_alias:PATH``, value the project). Targeting,
replacement and listing by project then read the project's origins as one group. A path
captured again under another project (a remote added later, a ``project`` setting) moves
its alias to that project. On a team store each member's aliases are their own
(``origin_alias@LOGIN:PATH``, memory_core.store.schema.owners.person_key): a path is one person's
directory, and its claims are that person's. Standard library only: the turn-end hook
records aliases.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_core.store.engines.dbapi import DbConn, is_postgres

PREFIX = "origin_alias:"
MAX_GROUP = 200  # aliases read for one project


def _prefix(conn: DbConn) -> str:
    """The current person's alias key prefix (``origin_alias:`` for the store's owner)."""
    if not is_postgres(conn):  # one person: no import for the capture hook
        return PREFIX
    from memory_core.store.schema.owners import person_key

    return person_key(conn, PREFIX[:-1]) + ":"


def adopt_path_origins(conn: DbConn, project: str, paths: Sequence[str]) -> list[str]:
    """Record each of ``paths`` that is a claim origin (other than ``project``) as an alias of
    ``project``; the paths newly recorded or moved. One indexed lookup per path."""
    adopted: list[str] = []
    prefix = _prefix(conn)
    mine: str = ""
    params: tuple[str, ...] = ()
    if is_postgres(conn):  # only claims this person may see make an alias of theirs
        from memory_core.store.schema.owners import visible_clause

        mine, params = visible_clause(conn)
    for path in paths:
        if path == project:
            continue
        if conn.execute(f"SELECT 1 FROM memories WHERE origin = ?{mine} LIMIT 1", (path, *params)).fetchone() is None:
            continue
        row = conn.execute("SELECT value FROM metadata WHERE key = ?", (prefix + path,)).fetchone()
        if row is not None and row[0] == project:
            continue
        conn.execute(
            "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (prefix + path, project),
        )
        adopted.append(path)
    return adopted


def project_of_origin(conn: DbConn, origin: str) -> str:
    """The project an origin belongs to: the one it is an alias of, else itself."""
    row = conn.execute("SELECT value FROM metadata WHERE key = ?", (_prefix(conn) + origin,)).fetchone()
    return str(row[0]) if row is not None else origin


def project_origins(conn: DbConn, origin: str) -> tuple[str, ...]:
    """Every origin of ``origin``'s project: the project first, then its aliases in order."""
    project = project_of_origin(conn, origin)
    prefix = _prefix(conn)
    # Keys are compared by code point on both engines (TEXT is COLLATE "C" on PostgreSQL).
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    aliases = [
        str(key)[len(prefix) :]
        for (key,) in conn.execute(
            "SELECT key FROM metadata WHERE key >= ? AND key < ? AND value = ? ORDER BY key LIMIT ?",
            (prefix, end, project, MAX_GROUP),
        )
    ]
    return (project, *(a for a in aliases if a != project))


def same_project(conn: DbConn, first: str, second: str) -> bool:
    """Whether two origins are one project (equal, or one an alias in the other's group)."""
    return first == second or project_of_origin(conn, first) == project_of_origin(conn, second)
