"""The workers' heartbeats: the last time any worker process touched the job table, and the
last time each one did (keyed ``host:pid``), so status can say how many workers run on how
many hosts, whichever machines they are on.

On a team store each person's workers beat under keys of that person's
(memory_core.store.schema.owners.person_key): a member's workers consolidate only that member's
sources, so status tells each person whether their own workers run.
"""

from __future__ import annotations

from typing import NamedTuple

from memory_core.clock import is_timestamp
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import person_key

HEARTBEAT_KEY = "worker_heartbeat"
# On SQLite, when a worker last recorded that it watches memory.db for captures and nudges
# them itself (workers.capture_watch); capture hooks then write no nudge (cli/nudge.py).
WATCH_KEY = "capture_watch"
WATCH_AHEAD_SECONDS = 60.0  # a watch record this far ahead of the reader's clock still counts
# Each worker also beats under HEARTBEAT_KEY + ":host:pid" (per person: person_key).
# A worker that has not beaten for this long is not counted as running (the per-worker
# heartbeat is written at least every minute: workers.liveness).
LIVE_SECONDS = 180.0
# Per-worker keys older than this are removed (by recovery, once a minute across workers).
FORGET_SECONDS = 86_400.0


class WorkerBeat(NamedTuple):
    worker: str  # "host:pid"
    host: str
    at: float


class WorkerCount(NamedTuple):
    workers: int
    hosts: int


def write_heartbeat(conn: DbConn, now: float, worker: str | None = None) -> None:
    """Record that a worker is alive (call inside a write transaction); with ``worker``
    (``host:pid``) also that this one is."""
    key = person_key(conn, HEARTBEAT_KEY)
    _set(conn, key, repr(now))
    if worker:
        _set(conn, f"{key}:{worker}", repr(now))


def write_watch(conn: DbConn, now: float) -> None:
    """Record that a worker watches for captures (workers.capture_watch; inside a write transaction)."""
    _set(conn, WATCH_KEY, repr(now))


def _set(conn: DbConn, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO metadata (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
        (key, value),
    )


def _time(raw: object) -> float | None:
    try:
        value = None if raw is None else float(str(raw))
    except (TypeError, ValueError):
        return None
    # "nan", "inf" or a far-off number parse as floats but are no time anyone can show.
    return value if is_timestamp(value) else None


def read_heartbeat(conn: DbConn) -> float | None:
    """The last heartbeat, or ``None`` if there is none or it is not a usable time."""
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (person_key(conn, HEARTBEAT_KEY),)).fetchone()
    return None if row is None else _time(row[0])


def read_watch(conn: DbConn) -> float | None:
    """When a worker last recorded its capture watch, or ``None`` (never, or no usable time)."""
    row = conn.execute("SELECT value FROM metadata WHERE key=?", (WATCH_KEY,)).fetchone()
    return None if row is None else _time(row[0])


def watch_fresh(watch: float | None, now: float) -> bool:
    """Whether a watch recorded at ``watch`` still counts at ``now`` (the rule cli/nudge.py
    applies for hooks): within :data:`LIVE_SECONDS` before, or :data:`WATCH_AHEAD_SECONDS` after."""
    return watch is not None and -WATCH_AHEAD_SECONDS <= now - watch <= LIVE_SECONDS


def worker_beats(conn: DbConn) -> list[WorkerBeat]:
    """Every per-worker heartbeat of the current person's workers (usable times only),
    newest first."""
    prefix = person_key(conn, HEARTBEAT_KEY) + ":"
    rows = conn.execute(
        "SELECT key, value FROM metadata WHERE key >= ? AND key < ?",
        (prefix, prefix + "\U0010ffff"),
    ).fetchall()
    beats = []
    for key, value in rows:
        at = _time(value)
        worker = str(key)[len(prefix) :]
        if at is not None and worker:
            beats.append(WorkerBeat(worker, worker.rsplit(":", 1)[0], at))
    return sorted(beats, key=lambda beat: (-beat.at, beat.worker))


def live_workers(beats: list[WorkerBeat], now: float, within: float = LIVE_SECONDS) -> list[WorkerBeat]:
    """The workers that beat in the last ``within`` seconds."""
    return [beat for beat in beats if now - beat.at <= within]


def count_workers(beats: list[WorkerBeat], now: float, within: float = LIVE_SECONDS) -> WorkerCount:
    """How many workers beat in the last ``within`` seconds, on how many hosts."""
    live = live_workers(beats, now, within)
    return WorkerCount(len(live), len({beat.host for beat in live}))


def read_worker_count(conn: DbConn, now: float) -> WorkerCount:
    """Workers (and hosts) with a heartbeat in the last :data:`LIVE_SECONDS`."""
    return count_workers(worker_beats(conn), now)


def forget_silent_workers(conn: DbConn, now: float, after: float = FORGET_SECONDS) -> int:
    """Remove the per-worker keys of workers silent for ``after`` seconds (inside a write
    transaction); how many were removed."""
    stale = [beat.worker for beat in worker_beats(conn) if now - beat.at > after]
    beat, model = person_key(conn, HEARTBEAT_KEY), person_key(conn, "worker_model")  # model_state.WORKER_MODEL_KEY
    for worker in stale:
        conn.execute("DELETE FROM metadata WHERE key=?", (f"{beat}:{worker}",))
        conn.execute("DELETE FROM metadata WHERE key=?", (f"{model}:{worker}",))
    return len(stale)
