"""`memevo migrate-to`: a SQLite store copied into an empty PostgreSQL database (and back into
a new SQLite file), every row identical, recall unchanged, the source untouched."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.capture.intake import capture_source
from memory_core.controls.feedback import give_feedback
from memory_core.controls.manual import correct, forget, pin
from memory_core.jobs.budget import count_call, count_tokens
from memory_core.jobs.lifecycle import complete_job, fail_job, lease_job
from memory_core.recall.service import turn_recall
from memory_core.records import ErrorCode
from memory_core.store.engines import pg
from memory_core.store.engines.copying import STORE_TABLES, table_digests
from memory_core.store.engines.database import Store
from tests.conftest import postgres_base_url
from tests.factories import make_memory, seed
from tests.support import pg_cluster

NOW = 1_760_000_000.0
ORIGIN = "/work/app"
QUESTIONS = [
    "which database does the project use?",
    "what port does the server listen on",
    "部署在哪个服务器",
    "how do we run the tests",
    "when do deploys happen",
    "nothing matches zzqqxx",
]


def build_store(home: Path) -> None:
    """A SQLite store with claims, sources in every job state, history, blocks, feedback
    receipts, model usage and shared bodies, written through the real paths."""
    store = Store.open(home)
    claims = [
        make_memory("The project uses PostgreSQL 15 for storage", at=NOW - 9_000),
        make_memory("The API server listens on port 8080", at=NOW - 8_000),
        make_memory("The API server listens on port 8080", origin="/work/other", at=NOW - 8_000),
        make_memory("Tests run with pytest -q from the repository root", kind="preference", at=NOW - 7_000),
        make_memory("Deploys happen on Fridays after the review", kind="decision", at=NOW - 6_000),
        make_memory("服务部署在上海的服务器上", at=NOW - 5_000),
        make_memory("Logs go to /var/log/app/server.log with 100% rotation", at=NOW - 4_000),
        make_memory("The cache is Redis on port 6379", at=NOW - 3_000),
    ]
    seed(store, *claims)
    with store.transaction() as conn:
        summary = capture_source(
            conn,
            source_type="summary",
            origin=ORIGIN,
            text="Decision: we keep the staging database on its own host\nFact: staging runs PostgreSQL 15",
            now=NOW - 2_000,
            session_id="s1",
        )
        texts = [f"remember that service {n} listens on port {9000 + n}" for n in range(6)]
        ids = [
            capture_source(
                conn, source_type="user_statement", origin=ORIGIN, text=t, now=NOW - 1_900 + n, session_id="s1"
            ).source_id
            for n, t in enumerate(texts)
        ]
        capture_source(conn, source_type="progress", origin=ORIGIN, text="ran the tests: 12 passed", now=NOW - 1_800)
    assert summary.local_claims >= 1
    with store.transaction() as conn:  # done
        lease = lease_job(conn, owner="w1", now=NOW - 1_000, lease_seconds=150, source_id=ids[0])
        assert lease is not None and complete_job(conn, lease, NOW - 990)
        count_call(conn, NOW - 990)
        count_tokens(conn, NOW - 990, 1200, 300)
        count_call(conn, NOW - 90_000)  # another day
    with store.transaction() as conn:  # pending after a failure
        lease = lease_job(conn, owner="w1", now=NOW - 900, lease_seconds=150, source_id=ids[1])
        assert lease is not None and fail_job(conn, lease, ErrorCode.INVALID_OUTPUT, NOW - 890, reason="not_json")
    for attempt in range(8):  # paused at the failure cap
        with store.transaction() as conn:
            lease = lease_job(
                conn, owner="w2", now=NOW + attempt * 10_000, lease_seconds=150, source_id=ids[2], forced=True
            )
            if lease is None:
                break
            fail_job(conn, lease, ErrorCode.TIMEOUT, NOW + attempt * 10_000 + 1)
    with store.transaction() as conn:  # leased right now
        assert lease_job(conn, owner="w3", now=NOW - 10, lease_seconds=150, source_id=ids[3]) is not None
    with store.transaction() as conn:
        give_feedback(conn, claims[0].id, "useful", NOW - 500, source_id="fb-1")
        give_feedback(conn, claims[3].id, "incorrect", NOW - 400, source_id="fb-2")
        pin(conn, claims[4].id, NOW - 300)
        correct(conn, claims[1].id, "The API server listens on port 8081", NOW - 200)
        forget(conn, claims[7].id, NOW - 100)
        # A block that retires a queued source repeating it.
        from memory_core.store.tables.suppression import block, retire_repeating_sources

        block(conn, ORIGIN, "0" * 64, NOW - 50, "forgotten")
        retire_repeating_sources(conn, ORIGIN, [texts[4]], NOW - 50)
    store.close()


def recall_digests(conn) -> list[str]:
    return [turn_recall(conn, [q], now=NOW, session_is_fresh=True).digest for q in QUESTIONS]


def file_sha(path: Path) -> str:
    """The database's bytes with its WAL's (connections close without a checkpoint, so a write
    may live in the WAL alone). Read with no connection open in this process."""
    wal = Path(f"{path}-wal")
    return hashlib.sha256(path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")).hexdigest()


@pytest.fixture
def target_url() -> Iterator[str]:
    """A fresh, empty schema of the test database: not the test's own store."""
    base = postgres_base_url()
    url, schema = pg_cluster.fresh_schema_url(base)
    yield url
    pg_cluster.drop_schema(base, schema)


def states(home: Path) -> set[str]:
    conn = sqlite3.connect(home / "memory.db")
    try:
        return {row[0] for row in conn.execute("SELECT state FROM sources")}
    finally:
        conn.close()


@pytest.mark.sqlite_only
def test_sqlite_store_moves_to_postgres_identically(home: Path, target_url: str, cli_run, monkeypatch) -> None:
    build_store(home)
    assert states(home) == {"pending", "leased", "paused", "done", "retired"}
    db = home / "memory.db"
    before_file = file_sha(db)
    with Store.open_readonly(home) as source:
        expected = table_digests(source.conn)
        answers = recall_digests(source.conn)
    assert all(expected[t][0] > 0 for t in STORE_TABLES), expected
    assert any(answers) and not answers[-1]

    result = cli_run("migrate-to", target_url, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["verified"] is True and report["source_changed"] is False
    assert report["tables"] == {t: expected[t][0] for t in STORE_TABLES}
    assert report["size_bytes"] > 0
    assert report["setting"] == f"MEMEVO_DATABASE_URL={target_url}"
    assert file_sha(db) == before_file

    target = pg.connect(target_url)
    try:
        assert table_digests(target) == expected
        # Engine-assigned ids continue after the copied ones.
        top = target.execute("SELECT MAX(id) FROM events").fetchone()[0]
        assert target.execute("SELECT nextval(pg_get_serial_sequence('events', 'id'))").fetchone()[0] == top + 1
    finally:
        target.close()

    monkeypatch.setenv("MEMEVO_DATABASE_URL", target_url)
    with Store.open(home) as moved:  # opens as a current store: nothing to migrate
        assert moved.backup_path is None
        assert recall_digests(moved.conn) == answers
        with moved.transaction() as conn:  # it takes new writes
            capture_source(conn, source_type="user_statement", origin=ORIGIN, text="a new statement", now=NOW)
            forget(conn, make_memory("Deploys happen on Fridays after the review", kind="decision").id, NOW)
    monkeypatch.delenv("MEMEVO_DATABASE_URL")
    assert file_sha(db) == before_file


@pytest.mark.sqlite_only
def test_a_second_migration_into_the_same_target_is_refused(home: Path, target_url: str, cli_run) -> None:
    build_store(home)
    db = home / "memory.db"
    assert cli_run("migrate-to", target_url).exit_code == 0
    target = pg.connect(target_url)
    try:
        copied = table_digests(target)
    finally:
        target.close()
    before_file = file_sha(db)
    # A new claim in memory.db since: the target must still not change.
    with Store.open(home) as store:
        seed(store, make_memory("A claim written after the first migration"))
    changed_file = file_sha(db)
    assert changed_file != before_file

    result = cli_run("migrate-to", target_url)
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.count("\n") == 0 and "not empty" in message and "memories" in message, message
    target = pg.connect(target_url)
    try:
        assert table_digests(target) == copied
    finally:
        target.close()
    assert file_sha(db) == changed_file


@pytest.mark.sqlite_only
def test_empty_memevo_tables_at_the_current_version_are_a_valid_target(
    home: Path, target_url: str, cli_run, monkeypatch
) -> None:
    """`memevo status` run once with the URL set creates empty tables: still a target."""
    build_store(home)
    with monkeypatch.context() as env:
        env.setenv("MEMEVO_DATABASE_URL", target_url)
        Store.open(home).close()
    result = cli_run("migrate-to", target_url, "--json")
    assert result.exit_code == 0, result.output
    with Store.open_readonly(home) as source:
        expected = table_digests(source.conn)
    target = pg.connect(target_url)
    try:
        assert table_digests(target) == expected
    finally:
        target.close()


@pytest.mark.sqlite_only
def test_bad_targets_are_one_line_errors(home: Path, cli_run, tmp_path: Path) -> None:
    build_store(home)
    db = home / "memory.db"
    before = file_sha(db)
    with __import__("socket").socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    cases = {
        f"postgresql://memevo@127.0.0.1:{closed_port}/memevo": "cannot reach PostgreSQL",
        f"postgresql://memevo:hunter2@127.0.0.1:{closed_port}/memevo": "********",
        "mysql://localhost/memevo": "unsupported target",
        "postgresql://": "names no database",
        f"sqlite:///{tmp_path / 'copy.db'}": "already SQLite",
    }
    for url, words in cases.items():
        result = cli_run("migrate-to", url)
        assert result.exit_code != 0, url
        text = result.output.strip()
        assert text.startswith("memevo: error: ") and "\n" not in text and words in text, (url, text)
        assert "hunter2" not in text and "Traceback" not in text
    assert file_sha(db) == before


@pytest.mark.sqlite_only
def test_no_store_to_migrate(home: Path, cli_run) -> None:
    result = cli_run("migrate-to", "postgresql://memevo@127.0.0.1:1/memevo")
    assert result.exit_code == 2
    assert "no memory.db" in result.output
    assert not (home / "memory.db").exists()


@pytest.mark.postgres_only
def test_postgres_store_goes_back_to_a_new_sqlite_file(home: Path, pg_url: str, cli_run, monkeypatch) -> None:
    """The way back: the PostgreSQL store into memory.db of a state dir, which then opens
    as an ordinary SQLite store with the same rows and the same recall."""
    monkeypatch.delenv("MEMEVO_DATABASE_URL")
    build_store(home)  # on SQLite first, then moved up, so the store holds every kind of row
    db = home / "memory.db"
    aside = home.parent / "original.db"
    assert cli_run("migrate-to", pg_url).exit_code == 0
    os.replace(db, aside)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    monkeypatch.setenv("MEMEVO_DATABASE_URL", pg_url)
    with Store.open_readonly(home) as source:
        expected = table_digests(source.conn)
        answers = recall_digests(source.conn)

    taken = home.parent / "taken.db"
    taken.write_bytes(b"someone's file")
    result = cli_run("migrate-to", f"sqlite:///{taken}")
    assert result.exit_code == 2 and "exists" in result.output
    assert taken.read_bytes() == b"someone's file"

    result = cli_run("migrate-to", f"sqlite:///{db}", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["setting"] == "unset MEMEVO_DATABASE_URL"
    assert db.stat().st_mode & 0o777 == 0o600
    monkeypatch.delenv("MEMEVO_DATABASE_URL")
    with Store.open(home) as back:
        assert back.backup_path is None
        assert table_digests(back.conn) == expected
        assert recall_digests(back.conn) == answers


@pytest.mark.sqlite_only
def test_a_copy_that_differs_is_rolled_back(home: Path, target_url: str, cli_run, monkeypatch) -> None:
    """The digests are compared before the commit: a lost row leaves the target as found."""
    from memory_core.store.engines import copying

    build_store(home)
    real = copying.copy_rows

    def losing_one(source, target):
        counts = real(source, target)
        target.execute("DELETE FROM events WHERE id = (SELECT MAX(id) FROM events)")
        return counts

    monkeypatch.setattr(copying, "copy_rows", losing_one)
    result = cli_run("migrate-to", target_url)
    assert result.exit_code == 1
    assert "not identical" in result.output and "events" in result.output and "\n" not in result.output.strip()
    target = pg.connect(target_url)
    try:
        assert not target.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    finally:
        target.close()
    monkeypatch.setattr(copying, "copy_rows", real)
    assert cli_run("migrate-to", target_url).exit_code == 0  # the target is still empty
