"""PostgreSQL connections (psycopg 3) that behave as memevo's SQLite connections do.

Store code is written once, with ``?`` placeholders, and runs on both engines. A
:class:`PgConnection` gives it the same surface as ``sqlite3.Connection`` in autocommit mode
(``execute``, ``executemany``, ``in_transaction``, ``close``; cursors with ``fetchone``,
``fetchall``, iteration and ``rowcount``; rows as tuples) and keeps the guards' meaning:

- **placeholders**: each statement's ``?`` become ``%s`` and a literal ``%`` becomes ``%%``,
  outside quoted text, once per distinct statement (:func:`translate`); SQLite's planner
  hints (``INDEXED BY name``) are dropped, PostgreSQL plans those reads by itself;
- **one writer at a time**: :meth:`PgConnection.write_transaction` is ``BEGIN`` and then
  ``pg_advisory_xact_lock`` on one key, the way ``BEGIN IMMEDIATE`` serializes SQLite's
  writers, so every check-then-write guard (lease held, origin generation unchanged, target
  still active) sees no other writer between its check and its write; readers never wait;
- **values as SQLite stores them**: booleans are written as 0/1 (the columns are integers);
- **errors**: any driver error becomes a :class:`StoreError` that says what to do, never a
  driver traceback; a statement that fails inside a transaction rolls the whole transaction
  back (PostgreSQL refuses the rest of it anyway).

The driver is an optional extra (``memevo[postgres]``); this module is imported only where a
PostgreSQL store is opened, never by a hook (the hook talks to ``memevo serve``).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from memory_core.errors import MemevoError, SchemaVersionError, StoreError
from memory_core.store.engines.backend import redact
from memory_core.store.engines.dbapi import POSTGRESQL

# pg_advisory_xact_lock keys for "a memevo write transaction": a class of lock (any 32-bit
# constant) and the store's schema, so every writer of one store queues on one lock while
# stores in other schemas of the same database never wait for each other.
WRITE_LOCK_CLASS = 0x3A5C_6E1F
WRITE_LOCK_SQL = "SELECT pg_advisory_xact_lock(?, hashtext(current_schema()))"
# A session lock held across all the steps of a migration (and the backup before them), so a
# second process opening a store that is being created or upgraded waits for the end instead
# of backing up a schema halfway between two versions.
MIGRATION_LOCK_CLASS = 0x3A5C_6E20
MIGRATION_WAIT = "10min"  # a migration of a large store takes seconds; a dead holder's lock goes with its session
# Connections a long-running process (memevo serve, the gateway) keeps open between requests,
# per URL and mode; hooks and commands open and close their own (see enable_pool).
POOL_IDLE = 8
LOCK_TIMEOUT_MS = 15_000  # as SQLite's busy timeout: a writer waits this long, then fails clearly
CONNECT_TIMEOUT_S = 5
SNAPSHOT = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

_HINT = re.compile(r"\s+INDEXED\s+BY\s+\w+", re.IGNORECASE)
_translated: dict[str, str] = {}
_translated_lock = threading.Lock()


def translate(sql: str) -> str:
    """``sql`` with ``?`` → ``%s`` and ``%`` → ``%%`` outside quotes, hints dropped (cached)."""
    done = _translated.get(sql)
    if done is not None:
        return done
    out: list[str] = []
    quote = ""
    for char in sql:
        if quote:
            out.append("%%" if char == "%" else char)
            if char == quote:
                quote = ""
        elif char in ("'", '"'):
            quote = char
            out.append(char)
        elif char == "?":
            out.append("%s")
        elif char == "%":
            out.append("%%")
        else:
            out.append(char)
    done = _HINT.sub("", "".join(out))
    with _translated_lock:
        if len(_translated) > 4096:  # statements are fixed text: this never fills in practice
            _translated.clear()
        _translated[sql] = done
    return done


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError(
            "MEMEVO_DATABASE_URL names PostgreSQL, but its driver is not installed; "
            "install it with: pip install 'memevo[postgres]'"
        ) from None
    return psycopg


def describe_error(exc: BaseException, url: str) -> str:
    """What went wrong with the server at ``url``, in words that say what to do."""
    text = " ".join(str(exc).split())
    lowered = text.lower()
    where = redact(url)
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return f"PostgreSQL at {where} refused the login ({text}); check the user and password in MEMEVO_DATABASE_URL"
    if "does not exist" in lowered and "database" in lowered:
        return f"PostgreSQL at {where}: {text}; create it first (createdb) or fix the name in MEMEVO_DATABASE_URL"
    if "role" in lowered and "does not exist" in lowered:
        return f"PostgreSQL at {where}: {text}; create the role or fix the user in MEMEVO_DATABASE_URL"
    if "no pg_hba.conf entry" in lowered:
        return f"PostgreSQL at {where} does not accept this client ({text}); add a pg_hba.conf line for it"
    if any(
        hint in lowered
        for hint in ("connection refused", "could not connect", "timeout expired", "could not translate", "no route")
    ):
        return f"cannot reach PostgreSQL at {where} ({text}); is the server running and the host and port right?"
    return f"PostgreSQL at {where}: {text}"


class _Cursor:
    """A psycopg cursor read as sqlite3's: rows are tuples; ``rowcount`` as the driver's."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return int(self._cursor.rowcount)

    @property
    def description(self) -> Any:
        return self._cursor.description

    def fetchone(self) -> Any:
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[Any]:
        return list(self._cursor.fetchall()) if self._cursor.description is not None else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """One psycopg connection in autocommit mode, spoken to as a ``sqlite3.Connection``."""

    dialect = POSTGRESQL

    def __init__(self, raw: Any, url: str, *, readonly: bool = False) -> None:
        self.raw = raw
        self.url = url
        self.readonly = readonly

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        psycopg = _driver()
        try:  # a connection the server ended fails at cursor(): that is a StoreError too
            cursor = self.raw.cursor()
            cursor.execute(translate(sql), tuple(parameters) if parameters else None)
        except psycopg.Error as exc:
            raise self._error(exc) from None
        return _Cursor(cursor)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> _Cursor:
        psycopg = _driver()
        rows = [tuple(row) for row in parameters]
        try:
            cursor = self.raw.cursor()
            if rows:
                cursor.executemany(translate(sql), rows)
        except psycopg.Error as exc:
            raise self._error(exc) from None
        return _Cursor(cursor)

    def _error(self, exc: BaseException) -> MemevoError:
        psycopg = _driver()
        if isinstance(exc, psycopg.errors.LockNotAvailable):
            return StoreError(
                f"the memory database stayed busy for {LOCK_TIMEOUT_MS // 1000} s (another writer held it); retry"
            )
        if isinstance(exc, psycopg.errors.UndefinedTable):
            return SchemaVersionError(
                f"the memevo tables are missing on {redact(self.url)} ({' '.join(str(exc).split())}); "
                "run `memevo status` once to create them"
            )
        if isinstance(exc, psycopg.errors.ReadOnlySqlTransaction):
            return StoreError("this connection is read-only; the command must not write")
        if isinstance(exc, psycopg.OperationalError):
            return StoreError(describe_error(exc, self.url))
        return StoreError(f"the memory database refused a statement: {' '.join(str(exc).split())[:300]}")

    @contextlib.contextmanager
    def write_transaction(self) -> Iterator[PgConnection]:
        """``BEGIN`` + the write lock … ``COMMIT``; rolled back on any error."""
        self.execute("BEGIN")
        try:
            self.execute(WRITE_LOCK_SQL, (WRITE_LOCK_CLASS,))
        except BaseException:
            self._rollback()
            raise
        try:
            yield self
        except BaseException:
            self._rollback()
            raise
        else:
            try:
                self.execute("COMMIT")
            except StoreError as exc:
                self._rollback()
                raise StoreError(f"commit failed: {exc}; nothing was written, retry") from None

    @contextlib.contextmanager
    def migration_lock(self) -> Iterator[PgConnection]:
        """Hold this store's migration lock (a session advisory lock) for the block."""
        # SET LOCAL needs a transaction, and the session lock outlives it. Not a write
        # transaction: the holder takes the write lock for each step while others wait here.
        self.execute("BEGIN")
        try:
            self.execute(f"SET LOCAL lock_timeout = '{MIGRATION_WAIT}'")
            self.execute("SELECT pg_advisory_lock(?, hashtext(current_schema()))", (MIGRATION_LOCK_CLASS,))
            self.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        try:
            yield self
        finally:
            self.execute("SELECT pg_advisory_unlock(?, hashtext(current_schema()))", (MIGRATION_LOCK_CLASS,))

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[PgConnection]:
        """One consistent read of many statements (what ``BEGIN`` gives a SQLite reader)."""
        self.execute(SNAPSHOT)
        try:
            yield self
        finally:
            self._rollback()

    def _rollback(self) -> None:
        with contextlib.suppress(Exception):
            if self.in_transaction:
                self.raw.execute("ROLLBACK")

    def close(self) -> None:
        if _pool.give_back(self):
            return
        with contextlib.suppress(Exception):
            self.raw.close()


class _Pool:
    """Idle connections kept by a long-running process, per (URL, read-only); off by default.

    A connection goes back only when it is healthy and outside any transaction, so its
    session settings (read-only, lock timeout) are the ones it was opened with. One taken
    again is asked ``SELECT 1`` first (a loopback round trip, far below a connect): after a
    server restart every kept connection is dead, and without the check each would fail the
    next request it served."""

    def __init__(self) -> None:
        self.enabled = False
        self.idle: dict[tuple[str, bool], list[Any]] = {}
        self.lock = threading.Lock()

    def take(self, url: str, readonly: bool) -> Any | None:
        if not self.enabled:
            return None
        while True:
            with self.lock:
                stack = self.idle.get((url, readonly), [])
                if not stack:
                    return None
                raw = stack.pop()
            if raw.closed or raw.broken:
                continue
            try:
                raw.execute("SELECT 1")
            except Exception:  # the server ended it (restart, idle timeout, a cut network)
                try:
                    raw.close()
                except Exception:
                    pass
                continue
            return raw

    def give_back(self, conn: PgConnection) -> bool:
        if not self.enabled or conn.in_transaction:
            return False
        raw = conn.raw
        if raw.closed or raw.broken:
            return False
        with self.lock:
            stack = self.idle.setdefault((conn.url, conn.readonly), [])
            if len(stack) >= POOL_IDLE:
                return False
            stack.append(raw)
        return True


_pool = _Pool()


def enable_pool() -> None:
    """Keep connections open between uses in this process (``memevo serve``): each request
    then skips the connect and login (several milliseconds on loopback, more with TLS)."""
    _pool.enabled = True


def connect(url: str, *, readonly: bool = False, application: str = "memevo") -> PgConnection:
    """Open ``url`` in autocommit mode with memevo's session settings, or a :class:`StoreError`
    that names the problem (unreachable, login refused, no such database)."""
    kept = _pool.take(url, readonly)
    if kept is not None:
        return PgConnection(kept, url, readonly=readonly)
    psycopg = _driver()
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, application_name=application)
    except psycopg.Error as exc:
        raise StoreError(describe_error(exc, url)) from None
    except Exception as exc:  # a malformed URL is a ProgrammingError or a ValueError of the parser
        raise StoreError(f"cannot use MEMEVO_DATABASE_URL {redact(url)}: {exc}") from None
    _adapt(raw)
    conn = PgConnection(raw, url, readonly=readonly)
    try:
        conn.execute(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        conn.execute("SET TIME ZONE 'UTC'")
        if readonly:
            conn.execute("SET default_transaction_read_only = on")
    except BaseException:
        conn.close()
        raise
    return conn


def _adapt(raw: Any) -> None:
    """Write Python booleans as 0/1, as SQLite stores them in integer columns."""
    from psycopg.adapt import Dumper

    class BoolAsInt(Dumper):
        oid = raw.adapters.types["int8"].oid

        def dump(self, obj: Any) -> bytes:
            return b"1" if obj else b"0"

    raw.adapters.register_dumper(bool, BoolAsInt)
