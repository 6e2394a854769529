"""The Huey instance, and nothing else: SQLite queue in ``queue.db`` of the state dir.

Following huey's own layout advice, the instance (here), the tasks (:mod:`workers.tasks`)
and the consumer's entry module (:mod:`workers.main`, what ``huey_consumer`` loads) are
separate modules, so no import cycle is possible. Importing this module writes nothing:
the state dir, the queue file and its tables are created on the first connection.
Hooks enqueue through it, so it resolves only the state dir (no settings validation).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from huey import SqliteHuey
from huey.storage import SqliteStorage

from memory_core.paths import state_home
from memory_core.store.connection import ensure_private_dir, touch_private


class StateDirStorage(SqliteStorage):
    """huey's SQLite storage, made private (0700 dir, 0600 file) and created lazily."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs["create_tables"] = False
        super().__init__(*args, **kwargs)

    def _create_connection(self) -> sqlite3.Connection:
        path = Path(self.filename)
        ensure_private_dir(path.parent)
        touch_private(path)
        conn = super()._create_connection()
        for statement in self.ddl:  # every statement is idempotent ("if not exists")
            conn.execute(statement)
        return conn


huey = SqliteHuey(
    "memevo",
    filename=str(state_home() / "queue.db"),
    storage_class=StateDirStorage,
    # Results are never read: nudges are fire-and-forget.
    results=False,
    # WAL so hooks enqueueing never wait on the consumer's polling.
    journal_mode="wal",
    timeout=10,
)
