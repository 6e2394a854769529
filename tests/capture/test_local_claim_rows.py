"""A compaction summary's labelled lines are written as plain data (no record models on the
hook path) exactly as the record models write them: the same claim rows, event, index rows
and skips, on both backends; and every row reads back as a valid record."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory_core.capture.local_claims import add_local_claims
from memory_core.ids import content_hash, memory_id, normalize_content
from memory_core.records import KINDS, Evidence, new_memory
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.tables.changes import ChangeSet
from memory_core.store.tables.claim_ids import claim_id, id_owner
from memory_core.store.tables.claim_rows import body_json, new_claim_body
from memory_core.store.tables.events import latest_events
from memory_core.store.tables.memories import get_memory, iter_memory_rows, memory_from_row
from memory_core.store.tables.suppression import block, is_blocked
from tests.factories import make_memory, seed

NOW = 1_760_000_000.25
ORIGIN = "/work/app"
SOURCE = "s" * 24
LINES = [
    ("decision", "the billing service deploys blue-green behind port 9010"),
    ("preference", "回答使用中文，代码注释用英文"),
    ("fact", 'the "staging" runner needs node 20 \\ and pnpm'),
    ("decision", "the billing service deploys blue-green behind port 9010"),  # a repeat
    ("fact", "the staging database listens on port 5433"),  # stored already
    ("project_state", "the release checklist is forgotten content"),  # blocked
]


class Rollback(Exception):
    pass


def record_path(conn: DbConn, sid: str, origin: str, lines: list[tuple[str, str]], now: float) -> int:
    """How capture wrote the lines before: records, a ChangeSet, one event."""
    evidence = Evidence(basis="summary", method="local", source_id=sid, at=now)
    changes = ChangeSet(conn, "capture")
    owner = id_owner(conn)
    for kind, content in lines:
        cid = claim_id(owner, origin, kind, normalize_content(content))
        claim = new_memory(
            origin=origin, kind=kind, content=content, source_id=sid, evidence=evidence, now=now, claim_id=cid
        )
        if claim.id in changes.after or is_blocked(conn, claim.origin, claim.content_hash):
            continue
        if get_memory(conn, claim.id) is None:
            changes.write(None, claim)
    changes.commit(
        at=now,
        actor="local",
        operation="capture_local",
        source_id=sid,
        manual=False,
        reason="labelled lines of a compaction summary",
    )
    return len(changes.after)


def tables(conn: DbConn) -> dict[str, list[tuple[Any, ...]]]:
    """Every row the writes touch, with generated ids replaced by what they name."""
    body_key = "(SELECT key FROM bodies b WHERE b.id = {}.body)"
    queries = {
        "memories": "SELECT id, origin, kind, status, content_hash, updated_at, body, scope, owner FROM memories",
        "events": "SELECT at, actor, operation, reason, source_id, body, scope FROM events",
        "postings": "SELECT feature, memory_id, field, tf, recency, part FROM postings",
        "index_docs": "SELECT memory_id, origin, kind, content_hash, updated_at, clock_at, pinned, priority, basis, "
        f"method, utility, accuracy, feature_count, grade, part, {body_key.format('index_docs')} FROM index_docs",
        "bodies": "SELECT key, claims, feature_count, part FROM bodies",
        "body_postings": f"SELECT feature, {body_key.format('body_postings')}, field, tf, part FROM body_postings",
    }
    return {name: sorted(conn.execute(sql).fetchall(), key=repr) for name, sql in queries.items()}


def written_by(store: Store, write: Any) -> tuple[int, dict[str, list[tuple[Any, ...]]]]:
    """What ``write`` adds to the store, rolled back afterwards."""
    seen: dict[str, Any] = {}
    with pytest.raises(Rollback), store.transaction() as conn:
        seen["count"] = write(conn, SOURCE, ORIGIN, LINES, NOW)
        seen["tables"] = tables(conn)
        raise Rollback
    return seen["count"], seen["tables"]


def test_the_plain_write_is_the_record_write(store: Store) -> None:
    seed(store, make_memory("the staging database listens on port 5433", origin=ORIGIN, kind="fact"))
    with store.transaction() as conn:
        block(conn, ORIGIN, content_hash("the release checklist is forgotten content"), NOW - 10, "forget")
    before = tables(store.conn)
    plain = written_by(store, add_local_claims)
    records = written_by(store, record_path)
    assert plain[0] == records[0] == 3
    assert plain[1] == records[1]
    assert plain[1] != before
    assert tables(store.conn) == before  # both rolled back


def test_the_plain_write_reads_back_as_records(store: Store) -> None:
    with store.transaction() as conn:
        assert add_local_claims(conn, SOURCE, ORIGIN, LINES, NOW) == 5  # nothing stored or blocked
    claims = [memory_from_row(row) for row in iter_memory_rows(store.conn)]
    assert sorted(c.content for c in claims)[0] == 'the "staging" runner needs node 20 \\ and pnpm'
    assert all(
        c.evidence and (c.evidence.basis, c.evidence.method, c.evidence.at) == ("summary", "local", NOW) for c in claims
    )
    event = latest_events(store.conn, limit=1)[0]
    assert (event.operation, event.actor, len(event.after), event.before) == ("capture_local", "local", 5, [])
    with store.transaction() as conn:  # written once: a second capture of the lines adds nothing
        assert add_local_claims(conn, SOURCE, ORIGIN, LINES, NOW + 1) == 0


def test_a_plain_write_outside_a_transaction_is_refused(store: Store) -> None:
    with pytest.raises(RuntimeError, match="store.transaction"):
        add_local_claims(store.conn, SOURCE, ORIGIN, LINES, NOW)


@settings(max_examples=200, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    content=st.text(min_size=4, max_size=480).map(normalize_content).filter(lambda t: len(t) >= 4),
    origin=st.text(min_size=1, max_size=60),
    now=st.one_of(st.integers(0, 4_000_000_000), st.floats(0, 4_000_000_000, allow_nan=False)),
)
def test_a_plain_body_is_the_records_json(kind: str, content: str, origin: str, now: float) -> None:
    sid = "f" * 24
    record = new_memory(
        origin=origin,
        kind=kind,
        content=content,
        source_id=sid,
        evidence=Evidence(basis="summary", method="local", source_id=sid, at=now),
        now=now,
    )
    body = new_claim_body(
        memory_id=memory_id(origin, kind, content),
        origin=origin,
        kind=kind,
        content=content,
        content_hash=content_hash(content),
        source_id=sid,
        evidence={"basis": "summary", "method": "local", "source_id": sid, "at": now},
        now=now,
    )
    assert body == record.model_dump(mode="json")
    assert json.loads(body_json(body)) == json.loads(record.model_dump_json())
    # Byte for byte too, for any time a clock gives: below 1e-4 the two write a number's
    # exponent differently (1e-05 and 1e-5), the same value.
    if now == 0 or now >= 1e-4:
        assert body_json(body) == record.model_dump_json()
