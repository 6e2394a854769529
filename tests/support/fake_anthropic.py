"""A real loopback HTTP server standing in for the Anthropic Messages API.

It speaks enough of the API for the Claude Code CLI (``claude -p``)::

    with FakeAnthropicServer() as server:
        server.enqueue(Reply.bash("ls"), Reply(text="Listed."))
        ...  # run claude with ANTHROPIC_BASE_URL=server.base_url
        assert len(server.main_requests()) == 2
        assert "MARKER" in request_text(server.main_requests()[0])

``POST /v1/messages`` (any query string) answers with a Server-Sent-Events stream
(``message_start``, ``content_block_start``/``content_block_delta``/``content_block_stop``
per block, ``message_delta`` with ``stop_reason`` and usage, ``message_stop``) or, when
the body has ``"stream": false``, with one JSON message. ``POST /v1/messages/count_tokens``
answers with an estimate. ``HEAD`` and ``GET`` on any path answer ``200`` with ``{}``
(``GET /v1/models`` with an empty list).

Every request is recorded (see :class:`Request`) and classified by :func:`classify`:
``main`` (a turn of the agent loop), ``subagent`` (the loop of a subagent),
``compact`` (the conversation summary asked by ``/compact`` or auto-compaction),
``aux`` (any other model call: titles, topic checks, token counting, non-streaming calls)
and ``other`` (anything that is not a model call). Scripted replies are kept in one queue per kind:
``main`` and ``subagent`` requests share the ``main`` queue, in arrival order. An empty
queue falls back to the default reply: ``"OK."`` for a turn, :data:`DEFAULT_COMPACT_SUMMARY`
for a compaction.

As a separate process (to try the CLI by hand)::

    python -m tests.support.fake_anthropic --port-file PORT [--requests-file REQUESTS.jsonl]

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
KINDS = ("main", "subagent", "compact", "aux", "other")
DEFAULT_TEXT = "OK."
DEFAULT_COMPACT_SUMMARY = (
    "<analysis>fake analysis</analysis>\n<summary>\n1. Primary Request and Intent: FAKE-COMPACT-SUMMARY\n</summary>"
)
# Words of the prompt Claude Code sends to have the conversation summarised.
COMPACT_MARKERS = (
    "Your task is to create a detailed summary of the conversation so far",
    "create a detailed summary of the conversation",
)
_SECRET_HEADERS = {"x-api-key", "authorization", "proxy-authorization", "cookie"}


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a model call.

    ``text`` is a text block (``None``: none); ``tool``/``tool_input`` add a ``tool_use``
    block after it. ``stop_reason`` defaults to ``tool_use`` with a tool, else ``end_turn``.
    ``status`` other than 200 sends an Anthropic error body (or ``body`` if given);
    ``delay`` waits first.
    """

    text: str | None = DEFAULT_TEXT
    tool: str | None = None
    tool_input: dict[str, Any] | None = None
    stop_reason: str | None = None
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    input_tokens: int | None = None  # None: estimated from the request size
    output_tokens: int | None = None  # None: estimated from the reply size

    @classmethod
    def tool_use(cls, name: str, tool_input: dict[str, Any], text: str | None = None) -> Reply:
        """A reply that calls tool ``name`` with ``tool_input``."""
        return cls(text=text, tool=name, tool_input=dict(tool_input))

    @classmethod
    def bash(cls, command: str, text: str | None = None, description: str | None = None) -> Reply:
        """A reply that runs ``command`` with Claude Code's ``Bash`` tool."""
        return cls.tool_use("Bash", {"command": command, "description": description or f"run {command}"}, text)

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> Reply:
        """An HTTP error with an Anthropic error body (``overloaded_error`` for 529)."""
        kind = {
            400: "invalid_request_error",
            401: "authentication_error",
            404: "not_found_error",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return cls(status=status, body=_error_body(kind, message))


@dataclass(frozen=True)
class Request:
    """One recorded HTTP request.

    ``path`` has no query string (``query`` holds it); ``headers`` are lower-cased
    without credentials; ``body`` is the parsed JSON body (``None`` if absent or not JSON);
    ``reply`` is what was answered (``None`` for non-model calls).
    """

    number: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    kind: str
    reply: Reply | None = None
    time: float = field(default_factory=time.time)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The body's ``messages`` (empty if none)."""
        messages = (self.body or {}).get("messages")
        return messages if isinstance(messages, list) else []

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form."""
        return asdict(self)


def _error_body(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


def _flatten(content: Any) -> list[str]:
    """Text of a message ``content``: a string or a list of blocks of any type."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [text for block in content for text in _flatten(block)]
    if isinstance(content, dict):
        out: list[str] = []
        for key in ("text", "thinking"):
            if isinstance(content.get(key), str):
                out.append(content[key])
        if content.get("type") == "tool_use":
            out.append(json.dumps(content.get("input", {}), ensure_ascii=False))
        if "content" in content:
            out.extend(_flatten(content["content"]))
        return out
    return [str(content)]


def system_text(body: dict[str, Any] | None) -> str:
    """The request's ``system`` prompt as one string."""
    return "\n".join(_flatten((body or {}).get("system")))


def request_text(request: Request | dict[str, Any], *, include_system: bool = False) -> str:
    """All text of the request's messages, in order, one block per line.

    Covers string contents, text blocks (system reminders and hook context included),
    ``tool_result`` contents and ``tool_use`` inputs (as JSON); ``include_system`` adds the
    ``system`` prompt first. Accepts a :class:`Request` or a raw request body.
    """
    body = request.body if isinstance(request, Request) else request
    parts = [system_text(body)] if include_system else []
    for message in (body or {}).get("messages") or []:
        if isinstance(message, dict):
            parts.extend(_flatten(message.get("content")))
    return "\n".join(parts)


def last_user_text(request: Request | dict[str, Any]) -> str:
    """Text of the last ``user`` message (the prompt of this turn and what came with it)."""
    body = request.body if isinstance(request, Request) else request
    users = [m for m in (body or {}).get("messages") or [] if isinstance(m, dict) and m.get("role") == "user"]
    return "\n".join(_flatten(users[-1].get("content"))) if users else ""


def turn_text(request: Request | dict[str, Any]) -> str:
    """Text of the messages after the last ``assistant`` message: a new prompt together with
    what was injected beside it (hook context arrives as a ``system``-role message or a
    system-reminder block), or the tool results a continuing turn sends back."""
    body = request.body if isinstance(request, Request) else request
    messages = [m for m in (body or {}).get("messages") or [] if isinstance(m, dict)]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return "\n".join(text for m in messages[last + 1 :] for text in _flatten(m.get("content")))


def is_compact_request(body: dict[str, Any] | None) -> bool:
    """Whether a ``/v1/messages`` body asks for the conversation summary of a compaction."""
    messages = (body or {}).get("messages") or []
    if not messages or not isinstance(messages[-1], dict):
        return False
    last = "\n".join(_flatten(messages[-1].get("content")))
    return any(marker in last for marker in COMPACT_MARKERS)


def classify(method: str, path: str, body: dict[str, Any] | None) -> str:
    """The kind of a request: ``main``, ``subagent``, ``compact``, ``aux`` or ``other``."""
    if method != "POST" or not path.startswith(MESSAGES_PATH):
        return "other"
    if path != MESSAGES_PATH or body is None:
        return "aux"  # token counting and the like
    if is_compact_request(body):
        return "compact"
    if not body.get("tools") or body.get("stream") is False:
        return "aux"
    # The first system block is a billing header naming the entrypoint; subagents are marked there.
    if "cc_is_subagent=true" in system_text(body):
        return "subagent"
    return "main"


def _estimate_tokens(raw: bytes | str) -> int:
    return max(1, len(raw) // 4)


class FakeAnthropicServer:
    """A threaded loopback server answering the Messages API (see the module docstring)."""

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        default_text: str = DEFAULT_TEXT,
        compact_summary: str = DEFAULT_COMPACT_SUMMARY,
        model: str = "claude-fake",
        port: int = 0,
        requests_file: os.PathLike[str] | str | None = None,
    ) -> None:
        self._queues: dict[str, deque[Reply]] = {"main": deque(script), "compact": deque(), "aux": deque()}
        self._defaults: dict[str, Reply] = {
            "main": Reply(text=default_text),
            "compact": Reply(text=compact_summary),
            "aux": Reply(text=default_text),
        }
        self.model = model
        self._lock = threading.Lock()
        self._requests: list[Request] = []
        self._ids = itertools.count(1)
        self._requests_file = requests_file
        self.stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _make_handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound TCP port on 127.0.0.1."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What ``ANTHROPIC_BASE_URL`` should be set to."""
        return f"http://127.0.0.1:{self.port}"

    # -- scripting --------------------------------------------------------------------------

    def enqueue(self, *replies: Reply | str, kind: str = "main") -> None:
        """Add scripted replies (a string is a text reply) for requests of ``kind``.

        ``kind`` is ``main`` (turns of the agent and of its subagents, in arrival order),
        ``compact`` or ``aux``.
        """
        queue = self._queue_for(kind)
        with self._lock:
            queue.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

    def enqueue_compact_summary(self, summary: str) -> None:
        """Answer the next compaction request with ``summary``."""
        self.enqueue(Reply(text=summary), kind="compact")

    def set_default(self, reply: Reply | str, kind: str = "main") -> None:
        """Change the reply used once the queue of ``kind`` is empty."""
        self._queue_for(kind)
        with self._lock:
            self._defaults[kind] = Reply(text=reply) if isinstance(reply, str) else reply

    def pending(self, kind: str = "main") -> int:
        """Scripted replies of ``kind`` not used yet."""
        queue = self._queue_for(kind)
        with self._lock:
            return len(queue)

    def _queue_for(self, kind: str) -> deque[Reply]:
        kind = "main" if kind == "subagent" else kind
        if kind not in self._queues:
            raise ValueError(f"unknown reply kind {kind!r}; use main, compact or aux")
        return self._queues[kind]

    # -- the log ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_of(self, *kinds: str) -> list[Request]:
        """The requests of the given kinds, in arrival order."""
        return [r for r in self.requests if r.kind in kinds]

    def main_requests(self) -> list[Request]:
        """Requests of the main agent loop (one per model call of a turn)."""
        return self.requests_of("main")

    def compact_requests(self) -> list[Request]:
        """Compaction (summary) requests."""
        return self.requests_of("compact")

    def model_requests(self) -> list[Request]:
        """Every ``/v1/messages`` call of any kind."""
        return self.requests_of("main", "subagent", "compact", "aux")

    def clear(self) -> None:
        """Forget the recorded requests (scripted replies are kept)."""
        with self._lock:
            self._requests.clear()

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeAnthropicServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self.stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self) -> FakeAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------

    def _record(self, method: str, target: str, headers: dict[str, str], body: dict[str, Any] | None) -> Request:
        parts = urlsplit(target)
        kind = classify(method, parts.path, body)
        clean = {k: v for k, v in headers.items() if k not in _SECRET_HEADERS}
        script = "main" if kind == "subagent" else kind
        with self._lock:
            reply = None
            if script in self._queues and parts.path == MESSAGES_PATH:
                queue = self._queues[script]
                reply = queue.popleft() if queue else self._defaults[script]
            request = Request(
                number=len(self._requests) + 1,
                method=method,
                path=parts.path,
                query=parts.query,
                headers=clean,
                body=body,
                kind=kind,
                reply=reply,
            )
            self._requests.append(request)
            if self._requests_file is not None:
                with open(self._requests_file, "a", encoding="utf-8") as out:
                    out.write(json.dumps(request.to_dict(), ensure_ascii=False) + "\n")
        return request

    def _blocks(self, reply: Reply) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if reply.text is not None:
            blocks.append({"type": "text", "text": reply.text})
        if reply.tool is not None:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_fake{next(self._ids):06d}",
                    "name": reply.tool,
                    "input": reply.tool_input or {},
                }
            )
        return blocks

    def _message(self, request: Request, raw: bytes, reply: Reply) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reply as a complete message object, and its content blocks."""
        blocks = self._blocks(reply)
        stop_reason = reply.stop_reason or ("tool_use" if reply.tool is not None else "end_turn")
        out_text = "".join(b.get("text", "") + json.dumps(b.get("input", "")) for b in blocks)
        usage = {
            "input_tokens": reply.input_tokens if reply.input_tokens is not None else _estimate_tokens(raw),
            "output_tokens": reply.output_tokens if reply.output_tokens is not None else _estimate_tokens(out_text),
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        message = {
            "id": f"msg_fake{request.number:06d}",
            "type": "message",
            "role": "assistant",
            "model": (request.body or {}).get("model") or self.model,
            "content": blocks,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }
        return message, blocks

    def _sse(self, message: dict[str, Any], blocks: list[dict[str, Any]]) -> bytes:
        """The message as the event stream of a ``"stream": true`` call."""
        events: list[tuple[str, dict[str, Any]]] = []
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {**message["usage"], "output_tokens": 1},
        }
        events.append(("message_start", {"type": "message_start", "message": start}))
        events.append(("ping", {"type": "ping"}))
        for index, block in enumerate(blocks):
            head: dict[str, Any]
            delta: dict[str, Any]
            if block["type"] == "text":
                head = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"], ensure_ascii=False)}
            events.append(
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": head})
            )
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": message["usage"]["output_tokens"]},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        text = "".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n" for name, data in events)
        return text.encode("utf-8")


def _make_handler(server: FakeAnthropicServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("request-id", "req_fake")
            if content_type == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _headers(self) -> dict[str, str]:
            return {name.lower(): value for name, value in self.headers.items()}

        def do_HEAD(self) -> None:
            server._record("HEAD", self.path, self._headers(), None)
            self._send(200, b"")

        def do_GET(self) -> None:
            request = server._record("GET", self.path, self._headers(), None)
            self._send(200, b'{"data": [], "has_more": false}' if request.path == "/v1/models" else b"{}")

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            if not isinstance(body, dict):
                body = None
            request = server._record("POST", self.path, self._headers(), body)
            if request.path == COUNT_TOKENS_PATH:
                self._send(200, json.dumps({"input_tokens": _estimate_tokens(raw)}).encode())
                return
            reply = request.reply
            if reply is None:
                self._send(200, b"{}")
                return
            if request.body is None:
                self._send(400, _error_body("invalid_request_error", "body is not a JSON object").encode())
                return
            if reply.delay and server.stopping.wait(reply.delay):
                return
            if reply.status != 200 or reply.body is not None:
                text = reply.body if reply.body is not None else _error_body("api_error", "scripted failure")
                self._send(reply.status, text.encode("utf-8"))
                return
            message, blocks = server._message(request, raw, reply)
            if request.body.get("stream"):
                self._send(200, server._sse(message, blocks), "text/event-stream")
            else:
                self._send(200, json.dumps(message, ensure_ascii=False).encode("utf-8"))

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.fake_anthropic", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--port-file", required=True, help="write the bound port here once listening")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--requests-file", help="append each request as a JSON line here")
    parser.add_argument("--default-text", default=DEFAULT_TEXT, help="text of the default reply")
    args = parser.parse_args(argv)
    server = FakeAnthropicServer(default_text=args.default_text, port=args.port, requests_file=args.requests_file)
    done = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: done.set())
    server.start()
    tmp = f"{args.port_file}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(str(server.port))
    os.replace(tmp, args.port_file)
    print(server.base_url, flush=True)
    done.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
