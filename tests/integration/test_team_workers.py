"""Each person's worker consolidates only that person's sources, with that person's model.

The administrator's login is not bound by row-level security, so memevo's own queries keep
its worker to its own sources: recovery, re-nudging, forced attempts and the order of progress
sources. Each person's nudges go to a queue of their own, consumed by their own workers only:
shown with two real ``huey_consumer`` processes under two logins, each with its own loopback
model server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.consolidation.targets import nominated_claims
from memory_core.errors import NotFoundError
from memory_core.jobs.forced import forced_source_ids, pick_forced_source, request_forced
from memory_core.jobs.lifecycle import due_source_ids, lease_job, must_wait, recover_expired_leases
from memory_core.store.engines.database import Store
from memory_core.store.tables.claim_ids import claim_id_on
from memory_core.store.tables.sources import get_source
from tests.factories import make_memory, seed
from tests.support.fake_model import FakeModelProcess
from tests.support.processes import REPO
from tests.support.team import added_member

pytestmark = pytest.mark.postgres_only  # members are PostgreSQL logins

SHOP = "github.com/acme/shop"


@pytest.fixture
def member(store: Store, cli_run, home: Path) -> Iterator[tuple[str, str, Store]]:
    """A member added with `memevo team add`: ``(name, url, their open store)``."""
    with added_member(store, cli_run, home, member_home=home.parent / "bob-home") as added:
        yield added


def _capture(store: Store, text: str, now: float, **extra: Any) -> str:
    with store.transaction() as conn:
        return capture_source(conn, source_type="user_statement", origin=SHOP, text=text, now=now, **extra).source_id


def test_the_administrators_recovery_takes_up_no_source_of_a_member(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    now = clock.now()
    due = _capture(bob, "remember that my locker code is 9912", now - 30)
    forced = _capture(bob, "remember that my badge is 4471", now - 20)
    leased = _capture(bob, "remember that my desk is 3B", now - 10)
    with bob.transaction() as conn:
        assert request_forced(conn, forced, now)
        lease = lease_job(conn, owner="bobs-worker", now=now - 5, lease_seconds=1, source_id=leased)
    assert lease is not None  # and expired a few seconds ago: Bob's worker died
    assert due_source_ids(bob.conn, now) == [due, forced]
    assert forced_source_ids(bob.conn) == [forced]
    assert due_source_ids(store.conn, now) == [] and forced_source_ids(store.conn) == []
    with store.transaction() as conn:
        assert recover_expired_leases(conn, now) == []
    still = get_source(store.conn, leased)
    assert still is not None and still.state.value == "leased"  # left for Bob's own recovery
    with bob.transaction() as conn:
        assert [o.source_id for o in recover_expired_leases(conn, now)] == [leased]


def test_the_administrators_evolve_refuses_a_members_source_by_its_id(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    theirs = _capture(bob, "remember that my locker code is 9912", clock.now())
    with pytest.raises(NotFoundError, match="no source with id"):
        pick_forced_source(store.conn, theirs)
    with store.transaction() as conn:
        assert not request_forced(conn, theirs, clock.now())
    assert pick_forced_source(bob.conn, theirs) == theirs


def test_a_progress_source_never_waits_for_another_persons(store: Store, member: tuple[str, str, Store]) -> None:
    """Bob's earlier progress source of the team's shared state is Bob's workers' to apply:
    the administrator's later one does not wait for it (Bob's machine may be off for days)."""
    _, _, bob = member
    state = make_memory("The checkout service migration to grpc is not pushed yet", origin=SHOP, kind="project_state")
    state = state.model_copy(update={"id": claim_id_on(store.conn, SHOP, "project_state", state.content)})
    seed(store, state)
    now = clock.now()
    with bob.transaction() as conn:
        capture_source(
            conn,
            source_type="progress",
            origin=SHOP,
            text="pushed the grpc branch",
            now=now - 10,
            session_id="b1",
            target_ids=(state.id,),
        )
    with store.transaction() as conn:
        hers = capture_source(
            conn,
            source_type="progress",
            origin=SHOP,
            text="merged the grpc branch",
            now=now,
            session_id="a1",
            target_ids=(state.id,),
        ).source_id
    source = get_source(store.conn, hers)
    assert source is not None
    assert not must_wait(store.conn, source)


def test_a_progress_source_is_offered_no_personal_state_of_another_person(
    store: Store, member: tuple[str, str, Store]
) -> None:
    _, _, bob = member
    bobs = make_memory("I am moving the checkout service to grpc, not pushed yet", origin=SHOP, kind="project_state")
    bobs = bobs.model_copy(update={"id": claim_id_on(bob.conn, SHOP, "project_state", bobs.content)})
    seed(bob, bobs)
    with store.transaction() as conn:
        hers = capture_source(
            conn,
            source_type="progress",
            origin=SHOP,
            text="pushed the grpc branch",
            now=clock.now(),
            session_id="a1",
            target_ids=(bobs.id,),
        ).source_id
    source = get_source(store.conn, hers)
    assert source is not None
    assert [m.id for m in nominated_claims(bob.conn, source)] == [bobs.id]  # his, were it his source
    assert nominated_claims(store.conn, source) == []


# The hook's own capture (and in-transaction nudge) in a process of its own, as `memevo serve`
# runs it for a PostgreSQL store: one summary per argument.
CAPTURE = r"""
import sys
from cli.hooks.dispatch import handle_event
from cli.hooks.event import HookEvent
from memory_core import clock
from memory_core.paths import state_home

for i, summary in enumerate(sys.argv[1:]):
    handle_event(HookEvent(agent="generic", event="compaction", session_id=f"s{i}", cwd="/tmp",
                           summary=summary), state_home(), clock.now())
"""


def _consumer(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).with_name("huey_consumer")
    # -n: no periodic recovery, so a nudge taken by the wrong person's worker is never rescued.
    argv = [str(exe), "workers.main.huey", "-k", "process", "-w", "2", "-g", "TERM", "-t", "3", "-m", "0.5", "-n"]
    with open(log, "ab") as handle:
        return subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )


@pytest.mark.slow
def test_each_persons_worker_consolidates_their_sources_with_their_own_model(
    store: Store, member: tuple[str, str, Store], home: Path, pg_url: str, tmp_path: Path
) -> None:
    from tests.integration.test_worker_process import kill_group, wait_for

    name, bob_url, bob = member
    texts = {
        "alice": [f"The shop's payment service {i} listens on port {7000 + i}" for i in range(3)],
        "bob": [f"Bob learned that the warehouse sync job {i} runs at {i + 1} am" for i in range(3)],
    }
    homes = {"alice": home, "bob": home.parent / "bob-home"}
    urls = {"alice": pg_url, "bob": bob_url}
    procs: list[subprocess.Popen[bytes]] = []
    for who in texts:
        (tmp_path / f"model-{who}").mkdir()
    models = {who: FakeModelProcess(tmp_path / f"model-{who}") for who in texts}
    try:
        for model in models.values():
            model.start()
        envs = {
            who: {
                **os.environ,
                "MEMEVO_HOME": str(homes[who]),
                "MEMEVO_DATABASE_URL": urls[who],
                "MEMEVO_MODEL_URL": models[who].base_url,
                "MEMEVO_MODEL": "fake",
                "PYTHONPATH": str(REPO),
            }
            for who in texts
        }
        for who in texts:
            procs.append(_consumer(envs[who], tmp_path / f"consumer-{who}.log"))
        for who in texts:
            done = subprocess.run(
                [sys.executable, "-c", CAPTURE, *texts[who]], cwd=REPO, env=envs[who], capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr

        def states() -> list[tuple[str, str]]:
            rows = store.conn.execute("SELECT owner, state FROM sources").fetchall()
            return [(str(owner), str(state)) for owner, state in rows]

        wait_for(lambda: len(states()) == 6 and all(s == "done" for _, s in states()), 60, "every source done")
        for proc in procs:
            kill_group(proc, signal.SIGTERM)
        asked = {who: json.dumps(model.requests()) for who, model in models.items()}
    finally:
        for proc in procs:
            if proc.poll() is None:
                kill_group(proc)
        for model in models.values():
            model.stop()
    assert models["alice"].request_count() == 3 and models["bob"].request_count() == 3
    for who, other in (("alice", "bob"), ("bob", "alice")):
        assert all(text in asked[who] for text in texts[who])
        assert not any(text in asked[who] for text in texts[other])  # never the other's text
    source_owners = {str(sid): str(owner) for sid, owner in store.conn.execute("SELECT id, owner FROM sources")}
    assert name in source_owners.values() and len(set(source_owners.values())) == 2
    claims = [
        (json.loads(body)["source_id"], str(owner))
        for body, owner in store.conn.execute("SELECT body, owner FROM memories")
    ]
    assert claims and all(source_owners[sid] == owner for sid, owner in claims)  # each learned by its own person


def test_doctor_says_when_the_queue_named_from_the_url_is_not_the_servers_login(home: Path, pg_url: str) -> None:
    """The login is read from the URL without connecting; where the server logs the process in
    as someone else (a user only a service file names), doctor says what to put in the URL."""
    from workers.health import postgres_queue_check
    from workers.queue_names import queue_name, url_login

    Store.open(home).close()
    assert postgres_queue_check(pg_url, queue_name(home))["status"] == "ok"
    wrong = postgres_queue_check(pg_url, "memevo@someone_else")
    assert wrong["status"] == "error" and wrong["details"]["problem"] == "queue_login"
    assert f"postgresql://{url_login(pg_url)}@HOST/DB" in wrong["fix"]
