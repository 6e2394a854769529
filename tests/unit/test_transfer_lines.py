"""Export/import as JSON lines: byte-for-byte round trips, idempotence, all-or-nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.controls import manual
from memory_core.controls.transfer import export_lines, import_file
from memory_core.controls.undo import undo
from memory_core.errors import ImportFormatError
from memory_core.ids import memory_id
from memory_core.records import Feedback, VerdictSlot
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory, put_memory
from memory_core.store.tables.suppression import block, is_blocked
from tests.factories import make_memory
from tests.support.pg_cluster import open_other_store

T0 = 1_700_000_000.0
NOW = T0 + 3_600


def memory_lines(store: Store) -> list[str]:
    return [line for line in export_lines(store.conn) if line.startswith('{"type":"memory"')]


def count(store: Store, table: str) -> int:
    return store.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def populated(store: Store) -> None:
    with store.transaction() as conn:
        put_memory(
            conn,
            make_memory(
                "The API listens on port 8080",
                search_terms=["api port"],
                feedback=Feedback(utility=VerdictSlot(verdict="useful", source_id="u" * 24, at=T0)),
            ),
        )
        put_memory(conn, make_memory("中文记忆：使用 SQLite", kind="decision", at=T0 + 1))
        put_memory(conn, make_memory("Forget me", kind="preference", at=T0 + 2))
        manual.forget(conn, memory_id("/work/app", "preference", "Forget me"), NOW)
        manual.correct(
            conn,
            memory_id("/work/app", "fact", "The API listens on port 8080"),
            "The API listens on port 9090",
            NOW + 1,
        )


def test_export_shape_and_stable_order(store: Store) -> None:
    populated(store)
    lines = list(export_lines(store.conn))
    kinds = [json.loads(line)["type"] for line in lines]
    assert kinds == ["memory"] * 4 + ["blocked"] * 2 + ["event"] * 2
    for line in lines:
        data = json.loads(line)
        assert list(data) == ["type", "record"]
        assert list(data["record"]) == sorted(data["record"])
    assert lines == list(export_lines(store.conn))
    assert not store.conn.in_transaction


def test_export_import_export_round_trips_byte_for_byte(store: Store, home: Path) -> None:
    populated(store)
    exported = list(export_lines(store.conn))
    with open_other_store(home, "other") as fresh:
        with fresh.transaction() as conn:
            report = import_file(conn, exported, NOW + 10)
        assert (report.added, report.events_skipped, report.blocks_added) == (4, 2, 2)
        assert memory_lines(fresh) == memory_lines(store)
        # Suppression travels with the records.
        assert is_blocked(fresh.conn, "/work/app", make_memory("Forget me").content_hash)
        # Importing again adds nothing, not even an event.
        events = count(fresh, "events")
        with fresh.transaction() as conn:
            again = import_file(conn, exported, NOW + 20)
        assert (again.added, again.already_present, again.event_id) == (0, 4, None)
        assert count(fresh, "events") == events


def test_claims_import_round_trips_through_export(store: Store, home: Path) -> None:
    claims = [
        json.dumps(
            {
                "kind": "fact",
                "content": "The cache lives in Redis",
                "origin": "/work/app",
                "source_id": "legacy-1",
                "created_at": T0,
                "search_terms": ["cache"],
            }
        ),
        "",
        json.dumps({"kind": "preference", "content": "Prefer tabs over spaces"}),
    ]
    with store.transaction() as conn:
        report = import_file(conn, claims, NOW)
    assert report.added == 2 and report.event_id is not None
    redis = get_memory(store.conn, memory_id("/work/app", "fact", "The cache lives in Redis"))
    assert redis is not None and redis.evidence is None and redis.search_terms == ["cache"]
    tabs = get_memory(store.conn, memory_id("legacy", "preference", "Prefer tabs over spaces"))
    assert tabs is not None and tabs.created_at == NOW
    first = memory_lines(store)
    with open_other_store(home, "other") as fresh:
        with fresh.transaction() as conn:
            import_file(conn, first, NOW + 5)
        assert memory_lines(fresh) == first


def test_blocked_claims_are_skipped_and_counted(store: Store) -> None:
    content = "The API listens on port 8080"
    with store.transaction() as conn:
        block(conn, "/work/app", make_memory(content).content_hash, T0, "forgotten")
        report = import_file(
            conn,
            [
                json.dumps({"kind": "fact", "content": content, "origin": "/work/app"}),
                json.dumps({"kind": "fact", "content": content, "origin": "/work/other"}),
            ],
            NOW,
        )
    assert (report.added, report.blocked_skipped) == (1, 1)


@pytest.mark.parametrize(
    "bad,why",
    [
        ("{not json", "not valid JSON"),
        ('["a list"]', "JSON object"),
        ('{"kind": "opinion", "content": "x y z"}', "kind must be"),
        ('{"kind": "fact", "content": "  "}', "content"),
        ('{"kind": "fact", "content": "ok text", "evidence": {}}', "unknown field 'evidence'"),
        ('{"kind": "fact", "content": "ok text", "created_at": "yesterday"}', "created_at"),
        ('{"kind": "fact", "content": "ok text", "search_terms": ["x"]}', "search_terms"),
        ('{"type": "memory", "record": {"id": "nope"}}', "id"),
        ('{"type": "gossip", "record": {}}', "unknown type"),
    ],
)
def test_a_bad_line_writes_nothing_and_is_named(store: Store, bad: str, why: str) -> None:
    good = json.dumps({"kind": "fact", "content": "The cache lives in Redis"})
    with pytest.raises(ImportFormatError, match=f"line 3: .*{why}"), store.transaction() as conn:
        import_file(conn, [good, good, bad, good], NOW)
    assert (count(store, "memories"), count(store, "events"), count(store, "blocked_hashes")) == (0, 0, 0)


def test_import_can_be_undone(store: Store) -> None:
    with store.transaction() as conn:
        report = import_file(conn, [json.dumps({"kind": "fact", "content": "The cache lives in Redis"})], NOW)
        undo(conn, report.event_id, NOW + 1)  # type: ignore[arg-type]
    memory = get_memory(store.conn, report.added_ids[0])
    assert memory is not None and memory.status == "forgotten"


@pytest.mark.parametrize("when", ["NaN", "Infinity", "1e300", "-1e12", "1.7e15"])
def test_import_refuses_times_no_listing_could_show(store: Store, when: str) -> None:
    with store.transaction() as conn:
        put_memory(conn, make_memory("Already here"))
    lines = [
        '{"kind": "fact", "content": "fine line"}',
        '{"kind": "fact", "content": "The port is 8080", "created_at": ' + when + "}",
    ]
    with pytest.raises(ImportFormatError, match="line 2: created_at"):
        with store.transaction() as conn:
            import_file(conn, lines, NOW)
    assert count(store, "memories") == 1
    exported = {"type": "memory", "record": json.loads(memory_lines(store)[0])["record"]}
    exported["record"]["confirmed_at"] = 1e300
    with pytest.raises(ImportFormatError, match="line 1: confirmed_at"):
        with store.transaction() as conn:
            import_file(conn, [json.dumps(exported)], NOW)
