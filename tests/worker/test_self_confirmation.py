"""A model pass never confirms claims extracted from its own source."""

from __future__ import annotations

import json
from pathlib import Path

from memory_core.store.engines.database import Store
from memory_core.store.engines.dialect import json_text
from memory_core.store.tables.memories import get_memory
from tests.factories import make_memory, seed
from tests.support.fake_model import FakeModelServer, Reply
from tests.worker.conftest import ORIGIN, capture, settings
from workers.consolidate import consolidate_source

SUMMARY = (
    "We checked the deployment settings today.\nFact: The staging database listens on port 5433\nNothing else changed."
)
LOCAL = "The staging database listens on port 5433"


def local_claim(home: Path) -> dict:
    with Store.open(home) as store:
        [(body,)] = store.conn.execute(
            f"SELECT body FROM memories WHERE {json_text(store.conn, 'body', 'content')} = ?", (LOCAL,)
        ).fetchall()
    return json.loads(body)


def test_summary_fact_is_not_confirmed_by_its_own_empty_model_pass(home: Path, model: FakeModelServer) -> None:
    # Someone else's older claim the summary also mentions: that one may be confirmed.
    other = make_memory("The deployment settings live in deploy.toml today", origin=ORIGIN, source_id="d" * 24)
    with Store.open(home) as store:
        seed(store, other)
    sid = capture(home, SUMMARY, source_type="summary")
    assert local_claim(home)["source_id"] == sid and local_claim(home)["confirmed_at"] is None
    model.enqueue(Reply(content='{"claims": []}'))
    assert consolidate_source(settings(), sid).status == "done"
    assert local_claim(home)["confirmed_at"] is None
    with Store.open(home) as store:
        confirmed = get_memory(store.conn, other.id)
    assert confirmed is not None and confirmed.confirmed_at is not None


def test_restating_its_own_fact_verbatim_confirms_nothing(home: Path, model: FakeModelServer) -> None:
    sid = capture(home, SUMMARY, source_type="summary")
    model.enqueue(Reply.of_claims([{"kind": "fact", "content": LOCAL, "searchTerms": ["staging db"]}]))
    assert consolidate_source(settings(), sid).status == "done"
    claim = local_claim(home)
    assert claim["confirmed_at"] is None
    assert claim["search_terms"] == ["staging db"]  # aliases may still grow


def test_a_later_source_does_confirm_it(home: Path, model: FakeModelServer) -> None:
    first = capture(home, SUMMARY, source_type="summary")
    model.enqueue(Reply(content='{"claims": []}'), Reply(content='{"claims": []}'))
    consolidate_source(settings(), first)
    later = capture(home, "Checked again: the staging database listens on port 5433.", source_type="summary")
    assert consolidate_source(settings(), later).status == "done"
    assert local_claim(home)["confirmed_at"] is not None
