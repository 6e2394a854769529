"""The rules that bound memory.db's WAL (memory_core/store/engines/close_checkpoint.py).

Connections close without a checkpoint, so the WAL is only folded back by SQLite's automatic
checkpoint, the worker's periodic one, and this rule: a connection that opens a WAL past
``WAL_TRUNCATE_BYTES`` checkpoints and truncates it; below that it leaves it alone; and a
reader holding an old snapshot makes it a no-op (nothing waits) until a later opener.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.store.engines import close_checkpoint
from memory_core.store.engines.close_checkpoint import (
    FOLD_START_SECONDS,
    STORE_WAL_FOLD_BYTES,
    WAL_TRUNCATE_BYTES,
    fold_large_wal,
    skip_checkpoint_on_close,
)
from memory_core.store.engines.connection import connect
from tests.factories import TURN_END_HOOK, run_turn_end

pytestmark = pytest.mark.sqlite_only  # SQLite's WAL; no store backend involved

REPO = Path(__file__).resolve().parents[2]

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


# A hook never folds on its own path: past memory.db's smaller bound it notes the database and,
# as it ends, starts a detached process that folds it (close_checkpoint.start_wanted_folds).


@pytest.fixture
def hook_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """This process as a hook: connections kept to its end, folds noted; the folds it would
    start are recorded instead of spawned."""
    spawned: list[str] = []
    monkeypatch.setattr(close_checkpoint, "_keeping", True)
    monkeypatch.setattr(close_checkpoint, "_kept", [])
    monkeypatch.setattr(close_checkpoint, "_folds_wanted", [])
    monkeypatch.setattr(close_checkpoint, "_spawn_fold", spawned.append)
    yield spawned
    close_checkpoint.release_kept_connections()


def test_a_hook_notes_a_wal_past_the_store_bound_and_folds_nothing_itself(db: Path, hook_process: list[str]) -> None:
    grow_wal(db, 200)  # ~0.8 MB: past the hook's bound for memory.db, below the 2 MB rule
    before = wal_size(db)
    assert STORE_WAL_FOLD_BYTES < before < WAL_TRUNCATE_BYTES
    connect(db).close()
    assert wal_size(db) == before  # no checkpoint on the hook's path
    assert close_checkpoint._folds_wanted == [str(db)]
    assert close_checkpoint.start_wanted_folds(1_000_000.0) == 1
    assert hook_process == [str(db)]
    marker = db.parent / "cache" / "wal-fold.memory.db"
    assert marker.stat().st_mode & 0o777 == 0o600 and (db.parent / "cache").stat().st_mode & 0o777 == 0o700
    assert marker.stat().st_mtime == 1_000_000.0


def test_a_hook_starts_one_fold_per_database_in_a_window(db: Path, hook_process: list[str]) -> None:
    grow_wal(db, 200)
    started_at = 1_000_000.0
    for offset in (0.0, FOLD_START_SECONDS / 2, FOLD_START_SECONDS + 0.5):
        connect(db).close()  # another hook process finding the WAL still past the bound
        close_checkpoint.start_wanted_folds(started_at + offset)
    assert hook_process == [str(db), str(db)]  # the first, then the first after the window
    assert close_checkpoint._folds_wanted == []


HOLD = """
import os, sys, time
from memory_core.store.engines.close_checkpoint import open_fold_marker
fd = open_fold_marker(sys.argv[1])
os.lockf(fd, os.F_LOCK, 0)
print("held", flush=True)
sys.stdin.read()
"""


def holding_the_marker(db: Path) -> subprocess.Popen[str]:
    """Another process holding the fold marker's lock, as a running fold does (until its stdin closes)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_no_fold_starts_while_one_runs(db: Path, hook_process: list[str]) -> None:
    grow_wal(db, 200)
    holder = holding_the_marker(db)
    try:
        connect(db).close()
        assert close_checkpoint.start_wanted_folds(2_000_000.0) == 0  # past any window: the lock says no
        assert hook_process == []
        assert run_fold(db) == 0  # a second fold process leaves at once, folding nothing
        assert wal_size(db) > STORE_WAL_FOLD_BYTES
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)
    connect(db).close()
    assert close_checkpoint.start_wanted_folds(2_000_010.0) == 1 and hook_process == [str(db)]


def test_a_hook_below_the_store_bound_wants_no_fold(db: Path, hook_process: list[str]) -> None:
    grow_wal(db, 60)  # ~0.25 MB
    assert 0 < wal_size(db) < STORE_WAL_FOLD_BYTES
    connect(db).close()
    assert close_checkpoint._folds_wanted == []
    assert close_checkpoint.start_wanted_folds(1_000_000.0) == 0 and hook_process == []


def run_fold(db: Path, *patience: str) -> int:
    return subprocess.run(
        [sys.executable, "-P", "-m", "memory_core.store.engines.wal_fold", str(db), *patience], cwd=REPO, timeout=60
    ).returncode


def test_the_fold_process_folds_and_truncates_leaving_the_wal_in_place(db: Path) -> None:
    grow_wal(db, 200)
    assert run_fold(db) == 0
    assert Path(f"{db}-wal").exists() and wal_size(db) == 0  # emptied, not removed: no directory sync later
    assert count(db) == 200
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_fold_process_defers_to_a_reader_and_creates_nothing(db: Path, tmp_path: Path) -> None:
    grow_wal(db, 200)
    before = wal_size(db)
    reader = sqlite3.connect(db, isolation_level=None)
    assert skip_checkpoint_on_close(reader, str(db))
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM filler").fetchone()
    started = time.monotonic()
    assert run_fold(db, "0.5") == 1  # deferred: tried again for half a second, then left
    assert time.monotonic() - started >= 0.5
    assert wal_size(db) == before and count(db) == 200
    reader.execute("COMMIT")
    reader.close()
    missing = tmp_path / "elsewhere" / "memory.db"
    missing.parent.mkdir()
    assert run_fold(missing) == 0
    assert list(missing.parent.iterdir()) == []  # no database made where there was none


HOOK = TURN_END_HOOK


def state_with_a_long_wal(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A real store whose WAL is past a hook's bound for memory.db, and the environment of its hooks."""
    home = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEVO_")}
    env["MEMEVO_HOME"] = str(home)
    subprocess.run([sys.executable, "-m", "cli", "status"], env=env, cwd=REPO, capture_output=True, timeout=60)
    db = home / "memory.db"
    grow_wal(db, 200)
    assert wal_size(db) > STORE_WAL_FOLD_BYTES
    return db, env


def capture_hook(tmp_path: Path, env: dict[str, str], text: str, **options: Any) -> None:
    run_turn_end(HOOK, tmp_path, env, [text], "fold", **options)


def test_a_real_hook_leaves_the_fold_to_a_detached_process(tmp_path: Path) -> None:
    db, env = state_with_a_long_wal(tmp_path)
    capture_hook(tmp_path, env, "remember that the release train leaves on Thursdays")
    deadline = time.monotonic() + 30
    while wal_size(db) > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert wal_size(db) == 0, "no fold process emptied the WAL"
    assert count(db) == 200
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        bodies = [row[0] for row in conn.execute("SELECT body FROM sources")]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert any("release train leaves on Thursdays" in body for body in bodies)


def fold_processes(db: Path) -> list[int]:
    """The running fold processes of ``db`` (Linux's /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"wal_fold" in b" ".join(command) and str(db).encode() in command:
                found.append(int(entry.name))
    return found


def fold_state(db: Path, started: float) -> str:
    """What is known of a fold that was looked for and not found: whether the hook asked for
    one (the marker's time), and whether the WAL is still there to fold."""
    marker = Path(close_checkpoint.fold_marker(str(db)))
    asked = (
        f"marker set {time.time() - marker.stat().st_mtime:.2f} s ago" if marker.exists() else "no marker: none started"
    )
    return f"{asked}; WAL {wal_size(db)} bytes; {time.monotonic() - started:.2f} s since the hook began"


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finds the fold process through /proc")
def test_the_agent_waits_for_no_part_of_the_fold(tmp_path: Path) -> None:
    """The fold lingers (a reader holds it off for its five seconds of patience), yet the hook's
    streams and a pipe the agent handed it close when the hook ends; the fold is a session of its own."""
    db, env = state_with_a_long_wal(tmp_path)
    reader = sqlite3.connect(db, isolation_level=None)
    assert skip_checkpoint_on_close(reader, str(db))
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM filler").fetchone()
    agent_end, hook_end = os.pipe()  # a descriptor the "agent" lets the hook inherit
    try:
        started = time.monotonic()
        capture_hook(tmp_path, env, "remember that the staging cluster drains at noon", pass_fds=(hook_end,))
        os.close(hook_end)
        assert os.read(agent_end, 1) == b""  # end of file: no process holds the hook's copy
        waited = time.monotonic() - started
        folds = fold_processes(db)
        assert folds, f"no fold process is running ({fold_state(db, started)})"
        assert waited < 3, f"the agent waited {waited:.1f} s for the hook"
        for pid in folds:
            assert os.getsid(pid) == pid != os.getsid(0)  # a session of its own
    finally:
        os.close(agent_end)
        reader.execute("COMMIT")
        reader.close()
    deadline = time.monotonic() + 30
    while wal_size(db) > 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert wal_size(db) == 0 and count(db) == 200  # folded once the reader let go


def test_the_fold_process_starts_this_memevo_and_inherits_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, Any]] = []
    monkeypatch.setattr(os, "posix_spawn", lambda *args, **kwargs: calls.append((args, kwargs)))
    inherited_read, inherited_write = os.pipe()
    os.set_inheritable(inherited_write, True)
    try:
        close_checkpoint._spawn_fold("/state/memory.db")
    finally:
        os.close(inherited_read)
        os.close(inherited_write)
    [(args, kwargs)] = calls
    executable, argv, _environment = args
    assert executable == sys.executable and argv[0] == sys.executable
    assert "-P" in argv and argv[-2:] == [str(REPO), "/state/memory.db"]  # this checkout's package root first
    closed = {action[1] for action in kwargs["file_actions"] if action[0] == os.POSIX_SPAWN_CLOSE}
    assert inherited_write in closed and inherited_read not in closed  # only what would be inherited
    assert kwargs["setsid"] is True


def test_a_hook_folds_itself_past_the_2_mb_rule_when_no_fold_process_kept_up(db: Path, hook_process: list[str]) -> None:
    grow_wal(db, 700)  # ~2.9 MB: the background folds did not run
    connect(db).close()
    assert wal_size(db) == 0 and count(db) == 700
    assert close_checkpoint._folds_wanted == [str(db)]  # and it still asks for one (harmless)


def test_the_fold_holds_its_connection_through_a_collection(db: Path) -> None:
    grow_wal(db, 200)
    probe = (
        "import gc, os, sys\n"
        "from memory_core.store.engines.wal_fold import fold\n"
        "assert fold(sys.argv[1])\n"
        "gc.collect()\n"
        "print(os.path.exists(sys.argv[1] + '-wal'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe, str(db)], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.strip() == "True", result.stderr  # no close, so no WAL removal behind it
    assert wal_size(db) == 0 and count(db) == 200


def test_the_fold_process_reads_a_path_beginning_with_two_slashes(db: Path) -> None:
    grow_wal(db, 200)
    doubled = Path("/" + str(db))  # "//tmp/…": the same file; a URI must not read "tmp" as a host
    assert str(doubled).startswith("//")
    assert run_fold(doubled) == 0
    assert wal_size(db) == 0 and count(db) == 200
