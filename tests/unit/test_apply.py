"""Applying model batches: one row per priority pair and one per guard."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory_core.capture.intake import capture_source
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import ModelBatch
from memory_core.consolidation.targets import mentioned_claims
from memory_core.controls.undo import undo
from memory_core.errors import LeaseLost, StaleOutput, WriteRejected
from memory_core.jobs.lifecycle import lease_job
from memory_core.records import Evidence, Feedback, JobState, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.engines.dialect import json_text
from memory_core.store.tables.events import latest_events
from memory_core.store.tables.generations import bump_generation
from memory_core.store.tables.memories import get_memory, put_memory, require_memory
from memory_core.store.tables.sources import require_source
from memory_core.store.tables.suppression import is_blocked
from tests.factories import make_memory

ORIGIN = "/work/app"
T_OLD = 1_700_000_000.0
NOW = 1_700_100_000.0


def evidence(basis: str | None, at: float = T_OLD) -> Evidence | None:
    if basis is None:
        return None
    method = {"summary": "local", "manual_correction": "manual"}.get(basis, "model")
    return Evidence(basis=basis, method=method, source_id="e" * 24, at=at)  # type: ignore[arg-type]


def seed_target(store: Store, kind: str, basis: str | None, *, accurate: bool = False, **extra):
    feedback = (
        Feedback(accuracy=VerdictSlot(verdict="accurate", source_id="f" * 24, at=T_OLD)) if accurate else Feedback()
    )
    target = make_memory(
        f"The deploy target for the api service is staging-one ({kind})",
        origin=ORIGIN,
        kind=kind,
        at=T_OLD,
        evidence=evidence(basis),
        feedback=feedback,
        **extra,
    )
    with store.transaction() as conn:
        put_memory(conn, target)
    return target


def run_batch(
    store: Store,
    source_type: str,
    claims: list[dict],
    *,
    text: str | None = None,
    targets: tuple[str, ...] = (),
    candidates=None,
    at: float = NOW,
):
    text = text or "The deploy target for the api service is staging-two now, as discussed"
    with store.transaction() as conn:
        sid = capture_source(
            conn, source_type=source_type, origin=ORIGIN, text=text, now=at, target_ids=targets
        ).source_id
        job = lease_job(conn, owner="w", now=at, lease_seconds=150, source_id=sid)
    assert job is not None
    offered = mentioned_claims(store.conn, job.source) if candidates is None else candidates
    batch = ModelBatch.model_validate({"claims": claims})
    with store.transaction() as conn:
        report = apply_batch(conn, job, batch, offered, "test-model", at + 1)
    return sid, report


@dataclass(frozen=True)
class PriorityRow:
    old_basis: str | None
    kind: str
    source_type: str
    accurate: bool
    replaces: bool  # True: target superseded; False: new variant quarantined


PRIORITY_ROWS = [
    PriorityRow(None, "fact", "summary", False, True),
    PriorityRow("summary", "fact", "summary", False, True),
    PriorityRow("user_statement", "fact", "summary", False, False),
    PriorityRow("user_statement", "preference", "summary", False, False),
    PriorityRow("manual_correction", "fact", "summary", False, False),
    PriorityRow("summary", "fact", "summary", True, False),
    PriorityRow("summary", "fact", "user_statement", False, True),
    PriorityRow("user_statement", "fact", "user_statement", False, True),
    PriorityRow("user_statement", "preference", "user_statement", False, True),
    PriorityRow("manual_correction", "fact", "user_statement", False, False),
    PriorityRow("summary", "decision", "user_statement", True, False),
    PriorityRow("tool_observation", "project_state", "summary", False, False),
    PriorityRow("tool_observation", "project_state", "user_statement", False, True),
    PriorityRow("manual_correction", "project_state", "progress", False, True),
    PriorityRow("summary", "project_state", "progress", True, True),
    PriorityRow("user_statement", "project_state", "progress", False, True),
    PriorityRow(None, "decision", "user_statement", False, True),
]


def _row_id(r: PriorityRow) -> str:
    return f"{r.old_basis}-{r.kind}-acc{r.accurate}-by-{r.source_type}"


@pytest.mark.parametrize("row", PRIORITY_ROWS, ids=_row_id)
def test_priority_pairs(store: Store, row: PriorityRow) -> None:
    target = seed_target(store, row.kind, row.old_basis, accurate=row.accurate)
    new_text = f"The deploy target for the api service is staging-two ({row.kind})"
    targets = (target.id,) if row.source_type == "progress" else ()
    sid, report = run_batch(
        store, row.source_type, [{"kind": row.kind, "content": new_text, "replaces": target.id}], targets=targets
    )
    old = require_memory(store.conn, target.id)
    event = latest_events(store.conn, limit=1)[0]
    assert event.operation == "consolidate" and event.source_id == sid
    if row.replaces:
        assert old.status == "superseded"
        assert report.superseded == [target.id] and report.withheld == 0
        new = require_memory(store.conn, report.added[0])
        assert new.status == "active" and new.replaces == target.id
        assert new.feedback == Feedback()  # never inherits old feedback
        assert new.evidence is not None and new.evidence.source_id == sid
        assert is_blocked(store.conn, ORIGIN, target.content_hash)
        assert event.details["superseded"] == 1
    else:
        assert old.status == "active" and old == target  # original untouched, still recallable
        assert report.withheld == 1 and len(report.conflicted) == 1
        quarantined = require_memory(store.conn, report.conflicted[0])
        assert quarantined.status == "conflicted" and quarantined.content == new_text
        assert event.details["withheld_replacements"] == 1
    assert require_source(store.conn, sid).state == JobState.DONE  # never a failure


GUARD_ROWS = [
    "unknown",
    "cross_origin",
    "pinned",
    "stale",
    "duplicate_target",
    "cycle",
    "kind_change",
    "progress_without_target",
]


@pytest.mark.parametrize("guard", GUARD_ROWS)
def test_guards_reject_whole_batch(store: Store, guard: str) -> None:
    target = seed_target(store, "fact", "summary", pinned=(guard == "pinned"))
    other = make_memory("The deploy target for the web service is staging-one", origin=ORIGIN, at=T_OLD)
    foreign = make_memory("The deploy target for the api service is staging-one", origin="/elsewhere", at=T_OLD)
    with store.transaction() as conn:
        put_memory(conn, other)
        put_memory(conn, foreign)
    good_addition = {"kind": "fact", "content": "An unrelated addition that must not be written"}
    claims: list[dict]
    candidates = [target, other]
    source_type, at = "summary", NOW
    if guard == "unknown":
        claims = [{"kind": "fact", "content": "new value", "replaces": "0" * 24}]
    elif guard == "cross_origin":
        claims = [{"kind": "fact", "content": "new value here", "replaces": foreign.id}]
        candidates = [target, foreign]
    elif guard == "pinned":
        claims = [{"kind": "fact", "content": "new value here", "replaces": target.id}]
    elif guard == "stale":
        claims = [{"kind": "fact", "content": "new value here", "replaces": target.id}]
        at = T_OLD - 10  # the source is older than the target's last update
    elif guard == "duplicate_target":
        claims = [
            {"kind": "fact", "content": "new value one", "replaces": target.id},
            {"kind": "fact", "content": "new value two", "replaces": target.id},
        ]
    elif guard == "cycle":
        claims = [
            {"kind": "fact", "content": other.content, "replaces": target.id},
            {"kind": "fact", "content": target.content, "replaces": other.id},
        ]
    elif guard == "kind_change":
        claims = [{"kind": "decision", "content": "new value here", "replaces": target.id}]
    else:
        source_type = "progress"
        claims = [{"kind": "project_state", "content": "deploy finished"}]
    claims.append(good_addition)
    before_rows = store.conn.execute("SELECT id, body FROM memories ORDER BY id").fetchall()
    events_before = store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    with pytest.raises(WriteRejected):
        run_batch(store, source_type, claims, candidates=candidates, at=at)
    assert store.conn.execute("SELECT id, body FROM memories ORDER BY id").fetchall() == before_rows
    assert store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == events_before


def test_same_batch_duplicate_cannot_bypass_withheld_replacement(store: Store) -> None:
    target = seed_target(store, "fact", "manual_correction")
    weaker = "The deploy target for the api service is staging-two"
    _, report = run_batch(
        store,
        "summary",
        [
            {"kind": "fact", "content": weaker, "replaces": target.id},
            {"kind": "fact", "content": weaker},  # same content as an addition
        ],
    )
    assert report.withheld == 1
    rows = store.conn.execute(
        "SELECT status FROM memories WHERE content_hash=(SELECT content_hash FROM memories WHERE id=?)",
        (report.conflicted[0],),
    ).fetchall()
    assert rows == [("conflicted",)]
    assert require_memory(store.conn, target.id).status == "active"


def test_local_variant_from_same_source_is_quarantined(store: Store) -> None:
    target = seed_target(store, "fact", "user_statement")
    weaker = "The deploy target for the api service is staging-two"
    text = f"Summary of the session.\n- Fact: {weaker}\nThe deploy target for the api service changed."
    _, report = run_batch(store, "summary", [{"kind": "fact", "content": weaker, "replaces": target.id}], text=text)
    assert report.withheld == 1
    statuses = dict(
        store.conn.execute(
            "SELECT content, status FROM memories m JOIN "
            f"(SELECT id AS i, {json_text(store.conn, 'body', 'content')} AS content FROM memories) AS c "
            "ON i = m.id"
        ).fetchall()
    )
    assert statuses[weaker] == "conflicted"
    assert statuses[target.content] == "active"


def test_rederived_content_is_confirmed_without_moving_update_time(store: Store) -> None:
    target = seed_target(store, "fact", "summary")
    _, report = run_batch(store, "summary", [{"kind": "fact", "content": target.content, "searchTerms": ["部署目标"]}])
    after = require_memory(store.conn, target.id)
    assert report.confirmed == [target.id]
    assert after.confirmed_at == NOW + 1 and after.updated_at == target.updated_at
    assert after.evidence == target.evidence  # a repeated summary does not refresh evidence
    assert after.search_terms == ["部署目标"]


def test_user_reaffirmation_refreshes_evidence_date(store: Store) -> None:
    target = seed_target(store, "preference", "user_statement")
    sid, report = run_batch(store, "user_statement", [{"kind": "preference", "content": target.content}])
    after = require_memory(store.conn, target.id)
    assert report.refreshed == [target.id]
    assert after.evidence is not None and after.evidence.source_id == sid and after.evidence.at == NOW


def test_mentioned_record_left_standing_gets_confirmed_not_project_state(store: Store) -> None:
    fact = seed_target(store, "fact", "summary")
    state = seed_target(store, "project_state", "summary")
    _, report = run_batch(store, "summary", [{"kind": "decision", "content": "Use blue-green deploys"}])
    assert fact.id in report.confirmed and state.id not in report.confirmed
    assert require_memory(store.conn, state.id).confirmed_at is None


def test_candidates_are_mentioned_same_origin_only(store: Store) -> None:
    target = seed_target(store, "fact", "summary")
    unrelated = make_memory("Lunch is at noon on Fridays in the cafeteria", origin=ORIGIN, at=T_OLD)
    foreign = make_memory("The deploy target for the api service is staging-one", origin="/other", at=T_OLD)
    with store.transaction() as conn:
        put_memory(conn, unrelated)
        put_memory(conn, foreign)
        sid = capture_source(
            conn,
            source_type="summary",
            origin=ORIGIN,
            text="We moved the api service deploy target to staging-two",
            now=NOW,
        ).source_id
    ids = [m.id for m in mentioned_claims(store.conn, require_source(store.conn, sid))]
    assert ids == [target.id]


def test_generation_bump_makes_output_stale_and_lost_lease_writes_nothing(store: Store) -> None:
    with store.transaction() as conn:
        sid = capture_source(conn, source_type="summary", origin=ORIGIN, text="some summary text", now=NOW).source_id
        job = lease_job(conn, owner="w", now=NOW, lease_seconds=150, source_id=sid)
        bump_generation(conn, ORIGIN)
    batch = ModelBatch.model_validate({"claims": [{"kind": "fact", "content": "A new fact to store"}]})
    with pytest.raises(StaleOutput):
        with store.transaction() as conn:
            apply_batch(conn, job, batch, [], "m", NOW)
    with store.transaction() as conn:
        conn.execute("UPDATE sources SET lease_owner='someone-else' WHERE id=?", (sid,))
    with pytest.raises(LeaseLost):
        with store.transaction() as conn:
            apply_batch(conn, job, batch, [], "m", NOW)
    assert store.conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 0


def test_blocked_content_is_not_added_back(store: Store) -> None:
    target = seed_target(store, "fact", "summary")
    _, first = run_batch(
        store, "summary", [{"kind": "fact", "content": "The deploy target is staging-two", "replaces": target.id}]
    )
    assert first.superseded == [target.id]
    _, again = run_batch(
        store, "user_statement", [{"kind": "decision", "content": target.content}], text="remember: " + target.content
    )
    assert again.skipped_blocked == 1
    assert get_memory(store.conn, target.id).status == "superseded"


def test_passing_words_are_not_a_mention(store: Store) -> None:
    long_claim = make_memory(
        "The nightly backup job compresses the analytics warehouse snapshots with zstd level 19",
        origin=ORIGIN,
        at=T_OLD,
    )
    with store.transaction() as conn:
        put_memory(conn, long_claim)
        sid = capture_source(
            conn, source_type="summary", origin=ORIGIN, text="The nightly build job failed twice today", now=NOW
        ).source_id
    assert mentioned_claims(store.conn, require_source(store.conn, sid)) == []


@pytest.mark.parametrize(
    "source_type,old_basis,basis",
    [
        # A weaker observation only renews the date of the stronger manual correction.
        ("progress", "manual_correction", "manual_correction"),
        ("progress", "summary", "tool_observation"),
        ("user_statement", "user_statement", "user_statement"),
    ],
)
def test_restating_a_target_reaffirms_it_instead_of_rejecting_the_batch(
    store: Store,
    source_type: str,
    old_basis: str,
    basis: str,
) -> None:
    # A progress report naturally answers a nominated state with `replaces` even when the
    # state has not changed; that is a reaffirmation, not a replacement cycle.
    target = seed_target(store, "project_state", old_basis)
    targets = (target.id,) if source_type == "progress" else ()
    sid, report = run_batch(
        store,
        source_type,
        [{"kind": "project_state", "content": target.content, "replaces": target.id}],
        targets=targets,
    )
    after = require_memory(store.conn, target.id)
    assert report.refreshed == [target.id] and report.superseded == [] and report.added == []
    if basis == old_basis and basis != source_type:
        assert target.evidence is not None
        assert after.evidence == target.evidence.model_copy(update={"at": NOW})
    else:
        assert after.evidence == Evidence(basis=basis, method="model", source_id=sid, at=NOW)
    assert (after.status, after.content, after.updated_at) == ("active", target.content, target.updated_at)
    assert after.confirmed_at is None  # a project state is never "confirmed"
    assert require_source(store.conn, sid).state == JobState.DONE


def test_undo_of_a_batch_that_wrote_a_new_record_twice_leaves_a_tombstone(store: Store) -> None:
    # A repeated claim writes its new record twice (added, then re-derived with aliases);
    # the event must still say it was created, or undo would restore the first draft.
    claim = {"kind": "decision", "content": "Use blue-green deploys for the api service"}
    _, report = run_batch(store, "summary", [claim, {**claim, "searchTerms": ["blue green"]}])
    new_id = report.added[0]
    event = latest_events(store.conn, limit=1)[0]
    assert [m.id for m in event.before] == [] and [m.id for m in event.after] == [new_id]
    with store.transaction() as conn:
        undo(conn, report.event_id, NOW + 10)  # type: ignore[arg-type]
    assert require_memory(store.conn, new_id).status == "forgotten"


def test_reaffirmation_refreshes_date_but_never_weakens_evidence(store: Store) -> None:
    target = seed_target(store, "fact", "manual_correction")
    sid, report = run_batch(store, "user_statement", [{"kind": "fact", "content": target.content}])
    after = require_memory(store.conn, target.id)
    assert report.refreshed == [target.id]
    assert after.evidence is not None and target.evidence is not None
    assert after.evidence.basis == "manual_correction" and after.evidence.source_id == target.evidence.source_id
    assert after.evidence.at == NOW


def test_reused_value_keeps_its_own_feedback(store: Store) -> None:
    target = seed_target(store, "fact", "summary")
    useful = Feedback(utility=VerdictSlot(verdict="useful", source_id="u" * 24, at=T_OLD))
    existing = make_memory(
        "The deploy target for the api service is staging-two", origin=ORIGIN, at=T_OLD, feedback=useful
    )
    with store.transaction() as conn:
        put_memory(conn, existing)
    _, report = run_batch(
        store, "user_statement", [{"kind": "fact", "content": existing.content, "replaces": target.id}]
    )
    assert report.refreshed == [existing.id] and report.superseded == [target.id]
    after = require_memory(store.conn, existing.id)
    assert after.feedback == useful
    assert after.evidence is not None and after.evidence.basis == "user_statement"
