"""What one model call gives back, whichever provider made it (the HTTP client or an agent's
CLI): a :class:`Completion`, or a :class:`ModelCallError` whose code and reason are stored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from memory_core.errors import MemevoError
from memory_core.records import ErrorCode, Reason

MODEL_NAME_MAX_CHARS = 200

_DESCRIPTIONS = {
    ErrorCode.UNAVAILABLE: "the model server could not be reached or is overloaded; retried later",
    ErrorCode.PROVIDER: "the model server refused the request or sent a malformed response",
    ErrorCode.TIMEOUT: "the model did not answer within MEMEVO_ATTEMPT_SECONDS",
    ErrorCode.OUTPUT_LIMIT: "the answer was cut off at the output token limit",
    ErrorCode.INVALID_OUTPUT: "the model did not finish with a plain text answer",
}


class ModelCallError(MemevoError):
    """A model call failed. ``code`` and ``reason`` are what gets stored; the message is
    fixed text.

    ``prompt_tokens``/``completion_tokens`` carry the usage a failed but answered call
    reported (for example one cut off at the output limit), so it can still be counted, and
    ``cost_usd`` what it cost where the provider says (``None``: not said).
    ``retry_after`` is the wait in seconds a rate-limited server asked for; ``json_mode``
    the JSON mode of a request the server answered (2xx) before the answer was refused.
    """

    def __init__(
        self,
        code: ErrorCode,
        description: str | None = None,
        *,
        reason: Reason | None = None,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        retry_after: float | None = None,
        json_mode: str | None = None,
        cost_usd: float | None = None,
    ) -> None:
        self.code = code
        self.description = description or _DESCRIPTIONS.get(code, "the model call failed")
        self.reason = reason.value if reason is not None else None
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self.retry_after = retry_after
        self.json_mode = json_mode
        self.cost_usd = cost_usd
        super().__init__(f"model call failed ({code.value}): {self.description}")


@dataclass(frozen=True)
class Completion:
    """A finished answer and what it cost: its tokens, and ``cost_usd`` where the provider
    reports a cost (Claude Code, Pi, a server that puts ``cost`` in its usage; else ``None``)."""

    text: str
    finish_reason: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    json_mode: str = "off"  # the response_format the answered request carried
    cost_usd: float | None = None


def token_count(value: Any) -> int:
    """A reported token count, or 0 for anything that is not a non-negative whole number
    (bool is an int subclass; a true/false "count" is not a count)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def reported_cost(value: Any) -> float | None:
    """A reported cost in US dollars, or ``None`` for anything that is not a finite
    non-negative number (a provider that says nothing, or something else)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None
