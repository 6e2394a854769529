"""Which worker runs this minute's periodic recovery.

Every consumer, on every machine, may keep huey's periodic tasks on: each one's scheduler
queues ``recover`` once a minute, and the first worker to run it claims the minute inside its
write transaction (a ``metadata`` key); the others find it claimed and only beat their
heartbeat. Expired leases are then recorded once, and due work is re-nudged once.

On a team store each person's workers recover only that person's sources, so each person
claims their own minute (:func:`~memory_core.store.schema.owners.person_key`): one member's recovery
never stands in for another's.
"""

from __future__ import annotations

from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import person_key

RECOVERY_KEY = "worker_recovery_minute"
MINUTE = 60.0


def minute_of(now: float) -> int:
    return int(now // MINUTE)


def minute_is_new(claimed: int | None, now: float) -> bool:
    """True when ``now`` falls in a later minute than the one last claimed (a claim from a
    clock far ahead, over an hour later than now, is treated as stale)."""
    current = minute_of(now)
    return claimed is None or current > claimed or claimed - current > 60


def claim_recovery_minute(conn: DbConn, now: float) -> bool:
    """Claim the current minute's recovery of the current person's sources (inside a write
    transaction); False when another of their workers already ran it this minute."""
    key = person_key(conn, RECOVERY_KEY)
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (key,)).fetchone()
    try:
        claimed = None if row is None else int(str(row[0]))
    except ValueError:
        claimed = None
    if not minute_is_new(claimed, now):
        return False
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, str(minute_of(now))),
    )
    return True
