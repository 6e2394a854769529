"""The Huey instance, and nothing else: the queue follows :func:`resolve_queue`.

- SQLite store (the default): ``SqliteHuey`` on ``queue.db`` in the state dir;
- PostgreSQL store: huey's own ``PostgresHuey`` in the same database, its tables named
  ``memevo_huey_*`` so they never meet memevo's own;
- ``MEMEVO_QUEUE_URL=redis://…``: ``RedisHuey`` on that Redis.

Each person has a queue of their own, named by :func:`workers.queue_names.queue_name`
(``memevo`` on a SQLite store, ``memevo@LOGIN`` on a PostgreSQL one): a person's workers
consolidate only that person's sources, so they consume only that person's nudges.

Following huey's own layout advice, the instance (here), the tasks (:mod:`workers.tasks`)
and the consumer's entry module (:mod:`workers.main`, what ``huey_consumer`` loads) are
separate modules, so no import cycle is possible. Importing this module writes nothing and
connects to nothing: the state dir, the queue file or tables are created on the first
connection. It resolves only the state dir and the queue URL (no settings validation).
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from huey import Huey, PostgresHuey, RedisHuey, SqliteHuey
from huey.storage import PostgresStorage, SqliteStorage

from memory_core.paths import state_home
from memory_core.store.engines.backend import POSTGRESQL, REDIS, resolve, resolve_queue
from memory_core.store.engines.connection import ensure_private_dir, secure_sidecars
from workers.queue_names import QUEUE_NAME as QUEUE_NAME  # a SQLite store's queue
from workers.queue_names import queue_name

# PostgresHuey's tables: memevo_huey_task, _schedule, _kv, _counter (beside memevo's tables).
TABLE_PREFIX = "memevo_huey"
# pg_advisory_xact_lock key held while huey's tables are created, so consumers starting
# together on several machines do not race on CREATE TABLE IF NOT EXISTS.
_DDL_LOCK_KEY = 0x3A5C_6E1F_0D27_4B92
_TABLE = re.compile(r"(?i)CREATE TABLE IF NOT EXISTS\s+\"?([\w.]+)")
CONNECT_TIMEOUT_S = 5


class StateDirStorage(SqliteStorage):
    """huey's SQLite storage, made private (0700 dir, 0600 file) and created lazily."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["create_tables"] = False
        super().__init__(*args, **kwargs)

    def _create_connection(self) -> sqlite3.Connection:
        path = Path(self.filename)
        ensure_private_dir(path.parent)
        conn = super()._create_connection()  # SQLite creates the file: never opened here
        secure_sidecars(path)  # by their paths (memory_core.store.engines.connection.make_private)
        for statement in self.ddl:  # every statement is idempotent ("if not exists")
            conn.execute(statement)
        return conn


class LazyPostgresStorage(PostgresStorage):
    """huey's PostgreSQL storage, its tables created on the first connection of a process
    (under an advisory lock), with memevo's connect timeout and application name.

    When the queue shares the store's database (``store_home``), the store's own schema is
    created first: a database holding only huey's tables would look foreign to memevo's
    migrations, which refuse a database they did not write."""

    def __init__(self, *args: Any, store_home: Path | None = None, **kwargs: Any) -> None:
        kwargs["create_tables"] = False
        super().__init__(*args, **kwargs)
        self.store_home = store_home
        self._schema_ready = False

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(
            self.dsn or "", autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, application_name="memevo-queue"
        )
        if not self._schema_ready:
            if self.store_home is not None:
                from memory_core.store.engines.database import Store

                Store.open(self.store_home).close()  # migrates, under the store's write lock
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_DDL_LOCK_KEY,))
                    for statement in self.ddl:  # idempotent ("if not exists")
                        conn.execute(statement)
            except psycopg.errors.InsufficientPrivilege:
                # A team member's login may not create tables (docs/team.md): the queue's
                # tables, made by the administrator's first process, must exist already.
                if not self._tables_exist(conn):
                    raise
            self._schema_ready = True
        return conn

    _create_connection = _connect

    def _tables_exist(self, conn: Any) -> bool:
        names = [m.group(1) for m in (_TABLE.search(statement) for statement in self.ddl) if m]
        return bool(names) and all(
            conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()[0] is not None for name in names
        )


def make_huey(home: Path) -> Huey:
    """The Huey instance for the queue of state dir ``home`` (its person's queue)."""
    queue = resolve_queue(home)
    name = queue_name(home)
    if queue.kind == POSTGRESQL:
        same_database = queue.url == resolve(home).url
        # Results are never read: nudges are fire-and-forget.
        return PostgresHuey(
            name,
            dsn=queue.url,
            table_prefix=TABLE_PREFIX,
            storage_class=LazyPostgresStorage,
            store_home=home if same_database else None,
            results=False,
        )
    if queue.kind == REDIS:
        # The name as it is: huey would strip the "@" and let two logins share a queue.
        return RedisHuey(name, url=queue.url, results=False, clean_name=False)
    return SqliteHuey(
        name,
        filename=str(home / "queue.db"),
        storage_class=StateDirStorage,
        results=False,
        # WAL so hooks enqueueing never wait on the consumer's polling.
        journal_mode="wal",
        timeout=10,
    )


huey = make_huey(state_home())
