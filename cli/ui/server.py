"""`memevo ui`: the loopback HTTP server and the checks every request passes.

Order of checks (cli/ui/security.py says why each exists): the ``Host`` header (403), the
token in the URL, exchanged once for the session cookie (401 when wrong), the session
cookie (401), and for a POST the same-origin ``Origin`` (403), a form body of at most
:data:`MAX_BODY_BYTES` (411, 413, 415) and the CSRF token (403). Only then does a page or
an action run. Each request opens its own store connection; pages only read, actions are
the CLI's controls in one transaction.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TextIO
from urllib.parse import parse_qs, urlencode, urlsplit

from cli import loopback_http
from cli.ui import security
from cli.ui.assets import SCRIPT, STYLESHEET
from cli.ui.context import PageContext
from cli.ui.html import page
from memory_core import clock
from memory_core.errors import ConflictError, MemevoError, NotFoundError

if TYPE_CHECKING:
    from memory_core.config import Settings

DEFAULT_PORT = 17418
MAX_BODY_BYTES = 64 * 1024  # a correction of 4,000 characters, percent-encoded, fits
MAX_IN_FLIGHT = 8
FORM_TYPE = "application/x-www-form-urlencoded"
STATIC = {
    "/static/app.css": (STYLESHEET, "text/css"),
    "/static/app.js": (SCRIPT, "text/javascript"),
}


class UiServer(loopback_http.LoopbackServer):
    """The listening server with this start's token and session value."""

    label = "memevo ui"

    def __init__(self, port: int, home: Path, settings: Settings, *, log: TextIO | None = None) -> None:
        self.home = home
        self.settings = settings
        self.token = security.new_secret()
        self.session = security.new_secret()
        self.csrf = security.csrf_token(self.session)
        super().__init__(port, UiRequestHandler, max_in_flight=MAX_IN_FLIGHT, log=log)

    @property
    def url(self) -> str:
        """The URL to open: it carries the token, exchanged for a cookie on first use."""
        return f"http://{loopback_http.LOOPBACK}:{self.port}/?token={self.token}"


def make_ui_server(port: int, home: Path, settings: Settings, *, log: TextIO | None = None) -> UiServer:
    """A :class:`UiServer` on 127.0.0.1:``port`` (0 picks a free port)."""
    return loopback_http.listen(lambda: UiServer(port, home, settings, log=log), port, hint="; try --port 0")


def _status_of(exc: MemevoError) -> int:
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, ConflictError):
        return 409
    return 400


class UiRequestHandler(loopback_http.QuietHandler):
    server: UiServer

    # -- checks ---------------------------------------------------------------------------

    def _host_ok(self) -> bool:
        if not loopback_http.host_allowed(self.headers.get("Host"), self.server.port):
            self._plain(403, "wrong host: open the address `memevo ui` printed")
            return False
        return True

    def _session_ok(self) -> bool:
        given = security.session_cookie(self.headers.get("Cookie"), self.server.port)
        if not security.same_secret(given, self.server.session):
            self._plain(401, "not signed in: open the address `memevo ui` printed (it carries a token)")
            return False
        return True

    def _form(self) -> dict[str, str] | None:
        """The POST's form fields after the origin, size and CSRF checks, or ``None`` once refused."""
        origin = self.headers.get("Origin")
        if not security.origin_allowed(origin, self.headers.get("Host"), self.server.port):
            self._plain(403, "cross-site request refused")
            return None
        fetch_site = self.headers.get("Sec-Fetch-Site")
        if fetch_site is not None and fetch_site != "same-origin":
            self._plain(403, "cross-site request refused")
            return None
        length = self.declared_length()
        if length is None:
            self._plain(411, "send a Content-Length")
            return None
        if length > MAX_BODY_BYTES:
            self._plain(413, f"the form is larger than {MAX_BODY_BYTES} bytes")
            return None
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != FORM_TYPE:
            self._plain(415, f"send the form as {FORM_TYPE}")
            return None
        raw = self.rfile.read(length)
        try:
            fields = parse_qs(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=20)
        except (UnicodeDecodeError, ValueError):
            self._plain(400, "the form is not valid UTF-8 form data")
            return None
        form = {name: values[0] for name, values in fields.items()}
        if not security.same_secret(form.get("csrf"), self.server.csrf):
            self._plain(403, "the form's token is missing or wrong: reload the page and try again")
            return None
        return form

    # -- methods --------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        if not self._host_ok():
            return
        url = urlsplit(self.path)
        try:
            query = parse_qs(url.query, keep_blank_values=True, max_num_fields=40)
        except ValueError:
            self._plain(400, "too many query parameters")
            return
        if "token" in query:
            self._sign_in(url.path, query)
            return
        if not self._session_ok():
            return
        if url.path in STATIC:
            text, kind = STATIC[url.path]
            self._send(200, text.encode("utf-8"), f"{kind}; charset=utf-8")
            return
        self._render(url.path, {k: v[0] for k, v in query.items()})

    def do_HEAD(self) -> None:  # noqa: N802
        self._plain(405, "use GET")

    def do_POST(self) -> None:  # noqa: N802
        if not self._host_ok() or not self._session_ok():
            return
        form = self._form()
        if form is None:
            return
        if not self.server.slots.acquire(blocking=False):
            self._plain(503, "busy; try again")
            return
        try:
            self._act(urlsplit(self.path).path, form)
        finally:
            self.server.slots.release()

    def _sign_in(self, path: str, query: dict[str, list[str]]) -> None:
        if not security.same_secret(query["token"][0], self.server.token):
            self._plain(401, "wrong token: open the address `memevo ui` printed when it started")
            return
        rest = {k: v[0] for k, v in query.items() if k != "token"}
        target = (path if path.startswith("/") and not path.startswith("//") else "/") + (
            "?" + urlencode(rest) if rest else ""
        )
        self._send(
            303,
            b"",
            extra={"Location": target, "Set-Cookie": security.set_cookie_header(self.server.session, self.server.port)},
        )

    # -- pages and actions ----------------------------------------------------------------

    def _context(self, path: str, query: dict[str, str]) -> PageContext:
        return PageContext(self.server.home, self.server.settings, clock.now(), self.server.csrf, path, query)

    def _render(self, path: str, query: dict[str, str], *, error: str = "", status: int = 200) -> None:
        from cli.ui import routes

        ctx = self._context(path, query)
        notice = query.get("done", "")
        try:
            found = routes.page_for(path)
            if found is None:
                self._html(404, page("Not found", "<p>No such page.</p>", current=""))
                return
            render, args = found
            title, body = render(ctx, *args)
        except MemevoError as exc:
            self._html(_status_of(exc), page("Problem", "", current=path, error=str(exc)))
            return
        except Exception as exc:  # a bug must not become a traceback on the page
            self._internal_error(path, exc)
            return
        self._html(status, page(title, body, current=path, notice=notice, error=error))

    def _act(self, path: str, form: dict[str, str]) -> None:
        from cli.ui import routes

        back = form.get("back", "/")
        if not back.startswith("/") or back.startswith("//"):
            back = "/"
        found = routes.action_for(path)
        if found is None:
            self._plain(404, "no such action")
            return
        run, args = found
        ctx = self._context(path, {})
        try:
            message = run(ctx, *args, form)
        except Exception as exc:
            if not isinstance(exc, MemevoError):
                self._internal_error(path, exc)
                return
            # Nothing changed (the control's transaction rolled back): the page again, saying why.
            back_url = urlsplit(back)
            self._render(
                back_url.path,
                {k: v[0] for k, v in parse_qs(back_url.query).items()},
                error=str(exc),
                status=_status_of(exc),
            )
            return
        back_url = urlsplit(back)
        query = {k: v[0] for k, v in parse_qs(back_url.query).items() if k != "done"}
        query["done"] = message
        self._send(303, b"", extra={"Location": f"{back_url.path}?{urlencode(query)}"})

    def _internal_error(self, path: str, exc: Exception) -> None:
        """A bug or a database failure: details on the terminal, a short page in the browser."""
        import traceback

        self.server.note(f"internal error on {path[:200]!r}: {type(exc).__name__}")
        traceback.print_exception(exc, file=self.server.log_stream)
        self._html(
            500, page("Problem", "", current="", error="internal error; details on the terminal running memevo ui")
        )

    # -- answers --------------------------------------------------------------------------

    def _html(self, status: int, text: str) -> None:
        self._send(status, text.encode("utf-8"), "text/html; charset=utf-8")

    def _plain(self, status: int, text: str) -> None:
        self._send(status, (text + "\n").encode("utf-8"), "text/plain; charset=utf-8")
        self.server.note(f"{status} {self.command} {urlsplit(self.path).path[:200]!r}")

    def _send(self, status: int, body: bytes, content_type: str = "", extra: dict[str, str] | None = None) -> None:
        headers = dict(security.SECURITY_HEADERS)
        if content_type:
            headers["Content-Type"] = content_type
        self.send_answer(status, body, headers, extra)


def serve_ui(server: UiServer) -> None:
    """Answer until interrupted (SIGINT or SIGTERM)."""
    from memory_core.store.engines import pg

    pg.enable_pool()
    loopback_http.stop_on_sigterm()
    try:
        loopback_http.serve_until_interrupted(server)
    finally:
        server.server_close()
