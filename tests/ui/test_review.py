"""The review inbox and `memevo review`: the diff since the last review, approvals, and the
optional gate that keeps unreviewed model claims out of recall."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.controls.review import approve, approve_all, review_report
from memory_core.errors import NotFoundError
from memory_core.recall.service import recall
from memory_core.reports.review_gate import gate_enabled, hold_unreviewed
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from tests.factories import make_memory, seed
from tests.ui.learned import learn, model_claim

SOURCE_A, SOURCE_B = "a" * 24, "b" * 24


def _seeded(store: Store, now: float) -> tuple[str, str, str]:
    old = make_memory("The staging deploy uses node 18 on the runners", at=now - 3600)
    seed(store, old)
    new = model_claim("The staging deploy uses node 20 on the runners", source=SOURCE_A, at=now - 60)
    learn(store, new, replaced=old, source=SOURCE_A, at=now - 60)
    fresh = model_claim("Release builds are signed with the team GPG key", source=SOURCE_B, at=now - 30)
    learn(store, fresh, source=SOURCE_B, at=now - 30)
    return old.id, new.id, fresh.id


def test_review_lists_new_and_replaced_as_a_diff(store: Store) -> None:
    now = clock.now()
    old_id, new_id, fresh_id = _seeded(store, now)
    report = review_report(store.conn)
    changes = {item["claim"]["id"]: item for item in report["items"]}
    assert set(changes) == {new_id, fresh_id}
    assert changes[new_id]["change"] == "replaced" and changes[new_id]["old"]["id"] == old_id
    assert changes[fresh_id]["change"] == "new" and changes[fresh_id]["old"] is None
    assert report["items"][0]["claim"]["id"] == fresh_id  # newest first


def test_approving_one_item_keeps_the_other_pending(store: Store) -> None:
    now = clock.now()
    _, new_id, fresh_id = _seeded(store, now)
    with store.transaction() as conn:
        keys = approve(conn, [new_id], now)
    assert len(keys) == 1
    assert [i["claim"]["id"] for i in review_report(store.conn)["items"]] == [fresh_id]
    with pytest.raises(NotFoundError):
        with store.transaction() as conn:
            approve(conn, [new_id], now)  # already approved: nothing pending for it


def test_approve_all_covers_only_what_was_shown(store: Store) -> None:
    now = clock.now()
    _seeded(store, now)
    shown = review_report(store.conn)["through"]
    late = model_claim("The cache lives in /var/cache/app", source="c" * 24, at=now)
    learn(store, late, source="c" * 24, at=now)
    with store.transaction() as conn:
        approve_all(conn, shown, now)
    assert [i["claim"]["id"] for i in review_report(store.conn)["items"]] == [late.id]


def test_review_command_text_json_and_approve_all(cli_run, store: Store) -> None:
    now = clock.now()
    _, new_id, fresh_id = _seeded(store, now)
    text = cli_run("review")
    assert text.exit_code == 0 and "replaced" in text.output and "node 18" in text.output
    data = json.loads(cli_run("review", "--json").output)
    assert {i["claim"]["id"] for i in data["items"]} == {new_id, fresh_id}
    done = cli_run("review", "--approve", fresh_id, "--json")
    assert json.loads(done.output)["approved"] == [f"{data['items'][0]['event_id']}:{fresh_id}"]
    assert cli_run("review", "--approve-all").exit_code == 0
    assert json.loads(cli_run("review", "--json").output)["items"] == []
    assert cli_run("review", "--approve", "nope").exit_code != 0


def test_gate_reads_the_setting_like_the_settings(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.config import load_settings

    assert gate_enabled(home) is False and load_settings().review_before_recall is False
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("review_before_recall = true\n")
    assert gate_enabled(home) is True and load_settings().review_before_recall is True
    monkeypatch.setenv("MEMEVO_REVIEW_BEFORE_RECALL", "false")
    assert gate_enabled(home) is False and load_settings().review_before_recall is False


def test_gate_holds_unreviewed_model_claims_until_approved(store: Store) -> None:
    now = clock.now()
    _, new_id, _ = _seeded(store, now)
    question = "staging deploy node"
    result = recall(store.conn, question, now=now)
    assert new_id in [c.memory_id for c in result.claims]
    held = hold_unreviewed(store.conn, result)
    assert new_id not in [c.memory_id for c in held.claims]
    assert "node 20" not in held.digest
    assert held.diagnostics["held_for_review"] == [new_id]
    with store.transaction() as conn:
        approve(conn, [new_id], now)
    result = recall(store.conn, question, now=now)
    assert hold_unreviewed(store.conn, result) is result
    assert get_memory(store.conn, new_id) is not None  # approving changed no claim


@pytest.mark.sqlite_only  # a hook on PostgreSQL runs this same dispatch inside `memevo serve`
def test_the_per_turn_hook_holds_unreviewed_claims_when_the_setting_is_on(store: Store, home: Path) -> None:
    from tests.support.processes import memevo_process

    now = clock.now()
    _, new_id, _ = _seeded(store, now)
    payload = {
        "schema": "memevo.hook/v1",
        "event": "user_prompt",
        "cwd": "/work/app",
        "prompt": "staging deploy node",
    }
    shown = memevo_process("hook", "user_prompt", input=json.dumps(payload))
    assert "node 20" in shown.stdout
    held = memevo_process("hook", "user_prompt", input=json.dumps(payload), env={"MEMEVO_REVIEW_BEFORE_RECALL": "1"})
    assert held.returncode == 0 and "node 20" not in held.stdout
    with store.transaction() as conn:
        approve_all(conn, None, now)
    again = memevo_process("hook", "user_prompt", input=json.dumps(payload), env={"MEMEVO_REVIEW_BEFORE_RECALL": "1"})
    assert "node 20" in again.stdout


def test_memevo_recall_holds_unreviewed_claims_when_the_setting_is_on(
    store: Store, cli_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = clock.now()
    _, new_id, _ = _seeded(store, now)
    question = "staging deploy node"
    assert new_id in [c["id"] for c in json.loads(cli_run("recall", question, "--json").output)["claims"]]
    monkeypatch.setenv("MEMEVO_REVIEW_BEFORE_RECALL", "on")
    assert new_id not in [c["id"] for c in json.loads(cli_run("recall", question, "--json").output)["claims"]]
    cli_run("review", "--approve", new_id)
    assert new_id in [c["id"] for c in json.loads(cli_run("recall", question, "--json").output)["claims"]]


def test_a_quarantined_variant_is_an_item_and_a_confirmation_is_not(store: Store) -> None:
    from memory_core.controls.review import event_items
    from memory_core.records import Event

    now = clock.now()
    kept = model_claim("The API listens on port 8080", source=SOURCE_A, at=now - 60)
    variant = model_claim("The API listens on port 9090", source=SOURCE_B, at=now - 30)
    learn(store, kept, source=SOURCE_A, at=now - 60)
    learn(store, variant.model_copy(update={"status": "conflicted"}), source=SOURCE_B, at=now - 30)
    changes = {i["claim"]["id"]: i["change"] for i in review_report(store.conn)["items"]}
    assert changes == {kept.id: "new", variant.id: "quarantined"}
    confirmed = kept.model_copy(update={"confirmed_at": now})
    event = Event(id=9, at=now, actor="model", operation="consolidate", before=[kept], after=[confirmed])
    assert event_items(event) == []
    doubted = Event(
        id=10,
        at=now,
        actor="model",
        operation="consolidate",
        before=[kept],
        after=[kept.model_copy(update={"status": "conflicted"})],
    )
    assert [i["change"] for i in event_items(doubted)] == ["quarantined"]


def test_the_mcp_recall_tool_holds_unreviewed_claims_when_the_setting_is_on(
    store: Store, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.mcp.tools import recall_tool

    now = clock.now()
    _, new_id, _ = _seeded(store, now)
    question = {"query": "staging deploy node"}
    assert new_id in recall_tool(question, home, now).claim_ids
    monkeypatch.setenv("MEMEVO_REVIEW_BEFORE_RECALL", "1")
    held = recall_tool(question, home, now)
    assert new_id not in held.claim_ids and "node 20" not in held.text
    with store.transaction() as conn:
        approve_all(conn, None, now)
    assert new_id in recall_tool(question, home, now).claim_ids
