"""What one model call gives back, whichever provider made it (the HTTP client or an agent's
CLI): a :class:`Completion`, or a :class:`ModelCallError` whose code and reason are stored.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    ``cost_usd`` what it cost where the provider says (an agent's CLI; ``None``: not said).
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
    """A finished answer and what it cost."""

    text: str
    finish_reason: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    json_mode: str = "off"  # the response_format the answered request carried
