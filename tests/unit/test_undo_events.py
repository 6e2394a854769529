"""Undo: exact restoration, refusal after later changes, and a reverse-order property."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.controls import manual
from memory_core.controls.undo import undo
from memory_core.errors import ConflictError, NotFoundError, UsageError
from memory_core.ids import memory_id, source_id
from memory_core.records import Evidence, Feedback, JobState, Memory, Source, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.tables.events import get_event, record_event
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.sources import get_source, insert_source
from memory_core.store.tables.suppression import blocked_rows, is_blocked
from tests.factories import make_memory, seed
from tests.support.pg_cluster import open_other_store

T0 = 1_700_000_000.0
NOW = T0 + 3_600
APP = "/work/app"


def all_records(store: Store) -> dict[str, Memory]:
    rows = store.conn.execute("SELECT id FROM memories").fetchall()
    return {row[0]: get_memory(store.conn, row[0]) for row in rows}  # type: ignore[misc]


def decorated(content: str = "The API listens on port 8080", **extra: object) -> Memory:
    values: dict[str, object] = {
        "search_terms": ["api port", "端口"],
        "evidence": Evidence(basis="user_statement", method="model", source_id="e" * 24, at=T0 - 99),
        "feedback": Feedback(
            utility=VerdictSlot(verdict="useful", source_id="u" * 24, at=T0 + 5),
            accuracy=VerdictSlot(verdict="accurate", source_id="a" * 24, at=T0 + 6),
        ),
        "confirmed_at": T0 + 50,
    }
    values.update(extra)
    return make_memory(content, **values)


def test_undo_correction_restores_metadata_and_keeps_suppression(store: Store) -> None:
    target = decorated()
    seed(store, target)
    key = "queued"
    with store.transaction() as conn:
        insert_source(
            conn,
            Source(
                id=source_id(key), origin=APP, source_type="summary", dedupe_key=key, created_at=T0, text=target.content
            ),
        )
        corrected = manual.correct(conn, target.id, "The API listens on port 9090", NOW)
    new_id = memory_id(APP, "fact", "The API listens on port 9090")
    with store.transaction() as conn:
        undo_id = undo(conn, corrected.event_id, NOW + 10)  # type: ignore[arg-type]
    # Aliases, feedback, evidence and every date come back exactly.
    assert get_memory(store.conn, target.id) == target
    tomb = get_memory(store.conn, new_id)
    assert tomb is not None and tomb.status == "forgotten"
    # Suppression and retired jobs stay as they were.
    assert is_blocked(store.conn, APP, target.content_hash)
    assert get_source(store.conn, source_id(key)).state is JobState.RETIRED  # type: ignore[union-attr]
    event = get_event(store.conn, undo_id)
    assert event is not None
    assert (event.operation, event.details["undone_event"]) == ("undo", corrected.event_id)
    assert event.details["tombstoned"] == [new_id]
    assert event.before == corrected.after


def test_undo_forget_revives_records_but_not_their_content_block(store: Store) -> None:
    target = decorated()
    twin = make_memory(target.content, kind="decision")
    seed(store, target, twin)
    with store.transaction() as conn:
        forgotten = manual.forget(conn, target.id, NOW)
        undo(conn, forgotten.event_id, NOW + 1)  # type: ignore[arg-type]
    assert get_memory(store.conn, target.id) == target
    assert get_memory(store.conn, twin.id) == twin
    assert is_blocked(store.conn, APP, target.content_hash)


def test_undo_refused_after_a_later_change(store: Store) -> None:
    target = decorated()
    seed(store, target)
    with store.transaction() as conn:
        pinned = manual.pin(conn, target.id, NOW)
        manual.forget(conn, target.id, NOW + 1)
    with pytest.raises(ConflictError, match="has changed since"), store.transaction() as conn:
        undo(conn, pinned.event_id, NOW + 2)  # type: ignore[arg-type]
    assert get_memory(store.conn, target.id).status == "forgotten"  # type: ignore[union-attr]


def test_undo_twice_is_refused_and_undo_of_undo_redoes(store: Store) -> None:
    target = decorated()
    seed(store, target)
    with store.transaction() as conn:
        pinned = manual.pin(conn, target.id, NOW)
        first = undo(conn, pinned.event_id, NOW + 1)  # type: ignore[arg-type]
    with pytest.raises(ConflictError), store.transaction() as conn:
        undo(conn, pinned.event_id, NOW + 2)  # type: ignore[arg-type]
    with store.transaction() as conn:
        undo(conn, first, NOW + 3)
    assert get_memory(store.conn, target.id).pinned  # type: ignore[union-attr]


def test_undo_unknown_or_empty_events(store: Store) -> None:
    with pytest.raises(NotFoundError, match="memevo history"), store.transaction() as conn:
        undo(conn, 999, NOW)
    with store.transaction() as conn:
        empty = record_event(conn, at=NOW, actor="system", operation="note")
    with pytest.raises(ConflictError, match="nothing to undo"), store.transaction() as conn:
        undo(conn, empty, NOW)


# --- property: manual actions, then their undos in reverse order ---------------------------

ACTIONS = ("forget", "correct", "pin", "unpin", "resolve")
TEXTS = ("The API listens on port 9090", "Deploys go to staging first", "Use ruff for lint")


def starting_records() -> list[Memory]:
    return [
        decorated(),
        make_memory("The API listens on port 8080", kind="decision"),  # a same-origin twin
        make_memory("The API listens on port 8080", origin="/work/other"),
        decorated("Deploys go to staging first", kind="decision", pinned=True),
        make_memory(
            "Tests run with pytest -q",
            kind="project_state",
            status="conflicted",
            feedback=Feedback(accuracy=VerdictSlot(verdict="incorrect", source_id="i" * 24, at=T0)),
        ),
        make_memory("Use black for formatting", kind="preference", status="forgotten"),
    ]


_example = itertools.count()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_undoing_manual_actions_in_reverse_restores_every_record(home: Path, data: st.DataObject) -> None:
    """Any sequence of manual actions, undone in reverse order, restores every starting
    record exactly (content, status, aliases, feedback, pin, evidence, dates).

    Under memevo's undo rule, records that did not exist at the start (a correction's new
    record) remain only as ``forgotten`` tombstones, and blocked hashes never shrink.
    """
    with open_other_store(home, f"example-{next(_example)}") as store:
        seed(store, *starting_records())
        start = all_records(store)
        events: list[int] = []
        steps = data.draw(st.integers(min_value=1, max_value=6), label="steps")
        for step in range(steps):
            ids = sorted(all_records(store))
            action = data.draw(st.sampled_from(ACTIONS), label=f"action {step}")
            target = data.draw(st.sampled_from(ids), label=f"target {step}")
            with store.transaction() as conn:
                try:
                    if action == "correct":
                        text = data.draw(st.sampled_from(TEXTS), label=f"text {step}")
                        result = manual.correct(conn, target, text, NOW + step)
                    else:
                        result = getattr(manual, action)(conn, target, NOW + step)
                except (ConflictError, UsageError):
                    continue  # not applicable to that record's current state
            if result.event_id is not None:
                events.append(result.event_id)
        blocked = blocked_rows(store.conn)
        for n, event_id in enumerate(reversed(events)):
            with store.transaction() as conn:
                undo(conn, event_id, NOW + 100 + n)
        end = all_records(store)
        assert {mid: end[mid] for mid in start} == start
        assert all(end[mid].status == "forgotten" for mid in set(end) - set(start))
        assert blocked_rows(store.conn) == blocked
