"""memevo never captures itself: under the marker the worker sets for the agent CLI it runs
as its model, every memevo hook returns at once — exit 0, nothing on stdout or stderr, no
source, no state dir, no log line. Without the marker the same hook captures."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli import main as cli_main
from memory_core.model_providers import MODEL_CALL_MARKER
from tests.hooks.support import hook_process, sources

STATEMENT = {
    "schema": "memevo.hook/v1",
    "event": "turn_end",
    "session_id": "s-marker",
    "cwd": "/tmp",
    "user_messages": ["remember that the zebra-queue service listens on port 5433"],
    "final_message": "Noted.",
}


def test_the_entry_spells_the_marker_as_the_worker_sets_it() -> None:
    assert cli_main.MODEL_CALL_MARKER == MODEL_CALL_MARKER


@pytest.mark.slow
@pytest.mark.parametrize("args", [("turn_end",), ("--agent", "claude-code"), ("--agent", "gemini"), ()])
def test_a_hook_under_the_marker_returns_at_once_and_leaves_nothing(home: Path, args: tuple[str, ...]) -> None:
    result = hook_process(STATEMENT, *args, env={MODEL_CALL_MARKER: "1"})
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not home.exists()  # no store, no queue, no log: nothing was opened


@pytest.mark.slow
def test_the_same_hook_without_the_marker_captures(home: Path) -> None:
    result = hook_process(STATEMENT, "turn_end")
    assert result.returncode == 0, result.stderr
    assert any("zebra-queue" in text for *_, text in sources(home))


@pytest.mark.slow
def test_memevos_mcp_server_under_the_marker_serves_nothing(home: Path) -> None:
    import json
    import subprocess
    import sys

    from tests.support.processes import REPO

    hello = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) + "\n"
    import os

    env = {**os.environ, MODEL_CALL_MARKER: "1"}
    done = subprocess.run(
        [sys.executable, "-m", "cli", "mcp"],
        input=hello.encode(),
        capture_output=True,
        env=env,
        timeout=60,
        cwd=str(REPO),
    )
    assert (done.returncode, done.stdout) == (0, b"")
    assert not home.exists()
