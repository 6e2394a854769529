"""One line in the learning log (``logs/learning.jsonl``, `memevo learning`) for each model
call the worker made: which source, through which provider and model, how it ended, and
what it used: prompt and output tokens, and the cost in US dollars where the provider
reported one. Numbers, codes and ids only: never a prompt, an answer or an error's text.
Writing it never fails an attempt (memory_core.capture.learning_log)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.capture.learning_log import append_entry

KIND = "model_call"


def model_call_entry(
    *,
    at: float,
    source_id: str,
    origin: str,
    provider: str | None,
    model: str | None,
    outcome: str,
    prompt_tokens: int,
    completion_tokens: int,
    cost_usd: float | None,
) -> dict[str, Any]:
    """The log line of one model call (``outcome``: ``done``, or the stored error code and reason)."""
    return {
        "at": at,
        "kind": KIND,
        "agent": "worker",
        "origin": origin,
        "source_id": source_id,
        "provider": provider or "openai",
        "model": model,
        "outcome": outcome,
        "prompt_tokens": max(0, prompt_tokens),
        "completion_tokens": max(0, completion_tokens),
        "cost_usd": cost_usd,
    }


def log_model_call(home: Path, entry: dict[str, Any]) -> None:
    """Append ``entry`` (:func:`model_call_entry`) to the learning log."""
    append_entry(home, entry)
