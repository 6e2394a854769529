"""A real loopback HTTP server standing in for the Gemini API (``generativelanguage``).

It speaks enough of the API for the Gemini CLI (``gemini -p``, pointed at it with
``GOOGLE_GEMINI_BASE_URL``)::

    with FakeGeminiServer() as server:
        server.enqueue(Reply.shell("ls"), Reply(text="Listed."))
        ...  # run gemini with GOOGLE_GEMINI_BASE_URL=server.base_url
        assert len(server.main_requests()) == 2
        assert "MARKER" in turn_text(server.main_requests()[0])

``POST /v1beta/models/MODEL:streamGenerateContent`` (``?alt=sse``) answers with
Server-Sent Events, one ``data: GenerateContentResponse`` chunk per part and a last chunk
with ``finishReason`` and ``usageMetadata``. ``POST …:generateContent`` answers one
``GenerateContentResponse`` (the CLI's side calls; a JSON answer when the request asks for
JSON), ``POST …:countTokens`` an estimate, ``POST …:embedContent`` a tiny vector, and any
``GET`` (model listing included) ``200`` with a harmless body.

Every request is recorded (see :class:`Request`) and classified by :func:`classify`:
``main`` (a streamed turn of the agent loop), ``aux`` (any other model call) and ``other``
(anything that is not a model call). Scripted replies are kept in one queue per kind; an
empty queue falls back to the default reply (``"OK."``).

As a separate process (to try the CLI by hand)::

    python -m tests.support.fake_gemini --port-file PORT [--requests-file REQUESTS.jsonl]

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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

MODELS_PREFIX = "/v1beta/models/"
STREAM_METHOD = "streamGenerateContent"
KINDS = ("main", "aux", "other")
DEFAULT_TEXT = "OK."
SHELL_TOOL = "run_shell_command"
_SECRET_HEADERS = {"x-goog-api-key", "authorization", "proxy-authorization", "cookie"}


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a model call.

    ``text`` is a text part (``None``: none); ``tool``/``tool_args`` add a ``functionCall``
    part after it. ``status`` other than 200 sends a Google error body (or ``body`` if
    given); ``delay`` waits first.
    """

    text: str | None = DEFAULT_TEXT
    tool: str | None = None
    tool_args: dict[str, Any] | None = None
    finish_reason: str = "STOP"
    status: int = 200
    body: str | None = None
    delay: float = 0.0

    @classmethod
    def tool_call(cls, name: str, args: dict[str, Any], text: str | None = None) -> Reply:
        """A reply that calls tool ``name`` with ``args``."""
        return cls(text=text, tool=name, tool_args=dict(args))

    @classmethod
    def shell(cls, command: str, text: str | None = None, description: str | None = None) -> Reply:
        """A reply that runs ``command`` with the CLI's ``run_shell_command`` tool."""
        return cls.tool_call(SHELL_TOOL, {"command": command, "description": description or f"run {command}"}, text)

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> Reply:
        """An HTTP error with a Google API error body."""
        return cls(status=status, body=_error_body(status, message))


@dataclass(frozen=True)
class Request:
    """One recorded HTTP request.

    ``path`` has no query string (``query`` holds it); ``method_name`` is the API method
    after the colon (``streamGenerateContent``), ``model`` the model in the path;
    ``headers`` are lower-cased without credentials; ``body`` is the parsed JSON body
    (``None`` if absent or not JSON); ``reply`` is what was answered (``None`` for
    non-model calls).
    """

    number: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    kind: str
    model: str | None = None
    method_name: str | None = None
    reply: Reply | None = None
    time: float = field(default_factory=time.time)

    @property
    def contents(self) -> list[dict[str, Any]]:
        """The body's ``contents`` (empty if none)."""
        contents = (self.body or {}).get("contents")
        return [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form."""
        return asdict(self)


def _error_body(status: int, message: str) -> str:
    statuses = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}
    return json.dumps({"error": {"code": status, "message": message, "status": statuses.get(status, "INTERNAL")}})


def split_model_path(path: str) -> tuple[str | None, str | None]:
    """``/v1beta/models/gemini-2.5-flash:streamGenerateContent`` -> (model, method)."""
    if not path.startswith(MODELS_PREFIX):
        return None, None
    rest = path[len(MODELS_PREFIX):]
    model, colon, method = rest.partition(":")
    return (model or None), (method if colon else None)


def part_texts(parts: Any) -> list[str]:
    """Text of a list of parts: text parts, function calls (name and args as JSON) and
    function responses (as JSON)."""
    out: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            out.append(part["text"])
        if isinstance(part.get("functionCall"), dict):
            out.append(json.dumps(part["functionCall"], ensure_ascii=False))
        if isinstance(part.get("functionResponse"), dict):
            out.append(json.dumps(part["functionResponse"], ensure_ascii=False))
    return out


def _body(request: Request | dict[str, Any] | None) -> dict[str, Any]:
    body = request.body if isinstance(request, Request) else request
    return body or {}


def system_text(request: Request | dict[str, Any] | None) -> str:
    """The request's ``systemInstruction`` as one string."""
    instruction = _body(request).get("systemInstruction")
    if isinstance(instruction, str):
        return instruction
    return "\n".join(part_texts(instruction.get("parts") if isinstance(instruction, dict) else None))


def request_text(request: Request | dict[str, Any], *, include_system: bool = False) -> str:
    """All text of the request's ``contents``, in order, one part per line (function calls
    and responses as JSON); ``include_system`` adds the system instruction first."""
    parts = [system_text(request)] if include_system else []
    for content in _body(request).get("contents") or []:
        if isinstance(content, dict):
            parts.extend(part_texts(content.get("parts")))
    return "\n".join(parts)


def turn_text(request: Request | dict[str, Any]) -> str:
    """Text of the contents after the last ``model`` content: a new prompt together with
    what hooks injected beside it (``<hook_context>`` parts), or the function responses a
    continuing turn sends back."""
    contents = [c for c in _body(request).get("contents") or [] if isinstance(c, dict)]
    last = max((i for i, c in enumerate(contents) if c.get("role") == "model"), default=-1)
    return "\n".join(text for c in contents[last + 1:] for text in part_texts(c.get("parts")))


def hook_contexts(request: Request | dict[str, Any]) -> list[str]:
    """What hooks injected beside the latest prompt (``<hook_context>`` parts after the last
    ``model`` content), unescaped: Gemini CLI writes ``<`` and ``>`` of a hook's
    ``additionalContext`` as ``&lt;`` and ``&gt;``."""
    found = re.findall(r"<hook_context>(.*?)</hook_context>", turn_text(request), re.DOTALL)
    return [text.replace("&lt;", "<").replace("&gt;", ">") for text in found]


def classify(method: str, path: str) -> str:
    """The kind of a request: ``main`` (a streamed turn), ``aux`` (another model call) or ``other``."""
    model, api_method = split_model_path(path)
    if method != "POST" or model is None or api_method is None:
        return "other"
    return "main" if api_method == STREAM_METHOD else "aux"


def _estimate_tokens(raw: bytes | str) -> int:
    return max(1, len(raw) // 4)


class FakeGeminiServer:
    """A threaded loopback server answering the Gemini API (see the module docstring)."""

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        default_text: str = DEFAULT_TEXT,
        port: int = 0,
        requests_file: os.PathLike[str] | str | None = None,
    ) -> None:
        self._queues: dict[str, deque[Reply]] = {"main": deque(script), "aux": deque()}
        self._defaults: dict[str, Reply] = {"main": Reply(text=default_text), "aux": Reply(text=default_text)}
        self._lock = threading.Lock()
        self._requests: list[Request] = []
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
        """What ``GOOGLE_GEMINI_BASE_URL`` should be set to."""
        return f"http://127.0.0.1:{self.port}"

    # -- scripting --------------------------------------------------------------------------

    def enqueue(self, *replies: Reply | str, kind: str = "main") -> None:
        """Add scripted replies (a string is a text reply) for requests of ``kind`` (main or aux)."""
        queue = self._queue_for(kind)
        with self._lock:
            queue.extend(Reply(text=r) if isinstance(r, str) else r for r in replies)

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
        if kind not in self._queues:
            raise ValueError(f"unknown reply kind {kind!r}; use main or aux")
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
        """Streamed requests of the agent loop (one per model call of a turn)."""
        return self.requests_of("main")

    def model_requests(self) -> list[Request]:
        """Every model call of any kind."""
        return self.requests_of("main", "aux")

    def clear(self) -> None:
        """Forget the recorded requests (scripted replies are kept)."""
        with self._lock:
            self._requests.clear()

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeGeminiServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-gemini", daemon=True
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

    def __enter__(self) -> FakeGeminiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------

    def _record(self, method: str, target: str, headers: dict[str, str], body: dict[str, Any] | None) -> Request:
        parts = urlsplit(target)
        kind = classify(method, parts.path)
        model, api_method = split_model_path(parts.path)
        clean = {k: v for k, v in headers.items() if k not in _SECRET_HEADERS}
        with self._lock:
            reply = None
            if kind in self._queues and api_method in (STREAM_METHOD, "generateContent"):
                queue = self._queues[kind]
                reply = queue.popleft() if queue else self._defaults[kind]
            request = Request(number=len(self._requests) + 1, method=method, path=parts.path, query=parts.query,
                              headers=clean, body=body, kind=kind, model=model, method_name=api_method, reply=reply)
            self._requests.append(request)
            if self._requests_file is not None:
                with open(self._requests_file, "a", encoding="utf-8") as out:
                    out.write(json.dumps(request.to_dict(), ensure_ascii=False) + "\n")
        return request

    @staticmethod
    def _parts(reply: Reply) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = []
        if reply.text is not None:
            parts.append({"text": reply.text})
        if reply.tool is not None:
            parts.append({"functionCall": {"name": reply.tool, "args": reply.tool_args or {}}})
        return parts

    @staticmethod
    def _usage(raw: bytes, parts: list[dict[str, Any]]) -> dict[str, int]:
        prompt = _estimate_tokens(raw)
        out = _estimate_tokens(json.dumps(parts))
        return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}

    def _response(self, request: Request, raw: bytes, reply: Reply) -> dict[str, Any]:
        """The reply as one complete ``GenerateContentResponse``."""
        parts = self._parts(reply)
        if reply.text is not None and _wants_json(request.body):
            parts = [{"text": _json_answer(request.body)}]
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": reply.finish_reason,
                            "index": 0}],
            "usageMetadata": self._usage(raw, parts),
            "modelVersion": request.model or "gemini-fake",
            "responseId": f"fake-{request.number:06d}",
        }

    def _sse(self, request: Request, raw: bytes, reply: Reply) -> bytes:
        """The reply as the event stream of ``streamGenerateContent?alt=sse``: one chunk per
        part, the last one carrying ``finishReason`` and usage."""
        parts = self._parts(reply) or [{"text": ""}]
        chunks = []
        for i, part in enumerate(parts):
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
            chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": request.model or "gemini-fake",
                                     "responseId": f"fake-{request.number:06d}"}
            if i == len(parts) - 1:
                candidate["finishReason"] = reply.finish_reason
                chunk["usageMetadata"] = self._usage(raw, parts)
            chunks.append(chunk)
        return "".join(f"data: {json.dumps(c, ensure_ascii=False)}\r\n\r\n" for c in chunks).encode("utf-8")


def _wants_json(body: dict[str, Any] | None) -> bool:
    config = (body or {}).get("generationConfig")
    return isinstance(config, dict) and config.get("responseMimeType") == "application/json"


def _json_answer(body: dict[str, Any] | None) -> str:
    """A harmless answer to the CLI's JSON side calls (routing, next-speaker, loop checks)."""
    return json.dumps({"reasoning": "fake", "next_speaker": "user", "model_choice": "flash",
                       "is_stuck": False, "unproductive_state_confidence": 0.0, "complexity_score": 1})


def _make_handler(server: FakeGeminiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
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
            self._send(200, b'{"models": []}' if request.path.rstrip("/").endswith("/models") else b"{}")

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            if not isinstance(body, dict):
                body = None
            request = server._record("POST", self.path, self._headers(), body)
            if request.method_name == "countTokens":
                self._send(200, json.dumps({"totalTokens": _estimate_tokens(raw)}).encode())
                return
            if request.method_name in ("embedContent", "batchEmbedContents"):
                vector = {"values": [0.0] * 8}
                answer = {"embedding": vector} if request.method_name == "embedContent" else {"embeddings": [vector]}
                self._send(200, json.dumps(answer).encode())
                return
            reply = request.reply
            if reply is None:
                self._send(200, b"{}")
                return
            if request.body is None:
                self._send(400, _error_body(400, "body is not a JSON object").encode())
                return
            if reply.delay and server.stopping.wait(reply.delay):
                return
            if reply.status != 200 or reply.body is not None:
                text = reply.body if reply.body is not None else _error_body(reply.status, "scripted failure")
                self._send(reply.status, text.encode("utf-8"))
                return
            if request.method_name == STREAM_METHOD:
                self._send(200, server._sse(request, raw, reply), "text/event-stream")
            else:
                self._send(200, json.dumps(server._response(request, raw, reply), ensure_ascii=False).encode())

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_gemini",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--port-file", required=True, help="write the bound port here once listening")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    parser.add_argument("--requests-file", help="append each request as a JSON line here")
    parser.add_argument("--default-text", default=DEFAULT_TEXT, help="text of the default reply")
    args = parser.parse_args(argv)
    server = FakeGeminiServer(default_text=args.default_text, port=args.port, requests_file=args.requests_file)
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
