"""A worker's first call to its model, and a server that is still loading the model.

A local server loads the weights and fills its prompt cache on the first request it gets
(Ollama loads on demand; llama-cpp-python's first prompt of 2,000 tokens took 138 s on two
cores), and llama.cpp's ``llama-server`` answers HTTP 503 "Loading model" until it is
ready. So a call is allowed ``first_call_seconds`` (default 600) until this process has had
an answer from that server and model, and ``attempt_seconds`` (default 120) from then on.
A 503 that says the model is loading is asked again every few seconds within the same
deadline rather than failing the attempt.

When the first call's deadline runs out, the attempt fails as ``timeout`` (``deadline``)
with the usual backoff, and the next call is a first call again. Which calls were answered
is kept per process: every worker process warms up once.
"""

from __future__ import annotations

import re
import threading

from memory_core.config import Settings

LOADING_POLL_SECONDS = 5.0
# llama-server: {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}};
# others say the model "is loading" or "is currently loading".
_LOADING_WORDS = re.compile(rb"\bloading\b", re.IGNORECASE)

_answered: set[tuple[str, str]] = set()
_lock = threading.Lock()


def _key(settings: Settings) -> tuple[str, str]:
    return (settings.model_url or "", settings.model or "")


def is_first_call(settings: Settings) -> bool:
    """True until this process has had an HTTP answer from this server and model."""
    with _lock:
        return _key(settings) not in _answered


def call_seconds(settings: Settings) -> float:
    """How long the next call to the configured model may take."""
    if is_first_call(settings):
        return max(settings.attempt_seconds, settings.first_call_seconds)
    return settings.attempt_seconds


def mark_answered(settings: Settings) -> None:
    """The server answered (any complete HTTP response): the model is loaded."""
    with _lock:
        _answered.add(_key(settings))


def forget_answers() -> None:
    """Back to a cold process (for tests that play a worker's start)."""
    with _lock:
        _answered.clear()


def is_loading(status: int, body: bytes) -> bool:
    """Whether an answer says the server is still loading its model."""
    return status == 503 and _LOADING_WORDS.search(body) is not None
