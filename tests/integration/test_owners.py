"""Owners and scopes: whose each row is, and which claims a team shares (migration 5)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store
from memory_core.store.schema.owners import (
    PERSONAL,
    SHARED,
    claim_scope,
    current_person,
    is_repository_origin,
    own_owners,
    speaks_of_oneself,
    visible_clause,
)
from tests.factories import make_memory, seed

SHOP = "github.com/acme/shop"
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    ("kind", "origin", "content", "scope"),
    [
        ("fact", SHOP, "The shop listens on port 8080", SHARED),
        ("decision", SHOP, "Ship the CLI before the web page", SHARED),
        ("project_state", "acme-shop", "Release 2.1 not tagged yet", SHARED),
        ("preference", SHOP, "Answer in Chinese", PERSONAL),
        ("fact", SHOP, "I am on call this week", PERSONAL),
        ("fact", SHOP, "My laptop runs Arch", PERSONAL),
        ("fact", SHOP, "我负责发布", PERSONAL),
        ("fact", SHOP, "我们每周五发布", SHARED),
        ("fact", SHOP, f"The CI token is {SECRET}", PERSONAL),
        ("fact", "/home/alice/notes", "The notes use Markdown", PERSONAL),
        ("fact", "unknown", "Something said nowhere", PERSONAL),
        ("fact", "legacy", "Imported without an origin", PERSONAL),
        ("fact", "C:\\work\\shop", "A Windows path", PERSONAL),
    ],
)
def test_what_a_team_shares(kind: str, origin: str, content: str, scope: str) -> None:
    assert claim_scope(kind, origin, content) == scope


def test_repository_origins_and_first_person() -> None:
    assert is_repository_origin(SHOP) and is_repository_origin("acme-shop")
    assert not any(is_repository_origin(o) for o in ("/work/app", "~/x", "", "unknown", "legacy", "D:/x"))
    assert speaks_of_oneself("I'm moving the docs") and not speaks_of_oneself("Items in the cart")
    assert not speaks_of_oneself("MY_SETTING is read at start") or speaks_of_oneself("my")


def test_every_write_records_scope_and_owner(store: Store, backend: str) -> None:
    shared = make_memory("The shop listens on port 8080", origin=SHOP)
    personal = make_memory("Answer in Chinese", origin=SHOP, kind="preference")
    seed(store, shared, personal)
    with store.transaction() as conn:
        sid = capture_source(
            conn, source_type="summary", origin=SHOP, text="Summary.\n- Decision: ship the CLI first", now=clock.now()
        ).source_id
    person = current_person(store.conn)
    assert person == ("" if backend == "sqlite" else store.conn.execute("SELECT current_user").fetchone()[0])
    rows = dict((i, (o, s)) for i, o, s in store.conn.execute("SELECT id, owner, scope FROM memories").fetchall())
    assert rows[shared.id] == (person, SHARED) and rows[personal.id] == (person, PERSONAL)
    assert sorted(rows.values()) == sorted([(person, SHARED), (person, PERSONAL), (person, SHARED)])
    assert store.conn.execute("SELECT owner FROM sources WHERE id = ?", (sid,)).fetchone()[0] == person
    assert {r[0] for r in store.conn.execute("SELECT owner FROM events")} == {person}
    assert own_owners(store.conn) == (("",) if backend == "sqlite" else (person, ""))
    if backend == "sqlite":
        assert visible_clause(store.conn) == ("", ())  # one owner: nothing to filter


@pytest.mark.sqlite_only
def test_version_4_claims_get_the_scope_of_the_sharing_rule(home: Path) -> None:
    from tests.integration.test_migrations import back_to_version_4

    claims = [
        make_memory("The shop listens on port 8080", origin=SHOP),
        make_memory("Answer in Chinese", origin=SHOP, kind="preference"),
        make_memory("The notes use Markdown", origin="/home/alice/notes"),
        make_memory(f"The CI token is {SECRET}", origin=SHOP),
    ]
    with Store.open(home) as store:
        seed(store, *claims)
    conn = sqlite3.connect(home / "memory.db")
    back_to_version_4(conn)
    conn.commit()
    before = sorted(conn.execute("SELECT * FROM memories").fetchall())
    conn.close()
    with Store.open(home) as store:
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v4-")
        after = sorted(store.conn.execute("SELECT * FROM memories").fetchall())
    assert [row[:-2] for row in after] == before  # nothing else rewritten
    scopes = {row[0]: row[-2:] for row in after}
    assert scopes == {
        claims[0].id: ("", SHARED),
        claims[1].id: ("", PERSONAL),
        claims[2].id: ("", PERSONAL),
        claims[3].id: ("", PERSONAL),
    }


@pytest.fixture
def member(store: Store, pg_url: str, home: Path) -> Iterator[tuple[str, Store]]:
    """A second person: a login of their own with DML on the store's tables, and the store
    opened with it (tests using it are postgres_only: members are PostgreSQL logins)."""
    admin_url = pg_url
    name = "bob_" + os.urandom(4).hex()
    password = os.urandom(12).hex()
    (schema,) = store.conn.execute("SELECT current_schema()").fetchone()
    with store.transaction() as conn:
        conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {name}")
        conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {name}")
        conn.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {schema} TO {name}")
    parts = urlsplit(admin_url)
    netloc = f"{name}:{password}@{parts.hostname}:{parts.port}"
    url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    other = Store.open(home / "bob", Backend(POSTGRESQL, url, None))
    try:
        yield name, other
    finally:
        other.close()
        with store.transaction() as conn:
            conn.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {name}")
            conn.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {name}")
            conn.execute(f"REVOKE ALL ON SCHEMA {schema} FROM {name}")
        with store.transaction() as conn:
            conn.execute(f"DROP ROLE {name}")


def visible(store: Store) -> set[str]:
    clause, params = visible_clause(store.conn)
    return {r[0] for r in store.conn.execute(f"SELECT id FROM memories WHERE 1=1{clause}", params)}


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_a_member_sees_their_own_and_the_shared_claims_only(store: Store, member: tuple[str, Store]) -> None:
    name, bob = member
    alice_fact = make_memory("The shop listens on port 8080", origin=SHOP)
    alice_pref = make_memory("Answer in Chinese", origin=SHOP, kind="preference")
    copied = make_memory("A claim copied from a SQLite store", origin="/home/alice/x")
    seed(store, alice_fact, alice_pref, copied)
    with store.transaction() as conn:
        conn.execute("UPDATE memories SET owner = '' WHERE id = ?", (copied.id,))
    bob_pref = make_memory("Use tabs", origin=SHOP, kind="preference")
    bob_fact = make_memory("The shop deploys on Fridays", origin=SHOP)
    seed(bob, bob_pref, bob_fact)
    owners = dict(store.conn.execute("SELECT id, owner FROM memories").fetchall())
    assert owners[bob_pref.id] == owners[bob_fact.id] == name  # the login, not a name a client gave
    assert current_person(bob.conn) == name and own_owners(bob.conn) == (name,)
    assert visible(bob) == {alice_fact.id, bob_pref.id, bob_fact.id}
    assert visible(store) == {alice_fact.id, alice_pref.id, copied.id, bob_fact.id}
    # A member's change to a shared claim keeps whose it was.
    seed(bob, alice_fact.model_copy(update={"updated_at": alice_fact.updated_at + 1}))
    admin = current_person(store.conn)
    assert dict(store.conn.execute("SELECT id, owner FROM memories").fetchall())[alice_fact.id] == admin != name


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_views_show_a_member_their_own_and_the_shared_claims(store: Store, member: tuple[str, Store]) -> None:
    from memory_core.controls.manual import correct, forget
    from memory_core.controls.transfer import export_lines
    from memory_core.errors import NotFoundError
    from memory_core.jobs.lifecycle import lease_job
    from memory_core.recall.service import recall
    from memory_core.reports.inspection import describe_memory, list_memories, memory_summary
    from memory_core.store.schema.owners import may_see_claim, others_owners, owns_source

    name, bob = member
    admin = current_person(store.conn)
    at = clock.now()  # awake claims: recall leaves dormant ones out
    fact = make_memory("The staging database listens on port 5432", origin=SHOP, at=at)
    pref = make_memory("Answer about the staging database in Chinese", origin=SHOP, kind="preference", at=at)
    seed(store, fact, pref)
    with store.transaction() as conn:
        alice_source = capture_source(
            conn, source_type="user_statement", origin=SHOP, text="remember that my badge is 4471", now=clock.now()
        ).source_id
    now = clock.now()
    # Recall and lookups: the shared fact, never the personal preference.
    assert {c.memory_id for c in recall(bob.conn, "staging database", now=now).claims} == {fact.id}
    assert {c.memory_id for c in recall(store.conn, "staging database", now=now).claims} == {fact.id, pref.id}
    # list, show, export.
    assert [m.id for m in list_memories(bob.conn)] == [fact.id]
    assert not may_see_claim(bob.conn, pref.id) and not owns_source(bob.conn, alice_source)
    assert owns_source(store.conn, alice_source)
    exported = "\n".join(export_lines(bob.conn))
    assert fact.id in exported and pref.id not in exported and "badge" not in exported
    # A shared claim says whose it was.
    owners = others_owners(bob.conn, "memories", [fact.id])
    assert memory_summary(fact, owners.get(fact.id))["owner"] == admin
    assert "owner" not in describe_memory(store.conn, fact, now)
    # Manual changes: another's personal claim cannot be touched; a shared one can, attributed.
    with pytest.raises(NotFoundError), bob.transaction() as conn:
        forget(conn, pref.id, now)
    with bob.transaction() as conn:
        corrected = correct(conn, fact.id, "The staging database listens on port 5433", now)
    (new,) = [m for m in corrected.after if m.content.endswith("5433")]
    seen_by_alice = describe_memory(store.conn, fact, now)
    assert [e["by"] for e in seen_by_alice["events"] if e["id"] == corrected.event_id] == [name]
    assert others_owners(store.conn, "memories", [new.id]) == {new.id: name}
    assert others_owners(store.conn, "memories", [fact.id]) == {}  # still the admin's own
    # A worker leases only its own person's sources.
    with bob.transaction() as conn:
        assert lease_job(conn, owner="bob-worker", now=now + 1, lease_seconds=60) is None
    with store.transaction() as conn:
        lease = lease_job(conn, owner="alice-worker", now=now + 1, lease_seconds=60)
        assert lease is not None and lease.source.id == alice_source


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_history_and_undo_keep_a_members_personal_changes_theirs(store: Store, member: tuple[str, Store]) -> None:
    from memory_core.controls.manual import forget, pin
    from memory_core.controls.undo import undo
    from memory_core.errors import NotFoundError
    from memory_core.reports.inspection import history_page

    name, bob = member
    at = clock.now()
    fact = make_memory("The shop deploys from the main branch", origin=SHOP, at=at)
    pref = make_memory("Answer in Chinese", origin=SHOP, kind="preference", at=at)
    seed(store, fact, pref)
    with store.transaction() as conn:
        personal_event = forget(conn, pref.id, at).event_id
    with bob.transaction() as conn:
        shared_event = pin(conn, fact.id, at).event_id
    assert personal_event is not None and shared_event is not None
    assert [e.id for e in history_page(bob.conn)] == [shared_event]
    assert {e.id for e in history_page(store.conn)} == {personal_event, shared_event}
    with pytest.raises(NotFoundError), bob.transaction() as conn:
        undo(conn, personal_event, at)
    # Undo of another member's change to a shared claim is a change of one's own, attributed.
    with store.transaction() as conn:
        undone = undo(conn, shared_event, at)
    by = dict(store.conn.execute("SELECT id, owner FROM events WHERE id IN (?, ?)", (shared_event, undone)))
    assert by[shared_event] == name and by[undone] == current_person(store.conn)


@pytest.mark.sqlite_only
def test_version_5_events_get_the_scope_of_their_claims(home: Path) -> None:
    from memory_core.controls.manual import pin
    from tests.integration.test_migrations import back_to_version_5

    shared = make_memory("The shop listens on port 8080", origin=SHOP)
    personal = make_memory("Answer in Chinese", origin=SHOP, kind="preference")
    with Store.open(home) as store:
        seed(store, shared, personal)
        with store.transaction() as conn:
            shared_event = pin(conn, shared.id, 1.0).event_id
        with store.transaction() as conn:
            personal_event = pin(conn, personal.id, 1.0).event_id
        written = dict(store.conn.execute("SELECT id, scope FROM events").fetchall())
    assert written == {shared_event: SHARED, personal_event: PERSONAL}
    conn = sqlite3.connect(home / "memory.db")
    back_to_version_5(conn)
    conn.commit()
    conn.close()
    with Store.open(home) as store:
        assert store.backup_path is not None and store.backup_path.name.startswith("memory-v5-")
        assert dict(store.conn.execute("SELECT id, scope FROM events").fetchall()) == written
