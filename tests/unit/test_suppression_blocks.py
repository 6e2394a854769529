"""Origin-qualified blocks and retirement of queued sources that repeat blocked content."""

from __future__ import annotations

from memory_core.ids import content_hash, source_id
from memory_core.records import JobState, Source
from memory_core.sources import get_source, insert_source
from memory_core.store import Store
from memory_core.suppression import block, is_blocked, retire_repeating_sources

T0 = 1_700_000_000.0


def add_source(conn, key: str, text: str, *, origin: str = "/work/app",
               state: JobState = JobState.PENDING) -> str:
    sid = source_id(key)
    insert_source(conn, Source(id=sid, origin=origin, source_type="summary", dedupe_key=key,
                               created_at=T0, text=text, state=state))
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
        retired = retire_repeating_sources(conn, "/work/app", ["The API listens on port 8080"],
                                           T0 + 10, except_source_id=current)
    assert sorted(retired) == sorted([repeating, paused])
    conn = store.conn
    for sid in (repeating, paused):
        source = get_source(conn, sid)
        assert source is not None
        assert source.state is JobState.RETIRED and source.completed_at == T0 + 10
    states = {sid: state_of(conn, sid) for sid in (current, leased, done, other_origin, unrelated)}
    assert states == {current: JobState.PENDING, leased: JobState.LEASED, done: JobState.DONE,
                      other_origin: JobState.PENDING, unrelated: JobState.PENDING}


def test_retire_with_nothing_to_match(store: Store) -> None:
    with store.transaction() as conn:
        add_source(conn, "a", "anything")
        assert retire_repeating_sources(conn, "/work/app", ["   "], T0) == []
