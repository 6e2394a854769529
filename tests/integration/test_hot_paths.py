"""The per-turn paths never load the validation library or the HTTP client.

Importing them costs more than a whole bare interpreter start on a small machine, so a
hook that captures a user statement, the per-turn recall hook and `memevo recall` must do
without them (docs/architecture.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import REPO

PROBE = r"""
import io, json, sys
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()))
sys.argv = ["memevo", *json.loads(sys.argv[1])]
from cli.main import main
try:
    main()
except SystemExit:
    pass
heavy = sorted(m for m in ("pydantic", "httpx", "memory_core.records") if m in sys.modules)
print(json.dumps(heavy), file=sys.stderr)
"""


def loaded_heavy_modules(home: Path, argv: list[str], stdin: str = "") -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(argv), stdin],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"MEMEVO_HOME": str(home), "PATH": ""},
        timeout=60,
    )
    return json.loads(result.stderr.strip().splitlines()[-1])


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
