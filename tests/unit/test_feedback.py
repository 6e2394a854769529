"""Explicit feedback: slots, quarantine, receipts, replay and ordering."""

from __future__ import annotations

import json

import pytest

from memory_core.controls.feedback import give_feedback
from memory_core.controls.undo import undo
from memory_core.errors import ConflictError, UsageError
from memory_core.evidence import source_priority
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import require_memory
from tests.factories import make_memory, seed

T0 = 1_700_000_000.0
NOW = T0 + 3_600


def fb(store: Store, mid: str, verdict: str, *, source: str | None = None, at: float | None = None):
    with store.transaction() as conn:
        return give_feedback(conn, mid, verdict, NOW, source_id=source, at=at)


def test_two_independent_slots(store: Store) -> None:
    m = make_memory(at=T0)
    seed(store, m)
    assert fb(store, m.id, "useful").outcome == "applied"
    assert fb(store, m.id, "accurate").outcome == "applied"
    after = require_memory(store.conn, m.id)
    assert after.feedback.utility is not None and after.feedback.utility.verdict == "useful"
    assert after.feedback.accuracy is not None and after.feedback.accuracy.verdict == "accurate"
    assert after.updated_at == m.updated_at and after.evidence == m.evidence  # no evidence refresh
    assert source_priority(after) == 4


def test_incorrect_quarantines_twins_in_origin_only(store: Store) -> None:
    m = make_memory("Port 8080 serves the admin UI", at=T0)
    twin = make_memory("Port 8080 serves the admin UI", kind="decision", at=T0)
    elsewhere = make_memory("Port 8080 serves the admin UI", origin="/other", at=T0)
    seed(store, m, twin, elsewhere)
    result = fb(store, m.id, "incorrect")
    assert {x.id for x in result.after} == {m.id, twin.id}
    assert require_memory(store.conn, m.id).status == "conflicted"
    assert require_memory(store.conn, twin.id).status == "conflicted"
    assert require_memory(store.conn, elsewhere.id).status == "active"
    with store.transaction() as conn:
        undo(conn, result.event_id, NOW + 1)
    assert require_memory(store.conn, m.id).status == "active"


def test_replayed_source_never_applies_twice_even_after_undo(store: Store) -> None:
    m = make_memory(at=T0)
    seed(store, m)
    first = fb(store, m.id, "unhelpful", source="chat-msg-1")
    with store.transaction() as conn:
        undo(conn, first.event_id, NOW + 1)
    assert fb(store, m.id, "unhelpful", source="chat-msg-1").outcome == "replayed"
    assert require_memory(store.conn, m.id).feedback.utility is None


def test_repeat_and_outdated_verdicts_change_nothing(store: Store) -> None:
    m = make_memory(at=T0)
    seed(store, m)
    fb(store, m.id, "useful", at=NOW)
    assert fb(store, m.id, "useful", at=NOW + 5).outcome == "repeated"
    assert fb(store, m.id, "unhelpful", at=NOW + 2).outcome == "outdated"  # older than the repeat's receipt
    assert fb(store, m.id, "accurate", at=T0 - 10).outcome == "outdated"  # older than the evidence
    after = require_memory(store.conn, m.id)
    assert after.feedback.utility is not None and after.feedback.utility.at == NOW
    assert after.feedback.accuracy is None


def test_positive_feedback_cannot_revive(store: Store) -> None:
    m = make_memory(at=T0, status="conflicted")
    seed(store, m)
    with pytest.raises(ConflictError, match="resolve"):
        fb(store, m.id, "accurate")
    with pytest.raises(UsageError):
        fb(store, m.id, "wrong")


def test_feedback_command(cli_run, home) -> None:
    m = make_memory(at=T0)
    with Store.open(home) as store:
        seed(store, m)
    data = json.loads(cli_run("feedback", m.id, "incorrect", "--json").output)
    assert data["outcome"] == "applied" and data["memories"][0]["status"] == "conflicted"
    bad = cli_run("feedback", m.id, "maybe")
    assert bad.exit_code == 2
    missing = cli_run("feedback", "0" * 24, "useful")
    assert missing.exit_code == 1 and len(missing.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("memory 0123456789abcdef01234567 is incorrect.", ("0123456789abcdef01234567", "incorrect")),
        ("Memory 0123456789abcdef01234567 is USEFUL", ("0123456789abcdef01234567", "useful")),
        ("记忆 0123456789abcdef01234567 有用。", ("0123456789abcdef01234567", "useful")),
        ("记忆0123456789abcdef01234567错误", ("0123456789abcdef01234567", "incorrect")),
        ("is memory 0123456789abcdef01234567 incorrect?", None),
        ("memory 0123456789abcdef01234567 is incorrect? ", None),
        ('e.g. "memory 0123456789abcdef01234567 is incorrect."', None),
        ("memory 0123456789abcdef01234567 is wrong.", None),
        ("memory 0123456789ABCDEF01234567 is useful.", None),
        ("memory 0123456789abcdef01234567 is useful. Also fix the build.", None),
    ],
)
def test_feedback_message_syntax_is_narrow(text: str, expected) -> None:
    from memory_core.capture.feedback_syntax import parse_feedback_message

    assert parse_feedback_message(text) == expected
