"""The turn_end hook: statement and progress sources, idempotency per message, serialized order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent, Operation
from memory_core.capture.learning_log import read_entries
from memory_core.config import load_settings
from memory_core.jobs.lifecycle import complete_job, lease_job
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import is_postgres
from tests.factories import make_memory, seed
from tests.integration.test_hot_paths import loaded_heavy_modules
from tests.progress.helpers import bash
from tests.support.fake_model import FakeModelServer, Reply
from workers.consolidate import AttemptStatus, consolidate_source

CWD = "/tmp"
NOW = 1_750_000_000.0
PARSER_STATE = "Widget parser fix: not committed yet"
REQUEST = "Commit the widget parser fix and push it"
WORK = (
    bash('git commit -am "Fix parser"', "[main 1a2b3c4] Fix parser"),
    bash("git push", "fatal: could not read from remote repository", "error"),
)


def turn(
    messages: list[str], operations: tuple[Operation, ...] = WORK, *, session: str = "s1", error: bool = False
) -> HookEvent:
    return HookEvent(
        "turn_end",
        agent="test-agent",
        session_id=session,
        cwd=CWD,
        user_messages=tuple(messages),
        operations=operations,
        final_message="Committed; push failed.",
        ended_in_error=error,
    )


def rows(home: Path) -> list[dict]:
    store = Store.open(home)
    conn = store.conn
    # Insertion order: SQLite's rowid; PostgreSQL has none, so one turn's sources (one
    # capture time) are ordered as capture writes them, the statement first.
    order = "created_at, CASE source_type WHEN 'user_statement' THEN 0 ELSE 1 END, id" if is_postgres(conn) else "rowid"
    try:
        return [
            {
                "id": r[0],
                "type": r[1],
                "text": json.loads(r[2])["text"],
                "targets": json.loads(r[2])["target_ids"],
                "created_at": r[3],
            }
            for r in conn.execute(f"SELECT id, source_type, body, created_at FROM sources ORDER BY {order}")
        ]
    finally:
        store.close()


@pytest.fixture
def parser_state(store: Store):
    claim = make_memory(PARSER_STATE, origin=CWD, kind="project_state")
    seed(store, claim)
    return claim


def test_work_turn_becomes_one_progress_source_for_the_nominated_state(home: Path, parser_state) -> None:
    handle_event(turn([REQUEST]), home, NOW)
    [source] = rows(home)
    assert source["type"] == "progress" and source["targets"] == [parser_state.id]
    assert "git push" in source["text"] and "could not read from remote" in source["text"]
    [entry] = read_entries(home, 5)
    progress = entry["decisions"][1]
    assert progress["reason"] == "captured" and progress["source_id"] == source["id"]
    assert progress["targets"] == [parser_state.id] and progress["observations"] == 2


def test_no_target_means_no_source_and_no_model_call(home: Path, model: FakeModelServer) -> None:
    seed_home = Store.open(home)
    seed(seed_home, make_memory("Billing export: not committed yet", origin=CWD, kind="project_state"))
    seed_home.close()
    handle_event(turn([REQUEST]), home, NOW)
    assert rows(home) == []
    assert [d["reason"] for d in read_entries(home, 1)[0]["decisions"]] == ["no_statement", "no_target"]
    outcome = consolidate_source(load_settings(), None)
    assert outcome.status == AttemptStatus.NOT_ELIGIBLE and model.request_count == 0


def test_resent_history_captures_nothing_new(home: Path, parser_state) -> None:
    handle_event(turn([REQUEST]), home, NOW)
    handle_event(turn([REQUEST]), home, NOW + 60)  # the agent sends the same turn again
    handle_event(turn(["earlier chat", REQUEST]), home, NOW + 120)  # … with older history in front
    assert [s["type"] for s in rows(home)] == ["progress"]
    assert [e["decisions"][1]["reason"] for e in read_entries(home, 3)] == ["duplicate", "duplicate", "captured"]
    # A new turn with the same words but new tool calls is new work.
    handle_event(turn([REQUEST], (bash("git push", "Everything up-to-date"),)), home, NOW + 180)
    assert [s["type"] for s in rows(home)] == ["progress", "progress"]


def test_resent_statements_are_captured_once_each(home: Path) -> None:
    first, second = "Remember that CI runs on two cores.", "Remember that deploys happen on Fridays."
    handle_event(turn([first], ()), home, NOW)
    handle_event(turn([first, second], ()), home, NOW + 60)
    handle_event(turn([first, second], ()), home, NOW + 120)
    texts = [s["text"] for s in rows(home)]
    assert texts == [first, second]
    reasons = [e["decisions"][0]["reason"] for e in read_entries(home, 3)]
    assert reasons == ["duplicate", "captured", "captured"]


def test_statement_and_work_give_two_sources_and_the_statement_is_leased_first(home: Path, parser_state) -> None:
    handle_event(turn(["Remember that pushes go through the VPN. " + REQUEST]), home, NOW)
    statement, progress = rows(home)
    assert (statement["type"], progress["type"]) == ("user_statement", "progress")
    assert statement["created_at"] == progress["created_at"]
    with Store.open(home) as store:
        with store.transaction() as conn:
            # Even asked by id, the progress source waits for its turn's statement.
            assert lease_job(conn, owner="w2", now=NOW + 1, lease_seconds=150, source_id=progress["id"]) is None
            first = lease_job(conn, owner="w1", now=NOW + 1, lease_seconds=150)
            assert first is not None and first.source.id == statement["id"]
            assert lease_job(conn, owner="w2", now=NOW + 1, lease_seconds=150) is None  # still waiting
            assert complete_job(conn, first, NOW + 2)
            second = lease_job(conn, owner="w2", now=NOW + 3, lease_seconds=150)
            assert second is not None and second.source.id == progress["id"]


def test_due_order_is_deterministic_for_one_turn(home: Path, parser_state) -> None:
    # Whatever the ids, a turn's statement comes before its progress source.
    for i in range(5):
        handle_event(
            turn(
                [f"Remember that build {i} uses clang. {REQUEST}"],
                (bash(f"git commit -am step{i}", "ok"),),
                session=f"s{i}",
            ),
            home,
            NOW + i,
        )
    from memory_core.jobs.lifecycle import due_source_ids

    with Store.open(home) as store:
        order = due_source_ids(store.conn, NOW + 100)
    by_id = {s["id"]: s for s in rows(home)}
    assert [by_id[i]["type"] for i in order] == ["user_statement", "progress"] * 5


def test_worker_applies_statement_then_progress_and_updates_the_state(
    home: Path, parser_state, model: FakeModelServer
) -> None:
    handle_event(turn(["Remember that pushes go through the VPN. " + REQUEST]), home, NOW)
    new_state = "Widget parser fix: committed locally, push failed (remote unreachable)"
    model.enqueue(
        Reply.of_claims([{"kind": "fact", "content": "Pushes go through the VPN"}]),
        Reply.of_claims([{"kind": "project_state", "content": new_state, "replaces": parser_state.id}]),
    )
    settings = load_settings()
    assert consolidate_source(settings, None).status == AttemptStatus.DONE
    assert consolidate_source(settings, None).status == AttemptStatus.DONE
    first, second = (json.dumps(r["messages"]) for r in model.requests)
    assert "Source type: user_statement" in first and "Source type: progress" in second
    assert f"Nominated ids: {parser_state.id}" in second and parser_state.id in second
    with Store.open(home) as store:
        body = json.loads(
            store.conn.execute("SELECT body FROM memories WHERE kind='project_state' AND status='active'").fetchone()[0]
        )
    assert body["content"] == new_state and body["evidence"]["basis"] == "tool_observation"


def test_progress_answer_outside_the_nominated_states_is_rejected(
    home: Path, parser_state, model: FakeModelServer
) -> None:
    handle_event(turn([REQUEST]), home, NOW)
    model.enqueue(Reply.of_claims([{"kind": "fact", "content": "The parser is written in Rust"}]))
    outcome = consolidate_source(load_settings(), None)
    assert outcome.error_code == "write_rejected"


def test_interrupted_turn_is_marked(home: Path, parser_state) -> None:
    handle_event(turn([REQUEST], error=True), home, NOW)
    [source] = rows(home)
    assert "completion: interrupted" in source["text"] and "Committed; push failed." not in source["text"]


@pytest.mark.sqlite_only  # the hook process itself; on PostgreSQL the gateway captures (tests/hooks/test_gateway*)
def test_progress_capture_stays_off_the_heavy_imports(home: Path, parser_state) -> None:
    payload = json.dumps(
        {
            "schema": "memevo.hook/v1",
            "event": "turn_end",
            "agent": "test-agent",
            "session_id": "hot",
            "cwd": CWD,
            "user_messages": [REQUEST],
            "operations": [
                {
                    "tool": "Bash",
                    "input": "git commit -am x",
                    "output": "[main 1] x",
                    "call_id": "c1",
                    "result_id": "c1",
                }
            ],
        }
    )
    assert loaded_heavy_modules(home, ["hook", "turn_end"], payload) == []
    assert [s["type"] for s in rows(home)] == ["progress"]


def test_a_progress_nudge_that_must_wait_for_its_statement_says_so(
    home: Path, parser_state, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker task reschedules a waiting progress source within seconds (workers.tasks)
    # instead of leaving it to the once-a-minute recovery. (A worker without a model leases
    # nothing at all, so this one has a model; it is never called.)
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "tiny")
    handle_event(turn(["Remember that pushes go through the VPN. " + REQUEST]), home, NOW)
    statement, progress = rows(home)
    with Store.open(home) as store:
        with store.transaction() as conn:
            assert lease_job(conn, owner="w1", now=NOW + 1, lease_seconds=150, source_id=statement["id"])
    outcome = consolidate_source(load_settings(), progress["id"])
    assert outcome.status == AttemptStatus.WAITING and outcome.source_id == progress["id"]


def test_a_statement_whose_answer_failed_no_longer_holds_the_progress_back(
    home: Path, parser_state, model: FakeModelServer
) -> None:
    # The statement's model answer is refused (nine aliases); before, the progress source
    # waited through every retry of it, for hours, until the statement paused.
    handle_event(turn(["Remember that pushes go through the VPN. " + REQUEST]), home, NOW)
    statement, progress = rows(home)
    new_state = "Widget parser fix: committed locally, push failed (remote unreachable)"
    nine = [f"alias{i}" for i in range(9)]
    model.enqueue(
        Reply.of_claims([{"kind": "fact", "content": "Pushes go through the VPN", "searchTerms": nine}]),
        Reply.of_claims([{"kind": "project_state", "content": new_state, "replaces": parser_state.id}]),
    )
    settings = load_settings()
    first = consolidate_source(settings, None)
    assert (first.source_id, first.error_reason) == (statement["id"], "too_many_search_terms")
    second = consolidate_source(settings, progress["id"])
    assert second.status == AttemptStatus.DONE, second
    with Store.open(home) as store:
        states = dict(store.conn.execute("SELECT id, state FROM sources").fetchall())
    assert states == {statement["id"]: "pending", progress["id"]: "done"}
