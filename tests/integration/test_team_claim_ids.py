"""Two members with logins of their own write the same personal claim: each gets a row of
their own, which only they see; the administrator's identical claim is a third row with the
id it always had, and a shared claim written by everyone stays one row."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import ModelBatch
from memory_core.ids import memory_id
from memory_core.jobs.lifecycle import lease_job
from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store
from memory_core.store.schema.owners import current_person, visible_clause
from tests.factories import make_memory, seed

SHOP = "github.com/acme/shop"
PREFERENCE = "Answer in Chinese"
FACT = "The shop listens on port 8080"


@pytest.fixture
def members(store: Store, home: Path, cli_run) -> Iterator[dict[str, Store]]:
    """Two members added with `memevo team add` (row-level security on), each with the store
    opened under their own login: ``{name: store}``."""
    from memory_core.store.schema.team import remove_member

    opened: dict[str, Store] = {}
    names = [f"{who}_{os.urandom(4).hex()}" for who in ("bob", "carol")]
    try:
        for name in names:
            result = cli_run("team", "add", name, "--json")
            assert result.exit_code == 0, result.output
            url = json.loads(result.output)["url"]
            opened[name] = Store.open(home / name, Backend(POSTGRESQL, url, None))
        yield opened
    finally:
        for member in opened.values():
            member.close()
        for name in names:
            if store.conn.execute("SELECT COUNT(*) FROM pg_roles WHERE rolname = ?", (name,)).fetchone()[0]:
                with store.transaction() as conn:
                    remove_member(conn, name)


def learn(store: Store, claims: list[dict], at: float) -> list[str]:
    """What the worker of ``store``'s person does with a model reply: a user statement
    captured, its job leased and the reply's claims applied under that person's login."""
    person = current_person(store.conn)
    with store.transaction() as conn:
        sid = capture_source(
            conn, source_type="user_statement", origin=SHOP, text=f"remember this ({person})", now=at
        ).source_id
        job = lease_job(conn, owner=f"{person}-worker", now=at, lease_seconds=60, source_id=sid)
    assert job is not None
    with store.transaction() as conn:
        report = apply_batch(conn, job, ModelBatch.model_validate({"claims": claims}), [], "test-model", at + 1)
    return report.added


def rows(store: Store, content: str) -> dict[str, tuple[str, str, str]]:
    """Every claim with this content, whoever's (read with the administrator's login):
    ``{id: (owner, scope, status)}``."""
    found = store.conn.execute(
        "SELECT id, owner, scope, status, body FROM memories WHERE origin = ? ORDER BY id", (SHOP,)
    ).fetchall()
    return {r[0]: (r[1], r[2], r[3]) for r in found if json.loads(r[4])["content"] == content}


def visible(store: Store) -> set[str]:
    clause, params = visible_clause(store.conn)
    return {r[0] for r in store.conn.execute(f"SELECT id FROM memories WHERE 1=1{clause}", params)}


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_two_members_learn_the_same_preference_as_two_claims(store: Store, members: dict[str, Store]) -> None:
    from memory_core.recall.service import recall

    at = clock.now()  # awake claims: recall leaves dormant ones out
    claims = [{"kind": "preference", "content": PREFERENCE}, {"kind": "fact", "content": FACT}]
    added = {name: learn(member, claims, at) for name, member in members.items()}
    admin = current_person(store.conn)
    added[admin] = learn(store, claims, at)
    preferences = rows(store, PREFERENCE)
    assert sorted(owner for owner, _, _ in preferences.values()) == sorted([*members, admin])
    assert all(scope == "personal" and status == "active" for _, scope, status in preferences.values())
    # The administrator's own claim keeps the id it always had; the shared fact is one row.
    plain = memory_id(SHOP, "preference", PREFERENCE)
    assert preferences[plain][0] == admin
    fact_id = memory_id(SHOP, "fact", FACT)
    assert rows(store, FACT) == {fact_id: (next(iter(members)), "shared", "active")}
    for name, member in [*members.items(), (admin, store)]:
        (own,) = [i for i, (owner, _, _) in preferences.items() if owner == name]
        assert own in added[name]
        assert visible(member) & set(preferences) == {own}
        assert fact_id in visible(member)
        recalled = {c.memory_id for c in recall(member.conn, "answer in Chinese", now=at + 2).claims}
        assert own in recalled and not recalled & (set(preferences) - {own}), (name, recalled)
    # The first member's pass wrote the fact; the others' reaffirmed it.
    assert [fact_id in ids for ids in added.values()] == [True, False, False]


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_members_restating_their_own_preference_reaffirm_it(store: Store, members: dict[str, Store]) -> None:
    at = clock.now()
    bob, carol = members.values()
    (bob_pref,) = learn(bob, [{"kind": "preference", "content": PREFERENCE}], at)
    (carol_pref,) = learn(carol, [{"kind": "preference", "content": PREFERENCE}], at)
    # A later pass offered Bob's own claim replaces it with the same words: a restatement.
    from memory_core.store.tables.memories import get_memory

    with bob.transaction() as conn:
        sid = capture_source(
            conn, source_type="user_statement", origin=SHOP, text="answer in Chinese, really", now=at + 5
        ).source_id
        job = lease_job(conn, owner="bob-worker", now=at + 5, lease_seconds=60, source_id=sid)
    assert job is not None
    mine = get_memory(bob.conn, bob_pref)
    assert mine is not None
    batch = ModelBatch.model_validate({"claims": [{"kind": "preference", "content": PREFERENCE, "replaces": bob_pref}]})
    with bob.transaction() as conn:
        report = apply_batch(conn, job, batch, [mine], "test-model", at + 6)
    assert report.refreshed == [bob_pref] and not report.added and not report.superseded
    assert rows(store, PREFERENCE)[carol_pref][2] == "active"


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_corrections_into_the_same_personal_text_are_each_correctors_own(
    store: Store, members: dict[str, Store]
) -> None:
    from memory_core.controls.manual import correct

    at = clock.now()
    shared = make_memory("The shop deploys from branch c", origin=SHOP, at=at)
    seed(store, shared)
    mine = "Deploy the shop on Fridays"
    (bob_name, bob), (carol_name, carol) = members.items()
    own = {
        bob: make_memory("Deploy the shop on Thursdays", origin=SHOP, kind="preference", at=at),
        carol: make_memory("Deploy the shop on Mondays", origin=SHOP, kind="preference", at=at),
    }
    for person, claim in own.items():
        seed(person, claim)
    with bob.transaction() as conn:
        by_bob = correct(conn, own[bob].id, mine, at)
    with carol.transaction() as conn:
        by_carol = correct(conn, own[carol].id, mine, at)
    with carol.transaction() as conn:
        into_shared = correct(conn, shared.id, "The shop deploys from branch main", at)
    corrected = rows(store, mine)
    assert sorted(corrected.values()) == sorted([(bob_name, "personal", "active"), (carol_name, "personal", "active")])
    assert visible(bob) & set(corrected) == {by_bob.after[-1].id}
    assert visible(carol) & set(corrected) == {by_carol.after[-1].id}
    # A correction into shared text keeps the id every member gives it.
    assert into_shared.after[-1].id == memory_id(SHOP, "fact", "The shop deploys from branch main")


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_the_administrator_forgetting_a_preference_leaves_a_members_identical_one(
    store: Store, members: dict[str, Store]
) -> None:
    from memory_core.controls.manual import forget

    at = clock.now()
    bob = next(iter(members.values()))
    (bob_pref,) = learn(bob, [{"kind": "preference", "content": PREFERENCE}], at)
    (admin_pref,) = learn(store, [{"kind": "preference", "content": PREFERENCE}], at)
    assert admin_pref == memory_id(SHOP, "preference", PREFERENCE) != bob_pref
    # The administrator's login is not bound by row-level security: Bob's twin is still his.
    with store.transaction() as conn:
        result = forget(conn, admin_pref, at + 1)
    assert [m.id for m in result.after] == [admin_pref]
    states = {i: status for i, (_, _, status) in rows(store, PREFERENCE).items()}
    assert states == {admin_pref: "forgotten", bob_pref: "active"}


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_members_importing_the_same_file_get_a_claim_each(store: Store, members: dict[str, Store]) -> None:
    from memory_core.controls.transfer import import_file

    lines = [
        json.dumps({"kind": "preference", "content": PREFERENCE, "origin": SHOP}),
        json.dumps({"kind": "fact", "content": FACT, "origin": SHOP}),
    ]
    at = clock.now()
    added: dict[str, list[str]] = {}
    for name, member in [*members.items(), (current_person(store.conn), store)]:
        with member.transaction() as conn:
            added[name] = import_file(conn, lines, at).added_ids
    preferences = rows(store, PREFERENCE)
    assert len(preferences) == 3 and {owner for owner, _, _ in preferences.values()} == set(added)
    for name, ids in added.items():
        (own,) = [i for i, (owner, _, _) in preferences.items() if owner == name]
        assert own in ids
    assert set(rows(store, FACT)) == {memory_id(SHOP, "fact", FACT)}
    assert memory_id(SHOP, "preference", PREFERENCE) in added[current_person(store.conn)]


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_a_members_summary_lines_are_their_own_claims(store: Store, members: dict[str, Store]) -> None:
    at = clock.now()
    for name, member in members.items():
        with member.transaction() as conn:
            capture_source(
                conn,
                source_type="summary",
                origin=SHOP,
                text=f"Work of {name} today.\nPreference: {PREFERENCE}\nFact: {FACT}",
                now=at,
            )
    assert {owner for owner, _, _ in rows(store, PREFERENCE).values()} == set(members)
    assert set(rows(store, FACT)) == {memory_id(SHOP, "fact", FACT)}


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_a_members_import_of_an_export_keeps_its_links(store: Store, members: dict[str, Store]) -> None:
    from memory_core.controls.transfer import import_file

    old = make_memory("Answer in English", origin=SHOP, kind="preference")
    new = make_memory(PREFERENCE, origin=SHOP, kind="preference", replaces=old.id)
    old = old.model_copy(update={"status": "superseded", "replaced_by": new.id})
    lines = [json.dumps({"type": "memory", "record": m.model_dump(mode="json")}) for m in (old, new)]
    (name, bob), (_, carol) = members.items()
    with carol.transaction() as conn:
        import_file(conn, lines, clock.now())
    with bob.transaction() as conn:
        bob_ids = import_file(conn, lines, clock.now()).added_ids
    assert len(bob_ids) == 2 and not {old.id, new.id} & set(bob_ids)
    bodies = [json.loads(r[0]) for r in bob.conn.execute("SELECT body FROM memories WHERE owner = ?", (name,))]
    by_content = {b["content"]: b for b in bodies}
    assert by_content["Answer in English"]["replaced_by"] == by_content[PREFERENCE]["id"]
    assert by_content[PREFERENCE]["replaces"] == by_content["Answer in English"]["id"]
    assert len(rows(store, PREFERENCE)) == 2
