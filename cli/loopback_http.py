"""What the two loopback HTTP servers share (`memevo serve`, cli/hooks/http_server.py, and
`memevo ui`, cli/ui/server.py): the 127.0.0.1 listener with its bound on requests in flight
and its one-line notes, the ``Host`` check that refuses a rebound name, the answer writer
and a handler that keeps no access log (a URL may carry a token).

Each server keeps its own checks, paths and error texts; this module holds none of them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO, TypeVar

from memory_core.errors import UsageError

LOOPBACK = "127.0.0.1"
READ_SECONDS = 10.0  # a client that stalls longer is dropped

ServerT = TypeVar("ServerT", bound="LoopbackServer")


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host header values a server answers: the loopback address or name, with its port."""
    return frozenset({f"{LOOPBACK}:{port}", f"localhost:{port}"})


def host_allowed(header: str | None, port: int) -> bool:
    return (header or "").strip().lower() in allowed_hosts(port)


class LoopbackServer(ThreadingHTTPServer):
    """A threaded server on 127.0.0.1 with ``slots`` for requests in flight and :meth:`note`."""

    daemon_threads = True
    allow_reuse_address = True
    label = "memevo"  # the prefix of its notes: the command that runs it

    def __init__(
        self, port: int, handler: type[BaseHTTPRequestHandler], *, max_in_flight: int, log: TextIO | None
    ) -> None:
        self.slots = threading.BoundedSemaphore(max_in_flight)
        self.log_stream = log if log is not None else sys.stderr
        self._log_lock = threading.Lock()
        super().__init__((LOOPBACK, port), handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def note(self, line: str) -> None:
        """One line on the server's log (stderr): never a payload, never a token."""
        with self._log_lock:
            try:
                self.log_stream.write(f"{self.label}: {line}\n")
                self.log_stream.flush()
            except (OSError, ValueError):
                pass


def listen(start: Callable[[], ServerT], port: int, *, hint: str = "") -> ServerT:
    """``start()`` on ``port`` (0 picks a free one); a bad port or a failed bind is a usage error."""
    if not 0 <= port <= 65535:
        raise UsageError(f"port {port} is not a TCP port (0-65535; 0 picks a free one)")
    try:
        return start()
    except OSError as exc:
        raise UsageError(f"cannot listen on {LOOPBACK}:{port}: {exc.strerror or exc}{hint}") from None


class QuietHandler(BaseHTTPRequestHandler):
    """One request per connection, no access log; malformed requests noted on the server."""

    server: LoopbackServer
    protocol_version = "HTTP/1.0"  # one request per connection: no idle threads kept
    timeout = READ_SECONDS

    def declared_length(self) -> int | None:
        """The body's ``Content-Length``, or ``None`` when it is chunked, missing or not a number."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return None
        text = (self.headers.get("Content-Length") or "").strip()
        return int(text) if text.isascii() and text.isdigit() else None  # "²" is a digit to isdigit()

    def send_answer(
        self,
        status: int,
        body: bytes,
        headers: dict[str, str],
        extra: dict[str, str] | None = None,
    ) -> None:
        """``headers``, the body's length, then ``extra``; a client gone away is ignored."""
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            if body:
                self.wfile.write(body)
        except OSError:
            pass

    def version_string(self) -> str:
        return "memevo"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the base class's name)
        """No access log: a URL may carry a token; each server notes its own refusals."""

    def log_error(self, format: str, *args: object) -> None:  # noqa: A002
        self.server.note("bad request: " + (format % args)[:200])


def stop_on_sigterm() -> None:
    """SIGTERM stops the server as SIGINT does (a ``KeyboardInterrupt`` in the serving thread)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def serve_until_interrupted(server: LoopbackServer) -> None:
    """Answer until SIGINT (or SIGTERM, after :func:`stop_on_sigterm`)."""
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        pass
