"""The state of the store as `memevo doctor` reads it: opened read-only (never creating
``memory.db`` or a table), its schema version, its integrity, the worker's heartbeat and, on
PostgreSQL, the server's clock. :mod:`memory_core.reports.health` turns it into checks.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from memory_core.errors import ConfigError, MemevoError
from memory_core.jobs.clock_skew import measure_skew
from memory_core.jobs.heartbeat import read_heartbeat
from memory_core.jobs.model_state import read_worker_model
from memory_core.reports.postgres_problems import postgres_problem
from memory_core.reports.status import memory_counts
from memory_core.store.engines.backend import SQLITE, Backend, redact, resolve
from memory_core.store.engines.connection import connect
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.safekeeping.damage import is_damage
from memory_core.store.schema import migrations
from memory_core.store.schema.integrity import check_integrity

# What may escape a read of the store: memevo's own errors (every psycopg error becomes a
# StoreError in memory_core.store.engines.pg) and sqlite3's, which a SQLite read can still raise.
DATABASE_ERRORS: tuple[type[Exception], ...] = (MemevoError, sqlite3.DatabaseError)
OPEN_ERRORS: tuple[type[Exception], ...] = (OSError, *DATABASE_ERRORS)


def inspect_database(home: Path) -> dict[str, Any]:
    """Open the store read-only (never creating ``memory.db`` or a table) and report its state.

    ``state`` is ``absent`` (no memory yet), ``ok``, ``damaged`` (opens, but the integrity
    checks `memevo status` runs find problems), ``outdated`` (an older schema the next
    writer migrates), ``newer`` (a schema of a newer memevo), ``misconfigured`` (the URL is
    refused) or ``unreadable`` (with ``problem`` on PostgreSQL: see :func:`postgres_problem`);
    ``heartbeat`` is the worker's last heartbeat when the database could be read, and
    ``server_skew`` the PostgreSQL server's clock minus this machine's.
    """
    path = home / "memory.db"
    base: dict[str, Any] = {"path": str(path), "backend": SQLITE, "url": None, "heartbeat": None, "worker_model": None}
    try:
        backend = resolve(home)
    except ConfigError as exc:
        return {**base, "state": "misconfigured", "error": str(exc)}
    if not backend.is_sqlite:
        base = {**base, "path": None, "backend": backend.kind, "url": redact(backend.url)}
    else:
        try:
            if not path.exists() or path.stat().st_size == 0:
                return {**base, "state": "absent"}
        except OSError as exc:
            return {**base, "state": "unreadable", "error": f"cannot read {path}: {exc.strerror}"}
    try:
        conn = _connect_readonly(backend)
    except DATABASE_ERRORS as exc:
        if backend.is_sqlite and is_damage(str(exc)):
            return _damaged(base, str(exc))
        found = {**base, "state": "unreadable", "error": str(exc)}
        return found if backend.is_sqlite else {**found, "problem": postgres_problem(str(exc))}
    try:
        if not backend.is_sqlite:
            base["server_skew"] = measure_skew(conn)
        version = migrations.read_version(conn)
        if version is None:
            return {**base, "state": "absent"}
        if version != migrations.SCHEMA_VERSION:
            state = "newer" if version > migrations.SCHEMA_VERSION else "outdated"
            return {**base, "state": state, "schema_version": version}
        store = Store(conn, backend.path, readonly=True, backend=backend)
        integrity = check_integrity(store.conn)
        return {
            **base,
            "state": "ok" if integrity["ok"] else "damaged",
            "schema_version": version,
            "memories": memory_counts(store)["total"],
            "integrity": integrity,
            "heartbeat": read_heartbeat(store.conn),
            "worker_model": read_worker_model(store.conn),
        }
        return found
    except DATABASE_ERRORS as exc:
        if backend.is_sqlite and is_damage(str(exc)):
            return _damaged(base, str(exc))
        where = str(path) if backend.is_sqlite else redact(backend.url)
        return {**base, "state": "unreadable", "error": f"{where}: {exc}"}
    finally:
        conn.close()


def _damaged(base: dict[str, Any], problem: str) -> dict[str, Any]:
    """SQLite found the file's pages damaged before any check could finish."""
    integrity = {"quick_check": [problem], "corrupt_rows": [], "corrupt_count": 0, "ok": False}
    return {**base, "state": "damaged", "integrity": integrity, "unread": True}


def _connect_readonly(backend: Backend) -> DbConn:
    if backend.path is not None:
        return connect(backend.path, readonly=True)
    from memory_core.store.engines import pg

    return pg.connect(backend.url, readonly=True, application="memevo-doctor")
