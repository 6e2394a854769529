"""Claim ids in a team memory: a member's personal claim names its owner in its id.

A claim's id derives from its origin, kind and content, so the same claim learned twice is
one row. In a team memory that would make two members' identical personal claims (the same
preference "Answer in Chinese" in the same project) one row: the second writer's write would
land on the first one's row, keeping its owner, or be refused by row-level security. So a
personal claim (memory_core.store.schema.owners.claim_scope) written by a member, a login other
than the store's owner, derives its id from its owner too. Shared claims stay one row for
the whole team, and the store owner's claims (everything on SQLite and on a one-person
PostgreSQL store, and a team administrator's own) keep the ids they always had.

The rule is decided per writer (:func:`id_owner`, two small queries on PostgreSQL, none on
SQLite) and applied per claim (:func:`claim_id`, pure), so a batch asks the database once.
"""

from __future__ import annotations

from memory_core.ids import memory_id, owned_memory_id
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.schema.owners import PERSONAL, claim_scope, current_person, store_owner


def id_owner(conn: DbConn) -> str | None:
    """The login that personal claim ids written on ``conn`` include: the current person
    when they are a member of a team store; ``None`` for the store's owner and on SQLite."""
    if not is_postgres(conn):
        return None
    owner = store_owner(conn)
    person = current_person(conn)
    return None if owner is None or person == owner else person


def claim_id(owner: str | None, origin: str, kind: str, content: str) -> str:
    """The id of a claim written by ``owner`` (from :func:`id_owner`). ``content`` is the
    text as it will be stored, since its scope is decided on that text when it is written."""
    if owner is not None and claim_scope(kind, origin, content) == PERSONAL:
        return owned_memory_id(origin, kind, content, owner)
    return memory_id(origin, kind, content)


def claim_id_on(conn: DbConn, origin: str, kind: str, content: str) -> str:
    """The id of a claim the current person writes on ``conn`` (one claim; a batch asks
    :func:`id_owner` once and calls :func:`claim_id`)."""
    return claim_id(id_owner(conn), origin, kind, content)
