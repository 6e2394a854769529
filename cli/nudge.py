"""Enqueue nudges for the worker, without importing huey: :mod:`workers.nudge_queue` writes
the message huey would write (hooks enqueue on most turns, and huey with the task module
costs a hook process about 50 ms).

A nudge that cannot be enqueued is not an error for the caller: the source is already
committed in memory.db and the worker's periodic recovery will find it.
"""

from __future__ import annotations


def nudge_consolidate(source_id: str | None, *, forced: bool = False) -> bool:
    """Ask the worker to attempt a source; False if the queue was unavailable."""
    try:
        from workers.nudge_queue import enqueue

        enqueue("consolidate", (source_id,), {"forced": forced})
        return True
    except Exception:
        return False


def nudge_recover() -> bool:
    """Ask the worker to look for expired leases and due sources."""
    try:
        from workers.nudge_queue import enqueue

        enqueue("recover")
        return True
    except Exception:
        return False
