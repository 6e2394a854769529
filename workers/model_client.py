"""One chat-completions call to an OpenAI-compatible server, bounded by a hard deadline.

Why the exchange runs in a helper thread: httpx timeouts bound each network operation
(connect, one write, one read), not the exchange as a whole. A server that accepts the
connection and then sends a byte now and then restarts the read timeout every time, and
name resolution is not covered by any timeout at all. The caller therefore waits on the
thread for at most ``attempt_seconds`` and reports ``timeout`` when that runs out. The
abandoned thread cannot run on for long either: its own per-operation timeouts are no
longer than the budget and it checks the same deadline between body chunks.

Failures become :class:`ModelCallError` with an :class:`ErrorCode` and a fixed
description; the key, response bodies and exception text never reach its message.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from memory_core.config import Settings
from memory_core.errors import MemevoError
from memory_core.records import ErrorCode

# A valid answer is at most 64,000 bytes of text; JSON escaping can grow that a few
# times, so anything far beyond is not a completion worth reading.
RESPONSE_MAX_BYTES = 2_000_000
MODEL_NAME_MAX_CHARS = 200

_DESCRIPTIONS = {
    ErrorCode.UNAVAILABLE: "the model server could not be reached or is overloaded; retried later",
    ErrorCode.PROVIDER: "the model server refused the request or sent a malformed response",
    ErrorCode.TIMEOUT: "the model did not answer within MEMEVO_ATTEMPT_SECONDS",
    ErrorCode.OUTPUT_LIMIT: "the answer was cut off at the output token limit",
    ErrorCode.INVALID_OUTPUT: "the model did not finish with a plain text answer",
}


class ModelCallError(MemevoError):
    """A model call failed. ``code`` is what gets stored; the message is fixed text.

    ``prompt_tokens``/``completion_tokens`` carry the usage a failed but answered call
    reported (for example one cut off at the output limit), so it can still be counted.
    """

    def __init__(self, code: ErrorCode, description: str | None = None, *,
                 prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        self.code = code
        self.description = description or _DESCRIPTIONS.get(code, "the model call failed")
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        super().__init__(f"model call failed ({code.value}): {self.description}")


@dataclass(frozen=True)
class Completion:
    """A finished answer and what it cost."""

    text: str
    finish_reason: str
    model: str
    prompt_tokens: int
    completion_tokens: int


def complete(settings: Settings, messages: list[dict[str, str]]) -> Completion:
    """Send ``messages`` in one request and return the model's answer.

    Waits at most ``settings.attempt_seconds``. Only an answer that finished normally
    (``finish_reason == "stop"``) is returned; anything else raises :class:`ModelCallError`.
    """
    if not settings.model_url:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE,
            "no model server configured; set MEMEVO_MODEL_URL to an OpenAI-compatible base URL",
        )
    if not settings.model:
        raise ModelCallError(ErrorCode.UNAVAILABLE, "no model configured; set MEMEVO_MODEL to a model name")
    deadline = time.monotonic() + settings.attempt_seconds
    outcome: dict[str, Any] = {}

    def exchange() -> None:
        try:
            outcome["body"] = _post(settings, messages, deadline)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=exchange, name="memevo-model-call", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise ModelCallError(ErrorCode.TIMEOUT)
    if "error" in outcome:
        raise outcome["error"]
    return read_completion(outcome["body"], fallback_model=settings.model)


def _request_payload(settings: Settings, messages: list[dict[str, str]]) -> dict[str, Any]:
    # No tools are offered: the model can only answer with text.
    return {
        "model": settings.model,
        "messages": messages,
        "max_tokens": settings.output_tokens,
        "temperature": 0,
        "stream": False,
    }


def _headers(settings: Settings) -> dict[str, str]:
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    key = settings.model_api_key.get_secret_value() if settings.model_api_key is not None else ""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _post(settings: Settings, messages: list[dict[str, str]], deadline: float) -> bytes:
    """The HTTP exchange (run in the helper thread): the raw body of a 2xx response."""
    url = f"{settings.model_url}/chat/completions"
    try:
        # A fresh client per call: no connection, cookie or session state carries over.
        with httpx.Client(timeout=httpx.Timeout(settings.attempt_seconds), follow_redirects=False) as client:
            with client.stream("POST", url, json=_request_payload(settings, messages),
                               headers=_headers(settings)) as response:
                _check_status(response.status_code)
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_bytes():
                    if time.monotonic() > deadline:
                        raise ModelCallError(ErrorCode.TIMEOUT)
                    size += len(chunk)
                    if size > RESPONSE_MAX_BYTES:
                        raise ModelCallError(ErrorCode.PROVIDER, "the model server's response is too large")
                    chunks.append(chunk)
                return b"".join(chunks)
    except httpx.TimeoutException:
        raise ModelCallError(ErrorCode.TIMEOUT) from None
    except httpx.TransportError:
        # Refused or dropped connections, DNS failures, protocol breakage: worth retrying.
        raise ModelCallError(ErrorCode.UNAVAILABLE) from None
    except httpx.HTTPError:
        raise ModelCallError(ErrorCode.PROVIDER) from None
    except httpx.InvalidURL:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, "MEMEVO_MODEL_URL is not a usable URL; set it to the server's base URL"
        ) from None


def _check_status(status: int) -> None:
    if status == 429 or status >= 500:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, f"the model server is unavailable or rate-limited (HTTP {status})"
        )
    if not 200 <= status < 300:
        raise ModelCallError(ErrorCode.PROVIDER, f"the model server refused the request (HTTP {status})")


def _token_count(usage: Any, name: str) -> int:
    value = usage.get(name) if isinstance(usage, dict) else None
    # bool is an int subclass; a true/false "count" is not a count.
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def read_completion(raw: bytes, *, fallback_model: str) -> Completion:
    """Interpret a chat-completions response body; raise :class:`ModelCallError` unless it
    holds a text answer that finished normally."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ModelCallError(ErrorCode.PROVIDER, "the model server's response is not JSON") from None
    if not isinstance(body, dict):
        raise ModelCallError(ErrorCode.PROVIDER, "the model server's response is not a JSON object")
    choices = body.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise ModelCallError(ErrorCode.PROVIDER, "the model server's response has no answer in it")
    usage = body.get("usage")
    prompt_tokens = _token_count(usage, "prompt_tokens")
    completion_tokens = _token_count(usage, "completion_tokens")
    finish_reason = choice.get("finish_reason")
    if finish_reason == "length":
        raise ModelCallError(ErrorCode.OUTPUT_LIMIT, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    if finish_reason != "stop":
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model stopped for a reason other than finishing its answer",
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        )
    content = message.get("content")
    if message.get("tool_calls") or not isinstance(content, str):
        raise ModelCallError(ErrorCode.INVALID_OUTPUT, "the model answered without plain text",
                             prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    reported = body.get("model")
    # What the server says it ran, for the worker's log; claims record the configured name
    # (captured before the call), never this.
    model = reported if isinstance(reported, str) and 0 < len(reported) <= MODEL_NAME_MAX_CHARS else fallback_model
    return Completion(text=content, finish_reason=finish_reason, model=model, prompt_tokens=prompt_tokens,
                      completion_tokens=completion_tokens)
