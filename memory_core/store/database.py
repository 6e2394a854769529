"""The store: one open, migrated connection to ``memory.db`` and its transaction verb."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from memory_core import clock
from memory_core.errors import SchemaVersionError, StoreError
from memory_core.store import migrations
from memory_core.store.connection import connect, ensure_private_dir, secure_sidecars, write_transaction


class Store:
    """An open memory database. Use as a context manager or call :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, readonly: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.backup_path: Path | None = None

    @classmethod
    def open(cls, home: Path) -> Store:
        """Open (creating and migrating as needed) the database in state dir ``home``."""
        try:
            ensure_private_dir(home)
        except OSError as exc:
            raise StoreError(
                f"cannot create the state dir {home}: {exc.strerror}; set MEMEVO_HOME to a writable directory"
            ) from None
        path = home / "memory.db"
        if path.exists() and path.stat().st_size > 0:
            # Identify the version read-only first: a database this build must refuse is
            # not even switched to WAL.
            probe = connect(path, readonly=True)
            try:
                migrations.check_supported(migrations.read_version(probe))
            finally:
                probe.close()
        conn = connect(path)
        try:
            store = cls(conn, path)
            store.backup_path = migrations.migrate(conn, home / "backups", clock.now())
            store.refresh_recall_index()
            secure_sidecars(path)
            return store
        except BaseException:
            conn.close()
            raise

    @classmethod
    def open_readonly(cls, home: Path) -> Store:
        """Open for reading only: never creates, migrates or writes anything."""
        path = home / "memory.db"
        conn = connect(path, readonly=True)
        try:
            version = migrations.read_version(conn)
            migrations.check_supported(version)
            if version != migrations.SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"the memory database is at schema version {version}; run `memevo status` once to migrate it"
                )
        except BaseException:
            conn.close()
            raise
        return cls(conn, path, readonly=True)

    def refresh_recall_index(self) -> bool:
        """Rebuild the recall index once if it was built by another tokenizer version.

        Ordinary writes keep it current; only an upgrade that changes how text is split into
        features needs this. Returns True when a rebuild ran.
        """
        from memory_core.store.index_version import INDEX_VERSION, index_version

        def stale() -> bool:
            version = index_version(self.conn)
            if version == INDEX_VERSION:
                return False
            return version is not None or self.conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None

        if not stale():
            return False
        with self.transaction() as conn:
            if not stale():  # another process rebuilt it meanwhile
                return False
            from memory_core.store.memories import iter_memory_rows, memory_from_row
            from memory_core.store.postings import rebuild_index

            rebuild_index(conn, [memory_from_row(row) for row in list(iter_memory_rows(conn))])
        return True

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` write transaction."""
        with write_transaction(self.conn) as conn:
            yield conn

    def schema_version(self) -> int | None:
        return migrations.read_version(self.conn)

    def set_meta(self, key: str, value: str) -> None:
        """Write one metadata value in its own transaction."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
