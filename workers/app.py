"""The Huey instance: SQLite queue in ``queue.db`` of the state dir (never memory.db).

Hooks import this module to enqueue nudges, so it resolves only the state dir here (no
settings validation on that path); tasks load the full settings when they run. Tasks live
in :mod:`workers.tasks`, imported at the bottom so the consumer registers them.
"""

from __future__ import annotations

from huey import SqliteHuey

from memory_core.paths import state_home
from memory_core.store.connection import ensure_private_dir, touch_private

home = ensure_private_dir(state_home())
queue_path = home / "queue.db"
touch_private(queue_path)

huey = SqliteHuey(
    "memevo",
    filename=str(queue_path),
    # Results are never read: nudges are fire-and-forget.
    results=False,
    # WAL so hooks enqueueing never wait on the consumer's polling.
    journal_mode="wal",
    timeout=10,
)

import workers.tasks  # noqa: E402,F401  (registers the tasks with this huey instance)
