"""One chat-completions call to an OpenAI-compatible server, bounded by a hard deadline.

Why the exchange runs in a helper thread: httpx timeouts bound each network operation
(connect, one write, one read), not the exchange as a whole. A server that accepts the
connection and then sends a byte now and then restarts the read timeout every time, and
name resolution is not covered by any timeout at all. The caller therefore waits on the
thread for at most the call's deadline (:func:`call_deadline`) and reports ``timeout`` when
that runs out. The
abandoned thread cannot run on for long either: its own per-operation timeouts are no
longer than the budget and it checks the same deadline between body chunks.

Failures become :class:`ModelCallError` with an :class:`ErrorCode`, an allowlisted reason
code and a fixed description; the key, response bodies and exception text never reach them
(an error body is read only to tell a refused JSON mode or a loading model).

JSON output is asked for in one of the modes of :mod:`workers.json_modes` (the answer's
JSON schema in the spelling of OpenAI, llama.cpp or vLLM, plain JSON mode, or nothing).
With ``fallback`` a server that refuses the way it was asked (HTTP 400 or 422, or a server
error whose body names the parameter) is asked again, once per weaker mode, within the same
deadline; the mode that was answered is reported so the caller can remember it.

The deadline is :func:`workers.model_warmup.call_seconds`: longer for the first call this
process makes to a server and model, and a server that answers 503 "loading" is asked again
every few seconds within it.

``Retry-After`` on 429/503 is honoured by the backoff. Reading the answer is
:mod:`workers.chat_answer`; what a call gives back (:class:`~workers.model_call.Completion`,
:class:`~workers.model_call.ModelCallError`) is :mod:`workers.model_call`, shared by every
provider.
"""

from __future__ import annotations

import threading
import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from memory_core import clock
from memory_core.config import Settings
from memory_core.records import ErrorCode, Reason
from workers import json_modes, model_warmup
from workers.chat_answer import read_completion
from workers.model_call import Completion, ModelCallError

# A valid answer is at most 64,000 bytes of text; JSON escaping can grow that a few
# times, so anything far beyond is not a completion worth reading.
RESPONSE_MAX_BYTES = 2_000_000
# Of an error answer only enough is read to tell a refused JSON mode or a loading model.
ERROR_BODY_MAX_BYTES = 65_536

RETRY_AFTER_MAX_SECONDS = 86_400.0
SCHEMA_NAME = json_modes.SCHEMA_NAME


def complete(
    settings: Settings, messages: list[dict[str, str]], *, json_mode: str = "off", fallback: bool = False
) -> Completion:
    """Send ``messages`` and return the model's answer.

    Waits at most :func:`call_deadline` seconds. Only an answer that finished normally
    (see :data:`STOP_REASONS`) is returned; anything else raises :class:`ModelCallError`.
    ``json_mode`` picks how JSON is asked for; with ``fallback`` a refusal of it is retried
    with each weaker mode in turn (see the module docstring).
    """
    modes = json_modes.modes_from(json_mode, fallback)
    if not settings.model_url:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE,
            "no model server configured; set MEMEVO_MODEL_URL to an OpenAI-compatible base URL",
        )
    if not settings.model:
        raise ModelCallError(ErrorCode.UNAVAILABLE, "no model configured; set MEMEVO_MODEL to a model name")
    seconds = call_deadline(settings)
    deadline = time.monotonic() + seconds
    outcome: dict[str, Any] = {}

    def exchange() -> None:
        try:
            outcome["body"], outcome["mode"] = _post_modes(settings, messages, modes, deadline, seconds)
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    thread = threading.Thread(target=exchange, name="memevo-model-call", daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise ModelCallError(ErrorCode.TIMEOUT, reason=Reason.DEADLINE)
    if "error" in outcome:
        raise outcome["error"]
    return read_completion(outcome["body"], fallback_model=settings.model, json_mode=outcome["mode"])


def call_deadline(settings: Settings) -> float:
    """Seconds the next model call may take: through a server, ``first_call_seconds`` until
    this process has had an answer from it and its model, then ``attempt_seconds``; through
    an agent's CLI (workers/providers), ``attempt_seconds``."""
    if settings.uses_cli:
        return settings.attempt_seconds
    return model_warmup.call_seconds(settings)


def response_format(json_mode: str) -> dict[str, Any] | None:
    """The ``response_format`` parameter of a JSON mode (``None`` when it sends none)."""
    fmt = json_modes.request_fields(json_mode).get("response_format")
    return fmt if isinstance(fmt, dict) else None


def _request_payload(settings: Settings, messages: list[dict[str, str]], json_mode: str = "off") -> dict[str, Any]:
    # No tools are offered: the model can only answer with text.
    payload: dict[str, Any] = {
        "model": settings.model,
        "messages": messages,
        "max_tokens": settings.output_tokens,
        "temperature": 0,
        "stream": False,
    }
    payload.update(json_modes.request_fields(json_mode))
    return payload


def _post_modes(
    settings: Settings, messages: list[dict[str, str]], modes: tuple[str, ...], deadline: float, budget: float
) -> tuple[bytes, str]:
    """Send the request in each mode in turn while the server refuses the mode; ask again
    while it says it is loading the model. The body of a 2xx answer and its mode."""
    index = 0
    while True:
        mode = modes[index]
        status, body, retry_after = _post(settings, messages, deadline, budget, mode)
        if 200 <= status < 300:
            model_warmup.mark_answered(settings)
            return body, mode
        if model_warmup.is_loading(status, body) and deadline - time.monotonic() > model_warmup.LOADING_POLL_SECONDS:
            time.sleep(model_warmup.LOADING_POLL_SECONDS)
            continue
        if index + 1 < len(modes) and json_modes.refused(mode, status, body):
            index += 1
            continue
        _check_status(status, retry_after)
        raise AssertionError("unreachable: a status outside 2xx raises")


def _headers(settings: Settings) -> dict[str, str]:
    headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
    key = settings.model_api_key.get_secret_value() if settings.model_api_key is not None else ""
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def _read_body(response: httpx.Response, deadline: float, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise ModelCallError(ErrorCode.TIMEOUT, reason=Reason.DEADLINE)
        size += len(chunk)
        if size > limit:
            if limit < RESPONSE_MAX_BYTES:  # an error answer: its start is enough
                chunks.append(chunk)
                break
            raise ModelCallError(
                ErrorCode.PROVIDER, "the model server's response is too large", reason=Reason.RESPONSE_TOO_LARGE
            )
        chunks.append(chunk)
    return b"".join(chunks)[:limit]


def _post(
    settings: Settings, messages: list[dict[str, str]], deadline: float, budget: float, json_mode: str = "off"
) -> tuple[int, bytes, str | None]:
    """The HTTP exchange (run in the helper thread): status, body (the start of it for an
    error answer) and ``Retry-After``."""
    url = f"{settings.model_url}/chat/completions"
    remaining = max(0.1, min(budget, deadline - time.monotonic()))
    try:
        # A fresh client per call: no connection, cookie or session state carries over.
        with httpx.Client(timeout=httpx.Timeout(remaining), follow_redirects=False) as client:
            with client.stream(
                "POST", url, json=_request_payload(settings, messages, json_mode), headers=_headers(settings)
            ) as response:
                status = response.status_code
                limit = RESPONSE_MAX_BYTES if 200 <= status < 300 else ERROR_BODY_MAX_BYTES
                return status, _read_body(response, deadline, limit), response.headers.get("retry-after")
    except httpx.TimeoutException:
        raise ModelCallError(ErrorCode.TIMEOUT, reason=Reason.DEADLINE) from None
    except httpx.TransportError:
        # Refused or dropped connections, DNS failures, protocol breakage: worth retrying.
        raise ModelCallError(ErrorCode.UNAVAILABLE, reason=Reason.CONNECT_FAILED) from None
    except httpx.HTTPError:
        raise ModelCallError(ErrorCode.PROVIDER) from None
    except httpx.InvalidURL:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE,
            "MEMEVO_MODEL_URL is not a usable URL; set it to the server's base URL",
            reason=Reason.BAD_URL,
        ) from None


def http_reason(status: int) -> Reason:
    """The reason code for an HTTP status: its own for the common ones, else its class."""
    try:
        return Reason(f"http_{status}")
    except ValueError:
        pass
    if 300 <= status < 400:
        return Reason.HTTP_3XX
    return Reason.HTTP_5XX if status >= 500 else Reason.HTTP_4XX


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header as seconds from now (delta-seconds or an HTTP date), or None."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        seconds = float(text)
    else:
        try:
            seconds = parsedate_to_datetime(text).timestamp() - clock.now()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return min(max(0.0, seconds), RETRY_AFTER_MAX_SECONDS)


def _check_status(status: int, retry_after: str | None = None) -> None:
    if status == 429 or status >= 500:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE,
            f"the model server is unavailable or rate-limited (HTTP {status})",
            reason=http_reason(status),
            retry_after=retry_after_seconds(retry_after),
        )
    if not 200 <= status < 300:
        raise ModelCallError(
            ErrorCode.PROVIDER, f"the model server refused the request (HTTP {status})", reason=http_reason(status)
        )
