"""Each member's worker spends a daily model budget of its own, on a real PostgreSQL with
real member logins: one member's spent budget pauses neither another member's worker nor
the administrator's, and each sees only their own spending."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import load_settings
from memory_core.jobs.budget import budget_state, count_call, count_tokens, usage_on
from memory_core.reports.status import budget_section
from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store
from tests.support.fake_model import FakeModelServer, Reply
from workers.consolidate import consolidate_source

pytestmark = pytest.mark.postgres_only  # members are PostgreSQL logins


@pytest.fixture
def members(store: Store, pg_url: str, cli_run) -> Iterator[dict[str, str]]:
    """Two members added with `memevo team add`: ``{name: url}``; removed afterwards."""
    from memory_core.store.schema.team import remove_member

    added: dict[str, str] = {}
    try:
        for prefix in ("bob_", "carol_"):
            name = prefix + os.urandom(4).hex()
            result = cli_run("team", "add", name, "--json")
            assert result.exit_code == 0, result.output
            added[name] = json.loads(result.output)["url"]
        yield added
    finally:
        for name in added:
            with store.transaction() as conn:
                remove_member(conn, name)


def open_as(home: Path, name: str, url: str) -> Store:
    return Store.open(home / name, Backend(POSTGRESQL, url, None))


def test_members_count_and_check_only_their_own_usage(store: Store, members: dict[str, str], home: Path) -> None:
    now = clock.now()
    bob, carol = members
    with open_as(home, bob, members[bob]) as as_bob, as_bob.transaction() as conn:
        count_call(conn, now)
        count_call(conn, now)
        count_tokens(conn, now, 1_000, 200)
    with open_as(home, carol, members[carol]) as as_carol:
        with as_carol.transaction() as conn:
            count_call(conn, now)
        usage = usage_on(as_carol.conn, now)
        assert (usage.calls, usage.tokens) == (1, 0)
        assert not budget_state(as_carol.conn, now, call_limit=2, token_limit=10_000).spent
    with open_as(home, bob, members[bob]) as as_bob:
        usage = usage_on(as_bob.conn, now)
        assert (usage.calls, usage.tokens) == (2, 1_200)
        assert budget_state(as_bob.conn, now, call_limit=2, token_limit=10_000).spent
    # The administrator's budget: none of the members' spending.
    assert usage_on(store.conn, now).calls == 0
    owners = dict(store.conn.execute("SELECT owner, calls FROM model_usage WHERE day = ?", (clock.day_key(now),)))
    assert owners == {bob: 2, carol: 1}


def test_a_members_spent_budget_does_not_pause_anothers_worker(
    store: Store, members: dict[str, str], home: Path, model: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob, carol = members
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "1")
    sources: dict[str, str] = {}
    for name in members:
        with open_as(home, name, members[name]) as as_member, as_member.transaction() as conn:
            sources[name] = capture_source(
                conn,
                source_type="user_statement",
                origin="/work/app",
                text=f"remember that {name}'s staging database listens on port 5433",
                now=clock.now(),
            ).source_id
    with open_as(home, bob, members[bob]) as as_bob, as_bob.transaction() as conn:
        count_call(conn, clock.now())  # Bob's one call of the day is spent
    model.enqueue(Reply.of_claims([{"kind": "fact", "content": "Staging DB listens on port 5433"}]))

    def worker_of(name: str) -> str:
        with monkeypatch.context() as as_member:
            as_member.setenv("MEMEVO_HOME", str(home / name))
            as_member.setenv("MEMEVO_DATABASE_URL", members[name])
            return str(consolidate_source(load_settings(), sources[name]).status)

    assert worker_of(bob) == "budget_spent"
    assert worker_of(carol) == "done"
    assert model.request_count == 1
    with open_as(home, carol, members[carol]) as as_carol:
        assert usage_on(as_carol.conn, clock.now()).calls == 1
        # Carol's status: her own spending and her own waiting sources.
        section = budget_section(as_carol, load_settings(), clock.now())
        assert section["sources_waiting"] == 0 and section["spent"] is True
    with open_as(home, bob, members[bob]) as as_bob:
        assert usage_on(as_bob.conn, clock.now()).calls == 1
        assert budget_section(as_bob, load_settings(), clock.now())["sources_waiting"] == 1


def test_grants_on_usage_from_before_version_7_still_let_a_login_count(pg_url: str, home: Path) -> None:
    """A member added before version 7 (a login with a member's grants) counts and reads
    their own usage after the administrator's upgrade, beside the usage the upgrade gave the
    administrator."""
    import secrets

    from cli.commands.team_cmd import member_url
    from memory_core.store.engines import pg
    from memory_core.store.schema import migrations

    name = "dave_" + os.urandom(4).hex()
    password = secrets.token_urlsafe(18)
    now = clock.now()
    conn = pg.connect(pg_url)
    try:
        migrations.build_schema(conn, 6)
        (schema,) = conn.execute("SELECT current_schema()").fetchone()
        with conn.write_transaction():
            # A member's grants as memory_core.store.schema.team gave them (rows only), written out
            # here: the team's code speaks the current schema, this store is at version 6.
            conn.execute(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
            conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {name}')
            conn.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}" TO {name}')
            conn.execute(f'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA "{schema}" TO {name}')
            for kind, rights in (("TABLES", "SELECT, INSERT, UPDATE, DELETE"), ("SEQUENCES", "USAGE, SELECT")):
                conn.execute(f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{schema}" GRANT {rights} ON {kind} TO {name}')
            conn.execute(
                "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) VALUES (?, 7, 70, 7)",
                (clock.day_key(now),),
            )
        (admin,) = conn.execute("SELECT current_user").fetchone()
    finally:
        conn.close()
    try:
        with Store.open(home) as store:  # the administrator migrates
            assert store.schema_version() >= 7
            assert usage_on(store.conn, now).calls == 7
        with open_as(home, name, member_url(pg_url, name, password)) as member:
            with member.transaction() as w:
                count_call(w, now)
                count_tokens(w, now, 10, 2)
            usage = usage_on(member.conn, now)
            assert (usage.calls, usage.tokens) == (1, 12)
            rows = member.conn.execute("SELECT owner, calls FROM model_usage ORDER BY calls").fetchall()
            assert [tuple(row) for row in rows] == [(name, 1), (admin, 7)]
    finally:
        conn = pg.connect(pg_url)
        try:
            for kind in ("TABLES", "SEQUENCES"):
                conn.execute(f'ALTER DEFAULT PRIVILEGES IN SCHEMA "{schema}" REVOKE ALL ON {kind} FROM {name}')
                conn.execute(f'REVOKE ALL ON ALL {kind} IN SCHEMA "{schema}" FROM {name}')
            conn.execute(f'REVOKE ALL ON SCHEMA "{schema}" FROM {name}')
            conn.execute(f"DROP ROLE {name}")
        finally:
            conn.close()


def test_a_members_raw_sql_reads_and_writes_only_their_own_usage(
    store: Store, members: dict[str, str], home: Path
) -> None:
    import psycopg

    now = clock.now()
    bob, carol = members
    with open_as(home, bob, members[bob]) as as_bob, as_bob.transaction() as conn:
        count_call(conn, now)
    with psycopg.connect(members[carol], autocommit=True) as raw:
        assert raw.execute("SELECT owner FROM model_usage").fetchall() == []
        with pytest.raises(psycopg.Error, match="row-level security"):
            raw.execute(
                "INSERT INTO model_usage (owner, day, calls, prompt_tokens, completion_tokens) "
                "VALUES (%s, '2026-01-01', 1, 0, 0)",
                (bob,),
            )
        with pytest.raises(psycopg.Error, match="permission denied"):
            raw.execute("UPDATE model_usage SET owner = %s", (bob,))
    owners = {row[0] for row in store.conn.execute("SELECT owner FROM model_usage")}
    assert owners == {bob}


def test_each_person_sees_whether_their_own_workers_run(store: Store, members: dict[str, str], home: Path) -> None:
    """A member's workers consolidate only that member's sources: status tells each person
    about their own workers (heartbeat, count, model), never about another's."""
    from memory_core.jobs.heartbeat import read_heartbeat, read_worker_count, write_heartbeat
    from memory_core.jobs.model_state import read_worker_model, write_worker_model

    now = clock.now()
    bob, carol = members
    with open_as(home, bob, members[bob]) as as_bob:
        with as_bob.transaction() as conn:
            write_heartbeat(conn, now - 5, "bob-laptop:11")
            write_worker_model(conn, False, "bob-laptop:11")
        assert read_heartbeat(as_bob.conn) == now - 5
        assert tuple(read_worker_count(as_bob.conn, now)) == (1, 1)
        assert read_worker_model(as_bob.conn) is False
    with store.transaction() as conn:
        write_heartbeat(conn, now, "alice-box:21")
        write_worker_model(conn, True, "alice-box:21")
    assert tuple(read_worker_count(store.conn, now)) == (1, 1) and read_worker_model(store.conn) is True
    with open_as(home, carol, members[carol]) as as_carol:
        assert read_heartbeat(as_carol.conn) is None
        assert tuple(read_worker_count(as_carol.conn, now)) == (0, 0) and read_worker_model(as_carol.conn) is None
    with open_as(home, bob, members[bob]) as as_bob:
        assert read_heartbeat(as_bob.conn) == now - 5 and read_worker_model(as_bob.conn) is False
