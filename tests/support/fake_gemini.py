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

Built on :mod:`tests.support.loopback_server`; only the standard library is used.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tests.support.loopback_server import LoggedRequest, ScriptedServer, arguments, estimate_tokens, serve

MODELS_PREFIX = "/v1beta/models/"
STREAM_METHOD = "streamGenerateContent"
KINDS = ("main", "aux", "other")
DEFAULT_TEXT = "OK."
SHELL_TOOL = "run_shell_command"


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
class Request(LoggedRequest):
    """One recorded HTTP request (see :class:`~tests.support.loopback_server.LoggedRequest`);
    ``method_name`` is the API method after the colon (``streamGenerateContent``), ``model``
    the model in the path; ``reply`` is the :class:`Reply` answered."""

    model: str | None = None
    method_name: str | None = None

    @property
    def contents(self) -> list[dict[str, Any]]:
        """The body's ``contents`` (empty if none)."""
        contents = (self.body or {}).get("contents")
        return [c for c in contents if isinstance(c, dict)] if isinstance(contents, list) else []


def _error_body(status: int, message: str) -> str:
    statuses = {
        400: "INVALID_ARGUMENT",
        401: "UNAUTHENTICATED",
        403: "PERMISSION_DENIED",
        404: "NOT_FOUND",
        429: "RESOURCE_EXHAUSTED",
        503: "UNAVAILABLE",
    }
    return json.dumps({"error": {"code": status, "message": message, "status": statuses.get(status, "INTERNAL")}})


def split_model_path(path: str) -> tuple[str | None, str | None]:
    """``/v1beta/models/gemini-2.5-flash:streamGenerateContent`` -> (model, method)."""
    if not path.startswith(MODELS_PREFIX):
        return None, None
    rest = path[len(MODELS_PREFIX) :]
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
    return "\n".join(text for c in contents[last + 1 :] for text in part_texts(c.get("parts")))


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


class FakeGeminiServer(ScriptedServer):
    """A threaded loopback server answering the Gemini API (see the module docstring)."""

    thread_name = "fake-gemini"
    reply_type = Reply
    request_type = Request
    secret_headers = frozenset({"x-goog-api-key", "authorization", "proxy-authorization", "cookie"})

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        default_text: str = DEFAULT_TEXT,
        port: int = 0,
        requests_file: os.PathLike[str] | str | None = None,
    ) -> None:
        defaults = {"main": Reply(text=default_text), "aux": Reply(text=default_text)}
        super().__init__(script, defaults=defaults, port=port, requests_file=requests_file)

    @property
    def base_url(self) -> str:
        """What ``GOOGLE_GEMINI_BASE_URL`` should be set to."""
        return f"http://127.0.0.1:{self.port}"

    def model_requests(self) -> list[Request]:
        """Every model call of any kind."""
        return self.requests_of("main", "aux")

    # -- answering --------------------------------------------------------------------------

    def classify(self, method: str, path: str, body: dict[str, Any] | None) -> str:
        return classify(method, path)

    def scripted(self, path: str) -> bool:
        return split_model_path(path)[1] in (STREAM_METHOD, "generateContent")

    def request_fields(self, path: str) -> dict[str, Any]:
        model, api_method = split_model_path(path)
        return {"model": model, "method_name": api_method}

    def get_body(self, request: Request) -> bytes:
        return b'{"models": []}' if request.path.rstrip("/").endswith("/models") else b"{}"

    def special(self, request: Request, raw: bytes) -> bytes | None:
        if request.method_name == "countTokens":
            return json.dumps({"totalTokens": estimate_tokens(raw)}).encode()
        if request.method_name in ("embedContent", "batchEmbedContents"):
            vector = {"values": [0.0] * 8}
            answer = {"embedding": vector} if request.method_name == "embedContent" else {"embeddings": [vector]}
            return json.dumps(answer).encode()
        return None

    def error_body(self, status: int, message: str, *, invalid: bool = False) -> str:
        return _error_body(status, message)

    def answer(self, request: Request, raw: bytes, reply: Reply) -> tuple[bytes, str]:
        if request.method_name == STREAM_METHOD:
            return self._sse(request, raw, reply), "text/event-stream"
        return json.dumps(self._response(request, raw, reply), ensure_ascii=False).encode(), "application/json"

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
        prompt = estimate_tokens(raw)
        out = estimate_tokens(json.dumps(parts))
        return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}

    def _response(self, request: Request, raw: bytes, reply: Reply) -> dict[str, Any]:
        """The reply as one complete ``GenerateContentResponse``."""
        parts = self._parts(reply)
        if reply.text is not None and _wants_json(request.body):
            parts = [{"text": _json_answer(request.body)}]
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": reply.finish_reason, "index": 0}
            ],
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
            chunk: dict[str, Any] = {
                "candidates": [candidate],
                "modelVersion": request.model or "gemini-fake",
                "responseId": f"fake-{request.number:06d}",
            }
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
    return json.dumps(
        {
            "reasoning": "fake",
            "next_speaker": "user",
            "model_choice": "flash",
            "is_stuck": False,
            "unproductive_state_confidence": 0.0,
            "complexity_score": 1,
        }
    )


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: serve until SIGTERM/SIGINT."""
    args = arguments("tests.support.fake_gemini", __doc__, DEFAULT_TEXT).parse_args(argv)
    server = FakeGeminiServer(default_text=args.default_text, port=args.port, requests_file=args.requests_file)
    return serve(server, args.port_file)


if __name__ == "__main__":
    sys.exit(main())
