from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memory_core.errors import CorruptRecordError
from memory_core.records import Memory
from memory_core.store.engines.database import Store
from memory_core.store.schema.migrations import SCHEMA_VERSION
from memory_core.store.tables.memories import get_memory, put_memory, require_memory
from tests.factories import make_memory


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.sqlite_only  # the memory.db file's own modes and pragmas
def test_fresh_state_dir_is_private_and_durable(home: Path) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            put_memory(conn, make_memory())
        assert mode(home) == 0o700
        for suffix in ("", "-wal", "-shm"):
            f = Path(str(store.path) + suffix)
            assert f.exists(), suffix
            assert mode(f) == 0o600, suffix
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
        assert store.schema_version() == SCHEMA_VERSION


def test_reads_return_independent_copies(store: Store) -> None:
    memory = make_memory(search_terms=["sqlite", "storage"])
    with store.transaction() as conn:
        put_memory(conn, memory)
    first = get_memory(store.conn, memory.id)
    assert first is not None
    first.search_terms.append("mutated")
    assert first.evidence is not None
    first.evidence.source_id = "changed"
    again = require_memory(store.conn, memory.id)
    assert again.search_terms == ["sqlite", "storage"]
    assert again.evidence is not None and again.evidence.source_id == "s" * 24


def test_malformed_row_raises_typed_error_with_id(store: Store) -> None:
    memory = make_memory()
    with store.transaction() as conn:
        put_memory(conn, memory)
        conn.execute("UPDATE memories SET body='{not json' WHERE id=?", (memory.id,))
    with pytest.raises(CorruptRecordError) as info:
        get_memory(store.conn, memory.id)
    assert info.value.row_id == memory.id
    assert info.value.table == "memories"


def test_body_column_disagreement_is_corruption(store: Store) -> None:
    memory = make_memory()
    with store.transaction() as conn:
        put_memory(conn, memory)
        conn.execute("UPDATE memories SET status='forgotten' WHERE id=?", (memory.id,))
    with pytest.raises(CorruptRecordError, match="disagree"):
        get_memory(store.conn, memory.id)


def test_failed_transaction_writes_nothing(store: Store) -> None:
    memory = make_memory()
    with pytest.raises(RuntimeError):
        with store.transaction() as conn:
            put_memory(conn, memory)
            raise RuntimeError("boom")
    assert get_memory(store.conn, memory.id) is None
    assert store.conn.execute("SELECT COUNT(*) FROM postings").fetchone()[0] == 0


def _stale_index(home: Path) -> Memory:
    """A store holding one claim whose index was built by another version (0) and lacks it."""
    memory = make_memory("The build cache lives in /var/cache/build")
    with Store.open(home) as store:
        with store.transaction() as conn:
            put_memory(conn, memory)
            conn.execute("UPDATE postings SET tf = 0 WHERE feature='' AND memory_id='' AND field='version'")
            conn.execute("DELETE FROM postings WHERE memory_id=?", (memory.id,))
    return memory


def test_stale_recall_index_is_rebuilt_on_open(home: Path) -> None:
    memory = _stale_index(home)
    with Store.open(home) as store:
        from memory_core.store.schema.index_version import INDEX_VERSION, index_version

        assert index_version(store.conn) == INDEX_VERSION
        assert store.conn.execute("SELECT COUNT(*) FROM postings WHERE memory_id=?", (memory.id,)).fetchone()[0] > 0
        assert store.refresh_recall_index() is False  # current now: nothing to do


@pytest.mark.sqlite_only  # hooks on PostgreSQL go through `memevo serve`, which opens the store itself
def test_a_hook_leaves_a_stale_index_to_the_next_process(home: Path, tmp_path: Path) -> None:
    """A rebuild reads every claim (about 54 s at 100,000): a capture hook must not do it for
    its agent; it captures against the stale index, and the next full open rebuilds."""
    import os
    import sqlite3

    from memory_core.store.schema.index_version import INDEX_VERSION, index_version
    from tests.factories import TURN_END_HOOK, run_turn_end

    memory = _stale_index(home)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env["MEMEVO_HOME"] = str(home)
    result = run_turn_end(TURN_END_HOOK, tmp_path, env, ["remember that the release train leaves on Tuesdays"])
    assert result.returncode == 0 and result.stdout == ""
    with sqlite3.connect(home / "memory.db") as raw:
        assert raw.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1  # captured
        assert index_version(raw) == 0  # not rebuilt by the hook
        assert raw.execute("SELECT COUNT(*) FROM postings WHERE memory_id=?", (memory.id,)).fetchone()[0] == 0
    with Store.open(home) as store:  # the worker, `memevo status`, any command
        assert index_version(store.conn) == INDEX_VERSION
        assert store.conn.execute("SELECT COUNT(*) FROM postings WHERE memory_id=?", (memory.id,)).fetchone()[0] > 0
