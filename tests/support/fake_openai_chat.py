"""A real loopback HTTP server standing in for an OpenAI-compatible chat completions API,
as a coding agent uses it: streamed (Server-Sent Events) or not, with tool calls.

It speaks enough of the API for Pi (``api: "openai-completions"``)::

    with FakeOpenAIChatServer() as server:
        server.enqueue(ChatReply.tool("bash", {"command": "ls"}), "Listed.")
        ...  # point the agent's baseUrl at server.base_url
        assert len(server.completion_requests()) == 2
        assert "MARKER" in request_text(server.completion_requests()[0])

``POST /v1/chat/completions`` answers with the next scripted reply (:class:`ChatReply`, or a
plain string for a text reply), else the default text. With ``"stream": true`` the answer is
an SSE stream: ``data: {chunk}`` lines (``chat.completion.chunk`` objects: the role, the
text deltas, the tool call deltas, then the ``finish_reason``; a usage chunk when
``stream_options.include_usage`` asks for one) and ``data: [DONE]``. Without it, one
``chat.completion`` object. ``GET /v1/models`` lists the model names seen so far (or
``fake-model``). Anything else is a 404.

Every request is recorded (:class:`ChatRequest`: method, path, headers without
credentials, parsed body); :func:`request_text` and :func:`turn_text` read the messages.
``--requests-file`` (process mode) appends each request body as one JSON line.

As a separate process (to try an agent by hand)::

    python -m tests.support.fake_openai_chat --port-file PORT [--requests-file REQUESTS.jsonl]
        [--default TEXT]

Built on :mod:`tests.support.loopback_server`; only the standard library is used.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.loopback_server import LoopbackHandler, LoopbackServer, serve

COMPLETIONS_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
DEFAULT_TEXT = "OK."
CHUNK_CHARS = 16  # text is streamed in deltas of this many characters
_SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"}


@dataclass(frozen=True)
class ChatReply:
    """One scripted answer.

    ``text`` is the assistant's text (``None``: none); ``tool``/``arguments`` add one tool
    call after it (``finish_reason`` then defaults to ``tool_calls``, else ``stop``).
    ``status`` other than 200 sends an OpenAI error body; ``delay`` waits first.
    """

    text: str | None = DEFAULT_TEXT
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    finish_reason: str | None = None
    status: int = 200
    delay: float = 0.0

    @classmethod
    def tool_call(cls, name: str, arguments: dict[str, Any], text: str | None = None) -> ChatReply:
        """A reply that calls tool ``name`` with ``arguments``."""
        return cls(text=text, tool=name, arguments=dict(arguments))

    @classmethod
    def error(cls, status: int) -> ChatReply:
        """An HTTP error with an OpenAI-style error body."""
        return cls(text=None, status=status)

    @property
    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool else "stop")


@dataclass(frozen=True)
class ChatRequest:
    """One recorded HTTP request (``headers`` lower-cased, credentials left out)."""

    number: int
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    reply: ChatReply | None = None
    time: float = field(default_factory=time.time)

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = (self.body or {}).get("messages")
        return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []

    @property
    def is_completion(self) -> bool:
        return self.method == "POST" and self.path == COMPLETIONS_PATH


def _flatten(content: Any) -> list[str]:
    """Text of a message ``content``: a string, or a list of parts with ``text``."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [text for part in content for text in _flatten(part)]
    if isinstance(content, dict):
        text = content.get("text")
        return [text] if isinstance(text, str) else []
    return [str(content)]


def _message_texts(message: dict[str, Any]) -> list[str]:
    texts = _flatten(message.get("content"))
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict) and isinstance(call.get("function"), dict):
            texts.append(str(call["function"].get("arguments") or ""))
    return texts


def _body(request: ChatRequest | dict[str, Any]) -> dict[str, Any]:
    return (request.body or {}) if isinstance(request, ChatRequest) else request


def request_text(request: ChatRequest | dict[str, Any], *, include_system: bool = False) -> str:
    """All text of the request's messages in order, one part per line (tool call arguments
    as their JSON string); ``system``/``developer`` messages only with ``include_system``."""
    parts: list[str] = []
    for message in _body(request).get("messages") or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") in ("system", "developer") and not include_system:
            continue
        parts.extend(_message_texts(message))
    return "\n".join(parts)


def turn_text(request: ChatRequest | dict[str, Any]) -> str:
    """Text of the messages after the last ``assistant`` message: the new prompt with what was
    injected beside it, or the tool results a continuing turn sends back."""
    messages = [m for m in _body(request).get("messages") or [] if isinstance(m, dict)]
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return "\n".join(t for m in messages[last + 1 :] for t in _message_texts(m))


def user_texts(request: ChatRequest | dict[str, Any]) -> list[str]:
    """The text of each ``user`` message, in order."""
    return [
        "\n".join(_flatten(m.get("content")))
        for m in _body(request).get("messages") or []
        if isinstance(m, dict) and m.get("role") == "user"
    ]


class FakeOpenAIChatServer(LoopbackServer):
    """A threaded loopback server answering ``/v1/chat/completions`` (streamed or not)."""

    thread_name = "fake-openai-chat"

    def __init__(
        self,
        script: Iterable[ChatReply | str] = (),
        *,
        default: ChatReply | str = DEFAULT_TEXT,
        port: int = 0,
        requests_file: Path | None = None,
    ) -> None:
        super().__init__(_make_handler, port=port)
        self._queue: deque[ChatReply] = deque(_reply(r) for r in script)
        self._default = _reply(default)
        self._requests: list[ChatRequest] = []
        self._numbers = itertools.count(1)
        self._requests_file = requests_file

    @property
    def base_url(self) -> str:
        """The ``baseUrl`` an OpenAI-compatible client is given: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: ChatReply | str) -> None:
        """Add scripted replies (a string is a text reply), used in order before the default."""
        with self._lock:
            self._queue.extend(_reply(r) for r in replies)

    def pending(self) -> int:
        """Scripted replies not used yet."""
        with self._lock:
            return len(self._queue)

    def requests(self) -> list[ChatRequest]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def completion_requests(self) -> list[ChatRequest]:
        """The ``POST /v1/chat/completions`` requests so far."""
        return [r for r in self.requests() if r.is_completion]

    def _record(self, method: str, path: str, headers: dict[str, str], body: dict[str, Any] | None) -> ChatRequest:
        with self._lock:
            reply = None
            if method == "POST" and path == COMPLETIONS_PATH:
                reply = self._queue.popleft() if self._queue else self._default
            request = ChatRequest(next(self._numbers), method, path, headers, body, reply)
            self._requests.append(request)
            if self._requests_file is not None and body is not None:
                with self._requests_file.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(body, ensure_ascii=False) + "\n")
            return request

    def _models(self) -> dict[str, Any]:
        names = {str(r.body.get("model")) for r in self.requests() if r.body and r.body.get("model")}
        return {
            "object": "list",
            "data": [{"id": n, "object": "model", "owned_by": "fake"} for n in sorted(names or {"fake-model"})],
        }


def _reply(reply: ChatReply | str) -> ChatReply:
    return ChatReply(text=reply) if isinstance(reply, str) else reply


def _usage(request: ChatRequest, reply: ChatReply) -> dict[str, int]:
    prompt = max(1, len(json.dumps(request.body or {})) // 4)
    completion = max(1, len(reply.text or "") // 4 + (8 if reply.tool else 0))
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _tool_calls(request: ChatRequest, reply: ChatReply) -> list[dict[str, Any]]:
    if not reply.tool:
        return []
    arguments = json.dumps(reply.arguments or {}, ensure_ascii=False)
    return [
        {
            "index": 0,
            "id": f"call_{request.number}",
            "type": "function",
            "function": {"name": reply.tool, "arguments": arguments},
        }
    ]


def _completion(request: ChatRequest, reply: ChatReply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    calls = _tool_calls(request, reply)
    if calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
    return {
        "id": f"chatcmpl-fake-{request.number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": (request.body or {}).get("model") or "fake-model",
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
        "usage": _usage(request, reply),
    }


def _chunks(request: ChatRequest, reply: ChatReply) -> list[dict[str, Any]]:
    """The ``chat.completion.chunk`` objects of a streamed reply, in order."""
    body = request.body or {}
    base = {
        "id": f"chatcmpl-fake-{request.number}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model") or "fake-model",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    text = reply.text or ""
    out += [chunk({"content": text[i : i + CHUNK_CHARS]}) for i in range(0, len(text), CHUNK_CHARS)]
    for call in _tool_calls(request, reply):
        arguments = call["function"]["arguments"]
        out.append(chunk({"tool_calls": [{**call, "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        out.append(chunk({"tool_calls": [{"index": call["index"], "function": {"arguments": arguments}}]}))
    out.append(chunk({}, reply.finish))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        out.append({**base, "choices": [], "usage": _usage(request, reply)})
    return out


def _make_handler(server: FakeOpenAIChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(LoopbackHandler):
        def _send(self, status: int, body: dict[str, Any]) -> None:
            self.send(status, json.dumps(body, ensure_ascii=False).encode("utf-8"))

        def _headers(self) -> dict[str, str]:
            return {k: v for k, v in self.lower_headers().items() if k not in _SECRET_HEADERS}

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            server._record("GET", path, self._headers(), None)
            if path == MODELS_PATH:
                self._send(200, server._models())
            else:
                self._send(404, {"error": {"message": "not found", "type": "fake"}})

        def do_POST(self) -> None:
            raw = self.read_body()
            path = urlsplit(self.path).path
            body = self.json_object(raw)
            request = server._record("POST", path, self._headers(), body)
            if request.reply is None:
                self._send(404, {"error": {"message": "not found", "type": "fake"}})
                return
            reply = request.reply
            if reply.delay and server.stopping.wait(reply.delay):
                return
            if request.body is None:
                self._send(400, {"error": {"message": "request body is not a JSON object", "type": "fake"}})
            elif reply.status != 200:
                self._send(
                    reply.status, {"error": {"message": "scripted failure", "type": "fake", "code": str(reply.status)}}
                )
            elif request.body.get("stream"):
                self._stream(_chunks(request, reply))
            else:
                self._send(200, _completion(request, reply))

        def _stream(self, chunks: list[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for item in chunks:
                    self.wfile.write(f"data: {json.dumps(item, ensure_ascii=False)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except OSError:
                pass  # the client went away

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.fake_openai_chat", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--port-file", type=Path, required=True, help="write the bound port here once listening")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--requests-file", type=Path, help="append each request body here as a JSON line")
    parser.add_argument("--default", default=DEFAULT_TEXT, help="the text of every reply")
    args = parser.parse_args(argv)
    server = FakeOpenAIChatServer(default=args.default, port=args.port, requests_file=args.requests_file)
    return serve(server, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
