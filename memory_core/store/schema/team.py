"""A team's members: their own PostgreSQL logins, and the row-level security that keeps a
member's login from reading another member's sources or personal claims, even with raw SQL.

Only the administrator (the login that owns memevo's tables and may create roles) adds or
removes members. Adding one is a single transaction: the login with a generated password,
its grants (rows only, no DDL; ``owner`` cannot be updated), and the policies, made anew
(memory_core.store.schema.policies). The table owner is not bound by the policies
(PostgreSQL's rule without ``FORCE``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from memory_core.errors import ConflictError, NotFoundError, UsageError
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.schema.owners import current_person, store_owner
from memory_core.store.schema.policies import enable_row_security

NAME_RULE = "a lower-case name of letters, digits and _ (1-63 characters, starting with a letter)"
_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")
# Names PostgreSQL or memevo keep for themselves.
RESERVED = frozenset({"public", "postgres", "current_user", "session_user", "current_role", "none", "all"})
OWNED_TABLES = ("memories", "sources", "events", "model_usage", "blocked_hashes")


class NewMember(NamedTuple):
    """A member just added: the login and the password generated for it."""

    name: str
    password: str


def require_member_name(name: str) -> str:
    """``name`` if it can be a member's login, else a UsageError saying what is allowed."""
    if not _NAME.fullmatch(name) or name in RESERVED or name.startswith("pg_"):
        raise UsageError(f"{name!r} cannot be a member's name: use {NAME_RULE}, not a reserved name")
    return name


def require_administrator(conn: DbConn) -> str:
    """The administrator's login, or a UsageError: teams live on PostgreSQL and only the
    login that owns memevo's tables and may create roles manages them."""
    if not is_postgres(conn):
        raise UsageError(
            "a team memory lives on PostgreSQL: set MEMEVO_DATABASE_URL to the administrator's URL (docs/team.md)"
        )
    person = current_person(conn)
    (may_create,) = conn.execute(
        "SELECT rolcreaterole OR rolsuper FROM pg_roles WHERE rolname = current_user"
    ).fetchone()
    if person != store_owner(conn) or not may_create:
        raise UsageError(
            f"{person} is not the administrator of this memory: run `memevo team` with the URL of the login "
            "that owns memevo's tables and may create roles"
        )
    return person


def list_members(conn: DbConn) -> list[str]:
    """The members: logins other than the administrator granted the claims' rows."""
    require_administrator(conn)
    rows = conn.execute(
        "SELECT DISTINCT grantee FROM information_schema.role_table_grants "
        "WHERE table_schema = current_schema() AND table_name = 'memories' AND privilege_type = 'SELECT' "
        "AND grantee <> current_user ORDER BY grantee"
    ).fetchall()
    return [str(row[0]) for row in rows]


def _schema(conn: DbConn) -> str:
    (schema,) = conn.execute("SELECT current_schema()").fetchone()
    return '"' + str(schema).replace('"', '""') + '"'


def _updatable_columns(conn: DbConn, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
        "AND table_name = ? AND column_name <> 'owner' ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [str(row[0]) for row in rows]


def add_member(conn: DbConn, name: str, password: str) -> NewMember:
    """Create ``name``'s login with ``password`` and its grants (inside one transaction)."""
    require_member_name(name)
    require_administrator(conn)
    if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = ?", (name,)).fetchone() is not None:
        raise ConflictError(f"a login named {name} exists already; choose another name or `memevo team remove` it")
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,}", password):
        raise ValueError("generated passwords are URL-safe and at least 16 characters")
    enable_row_security(conn)
    schema = _schema(conn)
    conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
    conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
    conn.execute(f"GRANT SELECT, INSERT, DELETE ON ALL TABLES IN SCHEMA {schema} TO {name}")
    conn.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {name}")
    # Tables a later migration adds: rows only, as for the ones there now.
    conn.execute(
        f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {name}"
    )
    conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT ON SEQUENCES TO {name}")
    tables = [str(r[0]) for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
    for table in tables:
        if table in OWNED_TABLES:
            # Whose a row is cannot be changed by a member: every column but ``owner``.
            columns = ", ".join(f'"{c}"' for c in _updatable_columns(conn, table))
            conn.execute(f"GRANT UPDATE ({columns}) ON {table} TO {name}")
        else:
            conn.execute(f'GRANT UPDATE ON "{table}" TO {name}')
    return NewMember(name, password)


def remove_member(conn: DbConn, name: str) -> None:
    """Revoke ``name``'s grants and drop the login (their rows stay, still theirs)."""
    require_member_name(name)
    if name not in list_members(conn):
        raise NotFoundError(f"{name} is not a member of this memory; see `memevo team list`")
    schema = _schema(conn)
    conn.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {name}")
    conn.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {name}")
    conn.execute(f"REVOKE ALL ON SCHEMA {schema} FROM {name}")
    conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} REVOKE ALL ON TABLES FROM {name}")
    conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} REVOKE ALL ON SEQUENCES FROM {name}")
    conn.execute(f"DROP ROLE {name}")


class Erased(NamedTuple):
    """What erasing a former member's personal rows removed."""

    claims: int
    sources: int
    events: int


def erase_member_rows(conn: DbConn, name: str) -> Erased:
    """Delete ``name``'s personal claims (with their index rows), every source of theirs and
    their personal history (inside the administrator's transaction). Their shared claims,
    and history events about shared claims, stay: the team's knowledge, still theirs."""
    require_member_name(name)
    admin = require_administrator(conn)
    if name == admin:
        raise UsageError(f"{name} is the administrator; `memevo team remove --erase` erases a member's rows")
    # Imported here: only erasing deletes claims through the index's bookkeeping.
    from memory_core.store.tables.memories import delete_memory

    claims = [
        str(row[0])
        for row in conn.execute("SELECT id FROM memories WHERE owner = ? AND scope <> 'shared'", (name,)).fetchall()
    ]
    for memory_id in claims:
        delete_memory(conn, memory_id)
    conn.execute(
        "DELETE FROM feedback_receipts WHERE source_id IN (SELECT id FROM sources WHERE owner = ?)"
        " OR memory_id IN (SELECT id FROM memories WHERE owner = ? AND scope <> 'shared')",
        (name, name),
    )
    sources = conn.execute("DELETE FROM sources WHERE owner = ?", (name,)).rowcount
    conn.execute("DELETE FROM blocked_hashes WHERE owner = ? AND scope <> 'shared'", (name,))
    events = conn.execute("DELETE FROM events WHERE owner = ? AND scope <> 'shared'", (name,)).rowcount
    return Erased(len(claims), int(sources), int(events))


def has_personal_rows(conn: DbConn, name: str) -> bool:
    """Whether a personal claim, a source or a personal history event is ``name``'s."""
    personal = " AND scope <> 'shared'"
    return any(
        conn.execute(f"SELECT 1 FROM {table} WHERE owner = ?{rule} LIMIT 1", (name,)).fetchone() is not None
        for table, rule in (("memories", personal), ("sources", ""), ("events", personal))
    )
