"""SQLite connections with memevo's durability and privacy settings.

Connections run in autocommit mode; writes go through :func:`write_transaction`, which
uses ``BEGIN IMMEDIATE`` so two writers queue on the busy timeout instead of failing on
a lock upgrade.

:mod:`sqlite3` (with :mod:`datetime`, about 3-4 ms) is imported where a connection is made
or used, not at the top: the capture hook imports this module for :func:`ensure_private_dir`
on every turn end, and a turn that captures nothing opens no database.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from memory_core.errors import StoreError
from memory_core.store.engines.dbapi import DbConn, is_postgres

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    import sqlite3
    from typing import TypeVar

    T = TypeVar("T")

BUSY_TIMEOUT_MS = 15_000
# Beyond the busy timeout, a write retries a few times before giving up with a clear error.
LOCK_RETRIES = 4
DIR_MODE = 0o700
FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) and make it readable by the owner only."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if stat.S_IMODE(path.stat().st_mode) != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def make_private(path: Path) -> None:
    """Make ``path``, when it exists, readable and writable by its owner only, by its path.

    Never by opening it: a database file is opened by SQLite alone. On POSIX, closing *any*
    descriptor of a file drops every lock the process holds on it, so a thread that opened
    and closed ``memory.db`` while another thread of the same process was inside a
    transaction would silently take that transaction's lock away, and another process could
    then checkpoint and delete the WAL under it (docs/reliability.md, "SQLite's locks").
    A new database file is created by SQLite itself, inside a directory only the owner can
    enter (:func:`ensure_private_dir`), and made private here before its ``-wal`` and
    ``-shm`` exist (SQLite gives those the database file's mode)."""
    try:
        if stat.S_IMODE(os.stat(path).st_mode) != FILE_MODE:
            os.chmod(path, FILE_MODE)
    except FileNotFoundError:
        pass


SIDECAR_SUFFIXES = ("-wal", "-shm", "-journal")
# The SQLite databases a state dir holds: the memory and huey's queue (workers.app).
STATE_DATABASES = ("memory.db", "queue.db")


def is_state_database_file(path: Path, home: Path) -> bool:
    """Whether ``path`` names one of state dir ``home``'s SQLite databases or their sidecars
    (by any spelling, links included): a file memevo must never open, truncate or replace
    outside SQLite, so a command given one as its output file refuses it."""
    target = Path(os.path.realpath(path))
    for name in STATE_DATABASES:
        db = Path(os.path.realpath(home / name))
        for candidate in (db, *(Path(str(db) + suffix) for suffix in SIDECAR_SUFFIXES)):
            if target == candidate:
                return True
            try:
                if os.path.samefile(target, candidate):
                    return True
            except OSError:
                continue
    return False


def secure_sidecars(db_path: Path) -> None:
    """Make the database and its ``-wal``/``-shm`` files private (0600), by their paths."""
    for suffix in ("", "-wal", "-shm"):
        make_private(Path(str(db_path) + suffix))


def connect(
    db_path: Path, *, readonly: bool = False, before_wal: Callable[[sqlite3.Connection], object] | None = None
) -> sqlite3.Connection:
    """Open ``db_path`` with WAL, ``synchronous=FULL`` and a busy timeout.

    A read-only connection never creates or changes the database file. ``before_wal`` runs
    on a writable connection before it is switched to WAL or changes anything (a store reads
    and checks its schema version there, so a database this build must refuse is never
    switched); whatever it raises closes the connection and propagates.
    """
    import sqlite3

    conn = None
    try:
        if readonly:
            if not db_path.exists():
                raise StoreError(f"no memory database at {db_path}; run `memevo status` first")
            conn = sqlite3.connect(
                f"file:{db_path}?mode=ro",
                uri=True,
                isolation_level=None,
                timeout=BUSY_TIMEOUT_MS / 1000,
                check_same_thread=False,
            )
        else:
            from memory_core.store.engines.close_checkpoint import connection_class

            ensure_private_dir(db_path.parent)
            conn = sqlite3.connect(
                db_path,
                isolation_level=None,
                timeout=BUSY_TIMEOUT_MS / 1000,
                check_same_thread=False,
                factory=connection_class() or sqlite3.Connection,
            )
            make_private(db_path)  # SQLite created it if it was missing: private before its WAL
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        if not readonly:
            from memory_core.store.engines.close_checkpoint import (
                STORE_WAL_FOLD_BYTES,
                fold_large_wal,
                skip_checkpoint_on_close,
            )

            # The commit makes a write durable (close_checkpoint); set first, so that not even
            # closing a connection ``before_wal`` refused checkpoints the database.
            skip_checkpoint_on_close(conn, str(db_path))
            if before_wal is not None:
                before_wal(conn)
            mode = _enable_wal(conn)
            if str(mode).lower() != "wal":
                raise StoreError(f"{db_path}: could not enable WAL mode (got {mode})")
            fold_large_wal(conn, str(db_path), STORE_WAL_FOLD_BYTES)
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        if not readonly:
            secure_sidecars(db_path)
        return conn
    except sqlite3.DatabaseError as exc:
        if conn is not None:
            conn.close()
        raise StoreError(f"cannot open {db_path}: {exc}; check the file or restore a copy from backups/") from None
    except BaseException:
        if conn is not None:
            conn.close()
        raise


def _enable_wal(conn: sqlite3.Connection) -> str:
    import sqlite3

    # Switching a new database to WAL needs an exclusive lock, and SQLite may report "locked"
    # at once instead of waiting on the busy handler while another process is creating it.
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _is_locked(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


@contextlib.contextmanager
def write_transaction(conn: DbConn) -> Iterator[DbConn]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error.

    Lock contention beyond the busy timeout is retried a few times; if it persists the
    caller gets a :class:`StoreError`, never a bare "database is locked". On PostgreSQL the
    connection's own write transaction (one advisory lock for all writers) does the same.
    """
    if is_postgres(conn):
        with conn.write_transaction() as pg:  # type: ignore[attr-defined]
            yield pg
        return
    import sqlite3

    for attempt in range(LOCK_RETRIES + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if not _is_locked(exc) or attempt == LOCK_RETRIES:
                raise StoreError(f"the memory database stayed busy: {exc}; retry, or stop other writers") from None
            time.sleep(0.05 * (attempt + 1))
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        try:
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            conn.execute("ROLLBACK")
            raise StoreError(f"commit failed: {exc}; nothing was written, retry") from None


def require_transaction(conn: DbConn, what: str) -> None:
    """Refuse to write ``what`` outside a transaction: history must commit with the data."""
    if not conn.in_transaction:
        raise RuntimeError(f"{what} must run inside store.transaction()")


# SQLite's default limit on host parameters is far above this; chunks keep statements small.
IN_CHUNK = 400


def in_chunks(values: Sequence[T]) -> Iterator[tuple[str, Sequence[T]]]:
    """Split ``values`` for ``… IN (marks)`` queries: yields ``(marks, chunk)`` pairs where
    ``marks`` is the comma-joined placeholders for ``chunk``."""
    for start in range(0, len(values), IN_CHUNK):
        chunk = values[start : start + IN_CHUNK]
        yield ",".join("?" * len(chunk)), chunk
