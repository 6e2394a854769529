"""Claim ids: the store's owner (everyone on SQLite and on a one-person PostgreSQL store)
writes the ids claims always had; a member's personal claims name the member."""

from __future__ import annotations

import json

import pytest

from memory_core.capture.intake import capture_source
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import ModelBatch
from memory_core.controls.manual import correct
from memory_core.controls.transfer import import_file
from memory_core.ids import memory_id, owned_memory_id
from memory_core.jobs.lifecycle import lease_job
from memory_core.store.engines.database import Store
from memory_core.store.tables.claim_ids import claim_id, claim_id_on, id_owner
from tests.factories import make_memory, seed

SHOP = "github.com/acme/shop"
NOW = 1_700_000_000.0
CLAIMS = [
    ("preference", SHOP, "Answer in Chinese"),
    ("fact", SHOP, "The shop listens on port 8080"),
    ("fact", SHOP, "I am on call this week"),
    ("decision", "/home/alice/notes", "The notes use Markdown"),
    ("project_state", "legacy", "Release 2.1   not tagged yet"),
]


@pytest.mark.parametrize(("kind", "origin", "content"), CLAIMS)
def test_the_store_owner_gets_the_plain_ids(store: Store, kind: str, origin: str, content: str) -> None:
    assert id_owner(store.conn) is None
    assert claim_id_on(store.conn, origin, kind, content) == memory_id(origin, kind, content)


def test_every_writer_of_the_store_owner_writes_the_plain_ids(store: Store) -> None:
    def plain(kind: str, content: str) -> str:
        return memory_id(SHOP, kind, content)

    with store.transaction() as conn:
        capture_source(
            conn,
            source_type="summary",
            origin=SHOP,
            text="Done today.\nPreference: Reply in short sentences\nFact: The shop uses Redis",
            now=NOW,
        )
    stored = {r[0] for r in store.conn.execute("SELECT id FROM memories")}
    assert stored == {plain("preference", "Reply in short sentences"), plain("fact", "The shop uses Redis")}
    with store.transaction() as conn:
        sid = capture_source(conn, source_type="user_statement", origin=SHOP, text="remember: tabs", now=NOW).source_id
        job = lease_job(conn, owner="w", now=NOW, lease_seconds=60, source_id=sid)
    assert job is not None
    batch = ModelBatch.model_validate({"claims": [{"kind": "preference", "content": "Indent with tabs"}]})
    with store.transaction() as conn:
        assert apply_batch(conn, job, batch, [], "m", NOW + 1).added == [plain("preference", "Indent with tabs")]
    old = make_memory("My editor is vim", origin=SHOP, at=NOW)
    seed(store, old)
    with store.transaction() as conn:
        result = correct(conn, old.id, "My editor is helix", NOW + 2)
    assert result.after[-1].id == plain("fact", "My editor is helix")
    line = json.dumps({"kind": "preference", "content": "Answer in Chinese", "origin": SHOP})
    with store.transaction() as conn:
        assert import_file(conn, [line], NOW + 3).added_ids == [plain("preference", "Answer in Chinese")]


def test_a_members_personal_claims_name_them_and_shared_ones_do_not() -> None:
    pref = ("preference", SHOP, "Answer   in Chinese")
    bob = claim_id("bob", SHOP, "preference", pref[2])
    assert bob == owned_memory_id(SHOP, "preference", "Answer in Chinese", "bob")
    assert bob != claim_id("carol", SHOP, "preference", pref[2]) != memory_id(SHOP, "preference", pref[2])
    assert claim_id(None, SHOP, "preference", pref[2]) == memory_id(SHOP, "preference", pref[2])
    assert claim_id("bob", SHOP, "fact", "The shop listens on port 8080") == memory_id(
        SHOP, "fact", "The shop listens on port 8080"
    )
    assert claim_id("bob", SHOP, "fact", "I am on call") != memory_id(SHOP, "fact", "I am on call")
    # Pinned: stored ids must not move when the code around them does.
    assert bob == "bf41d535015f71089329c14e"
