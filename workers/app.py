"""The Huey instance: SQLite queue in ``queue.db`` of the state dir (never memory.db).

This module is the worker's entry point (`huey_consumer workers.app.huey`), so it reads
the settings. Tasks live in :mod:`workers.tasks`, imported at the bottom so the consumer
registers them.
"""

from __future__ import annotations

from huey import SqliteHuey

from memory_core.config import load_settings
from memory_core.db import ensure_private_dir, touch_private

settings = load_settings()
ensure_private_dir(settings.home)
touch_private(settings.queue_db)

huey = SqliteHuey(
    "memevo",
    filename=str(settings.queue_db),
    # Results are never read: nudges are fire-and-forget.
    results=False,
    # WAL so hooks enqueueing never wait on the consumer's polling.
    journal_mode="wal",
    timeout=10,
)

import workers.tasks  # noqa: E402,F401  (registers the tasks with this huey instance)
