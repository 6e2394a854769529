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

from tests.factories import run_turn_end, worker_beating
from tests.support.processes import REPO

pytestmark = pytest.mark.sqlite_only  # SQLite's WAL and a hook process's own files

# In a fresh interpreter: connections made after keep_connections_until_exit() outlive close();
# with "release" they are closed for real at the end (a hook leaving without os._exit).
_KEPT = """
import json, os, sys
from pathlib import Path
from memory_core.store.engines import close_checkpoint
from memory_core.store.engines.connection import connect
close_checkpoint.keep_connections_until_exit()
loaded = "sqlite3" in sys.modules
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
report = {"rows": rows, "ctypes": "_ctypes" in sys.modules, "kept": len(close_checkpoint._kept), "loaded": loaded}
if sys.argv[2] == "release":
    report["released"] = close_checkpoint.release_kept_connections()
print(json.dumps(report))
sys.stdout.flush()
if sys.argv[2] == "exit":
    os._exit(0)
"""


def run_kept(db: Path, ending: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _KEPT, str(db), ending], capture_output=True, text=True, cwd=str(REPO), timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def committed_rows(db: Path) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return [r[0] for r in conn.execute("SELECT v FROM t")]


def test_kept_connections_leave_the_wal_to_the_next_opener(tmp_path: Path) -> None:
    db = tmp_path / "state" / "memory.db"
    report = run_kept(db, "exit")
    assert report == {"rows": ["committed"], "ctypes": False, "kept": 2, "loaded": False}
    wal = Path(f"{db}-wal")
    assert wal.exists() and wal.stat().st_size > 0  # no checkpoint folded it at the end
    assert committed_rows(db) == ["committed"]
    assert {p.name: oct(p.stat().st_mode & 0o777) for p in db.parent.iterdir()} == {
        "memory.db": "0o600",
        "memory.db-wal": "0o600",
        "memory.db-shm": "0o600",
    }


def test_released_connections_close_without_a_checkpoint_too(tmp_path: Path) -> None:
    """A hook that leaves another way than os._exit closes them for real, set as any other
    connection is: the WAL is not folded (a database the hook refused stays as it was)."""
    db = tmp_path / "state" / "memory.db"
    report = run_kept(db, "release")
    assert report["released"] == 2 and report["rows"] == ["committed"]
    wal = Path(f"{db}-wal")
    assert wal.exists() and wal.stat().st_size > 0
    assert committed_rows(db) == ["committed"]


# A hook process through the console script's run(), reporting what it held just before os._exit.
_HOOK = """
import json, os, sys
sys.argv = ["memevo", "hook", "turn_end"]
real_exit = os._exit
def report_then_exit(status):
    kept = sys.modules.get("memory_core.store.engines.close_checkpoint")
    with open(os.environ["PROBE"], "w") as out:
        json.dump({
            "status": status,
            "ctypes": "_ctypes" in sys.modules,
            "sqlite3": "sqlite3" in sys.modules,
            "kept": sorted(type(c).__name__ for c in (kept._kept if kept else [])),
        }, out)
    real_exit(status)
os._exit = report_then_exit
from cli.main import run
run()
"""


def run_hook(tmp_path: Path, home: Path, session: str, messages: list[str]) -> dict:
    probe = tmp_path / f"{session}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env.update({"MEMEVO_HOME": str(home), "PROBE": str(probe)})
    run_turn_end(_HOOK, tmp_path, env, messages, session)
    return json.loads(probe.read_text())


def test_a_capture_hook_keeps_its_connections_and_loads_no_ctypes(tmp_path: Path) -> None:
    home = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    subprocess.run(
        [sys.executable, "-m", "cli", "status"],
        env={**env, "MEMEVO_HOME": str(home)},
        cwd=str(REPO),
        capture_output=True,
        timeout=60,
    )
    worker_beating(home)  # a worker runs: the capture nudges it through queue.db
    report = run_hook(tmp_path, home, "kept", ["remember that the nightly build runs at 02:00"])
    # the store's connection and the nudge's, both kept; no _ctypes to set them up
    assert report == {"status": 0, "ctypes": False, "sqlite3": True, "kept": ["KeptConnection"] * 2}
    for name in ("memory.db", "queue.db"):
        assert Path(home / f"{name}-wal").stat().st_size > 0, name
    with sqlite3.connect(f"file:{home / 'memory.db'}?mode=ro", uri=True) as conn:
        bodies = [r[0] for r in conn.execute("SELECT body FROM sources")]
    assert any("nightly build runs at 02:00" in body for body in bodies)
    with sqlite3.connect(f"file:{home / 'queue.db'}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT COUNT(*) FROM task").fetchone()[0] >= 1


def test_a_turn_end_that_captures_nothing_loads_no_sqlite(tmp_path: Path) -> None:
    """Keeping connections costs a hook that opens none nothing (not even sqlite3)."""
    home = tmp_path / "state"
    home.mkdir()
    report = run_hook(tmp_path, home, "nothing", ["thanks, that looks fine"])
    assert report == {"status": 0, "ctypes": False, "sqlite3": False, "kept": []}
