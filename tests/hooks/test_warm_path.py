"""The warm path for command hooks on SQLite: where `memevo serve` runs for the state dir, a
command hook hands its call to that warm server, and does the work itself when the server is
gone or does not answer quickly (docs/hooks.md, "The warm path for command hooks")."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from cli.hooks import gateway_client
from memory_core import clock
from tests.hooks.support import hook_process
from tests.integration.test_hook_imports import probe_hook
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env

pytestmark = pytest.mark.slow

CLAIM = "The build needs node 20 on the staging runners"
QUESTION = "which version of node does the build need on the staging runners?"
SAID = "remember that the deploy needs node 22 on the staging runners"


def generic(event: str, **fields: Any) -> str:
    return json.dumps({"schema": "memevo.hook/v1", "event": event, "cwd": "/work/app", "session_id": "warm", **fields})


@pytest.fixture
def seeded(home: Path) -> Path:
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed

    with Store.open(home) as store:
        seed(store, make_memory(CLAIM, at=clock.now() - 60))
    return home


def statements(home: Path) -> list[str]:
    from memory_core.store.engines.database import Store

    with Store.open_readonly(home) as store:
        rows = store.conn.execute("SELECT body FROM sources WHERE source_type = 'user_statement'").fetchall()
    return [json.loads(body)["text"] for (body,) in rows]


def test_a_command_hook_hands_its_call_to_the_warm_server(seeded: Path, tmp_path: Path) -> None:
    local = hook_process(generic("user_prompt", prompt=QUESTION), "user_prompt", env={"MEMEVO_HOOK_WARM": "0"})
    assert b"node 20" in local.stdout, local  # what the hook prints doing the work itself
    with MemevoServe(memevo_env(seeded), log=tmp_path / "serve.log"):
        modules, printed = probe_hook(
            seeded, tmp_path, ["hook", "user_prompt"], generic("user_prompt", prompt=QUESTION)
        )
        assert printed == local.stdout  # the same bytes, from the warm server
        assert "cli.hooks.gateway_client" in modules
        # no recall and no database in the hook's own process (it only read which store it has)
        assert not [
            name for name in modules if name.startswith(("memory_core.recall", "memory_core.store.engines.database"))
        ]
        said = hook_process(generic("turn_end", user_messages=[SAID]), "turn_end")
        assert (said.returncode, said.stdout, said.stderr) == (0, b"", b"")
        again = hook_process(generic("turn_end", user_messages=[SAID]), "turn_end")  # sent twice: one source
        assert again.returncode == 0
        assert statements(seeded) == [SAID]
        opted_out, _ = probe_hook(
            seeded,
            tmp_path,
            ["hook", "user_prompt"],
            generic("user_prompt", prompt=QUESTION),
            env={"MEMEVO_HOOK_WARM": "0"},
        )
        assert "memory_core.recall.service" in opted_out and "cli.hooks.gateway_client" not in opted_out


def test_a_server_that_does_not_answer_costs_a_moment_then_the_hook_works(seeded: Path) -> None:
    quick = hook_process(generic("user_prompt", prompt=QUESTION), "user_prompt", env={"MEMEVO_HOOK_WARM": "0"})
    silent = socket.socket()  # accepts the connection, never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        gateway_client.write_gateway_file(seeded, silent.getsockname()[1], os.getpid())
        (seeded / "hook-token").write_text("x" * 64 + "\n")
        started = time.monotonic()
        slow = hook_process(generic("user_prompt", prompt=QUESTION), "user_prompt")
        waited = time.monotonic() - started
        said = hook_process(generic("turn_end", user_messages=[SAID]), "turn_end")
    finally:
        silent.close()
    assert (slow.returncode, slow.stdout, slow.stderr) == (0, quick.stdout, b"")
    assert waited < 5.0  # the wait is bounded (0.15 s for a recall), then the hook's own work
    assert said.returncode == 0 and statements(seeded) == [SAID]  # captured by the hook itself


def test_a_gateway_file_of_a_gone_server_is_ignored(seeded: Path) -> None:
    gateway_client.write_gateway_file(seeded, 9, 2**22 + 12345)  # no such process
    result = hook_process(generic("user_prompt", prompt=QUESTION), "user_prompt")
    assert result.returncode == 0 and b"node 20" in result.stdout and result.stderr == b""
