"""Shared helpers for the worker tests: a loopback model, captures and job rows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import Settings, load_settings
from memory_core.records import Source
from memory_core.store.engines.database import Store
from memory_core.store.tables.sources import require_source
from tests.support.fake_model import FakeModelServer, point_at  # noqa: F401  (point_at: for the tests here)

ORIGIN = "/work/app"
# Planted in model answers: it must never reach the database, the log or any output.
SECRET = "sk-live-PLANTED0123456789SECRETabcdef"


@pytest.fixture(autouse=True)
def nudges(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str | None, bool]]:
    """The forced nudges commands send, recorded instead of enqueued (the Huey app binds the
    queue of the first state dir it was imported with, so in-process tests must not use it)."""
    sent: list[tuple[str | None, bool]] = []

    def record(source_id: str | None, *, forced: bool = False) -> bool:
        sent.append((source_id, forced))
        return True

    monkeypatch.setattr("cli.nudge.nudge_consolidate", record)
    return sent


@pytest.fixture(autouse=True)
def fresh_task_settings() -> Iterator[None]:
    """workers.tasks reads settings once per process; each test gets its own."""
    from workers import tasks

    tasks.settings.cache_clear()
    yield
    tasks.settings.cache_clear()


def settings() -> Settings:
    return load_settings()


def capture(
    home: Path,
    text: str = "remember that the staging database listens on port 5433",
    source_type: str = "user_statement",
    origin: str = ORIGIN,
) -> str:
    with Store.open(home) as store:
        with store.transaction() as conn:
            return capture_source(conn, source_type=source_type, origin=origin, text=text, now=clock.now()).source_id


def source_row(home: Path, sid: str) -> Source:
    with Store.open(home) as store:
        return require_source(store.conn, sid)


def state_bytes(home: Path) -> bytes:
    """Every file of the state dir, concatenated (database, its WAL, logs, queue)."""
    return b"".join(path.read_bytes() for path in sorted(home.rglob("*")) if path.is_file())


def worker_log(home: Path) -> str:
    path = home / "logs" / "worker.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.fixture(autouse=True)
def cold_worker() -> Iterator[None]:
    """Each test starts as a fresh worker process: no model has answered it yet."""
    from workers import model_warmup

    model_warmup.forget_answers()
    yield
    model_warmup.forget_answers()
