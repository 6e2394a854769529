"""Enqueue nudges for the worker.

On a SQLite store (every hook process) :mod:`workers.nudge_queue` writes the message huey
would write, without importing huey (hooks enqueue on most turns, and huey with the task
module costs a hook process about 50 ms). On a PostgreSQL store the callers are warm
processes (``memevo serve``, the CLI): the nudge goes through huey's own storage
(``PostgresHuey`` or ``RedisHuey``), or, with :func:`nudge_consolidate_in`, into the very
transaction that stored the source. Each person's nudges go to their own queue
(:func:`workers.queue_names.queue_name`), which only their own workers consume.

A nudge that cannot be enqueued is not an error for the caller: the source is already
committed in the store and the worker's periodic recovery will find it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

# memory_core.jobs.heartbeat.HEARTBEAT_KEY and LIVE_SECONDS, spelt out: a hook imports
# nothing it can avoid (tests/integration/test_nudges.py keeps them equal).
HEARTBEAT_KEY = "worker_heartbeat"
LIVE_SECONDS = 180.0
# memory_core.jobs.heartbeat.WATCH_KEY and WATCH_AHEAD_SECONDS, spelt out likewise.
WATCH_KEY = "capture_watch"
AHEAD_SECONDS = 60.0  # a watch record this far ahead of the hook's clock still counts


def _enqueue(task: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> bool:
    try:
        from memory_core.paths import state_home
        from memory_core.store.engines.backend import SQLITE, resolve_queue

        home = state_home()
        if resolve_queue(home).kind == SQLITE:
            from workers.nudge_queue import enqueue

            enqueue(task, args, kwargs, home=home)
        else:
            from workers.nudge_queue import enqueue_with_huey

            enqueue_with_huey(task, args, kwargs, home=home)
        return True
    except Exception:
        return False


def nudge_consolidate(source_id: str | None, *, forced: bool = False) -> bool:
    """Ask the worker to attempt a source; False if the queue was unavailable."""
    return _enqueue("consolidate", (source_id,), {"forced": forced})


def nudge_recover() -> bool:
    """Ask the worker to look for expired leases and due sources."""
    return _enqueue("recover")


def nudge_consolidate_in(conn: Any, source_id: str, *, forced: bool = False) -> bool:
    """Write the nudge for ``source_id`` inside ``conn``'s open write transaction, where the
    queue lives in the store's own PostgreSQL database. False when it cannot (a SQLite store,
    a queue elsewhere, no queue tables yet): the caller nudges after its commit instead::

        with store.transaction() as conn:
            result = capture_source(conn, ...)
            queued = result.created and nudge_consolidate_in(conn, result.source_id)
        if result.created and not queued:
            nudge_consolidate(result.source_id)
    """
    try:
        from memory_core.store.engines.dbapi import is_postgres

        if not is_postgres(conn):
            return False
        from memory_core.paths import state_home
        from memory_core.store.engines.backend import POSTGRESQL, resolve_queue

        queue = resolve_queue(state_home())
        if queue.kind != POSTGRESQL or queue.url != getattr(conn, "url", None):
            return False
        from workers.nudge_queue import enqueue_in_transaction
        from workers.queue_names import queue_name

        return enqueue_in_transaction(
            conn, "consolidate", (source_id,), {"forced": forced}, queue=queue_name(state_home())
        )
    except Exception:
        return False


def nudge_captured_in(conn: Any, source_ids: list[str] | tuple[str, ...], now: float) -> frozenset[str]:
    """Nudge newly captured sources inside the capture's own write transaction where the
    queue shares the store's PostgreSQL database (the nudge then commits, or rolls back, with
    the sources); the ids that need no nudge after the commit.

    On SQLite the queue is this machine's ``queue.db``, and only a worker on this machine
    reads it. A worker that watches for captures itself (``workers.capture_watch``, which
    records :data:`WATCH_KEY`) nudges them from its side; when no worker has beaten its
    heartbeat for :data:`LIVE_SECONDS`, no one would read a nudge before a worker starts, and
    a starting worker nudges every due source (``workers.tasks.STARTUP_RENUDGE_BATCH``), as its
    recoveries later do in batches (once a minute, and at each session start's ``recover``
    nudge). Either way those sources are not nudged here, and a capture writes nothing to
    ``queue.db``. Only with a worker beating that does not watch (:func:`hook_nudges`),
    :func:`nudge_captured` after the commit."""
    if not source_ids:
        return frozenset()
    from memory_core.store.engines.dbapi import is_postgres

    if not is_postgres(conn):
        return frozenset() if hook_nudges(conn, now) else frozenset(source_ids)
    return frozenset(sid for sid in source_ids if nudge_consolidate_in(conn, sid))


def hook_nudges(conn: Any, now: float) -> bool:
    """Whether a SQLite capture must nudge the worker itself: a worker recorded its heartbeat
    in the last :data:`LIVE_SECONDS` and no worker recorded that it watches for captures
    (:data:`WATCH_KEY`) in that time (both read in ``metadata``); True when it cannot be told
    (a nudge is then written). Each record errs towards a nudge: a heartbeat from a clock
    ahead of this one counts as recent, a watch record that is no finite time, or more than
    :data:`AHEAD_SECONDS` ahead, does not."""
    try:
        rows = dict(conn.execute("SELECT key, value FROM metadata WHERE key IN (?, ?)", (HEARTBEAT_KEY, WATCH_KEY)))
        watched = _age(rows.get(WATCH_KEY), now)
        if watched is not None and -AHEAD_SECONDS <= watched <= LIVE_SECONDS:
            return False
        age = _age(rows.get(HEARTBEAT_KEY), now)
        return age is not None and not age > LIVE_SECONDS
    except Exception:
        return True


def _age(raw: object, now: float) -> float | None:
    """How long before ``now`` the time ``raw`` was (``None``: no record); raises on a value
    that is not a number. A value that is not finite ("nan", "inf") ages as nan, which no
    comparison holds for."""
    return None if raw is None else now - float(str(raw))


def nudge_captured(source_ids: list[str] | tuple[str, ...], done: frozenset[str] = frozenset()) -> None:
    """After the capture's commit: nudge each new source not nudged in its transaction, in order."""
    for source_id in source_ids:
        if source_id not in done:
            nudge_consolidate(source_id)
