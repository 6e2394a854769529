"""The 2 MB rule that bounds memory.db's WAL (memory_core/store/engines/close_checkpoint.py).

Connections close without a checkpoint, so the WAL is only folded back by SQLite's automatic
checkpoint, the worker's periodic one, and this rule: a connection that opens a WAL past
``WAL_TRUNCATE_BYTES`` checkpoints and truncates it; below that it leaves it alone; and a
reader holding an old snapshot makes it a no-op (nothing waits) until a later opener.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memory_core.store.engines import close_checkpoint
from memory_core.store.engines.close_checkpoint import WAL_TRUNCATE_BYTES, fold_large_wal, skip_checkpoint_on_close
from memory_core.store.engines.connection import connect

pytestmark = pytest.mark.sqlite_only  # SQLite's WAL; no store backend involved

ROW = b"x" * 4000  # about one page of WAL per row


def wal_size(db: Path) -> int:
    wal = Path(f"{db}-wal")
    return wal.stat().st_size if wal.exists() else 0


def grow_wal(db: Path, rows: int) -> None:
    """Write ``rows`` pages through a connection that neither checkpoints as it goes nor on close."""
    conn = connect(db)
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE IF NOT EXISTS filler (n INTEGER PRIMARY KEY, data BLOB)")
    for start in range(0, rows, 100):
        with conn:
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO filler (data) VALUES (?)", [(ROW,)] * min(100, rows - start))
    conn.close()


def count(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM filler").fetchone()[0])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "memory.db"


def test_an_opening_connection_truncates_a_wal_past_2_mb(db: Path) -> None:
    grow_wal(db, 700)  # ~2.9 MB of frames
    before = wal_size(db)
    assert before > WAL_TRUNCATE_BYTES, "the close checkpointed: no WAL left to test the rule on"
    connect(db).close()
    assert wal_size(db) == 0
    assert count(db) == 700  # folded into the database, nothing lost


def test_a_wal_below_2_mb_is_left_as_it_is(db: Path) -> None:
    grow_wal(db, 250)  # ~1 MB
    before = wal_size(db)
    assert 0 < before < WAL_TRUNCATE_BYTES
    connect(db).close()
    assert wal_size(db) == before
    assert count(db) == 250


def test_the_rule_is_past_the_limit_not_at_it(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grow_wal(db, 50)
    size = wal_size(db)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        monkeypatch.setattr(close_checkpoint, "WAL_TRUNCATE_BYTES", size)
        assert not fold_large_wal(conn, str(db)) and wal_size(db) == size
        monkeypatch.setattr(close_checkpoint, "WAL_TRUNCATE_BYTES", size - 1)
        assert fold_large_wal(conn, str(db)) and wal_size(db) == 0
    finally:
        conn.close()


def test_a_reader_on_an_old_snapshot_defers_the_truncation_without_waiting(db: Path) -> None:
    grow_wal(db, 700)
    reader = sqlite3.connect(db, isolation_level=None)
    assert skip_checkpoint_on_close(reader, str(db))  # its own close must not fold the WAL
    reader.execute("BEGIN")
    assert reader.execute("SELECT COUNT(*) FROM filler").fetchone()[0] == 700  # holds its snapshot
    opened = connect(db)  # does not wait on the reader (busy_timeout 0 for the checkpoint)
    assert opened.execute("PRAGMA busy_timeout").fetchone()[0] > 0  # the store's own wait is back
    opened.close()
    assert wal_size(db) > WAL_TRUNCATE_BYTES  # not truncated under the reader
    reader.execute("COMMIT")
    reader.close()
    assert wal_size(db) > WAL_TRUNCATE_BYTES
    connect(db).close()  # the next opener folds it
    assert wal_size(db) == 0 and count(db) == 700


def test_no_wal_no_fold(db: Path) -> None:
    db.parent.mkdir()
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        assert not fold_large_wal(conn, str(db))
    finally:
        conn.close()
