"""Reading a chat-completions answer: the text of a normal end, or why there is none.

Servers differ from OpenAI in ways handled here: no ``usage`` (counted as 0), ``content``
as a list of parts (text parts joined, reasoning parts skipped), ``finish_reason``
``eos``/``eos_token``/``end``/``end_turn`` or missing (a normal end: the strict parse of
the answer still has to pass), and a reasoning field beside the content or a leading
``<think>`` block (ignored). A ``cost`` in the usage (OpenRouter's, in US dollars) is what
the call cost; a server that says none costs ``None``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memory_core.records import ErrorCode, Reason
from workers.model_call import MODEL_NAME_MAX_CHARS, Completion, ModelCallError, reported_cost, token_count

# finish_reason values that mean the model ended its answer by itself. OpenAI says "stop";
# Together says "eos", older TGI "eos_token", some gateways "end"; Anthropic-style
# adapters pass "end_turn"/"stop_sequence" through. Missing (null) is read the same way:
# a cut-off answer would not survive the strict parse of the contract anyway.
STOP_REASONS = frozenset({"stop", "eos", "eos_token", "end", "end_turn", "stop_sequence"})
LENGTH_REASONS = frozenset({"length", "max_tokens", "model_length"})
# Content parts that are the model's reasoning, not its answer.
_REASONING_PARTS = frozenset({"thinking", "reasoning", "redacted_thinking"})
_TEXT_PARTS = frozenset({"text", "output_text"})
_LEADING_THINK = re.compile(r"\A\s*<think>.*?</think>\s*", re.DOTALL)


def _answer_text(content: Any) -> str | None:
    """The answer's text: a string, or the text parts of a list of content parts joined
    (reasoning parts skipped); ``None`` when it holds anything else."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif not (isinstance(part, dict) and part.get("type") in _REASONING_PARTS):
                return None
        text = "".join(pieces)
    else:
        return None
    # A reasoning model served without a reasoning parser writes its thinking first.
    return _LEADING_THINK.sub("", text, count=1)


def read_completion(raw: bytes, *, fallback_model: str, json_mode: str = "off") -> Completion:
    """Interpret a chat-completions response body; raise :class:`ModelCallError` unless it
    holds a text answer that finished normally."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ModelCallError(
            ErrorCode.PROVIDER, "the model server's response is not JSON", reason=Reason.RESPONSE_NOT_JSON
        ) from None
    if not isinstance(body, dict):
        raise ModelCallError(
            ErrorCode.PROVIDER, "the model server's response is not a JSON object", reason=Reason.RESPONSE_NOT_JSON
        )
    choices = body.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(choice, dict) or not isinstance(message, dict):
        raise ModelCallError(
            ErrorCode.PROVIDER, "the model server's response has no answer in it", reason=Reason.NO_CHOICES
        )
    usage = body.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    spent: dict[str, Any] = {
        "prompt_tokens": token_count(usage.get("prompt_tokens")),
        "completion_tokens": token_count(usage.get("completion_tokens")),
        "json_mode": json_mode,
        # OpenRouter (and servers like it) put what the call cost in US dollars in the usage.
        "cost_usd": reported_cost(usage.get("cost")),
    }
    finish_reason = choice.get("finish_reason")
    if finish_reason is not None and not isinstance(finish_reason, str):
        finish_reason = "<not a string>"
    if finish_reason in LENGTH_REASONS:
        raise ModelCallError(ErrorCode.OUTPUT_LIMIT, reason=Reason.CUT_OFF, **spent)
    if message.get("tool_calls") or message.get("function_call") or finish_reason in ("tool_calls", "function_call"):
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model called a tool instead of answering", reason=Reason.TOOL_CALLS, **spent
        )
    if finish_reason == "content_filter":
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT,
            "the server's content filter stopped the answer",
            reason=Reason.CONTENT_FILTER,
            **spent,
        )
    if finish_reason is not None and finish_reason not in STOP_REASONS:
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT,
            "the model stopped for a reason other than finishing its answer",
            reason=Reason.WRONG_FINISH_REASON,
            **spent,
        )
    text = _answer_text(message.get("content"))
    if text is None:
        raise ModelCallError(
            ErrorCode.INVALID_OUTPUT, "the model answered without plain text", reason=Reason.NO_TEXT, **spent
        )
    reported = body.get("model")
    # What the server says it ran, for the worker's log; claims record the configured name
    # (captured before the call), never this.
    model = reported if isinstance(reported, str) and 0 < len(reported) <= MODEL_NAME_MAX_CHARS else fallback_model
    return Completion(
        text=text,
        finish_reason=finish_reason if isinstance(finish_reason, str) else "stop",
        model=model,
        prompt_tokens=spent["prompt_tokens"],
        completion_tokens=spent["completion_tokens"],
        json_mode=json_mode,
        cost_usd=spent["cost_usd"],
    )
