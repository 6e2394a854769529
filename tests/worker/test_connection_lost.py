"""A PostgreSQL server that ends the worker's connection (a restart, a proxy, an
administrator's ``pg_terminate_backend``): the error is memevo's, and the attempt is recorded
as interrupted on a fresh connection, so its retry is scheduled at once instead of waiting
for the lease to expire. The same fault in the middle of an apply, in real consumer
processes, is bench/reliability/pg_faults.py (tests/reliability)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.errors import StoreError
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer
from tests.worker.conftest import capture, point_at, settings, source_row, worker_log
from workers import consolidate as consolidate_module
from workers.consolidate import AttemptStatus, consolidate_source

pytestmark = pytest.mark.postgres_only


def terminate(store: Store) -> None:
    """End ``store``'s server backend, as an administrator or a server restart would."""
    import psycopg

    pid = store.conn.raw.info.backend_pid  # type: ignore[attr-defined]
    with psycopg.connect(os.environ["MEMEVO_DATABASE_URL"], autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, "the backend did not end"
            time.sleep(0.02)


def test_statements_on_a_connection_the_server_ended_are_store_errors(home: Path) -> None:
    with Store.open(home) as store:
        terminate(store)
        for _ in range(2):  # the first notices the end, the next meets a closed connection
            with pytest.raises(StoreError, match="PostgreSQL at"):
                store.conn.execute("SELECT 1")
        with pytest.raises(StoreError, match="PostgreSQL at"):
            store.conn.executemany("SELECT ?", [(1,)])
        with pytest.raises(StoreError, match="PostgreSQL at"), store.transaction():
            pass


@pytest.fixture
def slow_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    with FakeModelServer(default_delay=1.0) as server:
        point_at(server, monkeypatch)
        yield server


def test_an_attempt_whose_connection_drops_during_the_model_call_is_recorded_as_interrupted(
    home: Path, slow_model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = capture(home)
    opened: list[Store] = []

    class Recorded(Store):
        @classmethod
        def open(cls, home: Path, backend=None) -> Store:  # type: ignore[no-untyped-def]
            store = super().open(home, backend)
            opened.append(store)
            return store

    monkeypatch.setattr(consolidate_module, "Store", Recorded)

    def drop_while_the_model_thinks() -> None:
        deadline = time.monotonic() + 20
        while slow_model.request_count < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        terminate(opened[0])

    dropper = threading.Thread(target=drop_while_the_model_thinks)
    dropper.start()
    try:
        outcome = consolidate_source(settings(), sid)
    finally:
        dropper.join()

    assert outcome.status == AttemptStatus.FAILED and outcome.error_code == "interrupted"
    row = source_row(home, sid)
    assert row.state == "pending" and row.consecutive_failures == 1 and row.last_error_code == "interrupted"
    assert row.lease_owner is None and outcome.next_due_at is not None and outcome.next_due_at > time.time() + 30
    assert len(opened) == 2  # the failure went through a fresh connection
    assert "interrupted by the store" in worker_log(home) and "Traceback" not in worker_log(home)
