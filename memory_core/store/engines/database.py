"""The store: one open, migrated connection and its transaction verb.

The store of a state dir is ``memory.db`` in it, or the PostgreSQL database that
``MEMEVO_DATABASE_URL`` names (memory_core.store.engines.backend); both open, migrate and write the
same way (memory_core.store.engines.pg keeps SQLite's write serialization on PostgreSQL)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from memory_core import clock
from memory_core.errors import SchemaVersionError, StoreError
from memory_core.store.engines.backend import SQLITE, Backend, resolve
from memory_core.store.engines.connection import connect, ensure_private_dir, secure_sidecars, write_transaction
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema import migrations


def _check_version(conn: DbConn) -> None:
    migrations.check_supported(migrations.read_version(conn))


class Store:
    """An open memory database. Use as a context manager or call :meth:`close`."""

    def __init__(
        self, conn: DbConn, path: Path | None, *, readonly: bool = False, backend: Backend | None = None
    ) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self.backup_path: Path | None = None
        self.backend = backend if backend is not None else Backend(SQLITE, "", path)

    @classmethod
    def open(cls, home: Path, backend: Backend | None = None, *, rebuild_index: bool = True) -> Store:
        """Open (creating and migrating as needed) the store of state dir ``home``: the one
        its settings name, or ``backend`` when given (a second store, as migrate-to opens).

        ``rebuild_index=False`` (a hook): a recall index built by another tokenizer version is
        left for the next process that may take the time (the worker, ``memevo status``, any
        command): a rebuild reads every claim, about 54 s at 100,000 claims on the 2-core
        development machine, and an agent must not wait for it (docs/recall.md, "Features")."""
        try:
            ensure_private_dir(home)
        except OSError as exc:
            raise StoreError(
                f"cannot create the state dir {home}: {exc.strerror}; set MEMEVO_HOME to a writable directory"
            ) from None
        backend = backend if backend is not None else resolve(home)
        if not backend.is_sqlite:
            return cls._open_postgres(home, backend, rebuild_index=rebuild_index)
        path = home / "memory.db"
        # The version is identified on the connection itself before it changes anything: a
        # database this build must refuse is not even switched to WAL. (One connection, not a
        # read-only probe first: each connection that finds no other open rebuilds the WAL's
        # index by reading the whole WAL, docs/hooks.md "Cost".)
        conn = connect(path, before_wal=_check_version)
        try:
            store = cls(conn, path)
            store.backup_path = migrations.migrate(conn, home / "backups", clock.now())
            if rebuild_index:
                store.refresh_recall_index()
            secure_sidecars(path)
            return store
        except BaseException:
            conn.close()
            raise

    @classmethod
    def _open_postgres(cls, home: Path, backend: Backend, *, rebuild_index: bool = True) -> Store:
        from memory_core.store.engines import pg

        conn = pg.connect(backend.url)
        try:
            store = cls(conn, None, backend=backend)
            store.backup_path = migrations.migrate(conn, home / "backups", clock.now())
            if rebuild_index:
                store.refresh_recall_index()
            return store
        except BaseException:
            conn.close()
            raise

    @classmethod
    def open_readonly(cls, home: Path) -> Store:
        """Open for reading only: never creates, migrates or writes anything."""
        backend = resolve(home)
        path = backend.path
        if path is None:
            from memory_core.store.engines import pg

            conn: DbConn = pg.connect(backend.url, readonly=True)
        else:
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
        return cls(conn, path, readonly=True, backend=backend)

    @classmethod
    def open_existing_readonly(cls, home: Path) -> Store | None:
        """:meth:`open_readonly`, or ``None`` when no store was created yet (no ``memory.db``;
        on PostgreSQL, no memevo tables in the database)."""
        backend = resolve(home)
        if backend.path is not None:
            return cls.open_readonly(home) if backend.path.exists() else None
        from memory_core.store.engines import pg

        conn = pg.connect(backend.url, readonly=True)
        try:
            if migrations.read_version(conn) is None:
                conn.close()
                return None
        except BaseException:
            conn.close()
            raise
        conn.close()
        return cls.open_readonly(home)

    def refresh_recall_index(self) -> bool:
        """Rebuild the recall index once if it was built by another tokenizer version.

        Ordinary writes keep it current; only an upgrade that changes how text is split into
        features needs this. Returns True when a rebuild ran.
        """
        from memory_core.store.schema.index_version import INDEX_VERSION, index_version

        def stale() -> bool:
            version = index_version(self.conn)
            if version == INDEX_VERSION:
                return False
            return version is not None or self.conn.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None

        if not stale():
            return False
        if not self._may_rebuild_index():
            return False  # a team member's login sees part of the index; recall says who rebuilds it
        with self.transaction() as conn:
            if not stale():  # another process rebuilt it meanwhile
                return False
            from memory_core.store.tables.memories import iter_indexable_memories
            from memory_core.store.tables.postings import rebuild_index

            rebuild_index(conn, iter_indexable_memories(conn))
        return True

    def _may_rebuild_index(self) -> bool:
        """Whether this login may rebuild the whole index: on PostgreSQL only the store's
        owner (a member's login reads and could rewrite only its own parts and the shared
        one, like migrations, a rebuild is the administrator's)."""
        from memory_core.store.schema.owners import current_person, store_owner

        owner = store_owner(self.conn)
        return owner is None or owner == current_person(self.conn)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[DbConn]:
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
