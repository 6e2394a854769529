"""A hook process leaves its SQLite connections to its own end (close_checkpoint.
keep_connections_until_exit): no checkpoint when it "closes" them, no ``_ctypes`` to set one
up, what it committed durable and visible, what it did not commit rolled back."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import REPO

pytestmark = pytest.mark.sqlite_only  # SQLite's WAL and a hook process's own files

# In a fresh interpreter: connections made after keep_connections_until_exit() outlive close().
_KEPT = """
import json, os, sys
from pathlib import Path
from memory_core.store.engines import close_checkpoint
from memory_core.store.engines.connection import connect
close_checkpoint.keep_connections_until_exit()
db = Path(sys.argv[1])
conn = connect(db)
conn.execute("CREATE TABLE IF NOT EXISTS t (v TEXT)")
conn.execute("BEGIN")
conn.execute("INSERT INTO t VALUES ('committed')")
conn.execute("COMMIT")
conn.execute("BEGIN")
conn.execute("INSERT INTO t VALUES ('not committed')")
conn.close()
reader = connect(db)
rows = [r[0] for r in reader.execute("SELECT v FROM t")]
reader.close()
print(json.dumps({"rows": rows, "ctypes": "_ctypes" in sys.modules, "kept": len(close_checkpoint._kept)}))
sys.stdout.flush()
os._exit(0)
"""


def test_kept_connections_leave_the_wal_to_the_next_opener(tmp_path: Path) -> None:
    db = tmp_path / "state" / "memory.db"
    result = subprocess.run(
        [sys.executable, "-c", _KEPT, str(db)], capture_output=True, text=True, cwd=str(REPO), timeout=60
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {"rows": ["committed"], "ctypes": False, "kept": 2}
    wal = Path(f"{db}-wal")
    assert wal.exists() and wal.stat().st_size > 0  # no checkpoint folded it at the end
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert [r[0] for r in conn.execute("SELECT v FROM t")] == ["committed"]
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in db.parent.iterdir()} == {
        "memory.db": "0o600",
        "memory.db-wal": "0o600",
        "memory.db-shm": "0o600",
    }


def test_a_capture_hook_leaves_both_databases_unfolded_and_loads_no_ctypes(tmp_path: Path) -> None:
    home = tmp_path / "state"
    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test",
        "event": "turn_end",
        "session_id": "kept",
        "cwd": str(tmp_path),
        "user_messages": ["remember that the nightly build runs at 02:00"],
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env["MEMEVO_HOME"] = str(home)
    subprocess.run([sys.executable, "-m", "cli", "status"], env=env, cwd=str(REPO), capture_output=True, timeout=60)
    code = "import sys; sys.argv = ['memevo', 'hook', 'turn_end']\n" + (
        "import atexit\natexit.register(lambda: print('ctypes' if '_ctypes' in sys.modules else 'no ctypes'))\n"
        "from cli.main import run\nrun()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=60,
    )
    # os._exit ends it: no atexit handler runs, nothing printed, nothing on stderr
    assert result.returncode == 0 and result.stdout == "" and result.stderr == "", result.stderr
    for name in ("memory.db", "queue.db"):
        assert Path(home / f"{name}-wal").stat().st_size > 0, name
    with sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True) as conn:
        bodies = [r[0] for r in conn.execute("SELECT body FROM sources")]
    assert any("nightly build runs at 02:00" in body for body in bodies)
    with sqlite3.connect(f"file:{home / 'queue.db'}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM task").fetchone()[0] >= 1

    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.argv = ['memevo', 'hook', 'turn_end']\n"
            "from cli.main import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('_ctypes' in sys.modules)",
        ],
        input=json.dumps({**payload, "session_id": "kept-2", "user_messages": ["remember that lint runs first"]}),
        capture_output=True,
        text=True,
        env=env,
        cwd=str(REPO),
        timeout=60,
    )
    # main() alone (as a test calls it) closes its connections for real, through _ctypes on 3.11
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == str(sys.version_info[:2] == (3, 11))
