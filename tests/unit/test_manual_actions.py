"""Manual controls: each writes the right records, event, block and generation bump."""

from __future__ import annotations

import pytest

from memory_core.controls import manual
from memory_core.errors import ConflictError, NotFoundError, UsageError
from memory_core.ids import memory_id, source_id
from memory_core.records import Event, Evidence, Feedback, JobState, Memory, Source, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.tables.events import get_event
from memory_core.store.tables.generations import current_generation
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.sources import get_source, insert_source
from memory_core.store.tables.suppression import is_blocked
from tests.factories import make_memory, seed

T0 = 1_700_000_000.0
NOW = T0 + 3_600
APP = "/work/app"


def stored(store: Store, mid: str) -> Memory:
    memory = get_memory(store.conn, mid)
    assert memory is not None
    return memory


def event_of(store: Store, result: manual.ManualResult) -> Event:
    assert result.event_id is not None
    event = get_event(store.conn, result.event_id)
    assert event is not None
    return event


def rich(content: str = "The API listens on port 8080", **extra: object) -> Memory:
    values: dict[str, object] = {
        "search_terms": ["api port", "端口"],
        "feedback": Feedback(utility=VerdictSlot(verdict="useful", source_id="u" * 24, at=T0 + 5)),
    }
    values.update(extra)
    return make_memory(content, **values)


def test_forget_tombstones_target_and_same_origin_twins_only(store: Store) -> None:
    target = rich()
    twin = make_memory("The API  listens on port 8080", kind="decision")
    elsewhere = make_memory("The API listens on port 8080", origin="/work/other")
    seed(store, target, twin, elsewhere)
    key = "queued"
    with store.transaction() as conn:
        insert_source(
            conn,
            Source(
                id=source_id(key),
                origin=APP,
                source_type="summary",
                dedupe_key=key,
                created_at=T0,
                text="The API listens on port 8080",
            ),
        )
    with store.transaction() as conn:
        result = manual.forget(conn, target.id, NOW)
    assert result.event_id is not None
    assert stored(store, target.id) == target.model_copy(update={"status": "forgotten"})
    assert stored(store, twin.id).status == "forgotten"
    assert stored(store, elsewhere.id) == elsewhere
    assert is_blocked(store.conn, APP, target.content_hash)
    assert not is_blocked(store.conn, "/work/other", target.content_hash)
    assert get_source(store.conn, source_id(key)).state is JobState.RETIRED  # type: ignore[union-attr]
    assert current_generation(store.conn, APP) == 1
    event = event_of(store, result)
    assert (event.actor, event.operation, event.at) == ("user", "forget", NOW)
    assert event.before == [target, twin]
    assert [m.status for m in event.after] == ["forgotten", "forgotten"]
    assert event.details["retired_sources"] == [source_id(key)]
    # Forgetting a tombstone changes nothing and writes nothing.
    with store.transaction() as conn:
        assert manual.forget(conn, target.id, NOW + 1).event_id is None
    assert current_generation(store.conn, APP) == 1


def test_correct_makes_a_new_manual_record(store: Store) -> None:
    target = rich(pinned=True)
    seed(store, target)
    with store.transaction() as conn:
        result = manual.correct(conn, target.id, "  The API listens on port 9090 ", NOW)
    new_id = memory_id(APP, "fact", "The API listens on port 9090")
    new = stored(store, new_id)
    assert new.content == "The API listens on port 9090"
    assert new.evidence is not None
    assert (new.evidence.basis, new.evidence.method, new.evidence.at) == ("manual_correction", "manual", NOW)
    assert new.search_terms == [] and new.feedback == Feedback()
    assert (new.created_at, new.updated_at, new.replaces, new.pinned) == (NOW, NOW, target.id, True)
    old = stored(store, target.id)
    assert (old.status, old.replaced_by, old.updated_at) == ("superseded", new_id, target.updated_at)
    assert is_blocked(store.conn, APP, target.content_hash)
    event = event_of(store, result)
    assert event.operation == "correct"
    assert event.before == [target] and event.after == [old, new]
    assert event.source_id == new.evidence.source_id == new.source_id


def test_correct_onto_an_existing_tombstone_keeps_its_prior_state(store: Store) -> None:
    target = make_memory("Deploys go to staging first", kind="decision")
    tomb = make_memory("Deploys go to production directly", kind="decision", status="forgotten")
    seed(store, target, tomb)
    with store.transaction() as conn:
        result = manual.correct(conn, target.id, "Deploys go to production directly", NOW)
    assert tomb in result.before
    assert stored(store, tomb.id).status == "active"


@pytest.mark.parametrize(
    "text,error", [("   ", UsageError), ("The API listens on port 8080", UsageError), ("x" * 4001, UsageError)]
)
def test_correct_refuses_bad_text(store: Store, text: str, error: type[Exception]) -> None:
    target = rich()
    seed(store, target)
    with pytest.raises(error), store.transaction() as conn:
        manual.correct(conn, target.id, text, NOW)
    assert stored(store, target.id) == target


def test_correct_redacts_secrets(store: Store) -> None:
    target = rich()
    seed(store, target)
    with store.transaction() as conn:
        result = manual.correct(conn, target.id, "api_key = sk-abcdefghijklmnopqrstuv", NOW)
    assert "sk-abc" not in result.after[-1].content


def test_correct_refuses_tombstones(store: Store) -> None:
    tomb = make_memory(status="superseded")
    seed(store, tomb)
    with pytest.raises(ConflictError, match="superseded"), store.transaction() as conn:
        manual.correct(conn, tomb.id, "Something new entirely", NOW)


def test_pin_and_unpin_keep_dates_and_are_idempotent(store: Store) -> None:
    target = rich()
    seed(store, target)
    with store.transaction() as conn:
        pinned = manual.pin(conn, target.id, NOW)
    after = stored(store, target.id)
    assert after.pinned and after.updated_at == target.updated_at and after.evidence == target.evidence
    assert event_of(store, pinned).operation == "pin"
    with store.transaction() as conn:
        assert manual.pin(conn, target.id, NOW).event_id is None
        unpinned = manual.unpin(conn, target.id, NOW + 1)
    assert stored(store, target.id) == target
    assert event_of(store, unpinned).operation == "unpin"
    assert current_generation(store.conn, APP) == 2


def test_resolve_returns_conflicted_to_active_keeping_evidence_date(store: Store) -> None:
    evidence = Evidence(basis="summary", method="model", source_id="s" * 24, at=T0 - 500)
    incorrect = Feedback(
        utility=VerdictSlot(verdict="unhelpful", source_id="u" * 24, at=T0),
        accuracy=VerdictSlot(verdict="incorrect", source_id="v" * 24, at=T0),
    )
    target = make_memory(status="conflicted", evidence=evidence, feedback=incorrect)
    seed(store, target)
    with store.transaction() as conn:
        result = manual.resolve(conn, target.id, NOW)
    after = stored(store, target.id)
    assert after.status == "active"
    assert after.evidence == evidence and after.updated_at == target.updated_at
    assert after.feedback == Feedback(utility=incorrect.utility)
    assert event_of(store, result).before == [target]
    with pytest.raises(ConflictError, match="not conflicted"), store.transaction() as conn:
        manual.resolve(conn, target.id, NOW)


@pytest.mark.parametrize("action", ["forget", "pin", "unpin", "resolve"])
def test_unknown_ids(store: Store, action: str) -> None:
    with pytest.raises(NotFoundError, match="memevo list"), store.transaction() as conn:
        getattr(manual, action)(conn, "0" * 24, NOW)
    with pytest.raises(NotFoundError, match="24 lowercase hex"), store.transaction() as conn:
        getattr(manual, action)(conn, "nope", NOW)


def test_actions_need_a_transaction(store: Store) -> None:
    seed(store, rich())
    with pytest.raises(RuntimeError):
        manual.pin(store.conn, rich().id, NOW)
