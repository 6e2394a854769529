"""Numbered schema migrations, recorded in ``metadata``.

Opening a database migrates it: versions newer than this build, or layouts it cannot
identify, are refused before any DDL runs. An existing database is copied into ``backups/``
before its first migration step (SQLite's online backup API; on PostgreSQL a consistent
copy of memevo's tables into a SQLite file). Each migration runs inside one write
transaction (DDL is transactional on both engines); the steps are the same numbered steps
on both, their DDL written once for SQLite and adapted by memory_core.store.engines.dialect.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from memory_core.errors import SchemaVersionError
from memory_core.store.engines.connection import ensure_private_dir, make_private, write_transaction
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.engines.dialect import user_tables

# The newest step of memory_core.store.schema.migration_steps (a test keeps them equal): a process
# that finds its store current, such as every hook, never loads the steps.
SCHEMA_VERSION = 11
VERSION_KEY = "schema_version"


def read_version(conn: DbConn) -> int | None:
    """The stored schema version; ``None`` for an empty database.

    Raises :class:`SchemaVersionError` for a layout this build cannot identify.
    """
    tables = user_tables(conn)
    if not tables:
        return None
    supported = f"this build supports schema versions 0-{SCHEMA_VERSION}"
    if "metadata" not in tables:
        raise SchemaVersionError(
            f"the memory database has no schema marker ({supported}); "
            "it was not written by memevo; move it aside or restore a backup"
        )
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (VERSION_KEY,)).fetchone()
    if row is None or not str(row[0]).isdigit():
        raise SchemaVersionError(
            f"the memory database has an unreadable schema marker {row[0] if row else None!r} "
            f"({supported}); restore a backup"
        )
    return int(row[0])


def check_supported(version: int | None) -> None:
    """Refuse a database newer than this build, before anything touches it."""
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"the memory database is at schema version {version}, but this build supports "
            f"up to {SCHEMA_VERSION}; upgrade memevo (do not downgrade the marker)"
        )


def backup_database(conn: DbConn, backups_dir: Path, version: int, now: float) -> Path:
    """Copy the live database into ``backups_dir``; the copy is private (0600).

    SQLite: the online backup API. PostgreSQL: every memevo table read in one consistent
    snapshot into a SQLite file at the same schema version (memory_core.store.engines.copying), which
    ``memevo migrate-to`` can load into an empty database again."""
    ensure_private_dir(backups_dir)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    target = claim_new_file(backups_dir, f"memory-v{version}-{stamp}", ".db")
    try:
        if is_postgres(conn):
            from memory_core.store.engines.copying import copy_to_sqlite

            copy_to_sqlite(conn, target, lambda new: build_schema(new, version))
            make_private(target)
            return target
        from memory_core.store.safekeeping.backups import copy_into

        copy_into(conn, target)  # type: ignore[arg-type]
        return target
    except BaseException:
        target.unlink(missing_ok=True)  # no empty or partial copy left to be taken for a backup
        raise


def claim_new_file(directory: Path, stem: str, suffix: str) -> Path:
    """A new empty private file ``<stem><suffix>`` (``<stem>-2<suffix>``, … when taken) in
    ``directory``, created exclusively: processes opening an older store at the same second
    each back it up into a file of their own, never two into one (which SQLite refuses
    with "database is locked", failing the capture that opened the store)."""
    n = 1
    while True:
        target = directory / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
        try:
            descriptor = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            n += 1
            continue
        os.close(descriptor)
        return target


def migrate(conn: DbConn, backups_dir: Path, now: float) -> Path | None:
    """Bring the database to :data:`SCHEMA_VERSION`; returns the backup path if one was made
    (named after ``now``)."""
    version = read_version(conn)
    check_supported(version)
    if version == SCHEMA_VERSION:
        return None
    if is_postgres(conn):
        # Several machines may open a new or older store at once: one migrates (and backs up)
        # while the others wait, then find it current.
        with conn.migration_lock():  # type: ignore[attr-defined]
            return _migrate_steps(conn, backups_dir, now)
    return _migrate_steps(conn, backups_dir, now)


def _migrate_steps(conn: DbConn, backups_dir: Path, now: float) -> Path | None:
    version = read_version(conn)
    check_supported(version)
    if version == SCHEMA_VERSION:
        return None
    backup = None
    if version is not None:
        backup = backup_database(conn, backups_dir, version, now)
    current = version or 0
    for target in range(current + 1, SCHEMA_VERSION + 1):
        with write_transaction(conn):
            # Re-check inside the lock: another process may have migrated meanwhile.
            inside = read_version(conn)
            check_supported(inside)
            if inside is not None and inside >= target:
                continue
            _steps()[target](conn)
            set_version(conn, target)
    return backup


def build_schema(conn: DbConn, version: int = SCHEMA_VERSION) -> None:
    """Create an empty store at ``version`` on an empty database, one step per transaction."""
    for step in range(1, version + 1):
        with write_transaction(conn):
            _steps()[step](conn)
            set_version(conn, step)


def _steps() -> dict[int, Callable[[DbConn], None]]:
    from memory_core.store.schema.migration_steps import MIGRATIONS

    return MIGRATIONS


def set_version(conn: DbConn, version: int) -> None:
    """Record ``version`` as the schema version (inside the migration's transaction)."""
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (VERSION_KEY, str(version)),
    )
