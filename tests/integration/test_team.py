"""Two members with logins of their own on a real PostgreSQL: what one learns about a
repository reaches the other, what is personal reaches them neither through memevo nor
through raw SQL, and `memevo team` refuses bad input without leaving anything behind."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_project, capture_source
from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.support.git_checkouts import make_repo


def roles(store: Store, name: str) -> int:
    return store.conn.execute("SELECT COUNT(*) FROM pg_roles WHERE rolname = ?", (name,)).fetchone()[0]


@pytest.fixture
def team(store: Store, pg_url: str, cli_run) -> Iterator[tuple[str, str]]:
    """A member added with `memevo team add`: ``(name, url)``; removed afterwards."""
    name = "bob_" + os.urandom(4).hex()
    result = cli_run("team", "add", name, "--json")
    assert result.exit_code == 0, result.output
    url = json.loads(result.output)["url"]
    try:
        yield name, url
    finally:
        if roles(store, name):
            from memory_core.store.schema.team import remove_member

            with store.transaction() as conn:
                remove_member(conn, name)


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_two_members_share_project_facts_and_nothing_personal(
    store: Store, team: tuple[str, str], home: Path, tmp_path: Path, cli_run
) -> None:
    import psycopg

    from memory_core.controls.manual import correct
    from memory_core.recall.service import recall
    from memory_core.reports.inspection import history_page
    from memory_core.store.schema.owners import others_owners

    name, url = team
    alice_repo = make_repo(tmp_path / "home" / "alice" / "shop", "git@github.com:acme/shop.git")
    bob_repo = make_repo(tmp_path / "Users" / "bob" / "code" / "shop", "https://github.com/acme/shop")
    alice_project = capture_project(str(alice_repo), home).origin
    at = clock.now()
    fact = make_memory("The staging database listens on port 5432", origin=alice_project, at=at)
    pref = make_memory("Answer about the staging database in Chinese", origin=alice_project, kind="preference", at=at)
    seed(store, fact, pref)
    from memory_core.controls.manual import pin

    with store.transaction() as conn:
        personal_event = pin(conn, pref.id, at).event_id
    with store.transaction() as conn:
        secret_source = capture_source(
            conn,
            source_type="user_statement",
            origin=alice_project,
            text="remember that my badge number is 4471",
            now=at,
        ).source_id
    with Store.open(home / "bob", Backend(POSTGRESQL, url, None)) as bob:
        # Bob's checkout of the same repository, another remote form: the same project.
        assert capture_project(str(bob_repo), home / "bob").origin == alice_project
        recalled = recall(bob.conn, "staging database", now=at)
        assert [c.memory_id for c in recalled.claims] == [fact.id]
        assert recalled.claims[0].origin == alice_project
        # A correction by Bob shows in the history Alice sees, attributed to him.
        with bob.transaction() as conn:
            corrected = correct(conn, fact.id, "The staging database listens on port 5433", at)
    assert corrected.event_id in [e.id for e in history_page(store.conn)]
    assert others_owners(store.conn, "events", [corrected.event_id]) == {str(corrected.event_id): name}
    # Raw SQL with Bob's own login: no source of Alice's, no personal claim of hers.
    with psycopg.connect(url, autocommit=True) as raw:
        assert raw.execute("SELECT COUNT(*) FROM sources").fetchone() == (0,)
        bodies = " ".join(r[0] for r in raw.execute("SELECT body FROM memories").fetchall())
        assert "5432" in bodies and "Chinese" not in bodies
        assert raw.execute("SELECT COUNT(*) FROM sources WHERE id = %s", (secret_source,)).fetchone() == (0,)
        history = raw.execute("SELECT id, body FROM events").fetchall()
        assert personal_event not in [r[0] for r in history] and "Chinese" not in " ".join(r[1] for r in history)
        assert corrected.event_id in [r[0] for r in history]
        with pytest.raises(psycopg.Error, match="row-level security"):
            raw.execute(
                "INSERT INTO memories (id, origin, kind, status, content_hash, updated_at, body, owner, scope) "
                "VALUES ('f' || repeat('0', 23), 'x', 'fact', 'active', 'h', 0, '{}', %s, 'personal')",
                (store.conn.execute("SELECT current_user").fetchone()[0],),
            )
        with pytest.raises(psycopg.Error, match="permission denied"):
            raw.execute("UPDATE memories SET owner = %s", (name,))
    # Bob's worker and gateway use the queue in the same database under his login.
    from workers.app import make_huey

    with pytest.MonkeyPatch.context() as as_bob:
        as_bob.setenv("MEMEVO_DATABASE_URL", url)
        assert make_huey(home / "bob").pending_count() >= 0
    listed = cli_run("team", "list", "--json")
    assert listed.exit_code == 0 and json.loads(listed.output)["members"] == [name]


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_bad_names_and_non_administrators_create_nothing(
    store: Store, team: tuple[str, str], cli_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, url = team
    for bad in ("Bob", "bob; drop table memories", "1bob", "pg_bob", "public", "", "b" * 64):
        result = cli_run("team", "add", bad)
        assert result.exit_code != 0 and "cannot be a member's name" in result.output, (bad, result.output)
    again = cli_run("team", "add", name)
    assert again.exit_code != 0 and "exists already" in again.output
    attempt = "carol_" + os.urandom(4).hex()
    with monkeypatch.context() as as_member:
        as_member.setenv("MEMEVO_DATABASE_URL", url)
        refused = cli_run("team", "add", attempt)
        assert refused.exit_code != 0 and "not the administrator" in refused.output
        assert cli_run("team", "remove", name).exit_code != 0
    assert roles(store, attempt) == 0
    assert cli_run("team", "remove", "nobody_here").exit_code != 0
    removed = cli_run("team", "remove", name, "--json")
    assert removed.exit_code == 0, removed.output
    assert roles(store, name) == 0


@pytest.mark.sqlite_only
def test_a_team_needs_postgresql(cli_run) -> None:
    result = cli_run("team", "list")
    assert result.exit_code != 0 and "lives on PostgreSQL" in result.output
