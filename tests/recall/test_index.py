"""The persisted index: kept in step by every write, read by feature only."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.recall import engine
from memory_core.recall.candidates import MAX_LIST_CLAIMS, retrieve
from memory_core.recall.index import read_headers, read_recent_postings
from memory_core.recall.query_plan import build_plan
from memory_core.recall.service import explain_claim, recall, search
from memory_core.records import Feedback, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.schema.index_version import INDEX_VERSION, index_version
from memory_core.store.tables.memories import delete_memory, iter_memory_rows, memory_from_row, put_memory
from memory_core.store.tables.postings import DOC_COLUMNS, rebuild_index
from tests.factories import make_memory
from tests.support.times import NOW, T0


def snapshot(conn: DbConn) -> tuple[list[tuple], ...]:
    # The version stamp is written by whichever build last touched the index, not per claim.
    # Bodies are named by their key: their ids depend on the order they were first written.
    return (
        sorted(conn.execute("SELECT * FROM postings WHERE field != 'version'").fetchall()),
        sorted(
            conn.execute(
                "SELECT " + ", ".join(f"d.{c.strip()}" for c in DOC_COLUMNS.split(",")) + ", d.grade, b.key "
                "FROM index_docs d JOIN bodies b ON b.id = d.body"
            ).fetchall()
        ),
        sorted(conn.execute("SELECT key, claims, feature_count FROM bodies").fetchall()),
        sorted(
            conn.execute(
                "SELECT p.feature, COALESCE(b.key, ''), p.field, p.tf FROM body_postings p "
                "LEFT JOIN bodies b ON b.id = p.body"
            ).fetchall()
        ),
    )


def assert_in_step(store: Store) -> None:
    # Every posting carries its claim's updated_at; header rows carry 0.
    differs = "IS DISTINCT FROM" if is_postgres(store.conn) else "IS NOT"
    assert (
        store.conn.execute(
            "SELECT COUNT(*) FROM postings p LEFT JOIN index_docs d ON d.memory_id = p.memory_id "
            f"WHERE p.recency {differs} (CASE WHEN p.memory_id = '' THEN 0 ELSE d.updated_at END)"
        ).fetchone()[0]
        == 0
    )
    before = snapshot(store.conn)
    with store.transaction() as conn:
        rebuild_index(conn, [memory_from_row(row) for row in list(iter_memory_rows(conn))])
    assert snapshot(store.conn) == before
    # Every indexed claim has a body, every body is held by as many claims as it counts.
    c = store.conn
    assert c.execute(
        "SELECT COUNT(*) FROM index_docs d LEFT JOIN bodies b ON b.id = d.body WHERE b.id IS NULL"
    ).fetchone() == (0,)
    assert c.execute(
        "SELECT COUNT(*) FROM bodies b WHERE b.claims != (SELECT COUNT(*) FROM index_docs d WHERE d.body = b.id)"
    ).fetchone() == (0,)


TEXTS = [
    "SQLite listens on port 5432",
    "数据库使用 PostgreSQL",
    "Deploy with /srv/app/deploy.sh",
    "The team prefers tabs",
    "Redis caches sessions for 30 minutes",
]
ORIGINS = ["/work/a", "/work/b"]
OPERATION = st.tuples(
    st.sampled_from(["put", "edit", "forget", "incorrect", "pin", "alias", "restore", "delete"]),
    st.integers(0, len(TEXTS) - 1),
    st.integers(0, len(ORIGINS) - 1),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(OPERATION, max_size=12))
def test_index_matches_a_rebuild_after_any_writes(store: Store, operations) -> None:
    with store.transaction() as conn:
        for table in ("memories", "postings", "index_docs", "bodies", "body_postings"):
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
            elif action == "restore":  # an undo puts back the claim as it was, older updated_at
                memory = memory.model_copy(update={"updated_at": memory.updated_at - 5})
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


@pytest.mark.sqlite_only  # reads SQLite's own statement trace
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


def test_a_very_common_generator_is_read_only_for_its_most_recent_claims(store: Store, reader) -> None:
    """More than MAX_LIST_CLAIMS claims hold the one asked word (a file name, so it stays a
    generator however common): candidates are the most recently updated MAX_LIST_CLAIMS of
    them, whatever order they were written in."""
    count = MAX_LIST_CLAIMS + 40
    claims = [
        make_memory(f"zephyr.toml gauge reading {n}", at=T0 + (n * 7919) % count, search_terms=["zephyr.toml"])
        for n in range(count)
    ]
    with store.transaction() as conn:
        for memory in claims:
            put_memory(conn, memory)
    newest = sorted(claims, key=lambda m: -m.updated_at)
    recent = {m.id for m in newest[:MAX_LIST_CLAIMS]}
    r = retrieve(reader.conn, build_plan(["zephyr.toml"]))
    assert r.capped == ("zephyr.toml",)
    assert set(r.masks) == recent
    # Newest first, and both postings of a claim (body and alias) read: a claim is never cut in two.
    rows = read_recent_postings(reader.conn, "zephyr.toml", 3)
    assert rows == [(m.id, field) for m in newest[:3] for field in ("alias", "body")]
    chosen = recall(reader.conn, "zephyr.toml", now=NOW).claims
    assert all(c.memory_id in recent for c in chosen)
    # Editing an old claim makes it recent: it becomes a candidate and the oldest drops out.
    old = newest[-1]
    with store.transaction() as conn:
        put_memory(conn, old.model_copy(update={"updated_at": T0 + count, "revision": 2}))
    r = retrieve(reader.conn, build_plan(["zephyr.toml"]))
    assert old.id in r.masks and newest[MAX_LIST_CLAIMS - 1].id not in r.masks
    # explain --claim on a claim the cap left out says so instead of judging it selectable.
    left_out = newest[-2]
    outcome = engine.evaluate_plan(
        reader.conn,
        build_plan([f"zephyr.toml reading {left_out.content.split()[-1]}"]),
        now=NOW,
        limit=3,
        include_dormant=True,
        narrow=True,
        force=left_out.id,
    )
    forced = [c for c in outcome.candidates if c.doc.memory_id == left_out.id]
    assert [c.excluded for c in forced] == ["not_read"]
    assert_in_step(store)


def test_lists_within_the_bound_are_read_whole(store: Store, reader) -> None:
    with store.transaction() as conn:
        for n in range(30):
            put_memory(conn, make_memory(f"quasar relay {n}", at=T0 + n))
    r = retrieve(reader.conn, build_plan(["quasar"]))
    assert r.capped == () and len(r.masks) == 30


def test_first_claims_read_either_way_are_the_same(store: Store, reader) -> None:
    """One ``IN`` statement over the bodies and one bounded sub-select per body give the same
    claims: the ``count`` smallest ids among the bodies' claims."""
    from memory_core.recall import index

    with store.transaction() as conn:
        for n in range(5):
            for origin in range(n + 1):
                put_memory(conn, make_memory(f"Lantern note {n} of the harbour", origin=f"/work/q{origin}", at=T0 + n))
    bodies = [row[0] for row in reader.conn.execute("SELECT CAST(id AS TEXT) FROM bodies ORDER BY id")]
    held = sum(int(row[0]) for row in reader.conn.execute("SELECT claims FROM bodies"))
    assert len(bodies) == 5 and held == 15
    for count in (1, 3, 7, 20):
        for chosen in (bodies, bodies[1:4], bodies[::-1]):
            scanned = index.read_first_claims(reader.conn, chosen, count, held)
            bounded = index.read_first_claims(reader.conn, chosen, count)
            assert [(b, d.memory_id) for b, d in scanned] == [(b, d.memory_id) for b, d in bounded]
            assert len(scanned) == min(count, sum(1 for b, _ in index.read_body_claims(reader.conn, chosen)))


@pytest.mark.sqlite_only  # reads SQLite's own statement trace
def test_recall_over_bodies_never_scans_a_table(store: Store, reader, monkeypatch) -> None:
    """Repeated content takes the body path: its statements use indexes too, including the
    count of ambiguous origins and the rejected claims offered as anchors for a pair."""
    from memory_core.recall import expansion, index

    monkeypatch.setattr(expansion, "COUNT_AFTER", 2)
    with store.transaction() as conn:
        for origin in range(6):
            for n in range(8):
                put_memory(
                    conn,
                    make_memory(
                        f"Camping trip {n} went to lake number {n} with Melanie",
                        origin=f"/work/p{origin}",
                        at=T0 + origin * 60 + n,
                    ),
                )
            put_memory(conn, make_memory("The billing job runs on service 7", origin=f"/work/p{origin}"))
            put_memory(conn, make_memory("Service 7 listens on port 9007", origin=f"/work/p{origin}"))
    statements: list[str] = []
    reader.conn.set_trace_callback(statements.append)
    try:
        # The first claims of rejected bodies: one ``IN`` statement while they hold few
        # claims together, else one bounded sub-select per body.
        for scan in (index.FIRST_CLAIMS_SCAN, 0):
            monkeypatch.setattr(index, "FIRST_CLAIMS_SCAN", scan)
            for query in ("when did Melanie go camping?", "billing job", "lake number 3", "zyxwv qqq billing port"):
                recall(reader.conn, query, now=NOW)
    finally:
        reader.conn.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert any("body_postings" in s for s in selects) and any("GROUP BY origin" in s for s in selects)
    assert any("UNION ALL" in s for s in selects)
    assert any("ORDER BY memory_id LIMIT" in s and "UNION ALL" not in s for s in selects)
    for sql in selects:
        details = [row[-1] for row in reader.conn.execute("EXPLAIN QUERY PLAN " + sql)]
        # A subquery's rows (at most its LIMIT) may be read in turn; no table may be.
        # (PostgreSQL needs the subquery named: SQLite then calls it by that name.)
        subquery = ("SCAN (subquery", "SCAN first_claims")
        assert not any(d.startswith("SCAN") and not d.startswith(subquery) for d in details), (sql, details)


def test_work_does_not_grow_with_copies_of_the_same_content(tmp_path) -> None:
    """Ten times as many copies of each text (in other projects): the same claims are scored
    and read, whichever the question."""
    from memory_core.recall.service import turn_recall

    texts = [
        "Melanie painted a sunrise over the lake last week",
        "Caroline went to the LGBTQ support group on Tuesday",
        "Melanie signed up for a pottery class in May",
        "Caroline is researching adoption agencies",
    ]
    work = {}
    for copies in (5, 50):
        home = tmp_path / f"c{copies}"
        with Store.open(home) as writer, writer.transaction() as conn:
            for n in range(copies * len(texts)):
                put_memory(
                    conn,
                    make_memory(
                        texts[n % len(texts)],
                        origin=f"/work/project-{n // len(texts)}",
                        kind=("fact", "preference", "decision", "project_state")[n % 4],
                        at=NOW - (n % 97) * 3600,
                    ),
                )
        with Store.open_readonly(home) as r:
            work[copies] = [
                (len(result.claims), result.diagnostics["lifecycle"]["scored"])
                for question in ("When did Melanie paint a sunrise?", "What is Caroline researching?", "Melanie?")
                for result in [turn_recall(r.conn, [question], now=NOW, session_is_fresh=True)]
            ]
    assert work[5] == work[50]
    assert any(chosen for chosen, _ in work[5])
