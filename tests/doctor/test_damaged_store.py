"""A person whose ``memory.db`` is already damaged: `memevo doctor` says so in one line and
names the newest copy in ``backups/`` that passes its check, `memevo restore` keeps the
damaged file aside and puts the copy back (also while another process has the database open),
and the hooks fail open meanwhile. The worker's daily copy is made, checked and pruned.

Damage is made on purpose: with every connection closed, one page of the ``sources`` table is
overwritten with bytes no b-tree page can hold, as a torn or misdirected write would leave it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_core.errors import StoreError
from memory_core.store.engines.database import Store
from memory_core.store.safekeeping import backups
from tests.hooks.support import hook_process
from tests.support.processes import REPO, memevo_process

pytestmark = pytest.mark.sqlite_only  # SQLite's own pages; PostgreSQL keeps its own


def capture(session: str, text: str) -> subprocess.CompletedProcess[bytes]:
    payload = {
        "schema": "memevo.hook/v1",
        "event": "turn_end",
        "agent": "test",
        "session_id": session,
        "cwd": "/tmp",
        "user_messages": [text],
    }
    return hook_process(payload, "turn_end")


def source_count(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0])
    finally:
        conn.close()


def damage(db: Path, table: str = "sources") -> bytes:
    """Fold the WAL into the file, then overwrite the root page of ``table``; the file's bytes."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root, page_size = conn.execute(
        "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master WHERE name = ?", (table,)
    ).fetchone()
    conn.close()
    with open(db, "r+b") as handle:  # no connection is open in this process
        handle.seek((root - 1) * page_size)
        handle.write(b"\xfe" * 64)
    return db.read_bytes()


def doctor_database(home: Path) -> tuple[int, dict]:
    result = memevo_process("doctor", "--json", env={"MEMEVO_HOME": str(home)})
    data = json.loads(result.stdout)
    [check] = [c for c in data["checks"] if c["name"] == "database"]
    return result.returncode, check


@pytest.fixture
def learned(home: Path) -> Path:
    """A store with three captured sources and the worker's daily copy of it."""
    for n in range(3):
        assert capture(f"before-{n}", f"remember that service s{n} listens on port {7000 + n}").returncode == 0
    with Store.open(home) as store:
        made = backups.make_daily_backup(store.conn, home, time.time() - 3600)
    assert made is not None
    return made


def test_doctor_names_the_newest_good_backup_and_restore_puts_it_back(home: Path, learned: Path) -> None:
    db = home / "memory.db"
    # A newer copy that fails its own check must not be offered.
    bad = home / "backups" / "memory-daily-29991231T000000.db"
    bad.write_bytes(b"not a database" * 300)
    damaged_bytes = damage(db)

    code, check = doctor_database(home)
    assert code == 1 and check["status"] == "error"
    assert "\n" not in check["summary"]
    assert check["summary"].startswith("memory.db is damaged (database disk image is malformed)")
    assert learned.name in check["summary"] and bad.name not in check["summary"]
    assert check["fix"].startswith(f"memevo restore {learned.name}")
    assert check["details"]["backup"]["path"] == str(learned)

    # The hooks fail open meanwhile: exit 0, nothing on stdout, one line naming the damage; a
    # capture waits in the spool for the restore, a recall (due now) does not.
    hooked = capture("during", "remember that the cache lives in /var/cache/app")
    assert hooked.returncode == 0 and hooked.stdout == b""
    assert b"memory.db is damaged" in hooked.stderr and b"internal error" not in hooked.stderr
    assert b"waits in spool/" in hooked.stderr
    assert len(list((home / "spool").glob("*.hook"))) == 1
    recall = hook_process(
        {"schema": "memevo.hook/v1", "event": "user_prompt", "cwd": "/tmp", "prompt": "which port does s1 use?"},
        "user_prompt",
    )
    assert recall.returncode == 0 and recall.stdout == b""
    assert b"waits in spool/" not in recall.stderr
    assert len(list((home / "spool").glob("*.hook"))) == 1
    assert "memory.db is damaged" in (home / "logs" / "hooks.log").read_text()

    listed = memevo_process("restore", "--json", env={"MEMEVO_HOME": str(home)})
    assert listed.returncode == 0, listed.stderr
    verdicts = {item["name"]: item["ok"] for item in json.loads(listed.stdout)["backups"]}
    assert verdicts == {bad.name: False, learned.name: True}

    restored = memevo_process("restore", learned.name, "--json", env={"MEMEVO_HOME": str(home)})
    assert restored.returncode == 0, restored.stderr
    done = json.loads(restored.stdout)
    kept = Path(done["kept_aside"][0])
    assert kept.parent == home / "damaged" and kept.read_bytes() == damaged_bytes
    assert oct(kept.stat().st_mode & 0o777) == "0o600"

    # The capture made while it was damaged is stored by the restore, at its own time.
    assert done["spool"] == {"delivered": 1, "set_aside": 0, "left": 0}
    assert not list((home / "spool").glob("*.hook"))
    code, check = doctor_database(home)
    assert check["status"] == "ok", check
    assert source_count(db) == 4
    assert capture("after", "remember that the queue listens on port 7100").returncode == 0
    assert source_count(db) == 5
    assert capture("during", "remember that the cache lives in /var/cache/app").returncode == 0
    assert source_count(db) == 5  # the same capture again: one source


def test_a_spooled_capture_waits_while_the_store_is_still_damaged(home: Path, learned: Path) -> None:
    """`memevo serve`'s drainer (and the restore) leave a kept capture in the spool while
    memory.db is still damaged: tried again later, never set aside as a bad event."""
    from cli.hooks import spool
    from cli.hooks.spool_drainer import deliver_spooled

    damage(home / "memory.db")
    assert b"waits in spool/" in capture("during", "remember that the cache lives in /var/cache/app").stderr
    logged: list[str] = []
    assert spool.drain(home, deliver_spooled, lambda *a: logged.append(" ".join(a))) == (0, 0)
    assert len(spool.pending(home)) == 1 and not (home / "spool" / "corrupt").exists()
    assert "not delivered yet" in (home / "logs" / "hooks.log").read_text()
    # The drainer meets it again every 30 s: the same reason is not logged again within the hour.
    assert spool.drain(home, deliver_spooled, lambda *a: logged.append(" ".join(a))) == (0, 0)
    assert (home / "logs" / "hooks.log").read_text().count("not delivered yet") == 1


def test_restore_while_another_process_has_the_database_open(home: Path, learned: Path) -> None:
    db = home / "memory.db"
    with Store.open(home) as store, store.transaction() as conn:
        conn.execute("DELETE FROM sources")  # a loss the copy undoes (the file itself is sound)
    # Another process (a worker, `memevo serve`) keeps a connection open throughout.
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            f"conn = sqlite3.connect({str(db)!r}, isolation_level=None, timeout=15)\n"
            "for line in sys.stdin:\n"
            "    print(conn.execute('SELECT COUNT(*) FROM sources').fetchone()[0], flush=True)\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert reader.stdin is not None and reader.stdout is not None
        reader.stdin.write("count\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "0"
        restored = memevo_process("restore", str(learned), "--json", env={"MEMEVO_HOME": str(home)})
        assert restored.returncode == 0, restored.stderr
        assert json.loads(restored.stdout)["how"] == "online"
        reader.stdin.write("count\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "3"  # its next read sees the copy
    finally:
        reader.kill()
        reader.wait()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_restore_refuses_a_copy_that_fails_its_check_and_changes_nothing(home: Path, learned: Path) -> None:
    db = home / "memory.db"
    bad = home / "backups" / "memory-daily-20000101T000000.db"
    bad.write_bytes(b"\0" * 8192)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = memevo_process("restore", bad.name, env={"MEMEVO_HOME": str(home)})
    assert result.returncode != 0 and "fails its own check" in result.stderr and "choose another" in result.stderr
    assert "Traceback" not in result.stderr
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not (home / "damaged").exists()
    missing = memevo_process("restore", "no-such-copy.db", env={"MEMEVO_HOME": str(home)})
    assert missing.returncode != 0 and "no backup 'no-such-copy.db'" in missing.stderr


def test_daily_backup_once_a_day_checked_and_pruned(home: Path) -> None:
    day = 86_400.0
    start = 1_800_000_000.0
    with Store.open(home) as store:
        made = [backups.make_daily_backup(store.conn, home, start + n * day) for n in range(10)]
        assert backups.make_daily_backup(store.conn, home, start + 9.5 * day) is None  # not due yet
    assert all(path is not None for path in made)
    names = sorted(p.name for _, p in backups.list_backups(home / "backups"))
    assert len(names) == backups.DAILY_KEEP and names == sorted(p.name for p in made[-backups.DAILY_KEEP :])
    assert all(backups.check_backup(p).ok for _, p in backups.list_backups(home / "backups"))
    assert not [p for p in (home / "backups").iterdir() if not p.name.endswith(".db")]  # no sidecar left


def test_a_damaged_database_is_never_kept_as_a_daily_backup(home: Path, learned: Path) -> None:
    db = home / "memory.db"
    damage(db)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        with pytest.raises(StoreError, match="failed its check"):
            backups.make_daily_backup(conn, home, time.time() + 2 * 86_400)
    finally:
        conn.close()
    assert [p for _, p in backups.list_backups(home / "backups")] == [learned]


def test_the_periodic_recovery_makes_the_daily_backup(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core import clock
    from workers import tasks

    tasks.settings.cache_clear()
    monkeypatch.setattr(clock, "now", lambda: 1_800_000_000.0)
    assert capture("periodic", "remember that the docs live in docs/").returncode == 0
    tasks.recover_jobs()  # on demand (a session start): no backup
    assert backups.list_backups(home / "backups") == []
    tasks.recover_jobs(periodic=True)  # the once-a-minute run that claimed its minute
    [(_, made)] = backups.list_backups(home / "backups")
    assert made.name == "memory-daily-20270115T080000.db" and backups.check_backup(made).ok
    tasks.recover_jobs(periodic=True)  # same minute, and the same day: nothing more
    assert len(backups.list_backups(home / "backups")) == 1
    assert "daily backup: memory-daily-20270115T080000.db" in (home / "logs" / "worker.log").read_text()
    tasks.settings.cache_clear()


def test_with_no_good_backup_the_worker_stores_the_kept_captures_as_it_starts(home: Path) -> None:
    """No copy passes its check, so the damaged file is moved aside as doctor says; doctor
    names the captures waiting in spool/, and the worker stores them as it starts."""
    for n in range(2):
        assert capture(f"before-{n}", f"remember that service s{n} listens on port {7000 + n}").returncode == 0
    db = home / "memory.db"
    damage(db)
    for n in range(2):
        kept = capture(f"during-{n}", f"remember that the cache {n} lives in /var/cache/app{n}")
        assert b"waits in spool/" in kept.stderr
    code, check = doctor_database(home)
    assert check["status"] == "error" and check["fix"].startswith("mv ")
    report = json.loads(memevo_process("doctor", "--json", env={"MEMEVO_HOME": str(home)}).stdout)
    [waiting] = [c for c in report["checks"] if c["name"] == "spool"]
    assert waiting["status"] == "warn" and waiting["details"]["waiting"] == 2
    for path in home.glob("memory.db*"):
        path.rename(path.with_name(path.name + ".broken"))

    worker = subprocess.Popen(
        [sys.executable, "-m", "cli", "worker", "-w", "1"],
        cwd=REPO,
        env={**os.environ, "MEMEVO_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stderr is not None
        line = worker.stderr.readline()  # said before the consumer starts
        assert "stored 2 capture(s) kept in spool/, set aside 0, 0 still wait" in line, line
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert source_count(db) == 2  # the two kept captures, in the fresh store
    report = json.loads(memevo_process("doctor", "--json", env={"MEMEVO_HOME": str(home)}).stdout)
    assert not [c for c in report["checks"] if c["name"] == "spool"]


def test_a_damaged_header_keeps_the_claude_code_turn_as_it_was_read(home: Path, learned: Path, tmp_path: Path) -> None:
    """The damage is in page 1 (the file header), so opening memory.db fails; the Stop hook's
    turn is kept as it was resolved then, so it is stored at the restore even though the
    transcript it came from is gone by then, with the same source a live capture makes."""
    from tests.hooks.claude_data import (
        TURN_AFTER_COMPACT,
        TURN_BASH,
        assistant_record,
        payload,
        records_until,
        user_record,
    )
    from tests.hooks.support import sources, write_records

    said = "remember that the staging database listens on port 5433"
    transcript = write_records(
        tmp_path / "t.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    stop = payload("turn10-after-compact.Stop.1", transcript)
    db = home / "memory.db"
    damage(db)  # folds the WAL first
    with open(db, "r+b") as handle:
        handle.write(b"\xfe" * 100)  # the header: SQLite no longer knows the file
    kept = hook_process(stop)
    assert (kept.returncode, kept.stdout) == (0, b"")
    assert b"file is not a database" in kept.stderr and b"waits in spool/" in kept.stderr, kept.stderr
    [spooled] = list((home / "spool").glob("*.hook"))
    assert said.encode() in spooled.read_bytes() and b"memevo.hook/v1" in spooled.read_bytes()
    transcript.unlink()  # what the hook read is all the spool needs

    restored = memevo_process("restore", learned.name, "--json", env={"MEMEVO_HOME": str(home)})
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout)["spool"] == {"delivered": 1, "set_aside": 0, "left": 0}
    [(kind, agent, session, origin, text)] = [s for s in sources(home) if s[4] == said]
    assert (kind, agent, origin) == ("user_statement", "claude-code", "/home/user/project")

    # The same turn captured live, into a fresh state dir: the same source.
    live_home = tmp_path / "live"
    live_transcript = write_records(
        tmp_path / "t2.jsonl",
        records_until(TURN_BASH) + [user_record(said, TURN_AFTER_COMPACT), assistant_record("Noted.")],
    )
    live = hook_process(payload("turn10-after-compact.Stop.1", live_transcript), env={"MEMEVO_HOME": str(live_home)})
    assert (live.returncode, live.stdout, live.stderr) == (0, b"", b"")
    ids = "SELECT id, dedupe_key, created_at FROM sources WHERE body LIKE '%staging database%'"
    conn = sqlite3.connect(db)
    live_conn = sqlite3.connect(live_home / "memory.db")
    try:
        restored_row = conn.execute(ids).fetchone()
        live_row = live_conn.execute(ids).fetchone()
    finally:
        conn.close()
        live_conn.close()
    assert restored_row[:2] == live_row[:2]  # same id and dedupe key: capturing it again adds nothing
