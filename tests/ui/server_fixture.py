"""A `memevo ui` server on a thread of the test process, and a small client for it."""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

from cli.ui.server import UiServer, make_ui_server
from memory_core.config import load_settings


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]
    body: str


@contextmanager
def running_ui(home: Path) -> Iterator[UiServer]:
    server = make_ui_server(0, home, load_settings(), log=open("/dev/null", "w"))  # noqa: SIM115
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def request(
    server: UiServer,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> Answer:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    sent = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for name, value in sent.items():
        conn.putheader(name, value)
    if body is not None and "Content-Length" not in sent:
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode())
    conn.close()
    return answer


def sign_in(server: UiServer) -> str:
    """The ``Cookie`` header a browser holds after opening the printed URL."""
    answer = request(server, "GET", f"/?token={server.token}")
    assert answer.status == 303 and answer.headers["location"] == "/"
    match = re.match(rf"(memevo_ui_{server.port}=[0-9a-f]+);", answer.headers["set-cookie"])
    assert match is not None
    return match.group(1)


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert match is not None, "the page has no form token"
    return match.group(1)


def post_form(server: UiServer, path: str, fields: dict[str, str], *, cookie: str, origin: str | None = None) -> Answer:
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    headers["Origin"] = origin if origin is not None else f"http://127.0.0.1:{server.port}"
    if origin == "":
        del headers["Origin"]
    return request(server, "POST", path, headers=headers, body=urlencode(fields).encode())
