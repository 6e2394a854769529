"""Origin-qualified blocks, content kept out under any source or kind, and retirement of
queued sources that repeat blocked content."""

from __future__ import annotations

from memory_core.capture.intake import capture_source
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import ModelBatch
from memory_core.controls import manual
from memory_core.ids import content_hash, source_id
from memory_core.jobs.lifecycle import lease_job
from memory_core.records import JobState, Source
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from memory_core.store.tables.sources import get_source, insert_source
from memory_core.store.tables.suppression import block, is_blocked, retire_repeating_sources
from tests.factories import make_memory

T0 = 1_700_000_000.0


def add_source(conn, key: str, text: str, *, origin: str = "/work/app", state: JobState = JobState.PENDING) -> str:
    sid = source_id(key)
    insert_source(
        conn,
        Source(id=sid, origin=origin, source_type="summary", dedupe_key=key, created_at=T0, text=text, state=state),
    )
    return sid


def state_of(conn, sid: str) -> JobState:
    source = get_source(conn, sid)
    assert source is not None
    return source.state


def test_blocks_are_origin_qualified(store: Store) -> None:
    chash = content_hash("The API listens on port 8080")
    with store.transaction() as conn:
        assert block(conn, "/work/app", chash, T0, "forgotten") is True
        assert block(conn, "/work/app", chash, T0 + 5, "corrected") is False
    conn = store.conn
    assert is_blocked(conn, "/work/app", chash)
    assert not is_blocked(conn, "/work/other", chash)
    row = conn.execute("SELECT created_at, reason FROM blocked_hashes").fetchone()
    assert tuple(row) == (T0, "forgotten")  # the first block keeps its time and reason


def test_retire_repeating_sources(store: Store) -> None:
    with store.transaction() as conn:
        repeating = add_source(conn, "a", "Notes:\n- The API   listens on port 8080\n- more")
        paused = add_source(conn, "b", "The API listens on port 8080.", state=JobState.PAUSED)
        current = add_source(conn, "c", "The API listens on port 8080")
        leased = add_source(conn, "d", "The API listens on port 8080", state=JobState.LEASED)
        done = add_source(conn, "e", "The API listens on port 8080", state=JobState.DONE)
        other_origin = add_source(conn, "f", "The API listens on port 8080", origin="/work/other")
        unrelated = add_source(conn, "g", "The cache lives in Redis")
        retired = retire_repeating_sources(
            conn, "/work/app", ["The API listens on port 8080"], T0 + 10, except_source_id=current
        )
    assert sorted(retired) == sorted([repeating, paused])
    conn = store.conn
    for sid in (repeating, paused):
        source = get_source(conn, sid)
        assert source is not None
        assert source.state is JobState.RETIRED and source.completed_at == T0 + 10
    states = {sid: state_of(conn, sid) for sid in (current, leased, done, other_origin, unrelated)}
    assert states == {
        current: JobState.PENDING,
        leased: JobState.LEASED,
        done: JobState.DONE,
        other_origin: JobState.PENDING,
        unrelated: JobState.PENDING,
    }


def test_retire_with_nothing_to_match(store: Store) -> None:
    with store.transaction() as conn:
        add_source(conn, "a", "anything")
        assert retire_repeating_sources(conn, "/work/app", ["   "], T0) == []


def test_forgotten_content_stays_out_under_another_source_or_kind(store: Store) -> None:

    forgotten = make_memory("The API listens on port 8080", at=T0)
    with store.transaction() as conn:
        put_memory(conn, forgotten)
        manual.forget(conn, forgotten.id, T0 + 1)
        queued = capture_source(
            conn,
            source_type="summary",
            origin="/work/app",
            now=T0 + 2,
            text="- Decision: The API  listens on port 8080",
        ).source_id
        elsewhere = capture_source(
            conn,
            source_type="summary",
            origin="/work/other",
            now=T0 + 2,
            text="- Decision: The API listens on port 8080",
        ).source_id
    statuses = dict(store.conn.execute("SELECT origin, status FROM memories").fetchall())
    # The labelled line of a new source, as a decision, does not bring it back here...
    assert statuses == {"/work/app": "forgotten", "/work/other": "active"}
    # ...and that source's model pass is still due: only sources queued before the block retire.
    assert state_of(store.conn, queued) is JobState.PENDING
    assert state_of(store.conn, elsewhere) is JobState.PENDING


def test_automatic_supersession_retires_queued_sources_that_repeat_the_old_content(store: Store) -> None:

    old = make_memory("The API listens on port 8080", at=T0)
    with store.transaction() as conn:
        put_memory(conn, old)
        repeating = add_source(conn, "old", "notes: The API listens on port 8080")
        sid = capture_source(
            conn,
            source_type="user_statement",
            origin="/work/app",
            now=T0 + 5,
            text="The API listens on port 9090 now, not 8080",
        ).source_id
        job = lease_job(conn, owner="w", now=T0 + 5, lease_seconds=60, source_id=sid)
    assert job is not None
    batch = ModelBatch.model_validate(
        {"claims": [{"kind": "fact", "content": "The API listens on port 9090", "replaces": old.id}]}
    )
    with store.transaction() as conn:
        report = apply_batch(conn, job, batch, [old], "m", T0 + 6)
    assert report.superseded == [old.id] and report.retired_sources == [repeating]
    assert state_of(store.conn, repeating) is JobState.RETIRED
    assert is_blocked(store.conn, "/work/app", old.content_hash)
