"""Where a reliability check keeps its state, and how it reads it back.

A :class:`Place` is a state dir and its store: ``memory.db`` in the state dir (SQLite), or a
fresh schema of a PostgreSQL database (:func:`new_place` creates it and drops it afterwards,
so checks never see each other's rows; the queue, ``PostgresHuey``, lives in that schema
too, unless a Redis queue is named: its database is emptied before and after). Child
processes get the place's settings through :meth:`Place.env`, in-process calls through
:meth:`Place.active`. The checks read the store through memevo's own
:class:`~memory_core.store.engines.database.Store`, opened read-only, never through the engine's
files, so one check reads both backends the same way; what only one engine has (SQLite's
``PRAGMA integrity_check``, PostgreSQL's locks) is checked by :func:`integrity` per engine.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

DATABASE_VARIABLE = "MEMEVO_DATABASE_URL"
QUEUE_VARIABLE = "MEMEVO_QUEUE_URL"
SCHEMA_PREFIX = "memevo_rel_"


@dataclass(frozen=True)
class Place:
    """A state dir and its store: SQLite in ``home`` unless ``database_url`` is set."""

    home: Path
    database_url: str = ""
    queue_url: str = ""

    @property
    def on_postgres(self) -> bool:
        return bool(self.database_url)

    @property
    def backend(self) -> str:
        return "postgresql" if self.on_postgres else "sqlite"

    @property
    def queue(self) -> str:
        """Which queue the place's processes share: huey's tables beside the store, or Redis."""
        if self.queue_url:
            return "redis"
        return "postgresql" if self.on_postgres else "sqlite"

    def settings(self) -> dict[str, str]:
        """The memevo settings that name this place."""
        out = {"MEMEVO_HOME": str(self.home)}
        if self.database_url:
            out[DATABASE_VARIABLE] = self.database_url
        if self.queue_url:
            out[QUEUE_VARIABLE] = self.queue_url
        return out

    def env(self, **extra: str) -> dict[str, str]:
        """This process's environment without memevo settings, plus the place's and ``extra``
        (for a child process: a consumer, a hook, `memevo serve`)."""
        from bench._util import REPO

        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
        env.update(self.settings())
        env["PYTHONPATH"] = str(REPO)
        env.update(extra)
        return env

    @contextmanager
    def active(self, **extra: str) -> Iterator[Path]:
        """This process's memevo settings are the place's (and ``extra``) for the duration."""
        saved = {k: v for k, v in os.environ.items() if k.startswith("MEMEVO_")}
        for name in saved:
            del os.environ[name]
        os.environ.update(self.settings())
        os.environ.update(extra)
        try:
            yield self.home
        finally:
            for name in [k for k in os.environ if k.startswith("MEMEVO_")]:
                del os.environ[name]
            os.environ.update(saved)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (``?`` placeholders) read through the store opened read-only;
        none while no store exists yet."""
        from memory_core.store.engines.database import Store

        with self.active():
            store = Store.open_existing_readonly(self.home)
        if store is None:
            return []
        with store:
            return [tuple(row) for row in store.conn.execute(sql, params).fetchall()]


def _without_search_path(url: str) -> str:
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "options"]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def _with_search_path(url: str, schema: str) -> str:
    separator = "&" if urlsplit(url).query else "?"
    return f"{url}{separator}options={quote(f'-csearch_path={schema}')}"


@contextmanager
def new_place(home: Path, database_url: str | None = None, queue_url: str | None = None) -> Iterator[Place]:
    """A place for one check: SQLite in ``home``, or, with ``database_url``, a fresh schema of
    that database (its own ``search_path`` option replaced), dropped on the way out."""
    if not database_url:
        if queue_url:
            raise ValueError("a remote queue needs a PostgreSQL store (memevo refuses SQLite with a remote queue)")
        yield Place(home)
        return
    import psycopg

    base = _without_search_path(database_url)
    schema = SCHEMA_PREFIX + os.urandom(5).hex()
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    if queue_url:
        _flush(queue_url)
    try:
        yield Place(home, _with_search_path(base, schema), queue_url or "")
    finally:
        if queue_url:
            _flush(queue_url)
        try:
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute("SET lock_timeout = 30000")
                conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        except psycopg.Error:
            pass  # a schema left behind costs nothing but its rows


def _flush(redis_url: str) -> None:
    """Empty the Redis database of ``redis_url`` (a throwaway one), so no message of another
    run is consumed."""
    import redis

    redis.Redis.from_url(redis_url).flushdb()


def stored_bytes(place: Place) -> dict[str, bytes]:
    """Everything the store holds, per file (SQLite: ``memory.db`` and its WAL) or per table
    (PostgreSQL: every value of every row of every table in the place's schema, memevo's and
    the queue's), to search for text that must never be stored."""
    if not place.on_postgres:
        return {p.name: p.read_bytes() for p in sorted(place.home.glob("memory.db*")) if p.is_file()}
    import psycopg

    out: dict[str, bytes] = {}
    with psycopg.connect(place.database_url, autocommit=True) as conn:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                "ORDER BY table_name"
            ).fetchall()
        ]
        for table in tables:
            chunks: list[bytes] = []
            for row in conn.execute(f'SELECT * FROM "{table}"').fetchall():
                for value in row:
                    if isinstance(value, (bytes, bytearray, memoryview)):
                        chunks.append(bytes(value))
                    elif isinstance(value, str):
                        chunks.append(value.encode("utf-8", "surrogatepass"))
                    elif value is not None:
                        chunks.append(str(value).encode())
            out[table] = b"\n".join(chunks)
    return out


def write_lock_holders(place: Place, pid: int | None = None) -> int:
    """PostgreSQL: backends holding (or waiting for) memevo's write lock on this place's store
    (with ``pid``, only that backend's). A killed worker whose transaction the server never
    ended would stop every writer."""
    if not place.on_postgres:
        return 0
    import psycopg

    from memory_core.store.engines.pg import WRITE_LOCK_CLASS

    with psycopg.connect(place.database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s::bigint::oid "
            "AND objid = (hashtext(current_schema())::bigint & 4294967295)::oid AND objsubid = 2 "
            "AND (%s::int IS NULL OR pid = %s::int)",
            (WRITE_LOCK_CLASS, pid, pid),
        ).fetchone()
    return int(row[0]) if row else 0


def integrity(place: Place) -> dict[str, Any]:
    """memevo's row checks (what `memevo status` runs) on both engines; SQLite's own
    ``PRAGMA integrity_check`` on SQLite; on PostgreSQL, that no backend still holds the
    write lock. ``ok`` is all of them."""
    from memory_core.store.engines.database import Store
    from memory_core.store.schema.integrity import check_integrity

    with place.active(), Store.open_readonly(place.home) as store:
        report = check_integrity(store.conn)
        figures: dict[str, Any] = {
            "backend": place.backend,
            "rows_ok": bool(report["ok"]),
            "corrupt_rows": report.get("corrupt_count", 0),
        }
        if not place.on_postgres:
            figures["sqlite"] = store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    if place.on_postgres:
        figures["write_lock_held"] = write_lock_holders(place)
    figures["ok"] = figures["rows_ok"] and figures.get("sqlite", True) and not figures.get("write_lock_held")
    return figures
