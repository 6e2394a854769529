"""Two quick work turns on one project state, through the turn_end hook and the worker with a
loopback model: "commit the changes", then "now push them".

The push turn is captured while the commit turn's source is still with the model, so both
sources nominate the state as it was. The commit's answer replaces that state; the push
must then move the *current* state on (its replacement chain), with one worker or two, and
the two sources apply in the order they were captured.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent, Operation
from memory_core.capture.intake import canonical_origin
from memory_core.config import load_settings
from memory_core.records import Evidence, Memory
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.sources import require_source
from tests.factories import make_memory, seed
from tests.progress.helpers import bash
from tests.support.fake_model import FakeModelServer, claims_from_prompt
from workers.consolidate import AttemptOutcome, AttemptStatus, consolidate_source

NOW = 1_750_000_000.0
COMMIT_REQUEST = "commit the checkout-service changes"
PUSH_REQUEST = "now push them"
NOMINATED = re.compile(r"^Nominated ids: (.*)$", re.MULTILINE)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout-service"
    (checkout / ".git").mkdir(parents=True)
    return checkout


@pytest.fixture
def state(store: Store, repo: Path) -> Memory:
    claim = make_memory(
        "checkout-service: the changes are not committed yet",
        origin=canonical_origin(str(repo)),
        kind="project_state",
        at=NOW - 3600,
    )
    seed(store, claim)
    return claim


def work_turn(repo: Path, request: str, operation: Operation) -> HookEvent:
    return HookEvent(
        "turn_end",
        agent="test-agent",
        session_id="quick-turns",
        cwd=str(repo),
        user_messages=(request,),
        operations=(operation,),
        final_message="Done.",
    )


def commit_turn(repo: Path) -> HookEvent:
    return work_turn(
        repo, COMMIT_REQUEST, bash(f'git -C {repo} commit -am "Checkout changes"', "[main 1a2b3c4] Checkout changes")
    )


def push_turn(repo: Path) -> HookEvent:
    return work_turn(repo, PUSH_REQUEST, bash(f"git -C {repo} push", "To origin\n   0f0f0f0..1a2b3c4  main -> main"))


def which_turn(request: dict[str, Any]) -> str:
    return "push" if PUSH_REQUEST in json.dumps(request["messages"]) else "commit"


def prompt_of(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def source_ids(home: Path) -> list[str]:
    with Store.open(home) as store:
        return [
            str(row[0])
            for row in store.conn.execute("SELECT id FROM sources WHERE source_type='progress' ORDER BY created_at")
        ]


def settle(home: Path) -> None:
    """Let every failed attempt come due again and run it, as later worker rounds would (a
    source that keeps failing pauses after five)."""
    settings = load_settings()
    for _ in range(8):
        with Store.open(home) as store:
            with store.transaction() as conn:
                conn.execute("UPDATE sources SET next_due_at=0 WHERE state='pending'")
        if consolidate_source(settings, None).status == AttemptStatus.NOT_ELIGIBLE:
            return


def active_states(home: Path) -> list[Memory]:
    with Store.open(home) as store:
        ids = [
            str(row[0])
            for row in store.conn.execute("SELECT id FROM memories WHERE kind='project_state' AND status='active'")
        ]
        return [m for m in (get_memory(store.conn, i) for i in ids) if m is not None]


def assert_the_push_moved_the_committed_state(home: Path, model: FakeModelServer, state: Memory) -> None:
    commit_id, push_id = source_ids(home)
    with Store.open(home) as store:
        sources = {sid: require_source(store.conn, sid) for sid in (commit_id, push_id)}
        [current] = active_states(home)
        committed = get_memory(store.conn, str(current.replaces))
    assert {s.state.value for s in sources.values()} == {"done"}, {
        s.id: (s.state.value, s.last_error_code, s.last_error_reason) for s in sources.values()
    }
    # Applied in capture order: the commit replaced the seeded state, the push the commit's.
    assert committed is not None and committed.source_id == commit_id and committed.replaces == state.id
    assert current.source_id == push_id and PUSH_REQUEST in current.content
    # Every prompt named only states that were current when it was sent.
    prompts = [prompt_of(r) for r in model.requests]
    assert [NOMINATED.findall(p) for p in prompts] == [[state.id], [committed.id]]


def answering(step: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], str]:
    """The fake model's default answer (replace the first nominated state), after ``step``."""

    def answer(request: dict[str, Any]) -> str:
        step(request)
        return claims_from_prompt(request)

    return answer


def test_a_push_captured_while_the_commit_is_with_the_model_moves_the_committed_state(
    home: Path, repo: Path, state: Memory, model: FakeModelServer
) -> None:
    def capture_the_push_turn(request: dict[str, Any]) -> None:
        if which_turn(request) == "commit":  # the user's next turn ends while the worker waits
            handle_event(push_turn(repo), home, NOW + 60)

    model._default = answering(capture_the_push_turn)
    handle_event(commit_turn(repo), home, NOW)
    [commit_id] = source_ids(home)
    settings = load_settings()
    assert consolidate_source(settings, commit_id).status == AttemptStatus.DONE
    [_, push_id] = source_ids(home)
    assert consolidate_source(settings, push_id).status == AttemptStatus.DONE
    settle(home)
    assert_the_push_moved_the_committed_state(home, model, state)


@pytest.mark.parametrize("first_answer", ["commit", "push"])
def test_two_workers_apply_the_two_turns_in_the_order_they_were_captured(
    first_answer: str, home: Path, repo: Path, state: Memory, model: FakeModelServer
) -> None:
    handle_event(commit_turn(repo), home, NOW)
    handle_event(push_turn(repo), home, NOW + 60)
    commit_id, push_id = source_ids(home)
    reached = {"commit": threading.Event(), "push": threading.Event()}
    finished = {"commit": threading.Event(), "push": threading.Event()}
    outcomes: dict[str, AttemptOutcome] = {}

    def both_in_flight(request: dict[str, Any]) -> None:
        turn = which_turn(request)
        other = "push" if turn == "commit" else "commit"
        reached[turn].set()
        # Answer only once the other worker is at its model call too, or has ended its attempt
        # (it may have found its source must wait); the second answer waits for the first.
        for _ in range(200):
            if reached[other].is_set() or finished[other].is_set():
                break
            finished[other].wait(0.05)
        if turn != first_answer:
            finished[other].wait(10)

    model._default = answering(both_in_flight)
    settings = load_settings()

    def worker(turn: str, source_id: str) -> None:
        try:
            outcomes[turn] = consolidate_source(settings, source_id)
        finally:
            finished[turn].set()

    first = threading.Thread(target=worker, args=("commit", commit_id))
    first.start()
    assert reached["commit"].wait(10)
    second = threading.Thread(target=worker, args=("push", push_id))
    second.start()
    first.join(20)
    second.join(20)
    assert outcomes["commit"].status == AttemptStatus.DONE
    # The push's source waits for the commit's instead of racing it for the same state.
    assert outcomes["push"].status == AttemptStatus.WAITING
    settle(home)
    assert_the_push_moved_the_committed_state(home, model, state)


# -- the order rule and the chain, at the lease ---------------------------------------------------

ORIGIN = "/work/shop"


def progress_source(store: Store, text: str, targets: tuple[str, ...], at: float) -> str:
    from memory_core.capture.intake import capture_source

    with store.transaction() as conn:
        return capture_source(
            conn, source_type="progress", origin=ORIGIN, text=text, now=at, target_ids=targets, identity=text
        ).source_id


def may_lease(store: Store, source_id: str, now: float = NOW + 600) -> bool:
    from memory_core.jobs.lifecycle import lease_job

    with store.transaction() as conn:
        return lease_job(conn, owner="w", now=now, lease_seconds=150, source_id=source_id) is not None


def supersede(store: Store, old: Memory, new: Memory) -> None:
    seed(store, old.model_copy(update={"status": "superseded", "replaced_by": new.id}), new)


def test_a_later_source_waits_only_for_an_unfinished_earlier_one_of_the_same_state(store: Store) -> None:
    from memory_core.jobs.lifecycle import fail_job, lease_job
    from memory_core.records import ErrorCode

    cart = make_memory("cart service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    search = make_memory("search service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    seed(store, cart, search)
    earlier = progress_source(store, "request: commit the cart", (cart.id,), NOW)
    other_state = progress_source(store, "request: commit search", (search.id,), NOW + 10)
    later = progress_source(store, "request: push the cart", (cart.id,), NOW + 20)
    assert may_lease(store, other_state)  # another state: no wait
    assert not may_lease(store, later)
    # Failing and due again later, the earlier one still goes first; paused, it no longer blocks.
    with store.transaction() as conn:
        lease = lease_job(conn, owner="w", now=NOW + 600, lease_seconds=150, source_id=earlier)
        assert lease is not None
        for n in range(5):
            fail_job(conn, lease, ErrorCode.INVALID_OUTPUT, NOW + 600 + n)
            if n < 4:
                conn.execute("UPDATE sources SET next_due_at=0 WHERE id=?", (earlier,))
                lease = lease_job(conn, owner="w", now=NOW + 700 + n, lease_seconds=150, source_id=earlier)
                assert lease is not None
                assert lease_job(conn, owner="w", now=NOW + 700 + n, lease_seconds=150, source_id=later) is None
    assert require_source(store.conn, earlier).state.value == "paused"
    assert may_lease(store, later)


def test_sources_nominating_two_links_of_one_chain_concern_the_same_state(store: Store) -> None:
    old = make_memory("cart service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    new = make_memory("cart service: committed, not pushed", origin=ORIGIN, kind="project_state", at=NOW + 5)
    seed(store, old)
    earlier = progress_source(store, "request: run the cart tests", (old.id,), NOW)
    supersede(store, old, new)  # an applied turn moved the state on after the earlier capture
    later = progress_source(store, "request: push the cart", (new.id,), NOW + 20)
    assert not may_lease(store, later)
    assert may_lease(store, earlier)


def test_a_state_a_person_corrected_after_the_capture_is_not_offered(store: Store) -> None:
    from memory_core.consolidation.prompt import build_messages
    from memory_core.consolidation.targets import nominated_claims
    from memory_core.evidence import manual_evidence

    old = make_memory("cart service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    seed(store, old)
    sid = progress_source(store, "request: commit the cart", (old.id,), NOW)
    corrected = make_memory(
        "cart service: abandoned",
        origin=ORIGIN,
        kind="project_state",
        at=NOW + 30,
        evidence=manual_evidence("m", NOW + 30),
    )
    supersede(store, old, corrected)
    source = require_source(store.conn, sid)
    assert nominated_claims(store.conn, source) == []
    assert "Nominated ids: none" in build_messages(source, [], now=NOW)[1]["content"]
    # A turn's earlier observation, applied after the capture, is followed.
    observed = make_memory(
        "cart service: tests pass",
        origin=ORIGIN,
        kind="project_state",
        at=NOW + 40,
        evidence=Evidence(basis="tool_observation", method="model", source_id="t" * 24, at=NOW - 5),
    )
    supersede(store, corrected, observed)
    assert [m.id for m in nominated_claims(store.conn, source)] == [observed.id]


def test_a_replacement_chain_that_loops_ends(store: Store) -> None:
    from memory_core.store.tables.replacements import current_claim

    a = make_memory("cart service: state a", origin=ORIGIN, kind="project_state")
    b = make_memory("cart service: state b", origin=ORIGIN, kind="project_state")
    seed(
        store,
        a.model_copy(update={"status": "superseded", "replaced_by": b.id}),
        b.model_copy(update={"status": "superseded", "replaced_by": a.id}),
    )
    found = current_claim(store.conn, a.id)
    assert found is not None and found.id in (a.id, b.id)
    assert current_claim(store.conn, "0" * 24) is None


def test_a_source_waiting_for_one_in_backoff_is_nudged_again_after_that_backoff(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memory_core import clock
    from memory_core.jobs.lifecycle import fail_job, lease_job
    from memory_core.records import ErrorCode
    from workers import tasks

    # A worker without a model leases nothing at all, so this one has a model; it is never called.
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "tiny")
    cart = make_memory("cart service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    seed(store, cart)
    earlier = progress_source(store, "request: commit the cart", (cart.id,), NOW)
    later = progress_source(store, "request: push the cart", (cart.id,), NOW + 20)
    now = clock.now()
    with store.transaction() as conn:
        lease = lease_job(conn, owner="w", now=now, lease_seconds=150, source_id=earlier)
        assert lease is not None
        failure = fail_job(conn, lease, ErrorCode.INVALID_OUTPUT, now)
    assert failure is not None and failure.next_due_at > now + 30
    outcome = consolidate_source(load_settings(), later)
    assert outcome.status == AttemptStatus.WAITING and outcome.next_due_at == failure.next_due_at
    scheduled: list[float] = []
    monkeypatch.setattr(tasks.consolidate, "schedule", lambda args, delay: scheduled.append(delay))
    tasks.consolidate.call_local(later)
    [delay] = scheduled
    assert failure.next_due_at - clock.now() < delay <= failure.next_due_at - now + tasks.STATEMENT_WAIT_SECONDS


def test_a_source_with_no_state_left_to_update_is_done_without_a_model_call(
    store: Store, model: FakeModelServer
) -> None:
    from memory_core import clock
    from memory_core.evidence import manual_evidence
    from memory_core.jobs.budget import usage_on

    old = make_memory("cart service: not committed", origin=ORIGIN, kind="project_state", at=NOW - 60)
    seed(store, old)
    sid = progress_source(store, "request: commit the cart", (old.id,), NOW)
    corrected = make_memory(
        "cart service: abandoned",
        origin=ORIGIN,
        kind="project_state",
        at=NOW + 30,
        evidence=manual_evidence("m", NOW + 30),
    )
    supersede(store, old, corrected)  # a person's later word: the observation has nothing newer
    outcome = consolidate_source(load_settings(), sid)
    assert outcome.status == AttemptStatus.DONE and outcome.changes["added"] == []
    assert model.request_count == 0
    assert require_source(store.conn, sid).state.value == "done"
    assert usage_on(store.conn, clock.now()).calls == 0  # no call counted either
