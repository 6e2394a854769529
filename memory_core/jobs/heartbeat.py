"""The worker's heartbeat: the last time a worker process touched the job table."""

from __future__ import annotations

from memory_core.clock import is_timestamp
from memory_core.store.dbapi import DbConn

HEARTBEAT_KEY = "worker_heartbeat"


def write_heartbeat(conn: DbConn, now: float) -> None:
    """Record that a worker is alive (call inside a write transaction)."""
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (HEARTBEAT_KEY, repr(now)),
    )


def read_heartbeat(conn: DbConn) -> float | None:
    """The last heartbeat, or ``None`` if there is none or it is not a usable time."""
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (HEARTBEAT_KEY,)).fetchone()
    try:
        value = None if row is None else float(row[0])
    except (TypeError, ValueError):
        return None
    # "nan", "inf" or a far-off number parse as floats but are no time anyone can show.
    return value if is_timestamp(value) else None
