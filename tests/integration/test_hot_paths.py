"""The per-turn paths never load the validation library or the HTTP client.

Importing them costs more than a whole bare interpreter start on a small machine, so a
hook that captures a user statement, the per-turn recall hook and `memevo recall` must do
without them (docs/architecture.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.hooks import support

# Validation, HTTP and the record models (the hook tests check the task queue too).
NOT_ON_HOT_PATHS = ("pydantic", "httpx", "memory_core.records")


def loaded_heavy_modules(home: Path, argv: list[str], stdin: str = "") -> list[str]:
    return support.loaded_heavy_modules(home, stdin, tuple(argv), NOT_ON_HOT_PATHS)


@pytest.fixture
def ready_home(home: Path) -> Path:
    from memory_core.store.database import Store

    Store.open(home).close()
    return home


def event(name: str, **fields) -> str:
    return json.dumps({"schema": "memevo.hook/v1", "event": name, "cwd": "/tmp", "session_id": "hot", **fields})


def test_statement_capture_hook_stays_light(ready_home: Path) -> None:
    payload = event("turn_end", user_messages=["remember that the build needs node 20"])
    assert loaded_heavy_modules(ready_home, ["hook", "turn_end"], payload) == []
    from memory_core.store.database import Store

    with Store.open(ready_home) as store:  # and it really captured
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1


def test_recall_paths_stay_light(ready_home: Path) -> None:
    payload = event("user_prompt", user_messages=["which node version does the build need?"])
    assert loaded_heavy_modules(ready_home, ["hook", "user_prompt"], payload) == []
    assert loaded_heavy_modules(ready_home, ["recall", "node version"]) == []
    assert loaded_heavy_modules(ready_home, ["hook", "session_start"], event("session_start")) == []
