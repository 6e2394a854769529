"""SQLite's locks survive everything memevo does in a process that holds a connection.

On POSIX, closing any descriptor of a file drops every advisory lock the process holds on
it. A second connect in another thread of the same process must therefore never open and
close ``memory.db`` itself, or the first thread's transaction loses its lock and another
process, believing it holds the last connection, checkpoints and deletes the WAL under it
(SQLite's "How To Corrupt An SQLite Database File", section 2.2). The rule
(docs/reliability.md, "SQLite's locks") is checked here twice: by its consequence, and by an
audit hook that sees every Python-level open, rename and removal of a state dir database
while memevo's own paths run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memory_core.store.engines.connection import connect, is_state_database_file, write_transaction
from tests.factories import worker_beating

pytestmark = pytest.mark.sqlite_only

# Another process's last connection: a TRUNCATE checkpoint, then a close, which deletes the
# WAL when SQLite believes no other connection is open anywhere.
_CHECKPOINT_AND_CLOSE = """
import json, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=0.2)
busy, frames, done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
conn.close()
print(json.dumps({"busy": busy, "frames": frames, "checkpointed": done}))
"""


def _seed(path: Path, rows: int = 40) -> None:
    conn = connect(path)
    with write_transaction(conn):
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 400,) for _ in range(rows)])
    conn.close()


def test_a_connect_in_another_thread_keeps_an_open_transactions_lock(tmp_path: Path) -> None:
    db = tmp_path / "state" / "memory.db"
    _seed(db)
    writer = connect(db)
    reader = connect(db)
    reader.execute("BEGIN")
    assert reader.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 40  # a snapshot in the WAL
    with write_transaction(writer):
        writer.execute("INSERT INTO t VALUES ('newer')")  # a frame the reader must not see
    writer.close()
    wal = Path(f"{db}-wal")
    frames_before = wal.stat().st_size
    assert frames_before > 0

    second: list[BaseException] = []

    def connect_again() -> None:
        try:
            connect(db).close()  # a worker's heartbeat, a request of `memevo serve` or `memevo ui`
        except BaseException as exc:  # pragma: no cover - reported below
            second.append(exc)

    thread = threading.Thread(target=connect_again)
    thread.start()
    thread.join()
    assert not second

    other = subprocess.run(
        [sys.executable, "-c", _CHECKPOINT_AND_CLOSE, str(db)], capture_output=True, text=True, timeout=60
    )
    assert other.returncode == 0, other.stderr
    checkpoint = json.loads(other.stdout)
    # The reader still holds its snapshot: the checkpoint could not finish, and the closing
    # process saw another connection open, so it kept the WAL (today's bug deleted it).
    assert checkpoint["busy"] == 1
    assert wal.exists() and wal.stat().st_size == frames_before
    assert reader.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 40
    reader.execute("COMMIT")
    assert reader.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 41
    assert reader.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    reader.close()


# Every audit event that opens, renames, truncates or removes a file by its path.
_FILE_EVENTS = {"open", "os.rename", "os.remove", "os.truncate", "shutil.copyfile", "shutil.move", "os.link"}
_recording: list[tuple[str, str]] | None = None
_hooked = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _recording is None or event not in _FILE_EVENTS or not args:
        return
    for arg in args[:2]:
        if isinstance(arg, (str, bytes, Path)):
            name = Path(arg.decode() if isinstance(arg, bytes) else arg).name
            if name.startswith(("memory.db", "queue.db")):
                _recording.append((event, str(arg)))


@contextmanager
def database_file_touches() -> Iterator[list[tuple[str, str]]]:
    """Every Python-level open, rename, truncation or removal of a file named ``memory.db*``
    or ``queue.db*`` while the block runs (SQLite's own opens are in C and not audited)."""
    global _recording, _hooked
    if not _hooked:
        sys.addaudithook(_audit)  # permanent for the process; inert while not recording
        _hooked = True
    _recording = []
    try:
        yield _recording
    finally:
        _recording = None


def test_no_memevo_path_opens_a_database_file_outside_sqlite(home: Path, model: Any) -> None:
    from cli.hooks.entry import run_hook
    from memory_core.config import load_settings
    from memory_core.reports.database_state import inspect_database
    from memory_core.store.engines.database import Store
    from memory_core.store.schema.migrations import backup_database
    from workers import nudge_queue
    from workers.app import StateDirStorage
    from workers.consolidate import consolidate_source

    turn = {
        "schema": "memevo.hook/v1",
        "event": "turn_end",
        "agent": "test",
        "session_id": "locks-1",
        "cwd": str(home),
        "user_messages": ["remember that the staging database listens on port 6543"],
    }
    with database_file_touches() as touched:
        with Store.open(home) as store:  # creates and migrates memory.db
            inner = Store.open(home)  # a second connection while the first is open
            inner.close()
            backup_database(store.conn, home / "backups", 10, 0.0)
        worker_beating(home)  # a worker runs: the capture writes its nudge too
        result = run_hook(json.dumps(turn).encode(), "turn_end", None)
        assert (result.stdout, result.stderr) == ("", ""), result
        nudge_queue.enqueue("recover", home=home)
        storage = StateDirStorage("memevo", filename=str(home / "queue.db"))
        storage.conn.execute("SELECT COUNT(*) FROM task").fetchone()
        storage.close()
        assert consolidate_source(load_settings(), None).status.value == "done"
        assert inspect_database(home)["state"] == "ok"
        with Store.open_readonly(home) as readonly:
            assert readonly.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] >= 1
    assert touched == []


def test_export_refuses_to_write_over_a_database_file(home: Path, cli_run: Any) -> None:
    with cli_run_store(home):
        pass
    for name in ("memory.db", "memory.db-wal", "queue.db"):
        result = cli_run("export", str(home / name))
        assert result.exit_code != 0 and "memevo's own database files" in result.output, result.output
    assert is_state_database_file(home / "sub" / ".." / "memory.db", home)
    assert not is_state_database_file(home / "export.jsonl", home)
    result = cli_run("export", str(home / "export.jsonl"))
    assert result.exit_code == 0, result.output
    with cli_run_store(home) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@contextmanager
def cli_run_store(home: Path) -> Iterator[Any]:
    from memory_core.store.engines.database import Store

    with Store.open(home) as store:
        yield store


def test_the_last_connection_closes_without_a_checkpoint(tmp_path: Path) -> None:
    """A hook's connection is usually the last to close: it leaves the WAL (which its commit
    synced) instead of checkpointing it (five disk syncs per database: docs/hooks.md)."""
    import sqlite3

    db = tmp_path / "state" / "memory.db"
    _seed(db, rows=5)  # memevo's connect: closed without a checkpoint
    wal = Path(f"{db}-wal")
    assert wal.exists() and wal.stat().st_size > 0
    plain = sqlite3.connect(db, isolation_level=None)  # SQLite's default: the last close checkpoints
    plain.execute("INSERT INTO t VALUES ('plain')")
    plain.close()
    assert not wal.exists()
    conn = connect(db)
    assert conn.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 6
    conn.close()
