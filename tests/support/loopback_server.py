"""What every fake model server in ``tests/support`` is built on: a real threaded HTTP server
on 127.0.0.1, run in a background thread or as its own process.

- :class:`LoopbackServer`: binds the port, serves in a daemon thread (``start``/``stop``, a
  context manager), and sets ``stopping`` on ``stop`` so a handler waiting out a delay or
  a hang is released at once.
- :class:`LoopbackHandler`: the request handler base (HTTP/1.1, quiet log, lower-cased
  headers, JSON body parsing, one ``send`` for JSON and event-stream answers).
- :class:`ScriptedServer` and :class:`LoggedRequest`: for the fakes of the agents' own model
  APIs (Anthropic, Responses, Gemini): every request recorded and classified into a kind,
  one queue of scripted replies per kind with a default once it is empty, the request log
  (optionally appended to a JSON-lines file), and the answering flow shared by all of them
  (``HEAD``, ``GET``, and ``POST``: unscripted, malformed, delayed, failing, answered).
- :func:`arguments` and :func:`serve`: the ``python -m tests.support.fake_… --port-file PORT``
  entry point (serve until SIGTERM/SIGINT, the bound port written atomically once listening).

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

_Server = TypeVar("_Server", bound="LoopbackServer")


def write_atomically(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` so that readers in other processes never see half of it."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def estimate_tokens(raw: bytes | str) -> int:
    """A rough token count of ``raw`` (a quarter of its length, at least one)."""
    return max(1, len(raw) // 4)


class LoopbackHandler(BaseHTTPRequestHandler):
    """Request handler base: HTTP/1.1, no log output, helpers to read and answer."""

    protocol_version = "HTTP/1.1"
    send_headers: ClassVar[dict[str, str]] = {}  # sent with every answer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def send(
        self, status: int, body: bytes, content_type: str = "application/json", headers: dict[str, str] | None = None
    ) -> None:
        """Answer with ``body`` (not written for ``HEAD``); an event stream is sent uncached."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in {**self.send_headers, **(headers or {})}.items():
            self.send_header(name, value)
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def lower_headers(self) -> dict[str, str]:
        """The request's headers, names lower-cased."""
        return {name.lower(): value for name, value in self.headers.items()}

    def read_body(self) -> bytes:
        """The raw request body (``Content-Length`` bytes)."""
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    @staticmethod
    def json_object(raw: bytes) -> dict[str, Any] | None:
        """``raw`` parsed as a JSON object; ``None`` if empty, not JSON or not an object."""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return None
        return body if isinstance(body, dict) else None


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 (``port`` 0: any free port), served in a daemon thread.

    ``handler`` is built with the server itself, so its handler class can reach it.
    """

    thread_name: ClassVar[str] = "loopback-server"

    def __init__(self, handler: Callable[[Any], type[BaseHTTPRequestHandler]], *, port: int = 0) -> None:
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), handler(self))
        # Handler threads may be parked in a delay or a hang; they must not keep the process alive.
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound TCP port on 127.0.0.1."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """The URL a client is pointed at."""
        return f"http://127.0.0.1:{self.port}"

    def start(self: _Server) -> _Server:
        """Serve in a background thread."""
        # A short poll interval keeps stop() (and so every test using the server) quick.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release waiting handlers, stop serving and close the socket."""
        self.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self: _Server) -> _Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass(frozen=True)
class LoggedRequest:
    """One recorded HTTP request.

    ``path`` has no query string (``query`` holds it); ``headers`` are lower-cased without
    credentials; ``body`` is the parsed JSON body (``None`` if absent or not JSON); ``kind``
    is what the server classified it as; ``reply`` is what was answered (``None`` for
    non-model calls).
    """

    number: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    kind: str
    reply: Any = None
    time: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form."""
        return asdict(self)


class ScriptedServer(LoopbackServer):
    """A loopback fake of a model API: requests recorded and classified, scripted replies per kind.

    A subclass names its ``reply_type`` (a dataclass with a ``text`` field and ``status``,
    ``body`` and ``delay``), ``request_type``, ``secret_headers`` and the queues it keeps
    (``reply_kinds``), and fills in :meth:`classify` and :meth:`answer` (and, where its API
    has them, :meth:`scripted`, :meth:`request_fields`, :meth:`get_body`, :meth:`special`,
    :meth:`error_body`).
    """

    reply_type: ClassVar[type]
    request_type: ClassVar[type[LoggedRequest]] = LoggedRequest
    secret_headers: ClassVar[frozenset[str]] = frozenset({"authorization", "proxy-authorization", "cookie"})
    reply_kinds: ClassVar[tuple[str, ...]] = ("main", "aux")
    send_headers: ClassVar[dict[str, str]] = {}

    def __init__(
        self,
        script: Iterable[Any] = (),
        *,
        defaults: dict[str, Any],
        port: int = 0,
        requests_file: os.PathLike[str] | str | None = None,
    ) -> None:
        super().__init__(_scripted_handler, port=port)
        self._queues: dict[str, deque[Any]] = {kind: deque() for kind in self.reply_kinds}
        self._queues["main"].extend(script)
        self._defaults: dict[str, Any] = dict(defaults)
        self._requests: list[LoggedRequest] = []
        self._requests_file = requests_file

    # -- to fill in ----------------------------------------------------------------------------

    def classify(self, method: str, path: str, body: dict[str, Any] | None) -> str:
        """The kind of a request (a key of ``reply_kinds`` to be answered from that queue)."""
        raise NotImplementedError

    def queue_kind(self, kind: str) -> str:
        """The queue that answers requests of ``kind``."""
        return kind

    def scripted(self, path: str) -> bool:
        """Whether a request on ``path`` (of a kind with a queue) takes a scripted reply."""
        return True

    def request_fields(self, path: str) -> dict[str, Any]:
        """More fields of the recorded request, taken from its path."""
        return {}

    def get_body(self, request: LoggedRequest) -> bytes:
        """The answer to a ``GET``."""
        return b"{}"

    def special(self, request: LoggedRequest, raw: bytes) -> bytes | None:
        """A JSON answer to a ``POST`` the API answers without a reply (token counting), else ``None``."""
        return None

    def error_body(self, status: int, message: str, *, invalid: bool = False) -> str:
        """The API's error body (``invalid``: the request body is not a JSON object)."""
        raise NotImplementedError

    def answer(self, request: LoggedRequest, raw: bytes, reply: Any) -> tuple[bytes, str]:
        """The successful answer to a model call, and its content type."""
        raise NotImplementedError

    # -- scripting -----------------------------------------------------------------------------

    def enqueue(self, *replies: Any, kind: str = "main") -> None:
        """Add scripted replies (a string is a text reply) for requests of ``kind``."""
        queue = self._queue_for(kind)
        with self._lock:
            queue.extend(self._reply(r) for r in replies)

    def set_default(self, reply: Any, kind: str = "main") -> None:
        """Change the reply used once the queue of ``kind`` is empty."""
        self._queue_for(kind)
        with self._lock:
            self._defaults[kind] = self._reply(reply)

    def pending(self, kind: str = "main") -> int:
        """Scripted replies of ``kind`` not used yet."""
        queue = self._queue_for(kind)
        with self._lock:
            return len(queue)

    def _reply(self, reply: Any) -> Any:
        return self.reply_type(text=reply) if isinstance(reply, str) else reply

    def _queue_for(self, kind: str) -> deque[Any]:
        kind = self.queue_kind(kind)
        if kind not in self._queues:
            names = list(self._queues)
            raise ValueError(f"unknown reply kind {kind!r}; use {', '.join(names[:-1])} or {names[-1]}")
        return self._queues[kind]

    # -- the log -------------------------------------------------------------------------------

    @property
    def requests(self) -> list[Any]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_of(self, *kinds: str) -> list[Any]:
        """The requests of the given kinds, in arrival order."""
        return [r for r in self.requests if r.kind in kinds]

    def main_requests(self) -> list[Any]:
        """Requests of the main agent loop (one per model call of a turn)."""
        return self.requests_of("main")

    def clear(self) -> None:
        """Forget the recorded requests (scripted replies are kept)."""
        with self._lock:
            self._requests.clear()

    def _record(self, method: str, target: str, headers: dict[str, str], body: dict[str, Any] | None) -> Any:
        parts = urlsplit(target)
        kind = self.classify(method, parts.path, body)
        clean = {k: v for k, v in headers.items() if k not in self.secret_headers}
        script = self.queue_kind(kind)
        with self._lock:
            reply = None
            if script in self._queues and self.scripted(parts.path):
                queue = self._queues[script]
                reply = queue.popleft() if queue else self._defaults[script]
            request = self.request_type(
                number=len(self._requests) + 1,
                method=method,
                path=parts.path,
                query=parts.query,
                headers=clean,
                body=body,
                kind=kind,
                reply=reply,
                **self.request_fields(parts.path),
            )
            self._requests.append(request)
            if self._requests_file is not None:
                with open(self._requests_file, "a", encoding="utf-8") as out:
                    out.write(json.dumps(request.to_dict(), ensure_ascii=False) + "\n")
        return request


def _scripted_handler(server: ScriptedServer) -> type[LoopbackHandler]:
    class Handler(LoopbackHandler):
        send_headers = server.send_headers

        def do_HEAD(self) -> None:
            server._record("HEAD", self.path, self.lower_headers(), None)
            self.send(200, b"")

        def do_GET(self) -> None:
            request = server._record("GET", self.path, self.lower_headers(), None)
            self.send(200, server.get_body(request))

        def do_POST(self) -> None:
            raw = self.read_body()
            request = server._record("POST", self.path, self.lower_headers(), self.json_object(raw))
            special = server.special(request, raw)
            if special is not None:
                self.send(200, special)
                return
            reply = request.reply
            if reply is None:
                self.send(200, b"{}")
                return
            if request.body is None:
                self.send(400, server.error_body(400, "body is not a JSON object", invalid=True).encode())
                return
            if reply.delay and server.stopping.wait(reply.delay):
                return
            if reply.status != 200 or reply.body is not None:
                text = reply.body if reply.body is not None else server.error_body(reply.status, "scripted failure")
                self.send(reply.status, text.encode("utf-8"))
                return
            self.send(200, *server.answer(request, raw, reply))

    return Handler


def arguments(prog: str, doc: str | None, default_text: str) -> argparse.ArgumentParser:
    """The command line of ``python -m PROG``: ``--port-file``, ``--port``, ``--requests-file``
    and ``--default-text``."""
    parser = argparse.ArgumentParser(prog=f"python -m {prog}", description=(doc or "").split("\n")[0])
    parser.add_argument("--port-file", required=True, help="write the bound port here once listening")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--requests-file", help="append each request as a JSON line here")
    parser.add_argument("--default-text", default=default_text, help="text of the default reply")
    return parser


def serve(server: LoopbackServer, port_file: Path | str) -> int:
    """Serve until SIGTERM/SIGINT, writing the bound port to ``port_file`` once listening
    (and the base URL to stdout)."""
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    write_atomically(port_file, str(server.port))
    print(server.base_url, flush=True)
    done.wait()
    server.stop()
    return 0
