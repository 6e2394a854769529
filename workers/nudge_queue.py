"""Nudges written straight into huey's queue: SQLite with the standard library only, and
PostgreSQL inside the caller's own transaction.

Hooks enqueue a nudge on most turns (a captured source, a session start). Importing huey
and the task module costs a hook process about 50 ms, more than the rest of the capture,
so the hook writes the message itself: the row huey's ``SqliteStorage.enqueue`` would write
(``queue.db`` in the state dir, private, WAL, the same tables), holding the pickled
``huey.registry.Message`` that ``huey.task`` would build for :func:`workers.tasks.consolidate`
or :func:`workers.tasks.recover` with default options. The consumer reads it as any other
message. ``tests/integration/test_nudge_queue.py`` compares both against huey itself (the
message fields, the tables, the queue name), so an upgrade of huey that changes them fails
there, not silently in a hook.

On a PostgreSQL store hooks go through ``memevo serve``, a warm process: there the nudge is
written by huey's own storage (:func:`enqueue_with_huey`: ``INSERT`` + ``pg_notify`` on
``PostgresHuey``, ``LPUSH`` on ``RedisHuey``), or, better, by :func:`enqueue_in_transaction`
in the very transaction that stores the source, so the nudge exists exactly when the source
does and the consumer is woken (``NOTIFY`` is delivered on commit) only once it can see it.

Each person has a queue of their own (:func:`workers.queue_names.queue_name`): on a
PostgreSQL store a worker consolidates only its own login's sources, so a nudge for Bob's
source must reach Bob's workers, never Alice's.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from memory_core.paths import state_home
from memory_core.store.engines.close_checkpoint import connection_class, fold_large_wal, skip_checkpoint_on_close
from memory_core.store.engines.connection import ensure_private_dir, make_private

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

QUEUE_NAME = "memevo"  # a SQLite store's queue: workers.queue_names.QUEUE_NAME
PG_TABLE_PREFIX = "memevo_huey"  # workers.app's PostgresHuey tables: memevo_huey_task, …
PG_TASK_TABLE = PG_TABLE_PREFIX + "_task"
QUEUE_FILE = "queue.db"
TIMEOUT = 10.0  # workers.app's busy timeout
TASK_NAMES = {"consolidate": "workers.tasks.consolidate", "recover": "workers.tasks.recover"}
# huey's SqliteStorage.ddl (idempotent), run on every connection as workers.app does.
DDL: tuple[str, ...] = (
    "create table if not exists kv (queue text not null, key text not null, value blob not null, "
    "primary key(queue, key))",
    "create table if not exists schedule (id integer not null primary key, queue text not null, "
    "data blob not null, timestamp real not null)",
    "create index if not exists schedule_queue_timestamp on schedule (queue, timestamp)",
    "create table if not exists task (id integer not null primary key, queue text not null, "
    "data blob not null, priority real not null default 0.0)",
    "create index if not exists task_queue_priority_id on task (queue, priority desc, id)",
    "create table if not exists counter (queue text not null, key text not null, "
    "value integer not null default 0, primary key(queue, key))",
    "drop index if exists task_priority_id",
)
# pickle opcodes (protocol 2): huey.registry.Message called with the field tuple. The few
# value types a nudge holds are written by :func:`_pickled`, so a hook need not load pickle.
_HEADER = b"\x80\x02chuey.registry\nMessage\n"
_CALL = b"R."


def task_id() -> str:
    """A random id in the form huey gives a task (``str(uuid.uuid4())``), without loading uuid."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def message_fields(task: str, args: tuple[Any, ...], kwargs: dict[str, Any], message_id: str) -> tuple[Any, ...]:
    """The fields of huey's ``Message`` for ``task`` called with ``args`` and ``kwargs``:
    id, name, eta, retries, retry_delay, priority, args, kwargs, on_complete, on_error,
    expires, expires_resolved, timeout, chord_config, retry_backoff (``huey.task()`` defaults)."""
    return (message_id, TASK_NAMES[task], None, 0, 0, None, args, kwargs, None, None, None, None, None, None, 0)


def message_bytes(
    task: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, message_id: str | None = None
) -> bytes:
    """What huey's serializer stores for the message (a pickle that unpickles as ``Message``)."""
    fields = message_fields(task, args, {} if kwargs is None else kwargs, message_id or task_id())
    return _HEADER + _pickled(fields) + _CALL


def _pickled(value: Any) -> bytes:
    """``value`` in pickle opcodes (protocol 2), for None, booleans, small ints, strings,
    tuples and dicts of them; anything else is refused."""
    if value is None:
        return b"N"
    if value is True or value is False:
        return b"\x88" if value else b"\x89"  # NEWTRUE, NEWFALSE
    if isinstance(value, int) and 0 <= value < 256:
        return b"K" + bytes([value])  # BININT1
    if isinstance(value, str):
        raw = value.encode("utf-8", "surrogatepass")
        return b"X" + len(raw).to_bytes(4, "little") + raw  # BINUNICODE
    if isinstance(value, tuple):
        return b"(" + b"".join(_pickled(v) for v in value) + b"t" if value else b")"  # MARK … TUPLE
    if isinstance(value, dict):
        items = b"".join(_pickled(k) + _pickled(v) for k, v in value.items())
        return b"}" + (b"(" + items + b"u" if value else b"")  # EMPTY_DICT, MARK … SETITEMS
    raise TypeError(f"a nudge cannot hold {type(value).__name__}")


def _connect(path: Path) -> sqlite3.Connection:
    ensure_private_dir(path.parent)
    factory = connection_class() or sqlite3.Connection  # a hook's: left open for its process's end
    conn: sqlite3.Connection = sqlite3.connect(path, timeout=TIMEOUT, isolation_level=None, factory=factory)
    make_private(path)  # by its path: a descriptor opened and closed here would drop SQLite's locks
    deadline = time.monotonic() + TIMEOUT
    while True:  # as huey: switching a new file to WAL may briefly meet a lock
        try:
            conn.execute('pragma journal_mode="wal"')
            break
        except sqlite3.OperationalError as exc:
            if "database is locked" not in str(exc) or time.monotonic() >= deadline:
                conn.close()
                raise
            time.sleep(0.01)
    # A nudge is no promise to the person: the source and its job are durable in memory.db, and
    # the worker's recovery re-nudges what a lost message left (huey's own storage does not sync
    # either). So no disk sync here, and no checkpoint when the hook closes the file.
    conn.execute("PRAGMA synchronous=NORMAL")
    skip_checkpoint_on_close(conn, str(path))
    fold_large_wal(conn, str(path))
    for statement in DDL:
        conn.execute(statement)
    return conn


def enqueue(
    task: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, *, home: Path | None = None
) -> None:
    """Put one message for ``task`` on the queue in ``home`` (the state dir by default)."""
    data = message_bytes(task, args, kwargs)
    conn = _connect((home or state_home()) / QUEUE_FILE)
    try:
        conn.execute("begin exclusive")
        try:
            conn.execute("insert into task (queue, data, priority) values (?, ?, ?)", (QUEUE_NAME, data, 0))
        except BaseException:
            conn.execute("rollback")
            raise
        conn.execute("commit")
    finally:
        conn.close()


def enqueue_in_transaction(
    conn: Any, task: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, *, queue: str
) -> bool:
    """Write one message for ``task`` into ``PostgresHuey``'s table, on queue ``queue``
    (:func:`workers.queue_names.queue_name`), through ``conn``, a PostgreSQL store connection inside its write
    transaction; the consumer is notified when that transaction commits. False (and the
    transaction unharmed, under a savepoint) when the queue tables do not exist yet: no
    consumer has started, and its start-up recovery finds the source anyway."""
    from workers.queue_names import pg_channel

    data = message_bytes(task, args, kwargs)
    conn.execute("SAVEPOINT memevo_nudge")
    try:
        conn.execute(f"INSERT INTO {PG_TASK_TABLE} (queue, data, priority) VALUES (?, ?, ?)", (queue, data, 0))
        conn.execute("SELECT pg_notify(?, '')", (pg_channel(queue, PG_TABLE_PREFIX),))
    except Exception:
        conn.execute("ROLLBACK TO SAVEPOINT memevo_nudge")
        conn.execute("RELEASE SAVEPOINT memevo_nudge")
        return False
    conn.execute("RELEASE SAVEPOINT memevo_nudge")
    return True


_HUEYS: dict[tuple[str, str, str, str], Any] = {}  # (state dir, queue URL, store URL, queue name)


def enqueue_with_huey(
    task: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, *, home: Path | None = None
) -> None:
    """Put the same message on the queue through huey's own storage (``PostgresHuey`` or
    ``RedisHuey``): for warm processes (``memevo serve``, the CLI), never a hook.

    The queue is the one configured for ``home`` now, not the one ``workers.app`` was
    imported with: a long-lived process may serve a state dir whose queue changed since."""
    from memory_core.store.engines.backend import resolve, resolve_queue
    from workers.app import make_huey
    from workers.queue_names import queue_name

    home = home or state_home()
    key = (str(home), resolve_queue(home).url, resolve(home).url, queue_name(home))
    huey = _HUEYS.get(key)
    if huey is None:
        for stale in _HUEYS.values():  # one queue at a time: its connection is not kept
            stale.storage.close()
        _HUEYS.clear()
        huey = _HUEYS[key] = make_huey(home)
    huey.storage.enqueue(message_bytes(task, args, kwargs), 0)
