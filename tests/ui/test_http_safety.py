"""`memevo ui` refuses every request that is not the signed-in page's own, and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.ui.server import MAX_BODY_BYTES, UiServer
from memory_core import clock
from memory_core.records import Memory
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from tests.factories import make_memory, seed
from tests.ui.server_fixture import csrf_of, post_form, request, running_ui, sign_in


@pytest.fixture
def claim(store: Store) -> Memory:
    memory = make_memory("The build needs node 20 on the staging runners", at=clock.now() - 60)
    seed(store, memory)
    return memory


@pytest.fixture
def ui(home: Path, claim: Memory) -> UiServer:
    with running_ui(home) as server:
        yield server


def _unchanged(home: Path, claim: Memory) -> None:
    """memory.db as the CLI sees it: the claim as seeded, no event written."""
    with Store.open(home) as store:
        assert get_memory(store.conn, claim.id) == claim
        assert store.conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0


def test_no_token_and_no_cookie_is_refused(ui: UiServer, home: Path, claim: Memory) -> None:
    for path in ("/", f"/memory/{claim.id}", "/review", "/static/app.js"):
        answer = request(ui, "GET", path)
        assert answer.status == 401, path
        assert claim.content not in answer.body
    assert request(ui, "POST", f"/memory/{claim.id}/forget", body=b"").status == 401
    _unchanged(home, claim)


def test_a_wrong_token_or_cookie_is_refused(ui: UiServer, home: Path, claim: Memory) -> None:
    wrong = "0" * len(ui.token)
    answer = request(ui, "GET", f"/?token={wrong}")
    assert answer.status == 401 and "set-cookie" not in answer.headers
    assert request(ui, "GET", "/", headers={"Cookie": f"memevo_ui_{ui.port}=" + "0" * 64}).status == 401
    assert (
        request(ui, "GET", "/", headers={"Cookie": f"memevo_ui_{ui.port}={ui.token}"}).status == 401
    )  # the token is no cookie
    _unchanged(home, claim)


def test_the_token_becomes_a_strict_cookie_and_leaves_the_address(ui: UiServer, claim: Memory) -> None:
    answer = request(ui, "GET", f"/?token={ui.token}&q=node")
    assert answer.status == 303 and answer.headers["location"] == "/?q=node"
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and ui.token not in cookie
    page = request(ui, "GET", "/?q=node", headers={"Cookie": sign_in(ui)})
    assert page.status == 200 and claim.content in page.body and ui.token not in page.body
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "http://" not in page.body.replace(f"http://127.0.0.1:{ui.port}", "")  # no other host's assets


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "localhost", "127.0.0.1.nip.io:{port}"])
def test_a_foreign_host_is_refused_even_with_the_token(ui: UiServer, home: Path, claim: Memory, host: str) -> None:
    cookie = sign_in(ui)
    headers = {"Host": host.format(port=ui.port)}
    assert request(ui, "GET", f"/?token={ui.token}", headers=headers).status == 403
    assert request(ui, "GET", "/", headers={**headers, "Cookie": cookie}).status == 403
    page = request(ui, "GET", f"/memory/{claim.id}", headers={"Cookie": cookie})
    forged = request(
        ui,
        "POST",
        f"/memory/{claim.id}/forget",
        headers={
            **headers,
            "Cookie": cookie,
            "Origin": f"http://{headers['Host']}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        body=f"csrf={csrf_of(page.body)}".encode(),
    )
    assert forged.status == 403
    _unchanged(home, claim)


def test_a_cross_site_post_without_the_csrf_token_is_refused(ui: UiServer, home: Path, claim: Memory) -> None:
    cookie = sign_in(ui)
    csrf = csrf_of(request(ui, "GET", f"/memory/{claim.id}", headers={"Cookie": cookie}).body)
    path = f"/memory/{claim.id}/forget"
    assert post_form(ui, path, {}, cookie=cookie).status == 403  # same origin, no token
    assert post_form(ui, path, {"csrf": "0" * 64}, cookie=cookie).status == 403  # a wrong token
    assert post_form(ui, path, {}, cookie=cookie, origin="http://evil.example").status == 403
    assert post_form(ui, path, {"csrf": csrf}, cookie=cookie, origin="http://evil.example").status == 403
    assert post_form(ui, path, {"csrf": csrf}, cookie=cookie, origin="").status == 403  # no Origin at all
    headers = {
        "Cookie": cookie,
        "Origin": f"http://127.0.0.1:{ui.port}",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    assert request(ui, "POST", path, headers=headers, body=f"csrf={csrf}".encode()).status == 403
    _unchanged(home, claim)
    # The same request from the page itself works: the checks above were the only obstacle.
    assert post_form(ui, path, {"csrf": csrf, "back": f"/memory/{claim.id}"}, cookie=cookie).status == 303
    with Store.open(home) as store:
        forgotten = get_memory(store.conn, claim.id)
    assert forgotten is not None and forgotten.status == "forgotten"


def test_an_oversize_or_malformed_body_is_refused(ui: UiServer, home: Path, claim: Memory) -> None:
    cookie = sign_in(ui)
    csrf = csrf_of(request(ui, "GET", f"/memory/{claim.id}", headers={"Cookie": cookie}).body)
    path = f"/memory/{claim.id}/correct"
    big = {"csrf": csrf, "text": "x" * (MAX_BODY_BYTES + 1)}
    assert post_form(ui, path, big, cookie=cookie).status == 413
    base = {"Cookie": cookie, "Origin": f"http://127.0.0.1:{ui.port}"}
    assert (
        request(ui, "POST", path, headers={**base, "Content-Type": "application/json"}, body=b'{"csrf": "x"}').status
        == 415
    )
    assert request(ui, "POST", path, headers={**base, "Content-Length": "x"}, body=b"").status == 411
    _unchanged(home, claim)


def test_a_failed_action_says_why_and_changes_nothing(ui: UiServer, home: Path, claim: Memory) -> None:
    cookie = sign_in(ui)
    csrf = csrf_of(request(ui, "GET", f"/memory/{claim.id}", headers={"Cookie": cookie}).body)
    answer = post_form(ui, f"/memory/{claim.id}/resolve", {"csrf": csrf, "back": f"/memory/{claim.id}"}, cookie=cookie)
    assert answer.status == 409 and "not conflicted" in answer.body and 'role="alert"' in answer.body
    answer = post_form(ui, f"/memory/{claim.id}/correct", {"csrf": csrf, "text": "   "}, cookie=cookie)
    assert answer.status == 400 and "correction is empty" in answer.body
    assert post_form(ui, "/undo", {"csrf": csrf, "event": "99"}, cookie=cookie).status == 404
    _unchanged(home, claim)


def test_odd_requests_get_plain_refusals(ui: UiServer, home: Path, claim: Memory) -> None:
    cookie = sign_in(ui)
    crowded = "/?" + "&".join(f"k{n}=v" for n in range(50))
    assert request(ui, "GET", crowded, headers={"Cookie": cookie}).status == 400
    assert request(ui, "GET", "/no/such/page", headers={"Cookie": cookie}).status == 404
    assert request(ui, "GET", "/memory/not-an-id", headers={"Cookie": cookie}).status == 404
    assert request(ui, "PUT", "/", headers={"Cookie": cookie}, body=b"").status == 501
    assert post_form(ui, "/memory/x/explode", {"csrf": "0"}, cookie=cookie).status == 403
    _unchanged(home, claim)


def test_a_session_of_another_start_is_refused(ui: UiServer, home: Path, claim: Memory) -> None:
    with running_ui(home) as other:
        theirs = sign_in(other).split("=", 1)[1]
        assert request(ui, "GET", "/", headers={"Cookie": f"memevo_ui_{ui.port}={theirs}"}).status == 401
        both = f"{sign_in(other)}; {sign_in(ui)}"  # one browser signed in to both: each finds its own
        assert request(ui, "GET", "/", headers={"Cookie": both}).status == 200
        assert request(other, "GET", "/", headers={"Cookie": both}).status == 200


def test_a_bug_in_an_action_is_a_short_500_not_a_traceback(
    ui: UiServer, home: Path, claim: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.ui import routes

    def broken(ctx: object, form: object) -> str:
        raise RuntimeError("secret detail")

    monkeypatch.setitem(routes.ACTIONS, "/undo", broken)
    cookie = sign_in(ui)
    csrf = csrf_of(request(ui, "GET", f"/memory/{claim.id}", headers={"Cookie": cookie}).body)
    answer = post_form(ui, "/undo", {"csrf": csrf, "event": "1"}, cookie=cookie)
    assert answer.status == 500 and "internal error" in answer.body and "secret detail" not in answer.body
    _unchanged(home, claim)
