"""Known leaks between the people of a team memory, each shown through a real member login
(or the administrator's, which row-level security does not bind): the administrator's worker
and progress capture read members' personal claims, and the tables without policies
(``metadata``, ``feedback_receipts``, ``origin_generations``) or with store-wide unique keys
let one member read another's directories and claim ids, or change their review marks.

Each test states the promise of docs/team.md and is expected to fail until the leak is closed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core.capture.intake import capture_source
from memory_core.capture.work.progress_targets import nominate
from memory_core.consolidation.targets import mentioned_claims
from memory_core.controls.feedback import give_feedback
from memory_core.controls.manual import pin
from memory_core.ids import memory_id
from memory_core.store.engines.database import Store
from memory_core.store.schema.owners import may_see_claim
from memory_core.store.tables.claim_ids import claim_id_on
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.origin_aliases import adopt_path_origins
from memory_core.store.tables.review_marks import read_review_marks
from memory_core.store.tables.sources import get_source
from tests.factories import make_memory, seed
from tests.support.team import added_member

pytestmark = pytest.mark.postgres_only  # members are PostgreSQL logins

SHOP = "github.com/acme/shop"
ALICE_DIR = "/home/alice/clients/zanzibar-bank"
AT = 1_750_000_000.0


@pytest.fixture
def member(store: Store, pg_url: str, cli_run, home: Path) -> Iterator[tuple[str, str, Store]]:
    """A member added with `memevo team add`: ``(name, url, their open store)``."""
    with added_member(store, cli_run, home) as added:
        yield added


def _own_claim(store: Store, content: str, *, kind: str, origin: str = SHOP) -> Any:
    """A claim written by the person of ``store`` with the id that person's writes give it."""
    claim = make_memory(content, origin=origin, kind=kind, at=AT)
    claim = claim.model_copy(update={"id": claim_id_on(store.conn, origin, kind, claim.content)})
    seed(store, claim)
    return claim


def _raw(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as raw:
        cursor = raw.execute(sql, params)
        return list(cursor.fetchall()) if cursor.description else []


def test_the_administrators_worker_offers_its_model_no_personal_claim_of_a_member(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    bobs = _own_claim(bob, "Prefer tabs in the staging deploy scripts of marmosetic", kind="preference")
    with store.transaction() as conn:
        sid = capture_source(
            conn,
            source_type="user_statement",
            origin=SHOP,
            text="The staging deploy scripts of marmosetic now run on node 22",
            now=AT + 10,
        ).source_id
    source = get_source(store.conn, sid)
    assert source is not None
    # Bob's own worker, under his login, is offered his preference: the claim is mentioned.
    assert bobs.id in {m.id for m in mentioned_claims(bob.conn, source)}
    offered = {m.id for m in mentioned_claims(store.conn, source)}
    assert bobs.id not in offered


def test_the_administrators_progress_capture_nominates_no_personal_state_of_a_member(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    bobs = _own_claim(bob, "I am migrating the marmosetic checkout service to grpc", kind="project_state")
    topics = ["migrating the marmosetic checkout service to grpc"]
    assert bobs.id in {n.memory_id for n in nominate(bob.conn, origin=SHOP, topics=topics, resources=[])}
    nominated = {n.memory_id for n in nominate(store.conn, origin=SHOP, topics=topics, resources=[])}
    assert bobs.id not in nominated


def test_a_member_cannot_change_another_persons_review_marks_with_raw_sql(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, url, _ = member
    before = read_review_marks(store.conn)
    try:
        _raw(
            url,
            "INSERT INTO metadata (key, value) VALUES ('review_through', '999999999') "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
    except Exception:  # refused: what the promise asks
        pass
    assert read_review_marks(store.conn) == before


def test_a_members_raw_sql_reads_no_directory_of_another_persons_personal_claims(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, url, _ = member
    alias_dir = ALICE_DIR + "/shop"
    note = _own_claim(store, "The ledger export runs on Fridays", kind="fact", origin=ALICE_DIR)
    _own_claim(store, "The shop checkout keeps carts for a week", kind="fact", origin=alias_dir)
    with store.transaction() as conn:
        pin(conn, note.id, AT + 5)  # a manual change: its origin's generation moves on
        adopt_path_origins(conn, SHOP, [alias_dir])
    seen = [str(v) for row in _raw(url, "SELECT key, value FROM metadata") for v in row]
    seen += [str(row[0]) for row in _raw(url, "SELECT origin FROM origin_generations")]
    assert not [text for text in seen if "zanzibar-bank" in text]


def test_a_members_raw_sql_reads_no_feedback_on_another_persons_personal_claim(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, url, _ = member
    mine = _own_claim(store, "Answer questions about the shop in Portuguese", kind="preference")
    with store.transaction() as conn:
        give_feedback(conn, mine.id, "useful", AT + 5)
    guessed = memory_id(SHOP, "preference", "Answer questions about the shop in Portuguese")
    seen = {str(row[0]) for row in _raw(url, "SELECT memory_id FROM feedback_receipts")}
    assert guessed not in seen


@pytest.mark.xfail(
    strict=True,
    reason="a known limit (docs/team.md, 'What the database does not stop'): claim ids are unique store-wide "
    "and the administrator's personal ids derive from content alone, so a member's insert of a guessed id "
    "fails exactly when the administrator holds that claim",
)
def test_a_member_cannot_confirm_a_guess_of_another_persons_personal_claim(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, url, _ = member
    _own_claim(store, "My badge number is 4471", kind="preference")
    body = make_memory("placeholder", origin=SHOP, kind="preference", at=AT).model_dump_json()

    def accepted(guess: str) -> bool:
        try:
            _raw(
                url,
                "INSERT INTO memories (id, origin, kind, status, content_hash, updated_at, body) "
                "VALUES (%s, %s, 'preference', 'superseded', 'x', 0, %s)",
                (memory_id(SHOP, "preference", guess), SHOP, body),
            )
        except Exception:
            return False
        return True

    assert accepted("My badge number is 4470")  # a wrong guess: the row goes in
    assert accepted("My badge number is 4471")  # the right one must not be told apart


def _bobs_paused_or_due_source(bob: Store, text: str, now: float) -> str:
    with bob.transaction() as conn:
        return capture_source(conn, source_type="user_statement", origin=SHOP, text=text, now=now).source_id


def test_the_administrators_worker_leases_no_source_of_a_member(store: Store, member: tuple[str, str, Store]) -> None:
    from memory_core import clock
    from memory_core.jobs.lifecycle import lease_job

    _, _, bob = member
    now = clock.now()
    sid = _bobs_paused_or_due_source(bob, "remember that my locker code is 9912", now - 10)
    with store.transaction() as conn:
        lease = lease_job(conn, owner="admin-worker", now=now, lease_seconds=60, source_id=sid)
    assert lease is None


def test_the_administrators_evolve_picks_no_source_of_a_member(store: Store, member: tuple[str, str, Store]) -> None:
    from memory_core import clock
    from memory_core.jobs.forced import pick_forced_source

    _, _, bob = member
    now = clock.now()
    with store.transaction() as conn:
        own = capture_source(
            conn, source_type="user_statement", origin=SHOP, text="the shop uses pnpm", now=now - 20
        ).source_id
    theirs = _bobs_paused_or_due_source(bob, "remember that my locker code is 9912", now - 10)
    assert pick_forced_source(bob.conn, None) == theirs  # his own newest
    assert pick_forced_source(store.conn, None) == own  # hers: Bob's newer source is not hers to run


def test_a_members_recovery_run_leaves_the_others_recovery_to_run(store: Store, member: tuple[str, str, Store]) -> None:
    from memory_core import clock
    from memory_core.jobs.recovery_claim import claim_recovery_minute

    _, _, bob = member
    now = clock.now()
    with bob.transaction() as conn:
        assert claim_recovery_minute(conn, now)
    with store.transaction() as conn:
        assert claim_recovery_minute(conn, now)  # her sources: Bob's worker cannot see them


def test_a_member_cannot_change_the_schema_marker_with_raw_sql(store: Store, member: tuple[str, str, Store]) -> None:
    from memory_core.store.schema.migrations import SCHEMA_VERSION

    _, url, _ = member
    try:
        _raw(url, "UPDATE metadata SET value = '999' WHERE key = 'schema_version'")
    except Exception:  # refused: what the promise asks
        pass
    try:
        assert store.schema_version() == SCHEMA_VERSION
    finally:
        with store.transaction() as conn:
            conn.execute("UPDATE metadata SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))


def test_a_claim_whose_search_terms_hold_a_secret_is_not_shared(store: Store, member: tuple[str, str, Store]) -> None:
    _, _, bob = member
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    claim = make_memory("The deploy bot pushes the release tags", origin=SHOP, kind="fact", at=AT)
    claim = claim.model_copy(update={"search_terms": ["release tags", token]})
    seed(bob, claim)
    assert may_see_claim(bob.conn, claim.id)
    assert not may_see_claim(store.conn, claim.id)


def test_a_members_correction_cannot_take_a_shared_claim_into_their_personal_memory(
    store: Store, member: tuple[str, str, Store]
) -> None:
    """A first-person correction of the team's shared claim is refused (the team would lose
    the claim with no history it may read); a correction the team can share goes through."""
    from memory_core.controls.manual import correct
    from memory_core.errors import UsageError
    from memory_core.reports.inspection import events_touching

    _, _, bob = member
    shared = _own_claim(store, "The staging deploy runs on node 20", kind="fact")
    with pytest.raises(UsageError, match="shared with the team"), bob.transaction() as conn:
        correct(conn, shared.id, "I run the staging deploy on node 22 on my laptop", AT + 5)
    now = get_memory(store.conn, shared.id)
    assert now is not None and now.status == "active"
    with bob.transaction() as conn:
        result = correct(conn, shared.id, "The staging deploy runs on node 22", AT + 6)
    assert result.event_id in {e.id for e in events_touching(store.conn, shared.id)}


def test_a_member_cannot_queue_code_for_another_persons_worker(
    store: Store, member: tuple[str, str, Store], home, tmp_path
) -> None:
    import pathlib
    import pickle

    from workers.app import make_huey

    _, url, _ = member
    marker = tmp_path / "ran-in-the-administrators-worker"
    theirs = make_huey(home).name  # the administrator's own queue

    class Payload:
        def __reduce__(self) -> tuple[Any, ...]:
            return (pathlib.Path.touch, (marker,))

    try:
        _raw(url, "INSERT INTO memevo_huey_task (queue, data) VALUES (%s, %s)", (theirs, pickle.dumps(Payload())))
    except Exception:  # refused: what the promise asks
        pass
    try:
        make_huey(home).dequeue()  # what the administrator's consumer does next
    except Exception:
        pass
    assert not marker.exists()
