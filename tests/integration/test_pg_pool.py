"""The idle connections `memevo serve` keeps (memory_core.store.engines.pg.enable_pool): a connection
the server ended while it waited is never handed to a request."""

from __future__ import annotations

import os

import pytest

from memory_core.store.engines import pg

pytestmark = pytest.mark.postgres_only


@pytest.fixture
def pooled(monkeypatch: pytest.MonkeyPatch) -> pg._Pool:
    pool = pg._Pool()
    monkeypatch.setattr(pg, "_pool", pool)
    pg.enable_pool()
    return pool


def backend_pid(conn: pg.PgConnection) -> int:
    return int(conn.execute("SELECT pg_backend_pid()").fetchone()[0])


def test_a_kept_connection_is_reused(pooled: pg._Pool, pg_url: str) -> None:
    url = os.environ["MEMEVO_DATABASE_URL"]
    first = pg.connect(url)
    pid = backend_pid(first)
    first.close()
    again = pg.connect(url)
    try:
        assert backend_pid(again) == pid  # no new connect, no new login
    finally:
        again.close()


def test_a_connection_the_server_ended_while_kept_is_replaced(pooled: pg._Pool, pg_url: str) -> None:
    url = os.environ["MEMEVO_DATABASE_URL"]
    admin = pg.connect(url)  # not one of the kept ones
    kept = [pg.connect(url) for _ in range(3)]
    pids = [backend_pid(conn) for conn in kept]
    for conn in kept:
        conn.close()  # back to the pool
    try:
        for pid in pids:  # as a server restart does to every kept connection
            admin.execute("SELECT pg_terminate_backend(?)", (pid,))
        fresh = pg.connect(url)
        try:
            assert backend_pid(fresh) not in pids
            assert fresh.execute("SELECT 41 + 1").fetchone()[0] == 42
        finally:
            fresh.close()
    finally:
        admin.close()
