"""How real OpenAI-compatible servers refuse what they do not understand, for the fake
model server (``FakeModelServer(behave_like=...)``, ``--behave-like``).

Each behaviour takes the parsed request and returns the status and body that server sends
back, or ``None`` when it would answer normally. The statuses and messages are those the
servers send: llama-cpp-python's HTTP 500 for a ``json_schema`` response format is what
kept memevo's ``auto`` mode from ever settling before it read error bodies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def _error(status: int, message: str, kind: str) -> tuple[int, bytes]:
    return status, json.dumps({"error": {"message": message, "type": kind, "param": None, "code": None}}).encode()


def _llama_cpp_python(request: dict[str, Any]) -> tuple[int, bytes] | None:
    # llama-cpp-python 0.3's server: response_format is a TypedDict with type "text" or
    # "json_object" (plus an optional "schema"); anything else fails its validation inside
    # the route, and its error handler turns every exception into HTTP 500.
    fmt = request.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") not in ("text", "json_object"):
        message = (
            "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
            f"  Input should be 'text' or 'json_object' [type=literal_error, input_value={fmt.get('type')!r}, "
            "input_type=str]"
        )
        return _error(500, message, "internal_server_error")
    return None


def _old_vllm(request: dict[str, Any]) -> tuple[int, bytes] | None:
    # vLLM before its json_schema type: response_format knows text and json_object and no
    # other key (extra fields forbidden, HTTP 400); its own guided_json field works.
    fmt = request.get("response_format")
    if isinstance(fmt, dict) and (fmt.get("type") not in ("text", "json_object") or set(fmt) - {"type"}):
        return _error(400, "1 validation error for ChatCompletionRequest response_format", "BadRequestError")
    return None


def _lm_studio(request: dict[str, Any]) -> tuple[int, bytes] | None:
    # LM Studio: json_schema or text only.
    fmt = request.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") not in ("text", "json_schema"):
        return _error(400, "'response_format.type' must be 'json_schema' or 'text'", "invalid_request_error")
    return None


def _strict_openai(request: dict[str, Any]) -> tuple[int, bytes] | None:
    # A strict API: any field it does not know is refused with 400.
    known = {"model", "messages", "max_tokens", "temperature", "stream", "response_format"}
    unknown = sorted(set(request) - known)
    fmt = request.get("response_format")
    if unknown or (isinstance(fmt, dict) and set(fmt) - {"type", "json_schema"}):
        return _error(400, f"Unrecognized request argument supplied: {(unknown or ['schema'])[0]}", "invalid_request")
    return None


def _overloaded(request: dict[str, Any]) -> tuple[int, bytes] | None:
    # A server error that has nothing to do with the request's JSON mode.
    return _error(500, "CUDA out of memory", "server_error")


# How real servers answer what they do not understand (--behave-like).
BEHAVIOURS: dict[str, Callable[[dict[str, Any]], tuple[int, bytes] | None]] = {
    "llama-cpp-python": _llama_cpp_python,
    "old-vllm": _old_vllm,
    "lm-studio": _lm_studio,
    "strict-openai": _strict_openai,
    "overloaded": _overloaded,
}
