"""Every file memevo makes in the state dir is its owner's alone (0600, directories 0700),
whatever the umask: the databases and their sidecars, the queue, the caches (the compiled
patterns and module code a hook keeps), logs, stashes, diagnostics, the injection log and the spool."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import REPO

pytestmark = pytest.mark.sqlite_only  # the files of the SQLite default


def run_hook(home: Path, event: str, payload: dict) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli", "hook", event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        # without bytecode writing, as many container images run Python: the compiled patterns
        # are then kept in the state dir (cache/regex.*), the case that was 0644
        env={**os.environ, "MEMEVO_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=REPO,
        preexec_fn=lambda: os.umask(0),  # the most permissive umask a person can have
        timeout=60,
    )
    assert result.returncode == 0 and not result.stderr, result.stderr


def test_every_state_file_is_private_whatever_the_umask(home: Path) -> None:
    base = {"schema": "memevo.hook/v1", "agent": "test", "session_id": "modes-1", "cwd": str(home)}
    run_hook(home, "session_start", {**base, "event": "session_start"})
    run_hook(home, "user_prompt", {**base, "event": "user_prompt", "prompt": "which port does the api use?"})
    run_hook(home, "turn_end", {**base, "event": "turn_end", "user_messages": ["remember that the api uses 8080"]})
    run_hook(home, "user_prompt", {**base, "event": "user_prompt", "prompt": "which port does the api use?"})
    found = {p.relative_to(home).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in home.rglob("*")}
    assert any(name.startswith("cache/regex.") for name in found), found  # the case that was 0644
    assert any(name.startswith("cache/modules.") for name in found), found  # the hook path's module code
    assert "memory.db" in found and "queue.db" in found
    loose = {name: oct(mode) for name, mode in found.items() if mode != (0o700 if (home / name).is_dir() else 0o600)}
    assert loose == {}
