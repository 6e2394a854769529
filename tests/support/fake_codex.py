"""A real loopback HTTP server standing in for the OpenAI Responses API, for the Codex CLI.

It speaks enough of the API for ``codex exec`` (configured with a model provider whose
``base_url`` is ``server.base_url`` and ``wire_api = "responses"``)::

    with FakeCodexServer() as server:
        server.enqueue(Reply.exec_command("ls"), Reply(text="Listed."))
        ...  # run codex exec against server.base_url
        assert len(server.main_requests()) == 2
        assert "MARKER" in turn_text(server.main_requests()[0])

``POST /v1/responses`` answers with Server-Sent Events: ``response.created``, then per
output item ``response.output_item.added``, (``response.output_text.delta`` for a message)
and ``response.output_item.done``, and last ``response.completed`` with the response id and
usage; Codex ends a turn's model call only on ``response.completed``. A reply is a text
message, optionally followed by one ``function_call`` (the shell tool is ``exec_command``
with ``{"cmd": …}``). ``GET`` on any path answers ``200`` (``/v1/models`` an empty list);
any other ``POST`` ``200`` with ``{}``.

Every request is recorded (see :class:`Request`) and classified by :func:`classify`:
``main`` (a turn of the agent loop: a streamed ``/v1/responses`` call with tools),
``aux`` (another ``/v1/responses`` call) and ``other``. Scripted replies are kept in one
queue per kind; an empty queue falls back to the default reply (``"OK."``).

As a separate process (to try the CLI by hand)::

    python -m tests.support.fake_codex --port-file PORT [--requests-file REQUESTS.jsonl]

Built on :mod:`tests.support.loopback_server`; only the standard library is used.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tests.support.loopback_server import LoggedRequest, ScriptedServer, arguments, estimate_tokens, serve

RESPONSES_PATH = "/v1/responses"
KINDS = ("main", "aux", "other")
DEFAULT_TEXT = "OK."
SHELL_TOOL = "exec_command"
# How the user-role messages Codex writes on its own start (not the user's prompt).
CONTEXT_PREFIXES = ("<environment_context>", "# AGENTS.md instructions", "<user_instructions>", "<INSTRUCTIONS>")


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a model call.

    ``text`` is an assistant message (``None``: none); ``tool``/``tool_args`` add a
    ``function_call`` item after it (its ``arguments`` the JSON of ``tool_args``), in the
    tool ``namespace`` when given (Codex offers an MCP server's tools as the namespace
    ``mcp__<server>``). ``status`` other than 200 sends an OpenAI error body (or ``body`` if given); ``delay``
    waits first.
    """

    text: str | None = DEFAULT_TEXT
    tool: str | None = None
    tool_args: dict[str, Any] | None = None
    status: int = 200
    body: str | None = None
    delay: float = 0.0
    namespace: str | None = None

    @classmethod
    def function_call(cls, name: str, args: dict[str, Any], text: str | None = None) -> Reply:
        """A reply that calls function ``name`` with ``args``."""
        return cls(text=text, tool=name, tool_args=dict(args))

    @classmethod
    def mcp_call(cls, server: str, tool: str, args: dict[str, Any], text: str | None = None) -> Reply:
        """A reply that calls ``tool`` of the MCP server ``server`` with ``args``."""
        return cls(text=text, tool=tool, tool_args=dict(args), namespace=f"mcp__{server}")

    @classmethod
    def exec_command(cls, cmd: str, text: str | None = None) -> Reply:
        """A reply that runs ``cmd`` with Codex's shell tool (``exec_command``)."""
        return cls.function_call(SHELL_TOOL, {"cmd": cmd}, text)

    @classmethod
    def error(cls, status: int, message: str = "scripted failure") -> Reply:
        """An HTTP error with an OpenAI error body."""
        return cls(status=status, body=_error_body(status, message))


@dataclass(frozen=True)
class Request(LoggedRequest):
    """One recorded HTTP request (see :class:`~tests.support.loopback_server.LoggedRequest`);
    ``reply`` is the :class:`Reply` answered."""

    @property
    def input(self) -> list[dict[str, Any]]:
        """The body's ``input`` items (empty if none)."""
        items = (self.body or {}).get("input")
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def _error_body(status: int, message: str) -> str:
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "not_found_error",
        429: "rate_limit_exceeded",
    }.get(status, "server_error")
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": kind}})


def item_texts(item: Any) -> list[str]:
    """Text of one input item: message content parts, function calls (name and arguments)
    and function call outputs."""
    if not isinstance(item, dict):
        return []
    kind = item.get("type")
    if kind == "function_call":
        return [f"{item.get('name')} {item.get('arguments')}"]
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        return [output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)]
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(part["text"])
    return out


def _body(request: Request | dict[str, Any] | None) -> dict[str, Any]:
    body = request.body if isinstance(request, Request) else request
    return body or {}


def _items(request: Request | dict[str, Any]) -> list[dict[str, Any]]:
    items = _body(request).get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def system_text(request: Request | dict[str, Any]) -> str:
    """The request's ``instructions`` and its developer messages, one per line."""
    parts = []
    instructions = _body(request).get("instructions")
    if isinstance(instructions, str):
        parts.append(instructions)
    for item in _items(request):
        if item.get("role") in ("developer", "system"):
            parts.extend(item_texts(item))
    return "\n".join(parts)


def request_text(request: Request | dict[str, Any], *, include_system: bool = False) -> str:
    """All text of the request's input items, in order, one part per line; developer and
    system messages (Codex's own instructions, and hook context) only with
    ``include_system`` (``instructions`` then first)."""
    parts = []
    if include_system and isinstance(_body(request).get("instructions"), str):
        parts.append(_body(request)["instructions"])
    for item in _items(request):
        if item.get("role") in ("developer", "system") and not include_system:
            continue
        parts.extend(item_texts(item))
    return "\n".join(parts)


def turn_text(request: Request | dict[str, Any]) -> str:
    """Text of the current turn's new items: the user's prompt and what was injected after
    it (Codex puts a hook's ``additionalContext`` in a developer message right after the
    prompt), or, in a continuing turn, the tool outputs after the last call."""
    items = _items(request)
    last = max(
        (i for i, item in enumerate(items) if item.get("role") == "assistant" or item.get("type") == "function_call"),
        default=-1,
    )
    prompts = [i for i, item in enumerate(items) if i > last and item.get("role") == "user" and not _is_context(item)]
    start = prompts[-1] if prompts else last + 1
    return "\n".join(text for item in items[start:] for text in item_texts(item))


def _is_context(item: dict[str, Any]) -> bool:
    """A user-role message Codex writes itself (AGENTS.md instructions, the environment)."""
    texts = item_texts(item)
    return bool(texts) and all(text.startswith(CONTEXT_PREFIXES) for text in texts)


def classify(method: str, path: str, body: dict[str, Any] | None) -> str:
    """The kind of a request: ``main`` (a turn of the agent loop), ``aux`` (another model
    call) or ``other`` (anything that is not a model call)."""
    if method != "POST" or path != RESPONSES_PATH:
        return "other"
    if body is None or not body.get("tools"):
        return "aux"
    return "main"


class FakeCodexServer(ScriptedServer):
    """A threaded loopback server answering the Responses API (see the module docstring)."""

    thread_name = "fake-codex"
    reply_type = Reply
    request_type = Request
    secret_headers = frozenset({"authorization", "proxy-authorization", "cookie", "openai-api-key"})
    send_headers = {"x-request-id": "req_fake"}

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        default_text: str = DEFAULT_TEXT,
        model: str = "fake-model",
        port: int = 0,
        requests_file: os.PathLike[str] | str | None = None,
    ) -> None:
        defaults = {"main": Reply(text=default_text), "aux": Reply(text=default_text)}
        super().__init__(script, defaults=defaults, port=port, requests_file=requests_file)
        self.model = model
        self._ids = itertools.count(1)

    @property
    def base_url(self) -> str:
        """The provider's ``base_url`` (with ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def model_requests(self) -> list[Request]:
        """Every ``/v1/responses`` call of any kind."""
        return self.requests_of("main", "aux")

    # -- answering --------------------------------------------------------------------------

    def classify(self, method: str, path: str, body: dict[str, Any] | None) -> str:
        return classify(method, path, body)

    def get_body(self, request: Request) -> bytes:
        models = request.path.rstrip("/").endswith("/models")
        return b'{"object": "list", "data": [], "models": []}' if models else b"{}"

    def error_body(self, status: int, message: str, *, invalid: bool = False) -> str:
        return _error_body(status, message)

    def answer(self, request: Request, raw: bytes, reply: Reply) -> tuple[bytes, str]:
        response, items = self._response(request, raw, reply)
        if (request.body or {}).get("stream"):
            return self._sse(response, items), "text/event-stream"
        return json.dumps(response, ensure_ascii=False).encode("utf-8"), "application/json"

    def _output_items(self, request: Request, reply: Reply) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if reply.text is not None:
            items.append(
                {
                    "type": "message",
                    "id": f"msg_fake{request.number:06d}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
                }
            )
        if reply.tool is not None:
            number = next(self._ids)
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_fake{number:06d}",
                    "status": "completed",
                    "call_id": f"call_fake{number:06d}",
                    "name": reply.tool,
                    "arguments": json.dumps(reply.tool_args or {}, ensure_ascii=False),
                    **({"namespace": reply.namespace} if reply.namespace is not None else {}),
                }
            )
        return items

    def _response(self, request: Request, raw: bytes, reply: Reply) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The reply as a complete response object, and its output items."""
        items = self._output_items(request, reply)
        input_tokens = estimate_tokens(raw)
        output_tokens = estimate_tokens(json.dumps(items))
        response = {
            "id": f"resp_fake{request.number:06d}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": (request.body or {}).get("model") or self.model,
            "output": items,
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input_tokens + output_tokens,
            },
        }
        return response, items

    def _sse(self, response: dict[str, Any], items: list[dict[str, Any]]) -> bytes:
        """The response as the event stream of a ``"stream": true`` call."""
        events: list[dict[str, Any]] = []
        sequence = itertools.count()
        head = {**response, "status": "in_progress", "output": []}
        events.append({"type": "response.created", "response": head})
        events.append({"type": "response.in_progress", "response": head})
        for index, item in enumerate(items):
            if item["type"] == "message":
                text = item["content"][0]["text"]
                events.append(
                    {
                        "type": "response.output_item.added",
                        "output_index": index,
                        "item": {**item, "status": "in_progress", "content": []},
                    }
                )
                events.append(
                    {
                        "type": "response.content_part.added",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "part": {"type": "output_text", "text": "", "annotations": []},
                    }
                )
                events.append(
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": text,
                    }
                )
                events.append(
                    {
                        "type": "response.output_text.done",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "text": text,
                    }
                )
                events.append(
                    {
                        "type": "response.content_part.done",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "part": item["content"][0],
                    }
                )
            else:
                events.append(
                    {
                        "type": "response.output_item.added",
                        "output_index": index,
                        "item": {**item, "status": "in_progress", "arguments": ""},
                    }
                )
                events.append(
                    {
                        "type": "response.function_call_arguments.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "delta": item["arguments"],
                    }
                )
                events.append(
                    {
                        "type": "response.function_call_arguments.done",
                        "item_id": item["id"],
                        "output_index": index,
                        "arguments": item["arguments"],
                    }
                )
            events.append({"type": "response.output_item.done", "output_index": index, "item": item})
        events.append({"type": "response.completed", "response": response})
        text = "".join(
            f"event: {event['type']}\ndata: {json.dumps({**event, 'sequence_number': next(sequence)})}\n\n"
            for event in events
        )
        return text.encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    args = arguments("tests.support.fake_codex", __doc__, DEFAULT_TEXT).parse_args(argv)
    server = FakeCodexServer(default_text=args.default_text, port=args.port, requests_file=args.requests_file)
    return serve(server, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
