"""The persisted index: kept in step by every write, read by feature only."""

from __future__ import annotations

import sqlite3

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.recall.index import read_headers
from memory_core.recall.service import explain_claim, recall, search
from memory_core.records import Feedback, VerdictSlot
from memory_core.store.database import Store
from memory_core.store.index_version import INDEX_VERSION, index_version
from memory_core.store.memories import delete_memory, iter_memory_rows, memory_from_row, put_memory
from memory_core.store.postings import rebuild_index
from tests.factories import make_memory
from tests.support.times import NOW, T0


def snapshot(conn: sqlite3.Connection) -> tuple[list[tuple], list[tuple]]:
    # The version stamp is written by whichever build last touched the index, not per claim.
    return (
        sorted(conn.execute("SELECT * FROM postings WHERE field != 'version'").fetchall()),
        sorted(conn.execute("SELECT * FROM index_docs").fetchall()),
    )


def assert_in_step(store: Store) -> None:
    before = snapshot(store.conn)
    with store.transaction() as conn:
        rebuild_index(conn, [memory_from_row(row) for row in list(iter_memory_rows(conn))])
    assert snapshot(store.conn) == before


TEXTS = [
    "SQLite listens on port 5432",
    "数据库使用 PostgreSQL",
    "Deploy with /srv/app/deploy.sh",
    "The team prefers tabs",
    "Redis caches sessions for 30 minutes",
]
ORIGINS = ["/work/a", "/work/b"]
OPERATION = st.tuples(
    st.sampled_from(["put", "edit", "forget", "incorrect", "pin", "alias", "delete"]),
    st.integers(0, len(TEXTS) - 1),
    st.integers(0, len(ORIGINS) - 1),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(OPERATION, max_size=12))
def test_index_matches_a_rebuild_after_any_writes(store: Store, operations) -> None:
    with store.transaction() as conn:
        for table in ("memories", "postings", "index_docs"):
            conn.execute(f"DELETE FROM {table}")
    live = {}
    for action, text_no, origin_no in operations:
        key = (text_no, origin_no)
        memory = live.get(key) or make_memory(TEXTS[text_no], origin=ORIGINS[origin_no])
        with store.transaction() as conn:
            if action == "delete":
                delete_memory(conn, memory.id)
                live.pop(key, None)
                continue
            if action == "edit":
                memory = memory.model_copy(update={"updated_at": memory.updated_at + 1, "revision": 2})
            elif action == "forget":
                memory = memory.model_copy(update={"status": "forgotten"})
            elif action == "incorrect":
                memory = memory.model_copy(
                    update={"feedback": Feedback(accuracy=VerdictSlot(verdict="incorrect", source_id="u" * 24, at=T0))}
                )
            elif action == "pin":
                memory = memory.model_copy(update={"pinned": not memory.pinned})
            elif action == "alias":
                memory = memory.model_copy(update={"search_terms": ["备份", "nightly backup"]})
            put_memory(conn, memory)
            live[key] = memory
    assert_in_step(store)
    indexed = sum(1 for m in live.values() if m.status == "active" and m.feedback.accuracy is None)
    assert read_headers(store.conn, []).total == indexed


def test_header_counts_follow_updates_and_deletes(store: Store) -> None:
    a = make_memory("SQLite listens on port 5432")
    b = make_memory("SQLite timeout is 15 seconds", origin="/work/other")
    with store.transaction() as conn:
        put_memory(conn, a)
        put_memory(conn, b)
    headers = read_headers(store.conn, ["sqlite", "~port", "app", "/work/app"])
    assert headers.total == 2
    assert headers.document_frequency == {"sqlite": 2, "~port": 1}
    assert headers.origins == {"app": ("/work/app",), "/work/app": ("/work/app",)}
    with store.transaction() as conn:
        put_memory(conn, a.model_copy(update={"status": "superseded"}))
        delete_memory(conn, b.id)
    headers = read_headers(store.conn, ["sqlite", "~port", "app"])
    assert (headers.total, headers.document_frequency, headers.origins) == (0, {}, {})
    assert index_version(store.conn) == INDEX_VERSION


def test_edits_move_postings(store: Store, reader) -> None:
    old = make_memory("Builds run on Jenkins")
    with store.transaction() as conn:
        put_memory(conn, old)
    assert [c.memory_id for c in recall(reader.conn, "jenkins", now=NOW).claims] == [old.id]
    with store.transaction() as conn:
        put_memory(conn, old.model_copy(update={"status": "superseded"}))
        put_memory(conn, make_memory("Builds run on GitHub Actions"))
    assert recall(reader.conn, "jenkins", now=NOW).claims == []
    assert len(recall(reader.conn, "github actions", now=NOW).claims) == 1
    assert_in_step(store)


def test_recall_never_scans_a_table(store: Store, reader) -> None:
    with store.transaction() as conn:
        for n in range(60):
            put_memory(
                conn, make_memory(f"Service {n} listens on port {9000 + n} behind nginx", origin=f"/work/s{n % 3}")
            )
        target = make_memory("The billing job runs on service 7", origin="/work/s1")
        put_memory(conn, target)
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    try:
        for query in ("nginx port?", "service 7 port", "/work/s1 nginx", "数据库", "continue"):
            recall(reader.conn, query, now=NOW)
        search(reader.conn, "nginx", now=NOW)
        # Complementary evidence (reads a chosen claim's own postings) and explain --claim.
        joined = recall(reader.conn, "which port does the billing job service use?", now=NOW)
        assert len(joined.claims) == 2 and joined.claims[0].memory_id == target.id
        explain_claim(reader.conn, "kafka", target.id, now=NOW)
    finally:
        reader.conn.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert selects
    for sql in selects:
        details = [row[-1] for row in reader.conn.execute("EXPLAIN QUERY PLAN " + sql)]
        assert not any(d.startswith("SCAN") for d in details), (sql, details)


def test_stale_index_version_is_reported(store: Store, reader) -> None:
    with store.transaction() as conn:
        put_memory(conn, make_memory("Builds run on Jenkins"))
        conn.execute(
            "UPDATE postings SET tf=? WHERE feature='' AND memory_id='' AND field='version'", (INDEX_VERSION + 1,)
        )
    notes = recall(reader.conn, "jenkins", now=NOW).diagnostics["notes"]
    assert any("rebuilt" in note for note in notes)
    with store.transaction() as conn:
        rebuild_index(conn, [memory_from_row(row) for row in list(iter_memory_rows(conn))])
    assert "notes" not in recall(reader.conn, "jenkins", now=NOW).diagnostics
