"""The pages over HTTP: filters, every control on a memory (recorded as the CLI records it),
Review's approvals, the Queue agreeing with `memevo status`, and the charts' figures."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.ui.charts import day_starts, learned_per_day, queue_per_day
from cli.ui.server import UiServer
from memory_core import clock
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from tests.factories import make_memory, seed
from tests.ui.learned import learn, model_claim
from tests.ui.server_fixture import Answer, csrf_of, post_form, request, running_ui, sign_in


class Browser:
    """A signed-in client: GET pages, POST forms with the page's token."""

    def __init__(self, server: UiServer) -> None:
        self.server = server
        self.cookie = sign_in(server)
        self.csrf = ""

    def get(self, path: str, expect: int = 200) -> Answer:
        answer = request(self.server, "GET", path, headers={"Cookie": self.cookie})
        assert answer.status == expect, (path, answer.status, re.findall(r"role=\"alert\">([^<]*)", answer.body))
        return answer

    def post(self, path: str, expect: int = 303, **fields: str) -> Answer:
        if not self.csrf:
            self.csrf = csrf_of(self.get("/review").body + self.get("/queue").body)
        answer = post_form(self.server, path, {"csrf": self.csrf, **fields}, cookie=self.cookie)
        assert answer.status == expect, (path, answer.status, re.findall(r"role=\"alert\">([^<]*)", answer.body))
        return answer


@pytest.fixture
def claims(store: Store) -> dict[str, str]:
    now = clock.now()
    old = make_memory("The staging deploy uses node 18 on the runners", at=now - 86_400 * 3)
    tabs = make_memory(
        "We prefer tabs over spaces in Makefiles", kind="preference", at=now - 86_400 * 800, origin="/work/other"
    )
    seed(store, old, tabs)
    new = model_claim("The staging deploy uses node 20 on the runners", source="a" * 24, at=now - 3_600)
    learn(store, new, replaced=old, source="a" * 24, at=now - 3_600)
    return {"old": old.id, "new": new.id, "tabs": tabs.id}


@pytest.fixture
def browser(home: Path, claims: dict[str, str]) -> Iterator[Browser]:
    with running_ui(home) as server:
        yield Browser(server)


def _stored(home: Path, memory_id: str):
    with Store.open(home) as store:
        return get_memory(store.conn, memory_id)


def test_filters_and_search(browser: Browser, claims: dict[str, str]) -> None:
    every = browser.get("/").body
    assert every.index("node 20") < every.index("tabs over spaces")  # newest first
    assert "tabs over spaces" not in browser.get("/?kind=fact").body
    assert "node 18" in browser.get("/?status=superseded").body
    assert "node 20" not in browser.get("/?status=superseded").body
    only_model = browser.get("/?evidence=summary&q=staging+deploy").body
    assert "node 20" in only_model and "tabs" not in only_model
    dormant = browser.get("/?aging=dormant").body
    assert "tabs over spaces" in dormant and "node 20" not in dormant
    assert "node 18" in browser.get("/?aging=fresh").body and "node 20" not in browser.get("/?aging=aging").body
    assert "node 20" not in browser.get("/?project=/work/other").body
    assert "unknown kind" in browser.get("/?kind=poem", expect=400).body


def test_each_control_on_a_memory_is_a_recorded_undoable_event(
    browser: Browser, home: Path, claims: dict[str, str], cli_run
) -> None:
    memory_id = claims["new"]
    base = f"/memory/{memory_id}"
    page = browser.get(base).body
    for name in ("Forget", "Pin", "Mark useful", "Mark unhelpful", "Mark accurate", "Mark incorrect", "Correct"):
        assert f">{name}</button>" in page, name
    browser.post(f"{base}/pin", back=base)
    assert _stored(home, memory_id).pinned
    assert ">Unpin</button>" in browser.get(base).body
    browser.post(f"{base}/unpin", back=base)
    browser.post(f"{base}/feedback", verdict="incorrect", back=base)
    assert _stored(home, memory_id).status == "conflicted"
    assert ">Resolve</button>" in browser.get(base).body
    browser.post(f"{base}/resolve", back=base)
    assert _stored(home, memory_id).status == "active"
    moved = browser.post(f"{base}/correct", text="The staging deploy uses node 22 on the runners", back=base)
    assert "correct%3A+done" in moved.headers["location"]
    assert _stored(home, memory_id).status == "superseded"
    history = json.loads(cli_run("history", "--json").output)["events"]
    assert [e["operation"] for e in history[:6]] == ["correct", "resolve", "feedback", "unpin", "pin", "consolidate"]
    assert all(e["actor"] == "user" for e in history[:5])
    browser.post("/undo", event=str(history[0]["id"]), back=base)
    assert _stored(home, memory_id).status == "active"
    receipts = browser.get(base).body
    assert "goes dormant after" in receipts
    assert "Feedback receipts" in receipts and ">incorrect<" in receipts


def test_review_approve_and_approve_all(
    browser: Browser, home: Path, store: Store, claims: dict[str, str], cli_run
) -> None:
    page = browser.get("/review").body
    assert "node 18" in page and "node 20" in page and "replaced" in page
    later = model_claim("The cache lives in /var/cache/app", source="c" * 24, at=clock.now())
    shown = json.loads(cli_run("review", "--json").output)["through"]
    learn(store, later, source="c" * 24, at=clock.now())
    browser.post("/review/approve-all", through=str(shown), back="/review")
    pending = json.loads(cli_run("review", "--json").output)["items"]
    assert [i["claim"]["id"] for i in pending] == [later.id]  # drawn after the page: still pending
    browser.post("/review/approve", item=pending[0]["key"], back="/review")
    assert "Nothing to review" in browser.get("/review").body
    assert "nothing pending review" in browser.post("/review/approve", expect=404, item="1:" + "f" * 24).body


def test_queue_agrees_with_status_and_evolve_needs_a_model(browser: Browser, cli_run) -> None:
    status = json.loads(cli_run("status", "--json").output)
    page = browser.get("/queue").body
    for state, count in status["jobs"].items():
        assert f"<th scope='row'>{state}</th><td class='num'>{count}</td>" in page
    assert f"{status['worker']['model_calls_today']} of {status['worker']['daily_call_limit']}" in page
    assert "of them backfilled, queued behind live captures</th><td class='num'>none</td>" in page
    assert "<th scope='row'>reported cost</th><td class='num'>no cost reported</td>" in page
    refused = browser.post("/queue/evolve", expect=400, source="d" * 24, back="/queue")
    assert "no model configured" in refused.body


def test_charts_count_learning_and_draw_svg(browser: Browser, store: Store, claims: dict[str, str]) -> None:
    now = clock.now()
    starts = day_starts(now)
    learned = learned_per_day(store.conn, starts)
    # The claim was learned an hour ago (the claims fixture): yesterday, just after midnight UTC.
    day = -1 if now - 3_600 >= starts[-1] else -2
    assert learned["fact"][day] == 1 and sum(sum(v) for v in learned.values()) == 1
    assert queue_per_day(store.conn, starts)["waiting at day's end"][-1] == 0
    page = browser.get("/charts").body
    assert page.count('<svg role="img"') == 4 and "Claims learned per day, by kind" in page


def test_evolve_now_forces_an_attempt_on_a_paused_source(
    home: Path, store: Store, monkeypatch: pytest.MonkeyPatch, cli_run
) -> None:
    from memory_core.capture.intake import capture_source

    with store.transaction() as conn:
        source_id = capture_source(
            conn,
            source_type="user_statement",
            origin="/work/app",
            text="remember that we deploy on fridays",
            now=clock.now(),
        ).source_id
        conn.execute(
            "UPDATE sources SET state='paused', consecutive_failures=5, last_error_code='timeout' WHERE id=?",
            (source_id,),
        )
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "test-model")
    with running_ui(home) as server:
        browser = Browser(server)
        page = browser.get("/queue").body
        assert source_id in page and "Evolve now" in page and "timeout" in page
        done = browser.post("/queue/evolve", source=source_id, back="/queue")
        assert "queued+an+attempt" in done.headers["location"]
        again = browser.post("/queue/evolve", source=source_id, back="/queue")
        assert "already+queued" in again.headers["location"]
    shown = json.loads(cli_run("show", source_id, "--json").output)
    assert shown["job"]["forced_requested_at"] is not None


def test_learning_and_injections_pages_read_their_logs(browser: Browser, home: Path) -> None:
    from memory_core.capture.learning_log import append_entry
    from memory_core.reports.injection_log import record_injection

    assert "No turns logged yet" in browser.get("/learning").body
    assert "Nothing injected yet" in browser.get("/injections").body
    append_entry(
        home,
        {
            "at": clock.now(),
            "agent": "codex",
            "origin": "/work/app",
            "message": "remember that the API listens on 8080",
            "decisions": [{"source_type": "user_statement", "reason": "question"}],
        },
    )
    record_injection(
        home,
        kind="lookup",
        at=clock.now(),
        agent="cli",
        session_id=None,
        project="/work/app",
        claim_ids=["a" * 24],
        size_bytes=99,
        via="memevo recall",
    )
    from workers.call_log import log_model_call, model_call_entry

    log_model_call(
        home,
        model_call_entry(
            at=clock.now(),
            source_id="b" * 24,
            origin="/work/app",
            provider="claude-code",
            model="claude-haiku-4-5",
            outcome="done",
            prompt_tokens=12_209,
            completion_tokens=40,
            cost_usd=0.0123,
        ),
    )
    learning = browser.get("/learning").body
    assert "codex" in learning and "a question, not something to learn" in learning
    assert f"claude-code claude-haiku-4-5: 12,209 in, 40 out, $0.0123 reported; source {'b' * 24} done" in learning
    injections = browser.get("/injections").body
    assert "lookup" in injections and f"/memory/{'a' * 24}" in injections and ">99<" in injections
