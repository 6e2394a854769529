"""Enqueue nudges for the worker. Imported lazily: only commands that enqueue pay for huey.

A nudge that cannot be enqueued is not an error for the caller: the source is already
committed in memory.db and the worker's periodic recovery will find it.
"""

from __future__ import annotations


def nudge_consolidate(source_id: str | None, *, forced: bool = False) -> bool:
    """Ask the worker to attempt a source; False if the queue was unavailable."""
    try:
        from workers.tasks import consolidate

        consolidate(source_id, forced=forced)
        return True
    except Exception:
        return False


def nudge_recover() -> bool:
    """Ask the worker to look for expired leases and due sources."""
    try:
        from workers.tasks import recover

        recover()
        return True
    except Exception:
        return False
