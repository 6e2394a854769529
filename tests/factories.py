"""Small builders for records used across tests."""

from __future__ import annotations

from typing import Any

from memory_core.ids import content_hash, memory_id
from memory_core.records import Evidence, Memory


def make_memory(
    content: str = "The project uses SQLite for storage",
    *,
    origin: str = "/work/app",
    kind: str = "fact",
    at: float = 1_700_000_000.0,
    **extra: Any,
) -> Memory:
    values: dict[str, Any] = {
        "id": memory_id(origin, kind, content),
        "origin": origin,
        "kind": kind,
        "content": content,
        "content_hash": content_hash(content),
        "created_at": at,
        "updated_at": at,
        "source_id": "s" * 24,
        "evidence": Evidence(basis="summary", method="local", source_id="s" * 24, at=at),
    }
    values.update(extra)
    return Memory(**values)


def seed(store, *memories: Memory) -> None:
    """Write ``memories`` to an open store in one transaction."""
    from memory_core.store.tables.memories import put_memory

    with store.transaction() as conn:
        for memory in memories:
            put_memory(conn, memory)


def worker_beating(home, at: float | None = None, *, watching: bool = False) -> None:
    """A worker's heartbeat in the store of state dir ``home``, as a running worker records
    it: capture hooks on SQLite nudge only while a worker beats (cli/nudge.py), and not even
    then while a worker watches for captures itself (``watching``: workers.capture_watch)."""
    from memory_core import clock
    from memory_core.jobs.heartbeat import write_heartbeat, write_watch
    from memory_core.store.engines.database import Store

    with Store.open(home) as store, store.transaction() as conn:
        write_heartbeat(conn, clock.now() if at is None else at, "host:1")
        if watching:
            write_watch(conn, clock.now() if at is None else at)


# The console script's hook entry run by ``python -c`` (what ``memevo hook turn_end`` runs).
TURN_END_HOOK = "import sys; sys.argv = ['memevo', 'hook', 'turn_end']; from cli.main import run; run()"


def run_turn_end(code: str, cwd, env: dict[str, str], messages: list[str], session_id: str = "test", **options: Any):
    """A generic ``turn_end`` hook call (``messages`` from the user) run by ``python -c code``
    from the repository, its JSON on stdin; the hook fails open, so it must exit 0 and print
    nothing. Returns the completed process."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test",
        "event": "turn_end",
        "session_id": session_id,
        "cwd": str(cwd),
        "user_messages": messages,
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(Path(__file__).resolve().parent.parent),
        timeout=60,
        **options,
    )
    assert result.returncode == 0 and result.stdout == "" and result.stderr == "", result.stderr
    return result
