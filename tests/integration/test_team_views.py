"""The views people read on a team store, through two real logins: the web page (`memevo
ui`), the MCP tools, `memevo review` and `memevo status` show a person their own claims and
the team's shared ones, never another member's personal claims, their history or their
sources; a shared claim of another member says whose it is. The administrator's login is not
bound by row-level security, so every check is made from both sides."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from cli.mcp.tools import ToolFailure, explain_tool, get_tool
from cli.ui.charts import day_starts, learned_per_day, queue_per_day
from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import load_settings
from memory_core.controls.manual import pin
from memory_core.controls.review import approve, approve_all, review_report
from memory_core.errors import NotFoundError
from memory_core.recall.service import recall
from memory_core.records import Memory
from memory_core.reports.review_gate import hold_unreviewed
from memory_core.reports.status import build_status
from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store
from memory_core.store.schema.owners import current_person
from tests.factories import make_memory, seed
from tests.ui.learned import learn, model_claim
from tests.ui.server_fixture import csrf_of, post_form, request, running_ui, sign_in

SHOP = "github.com/acme/shop"
NO_SUCH_ID = "0" * 24


class Team(NamedTuple):
    admin: str  # the administrator's login (Alice)
    name: str  # the member's login (Bob)
    url: str  # Bob's store URL
    bob: Store
    claims: dict[str, Memory]
    sources: dict[str, str]


def _paused(conn: Any, source_id: str, at: float) -> None:
    conn.execute(
        "UPDATE sources SET state = 'paused', consecutive_failures = 3, last_failure_at = ? WHERE id = ?",
        (at, source_id),
    )


@pytest.fixture
def team(store: Store, pg_url: str, home: Path, cli_run) -> Iterator[Team]:
    """Alice (the administrator) and Bob (a member added with `memevo team add`), each with a
    shared claim, a personal one, learning of both kinds and a paused source."""
    name = "bob_" + os.urandom(4).hex()
    added = cli_run("team", "add", name, "--json")
    assert added.exit_code == 0, added.output
    url = json.loads(added.output)["url"]
    at = clock.now() - 600
    claims = {
        "fact": make_memory("The staging database listens on port 5432", origin=SHOP, at=at),
        "pref": make_memory("Answer about the staging database in Chinese", origin=SHOP, kind="preference", at=at),
        "note": make_memory("The notes folder keeps Markdown tables", origin="/home/alice/notes", at=at),
        "learned": model_claim("The staging deploy uses node 20 on the runners", source="a" * 24, at=at, origin=SHOP),
        "learned_pref": model_claim(
            "Prefer pnpm for the staging deploy scripts", source="c" * 24, at=at, origin=SHOP, kind="preference"
        ),
        "bob_decision": model_claim(
            "The staging deploy moves to the new runners in May", source="b" * 24, at=at, origin=SHOP, kind="decision"
        ),
        "bob_pref": model_claim(
            "Prefer tabs in the staging deploy scripts", source="b" * 24, at=at, origin=SHOP, kind="preference"
        ),
    }
    seed(store, claims["fact"], claims["pref"], claims["note"])
    with store.transaction() as conn:
        pin(conn, claims["pref"].id, at)
    learn(store, claims["learned"], source="a" * 24, at=at)
    learn(store, claims["learned_pref"], source="c" * 24, at=at + 1)
    with store.transaction() as conn:
        alice_source = capture_source(
            conn, source_type="user_statement", origin=SHOP, text="remember that my badge number is 4471", now=at
        ).source_id
        _paused(conn, alice_source, at)
    bob = Store.open(home / "bob", Backend(POSTGRESQL, url, None))
    try:
        # One learning event of Bob's with a shared decision and a personal preference.
        learn(bob, claims["bob_decision"], claims["bob_pref"], source="b" * 24, at=at + 2)
        with bob.transaction() as conn:
            bob_source = capture_source(
                conn, source_type="user_statement", origin=SHOP, text="remember that my locker code is 9912", now=at
            ).source_id
            _paused(conn, bob_source, at)
        yield Team(current_person(store.conn), name, url, bob, claims, {"alice": alice_source, "bob": bob_source})
    finally:
        bob.close()
        from memory_core.store.schema.team import remove_member

        with store.transaction() as conn:
            remove_member(conn, name)


class Page:
    """A signed-in browser on a `memevo ui` of the state dir ``home`` (the login is the
    environment's MEMEVO_DATABASE_URL, as for `memevo ui` itself)."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def __enter__(self) -> Page:
        self._running = running_ui(self.home)
        self.server = self._running.__enter__()
        self.cookie = sign_in(self.server)
        return self

    def __exit__(self, *exc: object) -> None:
        self._running.__exit__(*exc)

    def get(self, path: str, expect: int = 200) -> str:
        answer = request(self.server, "GET", path, headers={"Cookie": self.cookie})
        assert answer.status == expect, (path, answer.status)
        return answer.body

    def post(self, path: str, expect: int, **fields: str) -> str:
        csrf = csrf_of(self.get("/review"))
        answer = post_form(self.server, path, {"csrf": csrf, **fields}, cookie=self.cookie)
        assert answer.status == expect, (path, answer.status, re.findall(r'role="alert">([^<]*)', answer.body))
        return answer.body


def _as_bob(monkeypatch: pytest.MonkeyPatch, team: Team) -> None:
    monkeypatch.setenv("MEMEVO_DATABASE_URL", team.url)


def _with_a_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing is called: the evolve button refuses before it queues anything.
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "none")


def _no_word_of(html: str, *claims: Memory) -> None:
    for claim in claims:
        assert claim.id not in html and claim.content not in html, claim.content


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_the_web_page_shows_a_member_their_own_and_the_shared_claims(
    team: Team, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = team.claims
    _as_bob(monkeypatch, team)
    with Page(home / "bob") as page:
        for path in ("/", "/?q=staging+database", f"/?project={SHOP}", "/?kind=preference"):
            html = page.get(path)
            _no_word_of(html, c["pref"], c["note"], c["learned_pref"])
            assert "/home/alice/notes" not in html  # not even as a project to filter by
        listed = page.get("/")
        assert c["fact"].content in listed and f"shared by {team.admin}" in listed
        assert c["bob_pref"].content in listed and f"shared by {team.name}" not in listed
        # Alice's personal claims are answered as no claim at all.
        missing = page.get(f"/memory/{NO_SUCH_ID}", expect=404)
        for hidden in (c["pref"], c["note"], c["learned_pref"]):
            assert page.get(f"/memory/{hidden.id}", expect=404) == missing.replace(NO_SUCH_ID, hidden.id)
        shown = page.get(f"/memory/{c['fact'].id}")
        assert "<dt>Owner</dt>" in shown and team.admin in shown
        # Review: Alice's shared learning, labelled; never her personal preference.
        review = page.get("/review")
        _no_word_of(review, c["learned_pref"])
        assert c["learned"].content in review and f"shared by {team.admin}" in review
        assert c["bob_decision"].content in review and c["bob_pref"].content in review
        page.post("/review/approve", 404, item=c["learned_pref"].id, back="/review")
        # Queue: his own source only; no text of any source anywhere.
        queue = page.get("/queue")
        assert team.sources["bob"] in queue and team.sources["alice"] not in queue
        for path in ("/", "/review", "/queue", "/charts", "/learning", "/injections", f"/memory/{c['fact'].id}"):
            html = page.get(path)
            assert "4471" not in html and "badge" not in html


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_the_web_page_shows_the_administrator_no_personal_claim_of_a_member(
    team: Team, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = team.claims
    _with_a_model(monkeypatch)
    with Page(home) as page:
        for path in ("/", "/?q=staging+deploy", "/?kind=preference", "/review", "/queue", "/charts"):
            html = page.get(path)
            _no_word_of(html, c["bob_pref"])
            assert "9912" not in html and "locker" not in html
        listed = page.get("/")
        assert c["pref"].content in listed and c["note"].content in listed  # her own, personal or not
        assert c["bob_decision"].content in listed and f"shared by {team.name}" in listed
        page.get(f"/memory/{c['bob_pref'].id}", expect=404)
        # Bob's shared decision: whose it is; the event that also wrote his preference is his history.
        decision = page.get(f"/memory/{c['bob_decision'].id}")
        assert "<dt>Owner</dt>" in decision and team.name in decision
        _no_word_of(decision, c["bob_pref"])
        review = page.get("/review")
        assert c["bob_decision"].content in review and f"shared by {team.name}" in review
        page.post("/review/approve", 404, item=c["bob_pref"].id, back="/review")
        queue = page.get("/queue")
        assert team.sources["alice"] in queue and team.sources["bob"] not in queue
        page.post("/queue/evolve", 404, source=team.sources["bob"], back="/queue")


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_the_charts_count_what_each_person_may_see(team: Team, store: Store) -> None:
    starts = day_starts(clock.now())
    alice, bob = learned_per_day(store.conn, starts), learned_per_day(team.bob.conn, starts)
    # Alice: her fact, her preference and Bob's shared decision, never his preference.
    assert (sum(alice["fact"]), sum(alice["preference"]), sum(alice["decision"])) == (1, 1, 1)
    assert (sum(bob["fact"]), sum(bob["preference"]), sum(bob["decision"])) == (1, 1, 1)
    assert queue_per_day(store.conn, starts)["waiting at day's end"][-1] == 1
    assert queue_per_day(team.bob.conn, starts)["waiting at day's end"][-1] == 1


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_mcp_tools_answer_another_members_personal_claims_as_no_claim(
    team: Team, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = team.claims
    now = clock.now()
    with pytest.raises(ToolFailure) as missing:
        get_tool({"id": NO_SUCH_ID}, home, now)
    for who, state, hidden, shared, owner in (
        ("alice", home, c["bob_pref"], c["bob_decision"], team.name),
        ("bob", home / "bob", c["pref"], c["fact"], team.admin),
    ):
        if who == "bob":
            _as_bob(monkeypatch, team)
        with pytest.raises(ToolFailure) as refused:
            get_tool({"id": hidden.id}, state, now)
        assert str(refused.value) == str(missing.value).replace(NO_SUCH_ID, hidden.id)
        answer = get_tool({"id": shared.id}, state, now).text
        assert f"owner:        {owner} (shared with the team)" in answer
        assert hidden.id not in answer and hidden.content not in answer
        # The one event of Bob's decision also wrote his preference: his history, not Alice's.
        assert [line for line in answer.splitlines() if line.startswith("event ")] == [], who
        explained = explain_tool({"query": hidden.content, "id": hidden.id}, state, now).text
        assert [line for line in explained.splitlines() if hidden.id in line] == [
            f"claim {hidden.id}: not recallable (not_found): no claim has this id"
        ], who


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_review_lists_own_and_shared_learning_each_person_for_themselves(team: Team, store: Store) -> None:
    c = team.claims
    now = clock.now()
    items = {i["claim"]["id"]: i for i in review_report(store.conn)["items"]}
    assert set(items) == {c["learned"].id, c["learned_pref"].id, c["bob_decision"].id}
    assert items[c["bob_decision"].id]["claim"]["owner"] == team.name
    assert items[c["bob_decision"].id]["by"] == team.name
    assert "owner" not in items[c["learned"].id]["claim"] and "by" not in items[c["learned"].id]
    with pytest.raises(NotFoundError), store.transaction() as conn:
        approve(conn, [c["bob_pref"].id], now)
    seen_by_bob = {i["claim"]["id"]: i for i in review_report(team.bob.conn)["items"]}
    assert set(seen_by_bob) == {c["learned"].id, c["bob_decision"].id, c["bob_pref"].id}
    assert seen_by_bob[c["learned"].id]["claim"]["owner"] == team.admin
    with pytest.raises(NotFoundError), team.bob.transaction() as conn:
        approve(conn, [c["learned_pref"].id], now)
    # Bob's review is his own: approving everything leaves Alice's inbox as it was.
    with team.bob.transaction() as conn:
        approve_all(conn, None, now)
    assert review_report(team.bob.conn)["items"] == []
    assert {i["claim"]["id"] for i in review_report(store.conn)["items"]} == set(items)
    # and review_before_recall still holds back for Alice what she has not seen.
    query = "staging deploy node 20 runners"
    held = hold_unreviewed(store.conn, recall(store.conn, query, now=now)).diagnostics
    assert held.get("held_for_review") == [c["learned"].id]
    bobs_recall = hold_unreviewed(team.bob.conn, recall(team.bob.conn, query, now=now))
    assert c["learned"].id in [claim.memory_id for claim in bobs_recall.claims]


@pytest.mark.postgres_only  # members are PostgreSQL logins
def test_status_counts_what_each_person_may_see(team: Team, store: Store) -> None:
    now = clock.now()
    alice = build_status(store, load_settings(), now)
    bob = build_status(team.bob, load_settings(), now)
    # Alice: her 5 claims and Bob's shared decision; Bob: his 2 and Alice's 2 shared facts.
    assert alice["memories"]["total"] == 6 and alice["memories"]["by_kind"]["preference"] == 2
    assert bob["memories"]["total"] == 4 and bob["memories"]["by_kind"]["preference"] == 1
    assert alice["scope"]["projects_with_active_memories"] == 2  # her notes are a project of hers
    assert bob["scope"]["projects_with_active_memories"] == 1
    for report, own in ((alice, "alice"), (bob, "bob")):
        assert report["jobs"]["paused"] == 1
        assert [job["source_id"] for job in report["failed_jobs"]] == [team.sources[own]]


@pytest.mark.postgres_only
def test_show_lists_no_event_that_touched_another_members_personal_claim(team: Team, store: Store) -> None:
    """Bob's learning event holds his shared decision and his personal preference: Bob's
    `show` of the decision lists it, the administrator's lists none of it (as `history`)."""
    from memory_core.reports.inspection import describe_memory, history_page
    from memory_core.store.tables.memories import require_memory

    decision = team.claims["bob_decision"].id
    hidden = team.claims["bob_pref"].id

    def listed(s: Store) -> list[int]:
        return [e["id"] for e in describe_memory(s.conn, require_memory(s.conn, decision), clock.now())["events"]]

    mixed = [e.id for e in history_page(team.bob.conn) if hidden in [m.id for m in e.before + e.after]]
    assert mixed and set(mixed) <= set(listed(team.bob))
    assert not set(mixed) & set(listed(store))
    assert not set(mixed) & {e.id for e in history_page(store.conn)}
