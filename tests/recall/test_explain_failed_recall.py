"""`memevo explain` after an automatic recall that could not run shows that attempt, not the
turn before it (issue 24, item 6)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory


def ask(home: Path, prompt: str, now: float) -> str:
    return handle_event(HookEvent("user_prompt", agent="test-agent", prompt=prompt), home, now)


def last(cli_run) -> dict:
    return json.loads(cli_run("explain", "--json").output)


@pytest.fixture
def answered(home: Path, cli_run) -> float:
    """One turn that recalled: explain shows it."""
    now = time.time()
    with Store.open(home) as store, store.transaction() as conn:
        put_memory(conn, make_memory("Redis listens on port 6380 in development", at=now - 60))
    assert "6380" in ask(home, "which port does Redis listen on?", now)
    assert last(cli_run)["at"] == now and "failed" not in last(cli_run)
    return now


@pytest.mark.sqlite_only  # memory.db's file
def test_a_missing_store_is_the_last_attempt(home: Path, cli_run, answered: float) -> None:
    (home / "memory.db").unlink()
    assert ask(home, "which port does Redis listen on?", answered + 5) == ""
    data = last(cli_run)
    assert data["at"] == answered + 5 and data["failed"] == "no_store"
    assert data["digest"] == {"claims": 0, "bytes": 0}
    text = cli_run("explain").output
    assert "failed:     no_store" in text and "memevo status" in text


@pytest.mark.sqlite_only  # memory.db's file
def test_a_corrupt_store_is_the_last_attempt(home: Path, cli_run, answered: float) -> None:
    for extra in home.glob("memory.db-*"):
        extra.unlink()
    (home / "memory.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises; the hook entry fails open
        ask(home, "which port does Redis listen on?", answered + 5)
    data = last(cli_run)
    assert data["at"] == answered + 5 and data["failed"] == "store_error"
    assert "memevo doctor" in cli_run("explain").output


@pytest.mark.postgres_only
def test_an_unreachable_store_is_the_last_attempt(
    home: Path, cli_run, answered: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_DATABASE_URL", "postgresql://memevo@127.0.0.1:1/memevo_test?connect_timeout=2")
    with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises; the hook entry fails open
        ask(home, "which port does Redis listen on?", answered + 5)
    data = last(cli_run)
    assert data["at"] == answered + 5 and data["failed"] == "store_error"


def test_no_state_dir_is_created_by_a_failed_attempt(tmp_path: Path) -> None:
    from memory_core.recall.service import record_failed_recall

    missing = tmp_path / "never-made"
    record_failed_recall(missing, "no_store", now=1.0)
    assert not missing.exists()
