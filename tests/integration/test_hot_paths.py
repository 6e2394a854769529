"""The per-turn paths never load the validation library or the HTTP client.

Importing them costs more than a whole bare interpreter start on a small machine, so a
hook that captures a user statement, the per-turn recall hook and `memevo recall` must do
without them (docs/architecture.md).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hooks import support

# Validation, HTTP, the record models and any database driver or TLS (the hook tests check
# the task queue too). On PostgreSQL the hooks go through the gateway (``memevo serve``).
NOT_ON_HOT_PATHS = ("pydantic", "httpx", "memory_core.records", "psycopg", "psycopg_pool", "redis", "sqlalchemy", "ssl")


def loaded_heavy_modules(home: Path, argv: list[str], stdin: str = "") -> list[str]:
    return support.loaded_heavy_modules(home, stdin, tuple(argv), NOT_ON_HOT_PATHS)


@pytest.fixture
def ready_home(home: Path, backend: str, tmp_path: Path) -> Iterator[Path]:
    """A migrated store; on PostgreSQL named in the state dir's config.toml (the probe passes
    no environment beyond MEMEVO_HOME), with the machine's gateway running."""
    from memory_core.store.engines.database import Store

    Store.open(home).close()
    if backend != "postgresql":
        yield home
        return
    from tests.support.memevo_serve import MemevoServe
    from tests.support.memevo_worker import memevo_env

    url = os.environ["MEMEVO_DATABASE_URL"]
    (home / "config.toml").write_text(f"database_url = {json.dumps(url)}\n", encoding="utf-8")
    with MemevoServe(memevo_env(home), log=tmp_path / "serve.log"):
        yield home


def event(name: str, **fields) -> str:
    return json.dumps({"schema": "memevo.hook/v1", "event": name, "cwd": "/tmp", "session_id": "hot", **fields})


def test_statement_capture_hook_stays_light(ready_home: Path) -> None:
    payload = event("turn_end", user_messages=["remember that the build needs node 20"])
    assert loaded_heavy_modules(ready_home, ["hook", "turn_end"], payload) == []
    from memory_core.store.engines.database import Store

    with Store.open(ready_home) as store:  # and it really captured
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1


def test_recall_paths_stay_light(ready_home: Path) -> None:
    payload = event("user_prompt", user_messages=["which node version does the build need?"])
    assert loaded_heavy_modules(ready_home, ["hook", "user_prompt"], payload) == []
    # `memevo recall` is a command, not a hook: on PostgreSQL it opens the database itself.
    command_heavy = ("pydantic", "httpx", "memory_core.records")
    assert support.loaded_heavy_modules(ready_home, "", ("recall", "node version"), command_heavy) == []
    assert loaded_heavy_modules(ready_home, ["hook", "session_start"], event("session_start")) == []


def test_compaction_capture_with_labelled_lines_stays_light(ready_home: Path) -> None:
    """A summary whose labelled lines become claims at once writes them as plain rows."""
    summary = "The session reviewed the release.\n- Decision: the billing service deploys blue-green."
    payload = event("compaction", summary=summary)
    assert loaded_heavy_modules(ready_home, ["hook", "compaction"], payload) == []
    from memory_core.store.engines.database import Store

    with Store.open(ready_home) as store:  # and it really captured the summary and its claim
        assert store.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1
        assert store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 1
