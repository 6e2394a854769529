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

Built on :mod:`tests.support.loopback_server`; only the standard library is used.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tests.support.loopback_server import LoggedRequest, ScriptedServer, arguments, estimate_tokens, serve

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
class Request(LoggedRequest):
    """One recorded HTTP request (see :class:`~tests.support.loopback_server.LoggedRequest`);
    ``reply`` is the :class:`Reply` answered."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The body's ``messages`` (empty if none)."""
        messages = (self.body or {}).get("messages")
        return messages if isinstance(messages, list) else []


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


class FakeAnthropicServer(ScriptedServer):
    """A threaded loopback server answering the Messages API (see the module docstring)."""

    thread_name = "fake-anthropic"
    reply_type = Reply
    request_type = Request
    secret_headers = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie"})
    reply_kinds = ("main", "compact", "aux")
    send_headers = {"request-id": "req_fake"}

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
        defaults = {
            "main": Reply(text=default_text),
            "compact": Reply(text=compact_summary),
            "aux": Reply(text=default_text),
        }
        super().__init__(script, defaults=defaults, port=port, requests_file=requests_file)
        self.model = model
        self._ids = itertools.count(1)

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
        super().enqueue(*replies, kind=kind)

    def enqueue_compact_summary(self, summary: str) -> None:
        """Answer the next compaction request with ``summary``."""
        self.enqueue(Reply(text=summary), kind="compact")

    # -- the log ----------------------------------------------------------------------------

    def compact_requests(self) -> list[Request]:
        """Compaction (summary) requests."""
        return self.requests_of("compact")

    def model_requests(self) -> list[Request]:
        """Every ``/v1/messages`` call of any kind."""
        return self.requests_of("main", "subagent", "compact", "aux")

    # -- answering --------------------------------------------------------------------------

    def classify(self, method: str, path: str, body: dict[str, Any] | None) -> str:
        return classify(method, path, body)

    def queue_kind(self, kind: str) -> str:
        return "main" if kind == "subagent" else kind  # subagents share the main queue

    def scripted(self, path: str) -> bool:
        return path == MESSAGES_PATH

    def get_body(self, request: Request) -> bytes:
        return b'{"data": [], "has_more": false}' if request.path == "/v1/models" else b"{}"

    def special(self, request: Request, raw: bytes) -> bytes | None:
        if request.path == COUNT_TOKENS_PATH:
            return json.dumps({"input_tokens": estimate_tokens(raw)}).encode()
        return None

    def error_body(self, status: int, message: str, *, invalid: bool = False) -> str:
        return _error_body("invalid_request_error" if invalid else "api_error", message)

    def answer(self, request: Request, raw: bytes, reply: Reply) -> tuple[bytes, str]:
        message, blocks = self._message(request, raw, reply)
        if (request.body or {}).get("stream"):
            return self._sse(message, blocks), "text/event-stream"
        return json.dumps(message, ensure_ascii=False).encode("utf-8"), "application/json"

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
            "input_tokens": reply.input_tokens if reply.input_tokens is not None else estimate_tokens(raw),
            "output_tokens": reply.output_tokens if reply.output_tokens is not None else estimate_tokens(out_text),
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


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    args = arguments("tests.support.fake_anthropic", __doc__, DEFAULT_TEXT).parse_args(argv)
    server = FakeAnthropicServer(default_text=args.default_text, port=args.port, requests_file=args.requests_file)
    return serve(server, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
