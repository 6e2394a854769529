"""The recall index of a team memory: the words of a member's personal claims are in rows
that only that member may read (the database's policies, checked with raw SQL under a
member's own login), and recall leaves other members' personal claims out before ranking,
the administrator's recall too."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core.recall.index import read_body_counts, read_headers
from memory_core.recall.service import recall
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.support.team import added_member

pytestmark = pytest.mark.postgres_only  # members are PostgreSQL logins

PROJECT = "github.com/acme/shop"
AT = 1_750_000_000.0
INDEX_TABLES = ("postings", "index_docs", "bodies", "body_postings")


@pytest.fixture
def member(store: Store, pg_url: str, cli_run, home: Path) -> Iterator[tuple[str, str, Store]]:
    """A member added with `memevo team add`: ``(name, url, their open store)``."""
    with added_member(store, cli_run, home) as added:
        yield added


def words(text: str) -> set[str]:
    """The features the index holds for ``text``."""
    from memory_core.text.tokenize import index_fields

    return set(index_fields(text, [])["body"])


def features_seen(url: str) -> set[str]:
    """Every feature of the index a raw connection with ``url`` reads."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as raw:
        seen = {r[0] for r in raw.execute("SELECT feature FROM postings")}
        seen |= {r[0] for r in raw.execute("SELECT feature FROM body_postings")}
        seen |= {r[0].removeprefix("o:") for r in raw.execute("SELECT field FROM postings WHERE memory_id = ''")}
        seen |= {r[0] for r in raw.execute("SELECT origin FROM index_docs")}
    return seen


def test_a_members_raw_sql_reads_no_word_of_another_members_personal_claims(
    store: Store, member: tuple[str, str, Store]
) -> None:
    import psycopg

    name, url, bob = member
    shared = make_memory("The staging database listens on port 5432", origin=PROJECT, at=AT)
    mine = make_memory("Answer questions about zanzibarite in Chinese", origin=PROJECT, kind="preference", at=AT)
    outside = make_memory("The quarterly ledger lives in qwertyfold", origin="/home/alice/private", at=AT)
    seed(store, shared, mine, outside)
    theirs = make_memory("Bob wants answers about marmosetic gardens", origin=PROJECT, kind="preference", at=AT)
    seed(bob, theirs)

    seen_by_bob = features_seen(url)
    assert words(shared.content) | words(theirs.content) <= seen_by_bob  # the shared fact, his own
    hidden = words(mine.content) | words(outside.content) | {"/home/alice/private", "private"}
    hidden -= words(shared.content) | words(theirs.content)
    assert {"zanzibarit", "qwertyfold", "ledger"} <= hidden
    assert not hidden & seen_by_bob
    with psycopg.connect(url, autocommit=True) as raw:
        ids = {r[0] for r in raw.execute("SELECT memory_id FROM index_docs")}
        assert ids == {shared.id, theirs.id}
        # Nor can he write rows into someone else's part.
        alice = store.conn.execute("SELECT current_user").fetchone()[0]
        with pytest.raises(psycopg.Error, match="row-level security"):
            raw.execute(
                "INSERT INTO postings (feature, memory_id, field, part, tf) VALUES ('x', 'y', 'body', %s, 1)", (alice,)
            )
        for table in INDEX_TABLES:  # each holds shared rows he may change, never into her part
            with pytest.raises(psycopg.Error, match="row-level security"):
                raw.execute(f"UPDATE {table} SET part = %s", (alice,))
    # The administrator's login is not bound by the policies, but recall's reads are.
    assert "marmoset" in features_seen(store.backend.url)
    headers = read_headers(store.conn, ["marmoset", "zanzibarit"])
    assert headers.document_frequency == {"zanzibarit": 1}
    assert read_body_counts(store.conn, ["marmoset", "zanzibarit"]) == {"zanzibarit": 1}
    bob_headers = read_headers(bob.conn, ["marmoset", "zanzibarit", "stage"])
    assert bob_headers.document_frequency == {"marmoset": 1, "stage": 1}
    assert bob_headers.total == 2 and headers.total == 3


def test_recall_leaves_other_members_personal_claims_out_before_ranking(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    # Bob's personal claims match the question best; Alice's own matches less well.
    bobs = [
        make_memory(f"Deploy the widget service with blue green rollout step {i}", origin=PROJECT, kind="preference")
        for i in range(4)
    ]
    seed(bob, *bobs)
    hers = make_memory("The widget service deploy uses a rollout", origin="/home/alice/notes", kind="fact", at=AT)
    seed(store, hers)
    for limit in (1, 3):
        found = recall(store.conn, "how do I deploy the widget service with a blue green rollout?", now=AT, limit=limit)
        assert [c.memory_id for c in found.claims] == [hers.id], limit
    by_bob = recall(bob.conn, "deploy the widget service blue green rollout", now=AT, limit=3)
    assert {c.memory_id for c in by_bob.claims} <= {m.id for m in bobs} and by_bob.claims


def test_changes_move_rows_between_parts_and_counts_stay_exact(store: Store, member: tuple[str, str, Store]) -> None:
    """A shared fact Bob corrects stays in the shared part, a claim forgotten leaves every
    count it held, and what writes leave is what a rebuild from the claims gives."""
    from memory_core.controls.manual import correct, forget
    from memory_core.store.tables.memories import iter_memory_rows, memory_from_row
    from memory_core.store.tables.postings import rebuild_index

    _, url, bob = member
    fact = make_memory("The release train leaves on Thursday", origin=PROJECT, at=AT)
    pref = make_memory("Keep release notes terse", origin=PROJECT, kind="preference", at=AT)
    seed(store, fact, pref)
    with bob.transaction() as conn:
        corrected = correct(conn, fact.id, "The release train leaves on Wednesday", AT + 1)
    assert "wednesdai" in features_seen(url)
    with store.transaction() as conn:
        forget(conn, pref.id, AT + 2)

    def index_state() -> list[list[tuple]]:
        c = store.conn
        return [
            sorted(c.execute("SELECT feature, memory_id, field, part, tf FROM postings").fetchall()),
            sorted(c.execute("SELECT memory_id, part, content_hash FROM index_docs").fetchall()),
            sorted(c.execute("SELECT key, claims, part FROM bodies").fetchall()),
            sorted(c.execute("SELECT feature, field, part, tf FROM body_postings WHERE body = 0").fetchall()),
        ]

    written = index_state()
    assert corrected.event_id is not None
    with store.transaction() as conn:
        rebuild_index(conn, [memory_from_row(row) for row in list(iter_memory_rows(conn))])
    assert index_state() == written
    assert not any(row[1] == pref.id for row in written[0])


def test_row_security_covers_the_index_tables_and_survives_their_migration(
    store: Store, member: tuple[str, str, Store]
) -> None:
    """Version 8 makes the index tables anew: on a store with members their policies are
    back in the same step, and the members' grants come from the default privileges."""
    from memory_core.store.engines.connection import write_transaction
    from memory_core.store.schema import migration_steps

    _, url, bob = member
    seed(store, make_memory("Answer about zanzibarite in Chinese", origin=PROJECT, kind="preference", at=AT))
    seed(store, make_memory("The staging database listens on port 5432", origin=PROJECT, at=AT))

    def secured() -> set[str]:
        rows = store.conn.execute(
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relrowsecurity"
        ).fetchall()
        return {r[0] for r in rows}

    assert set(INDEX_TABLES) <= secured()
    with write_transaction(store.conn) as conn:
        migration_steps.MIGRATIONS[8](conn)
    assert set(INDEX_TABLES) <= secured()
    seen = features_seen(url)
    assert "zanzibarit" not in seen and "stage" in seen
    found = recall(bob.conn, "which port does the staging database listen on?", now=AT)
    assert [c.excerpt for c in found.claims] == ["The staging database listens on port 5432"]


def test_remove_with_erase_deletes_personal_rows_and_keeps_shared_ones(
    store: Store, member: tuple[str, str, Store], cli_run, tmp_path
) -> None:
    from memory_core.capture.intake import capture_source
    from memory_core.controls.manual import pin

    name, url, bob = member
    shared = make_memory("The payments queue retries five times", origin=PROJECT, at=AT)
    personal = make_memory("Explain payments code to me slowly", origin=PROJECT, kind="preference", at=AT)
    seed(bob, shared, personal)
    with bob.transaction() as conn:
        capture_source(conn, source_type="user_statement", origin=PROJECT, text="remember my desk is 4B", now=AT)
        pin(conn, personal.id, AT)  # a personal history event
    alices = make_memory("Answer in French", origin=PROJECT, kind="preference", at=AT)
    seed(store, alices)
    before = store.conn.execute("SELECT COUNT(*) FROM events WHERE owner <> ?", (name,)).fetchone()[0]

    bob.close()
    refused = cli_run("team", "remove", "nobody_at_all", "--erase")
    assert refused.exit_code != 0 and "not a member" in refused.output
    result = cli_run("team", "remove", name, "--erase", "--json")
    assert result.exit_code == 0, result.output
    erased = json.loads(result.output)["erased"]
    assert erased == {"claims": 1, "sources": 1, "events": 1}
    c = store.conn
    assert c.execute("SELECT id FROM memories WHERE owner = ?", (name,)).fetchall() == [(shared.id,)]
    assert c.execute("SELECT COUNT(*) FROM sources WHERE owner = ?", (name,)).fetchone() == (0,)
    assert c.execute("SELECT COUNT(*) FROM index_docs WHERE memory_id = ?", (personal.id,)).fetchone() == (0,)
    assert c.execute("SELECT COUNT(*) FROM postings WHERE part = ?", (name,)).fetchone() == (0,)
    assert c.execute("SELECT COUNT(*) FROM bodies WHERE part = ?", (name,)).fetchone() == (0,)
    assert c.execute("SELECT COUNT(*) FROM events WHERE owner <> ?", (name,)).fetchone()[0] == before
    assert read_headers(c, ["slowli"]).document_frequency == {}
    assert {m.memory_id for m in recall(c, "how many times does the payments queue retry?", now=AT).claims} == {
        shared.id
    }
    assert c.execute("SELECT COUNT(*) FROM memories WHERE id = ?", (alices.id,)).fetchone() == (1,)
    # A member removed earlier can still be erased; then there is nothing left to erase.
    again = cli_run("team", "remove", name, "--erase")
    assert again.exit_code != 0 and "not a member" in again.output


def test_a_members_forget_blocks_their_personal_content_for_them_alone(
    store: Store, member: tuple[str, str, Store]
) -> None:
    """Blocks take their claim's scope: Bob forgetting his preference keeps it out of his
    own learning only; forgetting a shared fact keeps it out of everyone's. No one reads
    another's personal blocks, the administrator's export included."""
    import psycopg

    from memory_core.controls.manual import forget
    from memory_core.controls.transfer import export_lines
    from memory_core.ids import content_hash
    from memory_core.store.tables.suppression import is_blocked

    name, _, bob = member
    text = "Answer in short bullet lists"
    bobs = make_memory(text, origin=PROJECT, kind="preference", at=AT)
    fact = make_memory("The nightly job runs at 02:00 UTC", origin=PROJECT, at=AT)
    seed(bob, bobs, fact)
    with bob.transaction() as conn:
        forget(conn, bobs.id, AT + 1)
        forget(conn, fact.id, AT + 1)
    pref_hash = content_hash(text)
    assert is_blocked(bob.conn, PROJECT, pref_hash)
    assert not is_blocked(store.conn, PROJECT, pref_hash)  # Alice may still learn hers
    assert is_blocked(store.conn, PROJECT, fact.content_hash)  # the team's fact stays forgotten
    exported = "\n".join(export_lines(store.conn))
    assert fact.content_hash in exported and pref_hash not in exported
    with psycopg.connect(store.backend.url, autocommit=True) as raw:  # the table holds both
        assert raw.execute("SELECT COUNT(*) FROM blocked_hashes").fetchone() == (2,)
    # Another member's raw SQL sees the shared block only.
    from cli.commands.team_cmd import member_url
    from memory_core.store.schema.team import add_member, remove_member

    other, password = "carol_" + os.urandom(4).hex(), "p" + os.urandom(12).hex()
    with store.transaction() as conn:
        add_member(conn, other, password)
    try:
        carol_url = member_url(store.backend.url, other, password)
        with psycopg.connect(carol_url, autocommit=True) as raw:
            assert raw.execute("SELECT content_hash FROM blocked_hashes").fetchall() == [(fact.content_hash,)]
            with pytest.raises(psycopg.Error, match="row-level security"):
                raw.execute(
                    "INSERT INTO blocked_hashes (origin, content_hash, owner, created_at, reason, scope) "
                    "VALUES ('x', 'y', %s, 0, 'forgotten', 'personal')",
                    (name,),
                )
    finally:
        with store.transaction() as conn:
            remove_member(conn, other)


def test_explain_answers_another_members_personal_claim_as_not_found(
    store: Store, member: tuple[str, str, Store]
) -> None:
    from memory_core.recall.service import explain_claim

    _, _, bob = member
    theirs = make_memory("Bob wants the widget answers in haiku", origin=PROJECT, kind="preference", at=AT)
    seed(bob, theirs)
    verdict = explain_claim(store.conn, "widget answers in haiku", theirs.id, now=AT)
    assert verdict["reason"] == "not_found" and "status" not in verdict
    assert explain_claim(bob.conn, "widget answers in haiku", theirs.id, now=AT)["reason"] != "not_found"
