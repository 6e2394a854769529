"""History property: model applies, manual actions and undos, all undone newest first.

"The starting records" means the rows stored before the sequence began. After every
recorded event is undone in reverse order:

* each starting record's row is byte-for-byte what it was (the JSON body and the indexed
  columns: content, status, pin, aliases, feedback, evidence and every date);
* every other record is a ``forgotten`` tombstone, equal to the state the event that
  first created it wrote, apart from its status (undo never erases);
* the recall index (postings and per-claim ranking facts) is back where it started;
* the undos themselves changed no block and no source job (undo never lifts suppression
  and never reopens or retires a job).
"""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_core.capture.intake import capture_source
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import ModelBatch
from memory_core.consolidation.targets import mentioned_claims
from memory_core.controls import manual
from memory_core.controls.undo import undo
from memory_core.errors import ConflictError, UsageError, WriteRejected
from memory_core.jobs.lifecycle import lease_job
from memory_core.records import Evidence, Feedback, Memory, Source, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.events import get_event
from memory_core.store.tables.memories import MEMORY_COLUMNS, get_memory, put_memory
from memory_core.store.tables.postings import DOC_COLUMNS
from memory_core.store.tables.suppression import blocked_rows
from tests.factories import make_memory
from tests.support.pg_cluster import open_other_store

APP = "/work/app"
T0 = 1_700_000_000.0
# Every step happens after the starting records were written, so sources are not stale.
T1 = T0 + 10_000
STEP_SECONDS = 100.0

CONTENTS = (
    "The deploy target for the api service is staging-one",
    "The deploy target for the api service is staging-two",
    "The deploy target for the api service is production",
    "The api service listens on port 8080",
    "The api service listens on port 9090",
    "The api deploy is pending review",
)
KINDS = ("fact", "decision", "preference", "project_state")
ALIASES = ((), ("deploy",), ("api port", "端口"))
LABELS = {"fact": "Fact", "decision": "Decision", "preference": "Preference", "project_state": "Status"}
MANUAL_ACTIONS = ("forget", "correct", "pin", "unpin", "resolve")


def _evidence(basis: str, at: float = T0 - 500) -> Evidence:
    method = {"summary": "local", "manual_correction": "manual"}.get(basis, "model")
    return Evidence(basis=basis, method=method, source_id="e" * 24, at=at)  # type: ignore[arg-type]


def _slot(verdict: str) -> VerdictSlot:
    return VerdictSlot(verdict=verdict, source_id="f" * 24, at=T0 - 50)


def starting_records() -> list[Memory]:
    """Every priority, a pin, aliases, feedback, a quarantined record and a tombstone."""
    return [
        make_memory(
            CONTENTS[0],
            search_terms=["deploy target"],
            confirmed_at=T0 - 10,
            feedback=Feedback(utility=_slot("useful")),
            at=T0 - 900,
        ),
        make_memory(CONTENTS[0], kind="decision", at=T0 - 880),  # a same-origin twin
        make_memory(
            CONTENTS[3],
            kind="decision",
            evidence=_evidence("user_statement"),
            feedback=Feedback(accuracy=_slot("accurate")),
            at=T0 - 800,
        ),
        make_memory(CONTENTS[5], kind="project_state", evidence=_evidence("tool_observation"), at=T0 - 700),
        make_memory(CONTENTS[1], kind="preference", evidence=_evidence("manual_correction"), pinned=True, at=T0 - 600),
        make_memory(CONTENTS[4], evidence=None, at=T0 - 500),
        make_memory(CONTENTS[2], status="conflicted", at=T0 - 400, feedback=Feedback(accuracy=_slot("incorrect"))),
        make_memory("The api service used to run on port 7070", status="forgotten", at=T0 - 300),
        make_memory(CONTENTS[0], origin="/work/other", at=T0 - 200),
    ]


def _rows(conn: DbConn, sql: str) -> list[tuple]:
    return [tuple(row) for row in conn.execute(sql)]


def memory_rows(conn: DbConn) -> dict[str, tuple]:
    return {row[0]: row for row in _rows(conn, f"SELECT {MEMORY_COLUMNS} FROM memories")}


def index_rows(conn: DbConn) -> tuple[list[tuple], ...]:
    # A body is named by its key: a body dropped and written again gets another id.
    return (
        _rows(conn, "SELECT * FROM postings ORDER BY feature, memory_id, field"),
        _rows(
            conn,
            "SELECT "
            + ", ".join(f"d.{c.strip()}" for c in DOC_COLUMNS.split(","))
            + ", d.grade, b.key FROM index_docs d LEFT JOIN bodies b ON b.id = d.body ORDER BY d.memory_id",
        ),
        _rows(conn, "SELECT key, claims, feature_count FROM bodies ORDER BY key"),
        _rows(
            conn,
            "SELECT p.feature, COALESCE(b.key, ''), p.field, p.tf FROM body_postings p "
            "LEFT JOIN bodies b ON b.id = p.body ORDER BY 1, 2, 3",
        ),
    )


def last_event_id(conn: DbConn) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])


def _draw_claim(
    data: st.DataObject, source: Source, candidates: list[Memory], everything: list[str], label: str
) -> dict[str, object]:
    terms = list(data.draw(st.sampled_from(ALIASES), label=f"{label} aliases"))
    # Content the source itself says (so local variants can collide) or any known text.
    said = [c for c in CONTENTS if c in source.text]
    content = data.draw(st.sampled_from(said or CONTENTS) | st.sampled_from(CONTENTS), label=f"{label} content")
    if source.source_type == "progress" and candidates:
        target = data.draw(st.sampled_from(candidates), label=f"{label} nominated")
        return {"kind": "project_state", "content": content, "replaces": target.id, "searchTerms": terms}
    mode = data.draw(st.sampled_from(("add", "replace", "rederive")), label=f"{label} mode")
    if mode == "rederive" and candidates:
        held = data.draw(st.sampled_from(candidates), label=f"{label} held")
        return {"kind": held.kind, "content": held.content, "searchTerms": terms}
    if mode == "replace" and everything:
        # Mostly an offered candidate; the first stored id may not be one, which the
        # guards refuse.
        offered = {m.id: m for m in candidates}
        target_id = data.draw(st.sampled_from(sorted(set(offered) | {everything[0]})), label=f"{label} target")
        same_kind = offered[target_id].kind if target_id in offered else "fact"
        return {"kind": same_kind, "content": content, "replaces": target_id, "searchTerms": terms}
    kind = data.draw(st.sampled_from(KINDS), label=f"{label} kind")
    return {"kind": kind, "content": content, "searchTerms": terms}


def capture(store: Store, data: st.DataObject, step: int, now: float) -> str:
    """Capture one source (a summary's labelled lines become local claims right away)."""
    source_type = data.draw(st.sampled_from(("summary", "user_statement", "progress")), label=f"source {step}")
    mentioned = data.draw(
        st.lists(st.sampled_from(CONTENTS), min_size=1, max_size=3, unique=True), label=f"mentions {step}"
    )
    lines = [f"Session note {step}.", *mentioned]
    if source_type == "summary":
        labelled = st.lists(st.tuples(st.sampled_from(KINDS), st.sampled_from(mentioned)), max_size=2)
        lines += [f"- {LABELS[kind]}: {content}" for kind, content in data.draw(labelled, label=f"labelled {step}")]
    states = sorted(m.id for m in _all(store) if m.kind == "project_state" and m.status == "active")
    targets: tuple[str, ...] = ()
    if source_type == "progress" and states:
        targets = tuple(
            data.draw(st.lists(st.sampled_from(states), min_size=1, max_size=2, unique=True), label=f"nominated {step}")
        )
    with store.transaction() as conn:
        return capture_source(
            conn, source_type=source_type, origin=APP, text="\n".join(lines), now=now, target_ids=targets
        ).source_id


def model_apply(store: Store, data: st.DataObject, step: int, now: float) -> None:
    """Lease a queued source (or a new one) and apply a drawn model batch to it."""
    queued = [
        row[0] for row in store.conn.execute("SELECT id FROM sources WHERE state='pending' ORDER BY created_at, id")
    ]
    if queued and data.draw(st.booleans(), label=f"queued {step}"):
        sid = data.draw(st.sampled_from(queued), label=f"queued source {step}")
    else:
        sid = capture(store, data, step, now)
    with store.transaction() as conn:
        # Forced: the property applies sources in any order, also a progress source while an
        # earlier one of the same state waits (the capture-order rule: tests/progress).
        job = lease_job(conn, owner="w", now=now, lease_seconds=150, source_id=sid, forced=True)
    assert job is not None
    candidates = mentioned_claims(store.conn, job.source)
    everything = sorted(m.id for m in _all(store))
    count = data.draw(st.integers(min_value=0, max_value=3), label=f"claims {step}")
    claims: list[dict[str, object]] = []
    for n in range(count):
        if claims and data.draw(st.booleans(), label=f"claim {step}.{n} repeats"):
            # Models repeat themselves: the same claim again, maybe with other aliases.
            terms = list(data.draw(st.sampled_from(ALIASES), label=f"claim {step}.{n} aliases"))
            claims.append({**claims[-1], "searchTerms": terms})
        else:
            claims.append(_draw_claim(data, job.source, candidates, everything, f"claim {step}.{n}"))
    batch = ModelBatch.model_validate({"claims": claims})
    try:
        with store.transaction() as conn:
            apply_batch(conn, job, batch, candidates, "test-model", now + 1)
    except WriteRejected:
        pass  # a guard refused the whole batch: nothing was written


def manual_action(store: Store, data: st.DataObject, step: int, now: float) -> None:
    action = data.draw(st.sampled_from(MANUAL_ACTIONS), label=f"action {step}")
    target = data.draw(st.sampled_from(sorted(m.id for m in _all(store))), label=f"target {step}")
    try:
        with store.transaction() as conn:
            if action == "correct":
                text = data.draw(st.sampled_from(CONTENTS), label=f"text {step}")
                manual.correct(conn, target, text, now)
            else:
                getattr(manual, action)(conn, target, now)
    except (ConflictError, UsageError):
        pass  # not applicable to that record's current state


def _all(store: Store) -> list[Memory]:
    return [m for m in (get_memory(store.conn, mid) for mid in memory_rows(store.conn)) if m]


def first_created(store: Store, memory_id: str, since: int) -> Memory:
    """The record as the earliest event that created it (not in its before) wrote it."""
    for (event_id,) in store.conn.execute("SELECT id FROM events WHERE id>? ORDER BY id", (since,)):
        event = get_event(store.conn, event_id)
        assert event is not None
        if any(m.id == memory_id for m in event.before):
            continue
        for memory in event.after:
            if memory.id == memory_id:
                return memory
    raise AssertionError(f"{memory_id} appeared without an event")


_example = itertools.count()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_undoing_every_event_newest_first_restores_the_starting_records(
    home: Path,
    data: st.DataObject,
) -> None:
    with open_other_store(home, f"example-{next(_example)}") as store:
        with store.transaction() as conn:
            for memory in starting_records():
                put_memory(conn, memory)
        start_rows = memory_rows(store.conn)
        start_index = index_rows(store.conn)
        start_event = last_event_id(store.conn)

        steps = data.draw(st.integers(min_value=1, max_value=8), label="steps")
        for step in range(steps):
            now = T1 + step * STEP_SECONDS
            what = data.draw(st.sampled_from(("apply", "apply", "capture", "manual", "undo")), label=f"step {step}")
            if what == "capture":
                capture(store, data, step, now)  # queued: a later forget or supersession may retire it
            elif what == "apply":
                model_apply(store, data, step, now)
            elif what == "manual":
                manual_action(store, data, step, now)
            elif last_event_id(store.conn) > start_event:
                # The newest event always matches the stored records, so it can be undone.
                with store.transaction() as conn:
                    undo(conn, last_event_id(conn), now)

        blocks = blocked_rows(store.conn)
        jobs = _rows(store.conn, "SELECT * FROM sources ORDER BY id")
        recorded = [
            row[0] for row in store.conn.execute("SELECT id FROM events WHERE id>? ORDER BY id DESC", (start_event,))
        ]
        for n, event_id in enumerate(recorded):
            with store.transaction() as conn:
                undo(conn, event_id, T1 + 10_000 + n)

        end_rows = memory_rows(store.conn)
        assert {mid: end_rows[mid] for mid in start_rows} == start_rows
        for mid in set(end_rows) - set(start_rows):
            tomb = get_memory(store.conn, mid)
            assert tomb == first_created(store, mid, start_event).model_copy(update={"status": "forgotten"})
        assert index_rows(store.conn) == start_index
        assert blocked_rows(store.conn) == blocks
        assert _rows(store.conn, "SELECT * FROM sources ORDER BY id") == jobs
