"""What every CLI provider shares: the prompt split into its system and user parts, the
JSON a CLI printed read strictly, and the failures mapped to the HTTP client's codes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from memory_core.config import Settings
from memory_core.records import ErrorCode, Reason
from workers.model_call import MODEL_NAME_MAX_CHARS, Completion, ModelCallError
from workers.model_call import reported_cost as cost  # noqa: F401  (the providers' name for it)
from workers.model_call import token_count as count  # noqa: F401  (the providers' name for it)

T = TypeVar("T")


@dataclass(frozen=True)
class CliCompletion(Completion):
    """A CLI's answer; ``cost_usd`` is what the CLI reported the call cost (``None``: not said)."""


def split_messages(messages: list[dict[str, str]]) -> tuple[str, str]:
    """The system prompt and the user prompt of memevo's chat messages (each part joined)."""
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
    user = "\n\n".join(m["content"] for m in messages if m.get("role") != "system")
    return system, user


def not_json(what: str = "the agent's CLI printed no JSON result") -> ModelCallError:
    return ModelCallError(ErrorCode.PROVIDER, what, reason=Reason.RESPONSE_NOT_JSON)


def exit_failure() -> ModelCallError:
    return ModelCallError(ErrorCode.PROVIDER, "the agent's CLI failed without an answer", reason=Reason.CLI_EXIT)


def parsed_output(returncode: int, stdout: bytes, parse: Callable[[bytes], T]) -> T:
    """``parse(stdout)``; output that does not parse from a CLI that exited non-zero is that
    exit's failure (``cli_exit``), not the unreadable answer."""
    try:
        return parse(stdout)
    except ModelCallError:
        if returncode != 0:
            raise exit_failure() from None
        raise


def json_object(raw: bytes) -> dict[str, Any]:
    """The one JSON object a CLI printed (whole, or its last line that is one)."""
    text = raw.decode("utf-8", "replace").strip()
    candidates = [text, *reversed(text.splitlines())]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise not_json()


def json_lines(raw: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a CLI's JSONL output; a line that is not one is skipped."""
    events: list[dict[str, Any]] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            events.append(value)
    if not events:
        raise not_json()
    return events


def mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def model_name(value: Any) -> str:
    """The model the CLI reported, or the failure of a CLI that reported none: provenance is
    never guessed."""
    if isinstance(value, str) and 0 < len(value.strip()) <= MODEL_NAME_MAX_CHARS:
        return value.strip()
    raise ModelCallError(
        ErrorCode.PROVIDER, "the agent's CLI did not say which model answered", reason=Reason.NO_MODEL_REPORTED
    )


def finished(
    settings: Settings,
    text: str,
    *,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    cost_usd: float | None = None,
    json_mode: str = "off",
) -> CliCompletion:
    """The completion, once memevo's own output cap holds (a CLI may not honour one)."""
    spent: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": cost_usd,
    }
    if completion_tokens > settings.output_tokens:
        raise ModelCallError(ErrorCode.OUTPUT_LIMIT, reason=Reason.CUT_OFF, **spent)
    if not text.strip():
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model answered without text", reason=Reason.NO_TEXT, **spent
        )
    return CliCompletion(
        text=text,
        finish_reason="stop",
        model=model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        json_mode=json_mode,
        cost_usd=cost_usd,
    )
