"""What keeps `memevo ui` to the person who started it.

* A fresh **token** per start, printed in the URL (as Jupyter does). Opening that URL once
  sets a **session cookie** (``HttpOnly``, ``SameSite=Strict``, path ``/``) holding a second
  random value, and redirects to the same page without the token, so the token is never
  shown again (not in the address bar, history, or a page). Every other request needs the
  cookie.
* The **Host** header must name the loopback address and the port (``127.0.0.1:PORT`` or
  ``localhost:PORT``): a page that rebinds its own name to 127.0.0.1 is refused.
* A state-changing request (POST) must also come from the page itself: its ``Origin`` is
  this server's origin (and ``Sec-Fetch-Site``, when sent, is ``same-origin``), and its form
  carries the **CSRF token**, a value derived from the session that only a page of this
  server can read.

All comparisons of secrets run in constant time.
"""

from __future__ import annotations

import hmac
import os
from hashlib import sha256
from http.cookies import CookieError, SimpleCookie

from cli.loopback_http import host_allowed

COOKIE_PREFIX = "memevo_ui_"
TOKEN_BYTES = 32


def new_secret() -> str:
    """A fresh random value (URL-safe hex)."""
    return os.urandom(TOKEN_BYTES).hex()


def same_secret(given: str | None, expected: str) -> bool:
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


def origin_allowed(origin: str | None, host: str | None, port: int) -> bool:
    """A POST's ``Origin`` must be this server's own (the scheme, and the host the browser used)."""
    if not origin or not host_allowed(host, port):
        return False
    return origin.strip().lower() == f"http://{(host or '').strip().lower()}"


def cookie_name(port: int) -> str:
    """The session cookie's name: per port, because browsers do not keep cookies of
    127.0.0.1 apart by port (two pages on two ports would overwrite each other's)."""
    return f"{COOKIE_PREFIX}{port}"


def session_cookie(headers_cookie: str | None, port: int) -> str | None:
    """The session value of a ``Cookie`` header, if any."""
    if not headers_cookie:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers_cookie)
    except CookieError:
        return None
    morsel = jar.get(cookie_name(port))
    return morsel.value if morsel is not None else None


def set_cookie_header(session: str, port: int) -> str:
    return f"{cookie_name(port)}={session}; HttpOnly; SameSite=Strict; Path=/"


def csrf_token(session: str) -> str:
    """The form token of a session: derived from it, so no other page can compute it."""
    return hmac.new(session.encode("ascii"), b"memevo-ui-csrf", sha256).hexdigest()


CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes a form POST's Origin "null"
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
