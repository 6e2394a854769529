"""Today's model use in words, as `memevo status` and the web page print it: calls, tokens
in and out, and the cost the provider reported, each against its daily limit."""

from __future__ import annotations

from typing import Any

# The kind of a learning-log line that is a model call (workers/call_log.py).
MODEL_CALL = "model_call"


def dollars(amount: float) -> str:
    """A limit in US dollars: cents, or tenths of a cent when it has them ($1.50, $0.004)."""
    return f"${amount:,.2f}" if round(amount, 2) == amount else f"${amount:,.4f}".rstrip("0")


def render_cost(worker: dict[str, Any]) -> str:
    """Today's reported cost: how much, how many calls reported one, and the cost limit."""
    limit = worker.get("daily_cost_limit_usd")
    of_limit = f" of {dollars(limit)}" if limit is not None else ""
    costed = worker.get("model_costed_calls_today") or 0
    if not costed:
        return f"no cost reported{f' ($0{of_limit})' if of_limit else ''}"
    calls = worker["model_calls_today"]
    which = "every call" if costed >= calls else f"{costed} of {calls} calls"
    return f"${worker['model_cost_usd_today']:,.4f}{of_limit} reported ({which})"


def render_model_today(worker: dict[str, Any]) -> str:
    """Today's calls, tokens (in and out) and reported cost against the daily budget."""
    tokens = (
        f"{worker['model_tokens_today']:,} of {worker['daily_token_limit']:,} tokens"
        f" ({worker.get('model_prompt_tokens_today', 0):,} in, {worker.get('model_completion_tokens_today', 0):,} out)"
    )
    spent = ""
    if worker["budget_spent"]:
        by = f"{worker['budget_spent_by']} " if worker.get("budget_spent_by") else ""
        spent = f" (daily {by}budget spent; resets {worker['budget_resets_at']})"
    return (
        f"{worker['model_calls_today']} of {worker['daily_call_limit']} calls, {tokens}, {render_cost(worker)}{spent}"
    )


def render_model_call(entry: dict[str, Any]) -> str:
    """A model call of the learning log in one line: provider and model, tokens in and out,
    the reported cost, the source and how the attempt ended."""
    cost = entry.get("cost_usd")
    spent = (
        f"${cost:,.4f} reported"
        if isinstance(cost, (int, float)) and not isinstance(cost, bool)
        else "no cost reported"
    )
    model = f" {entry['model']}" if entry.get("model") else ""
    return (
        f"{entry.get('provider', '?')}{model}: {_count(entry.get('prompt_tokens')):,} in, "
        f"{_count(entry.get('completion_tokens')):,} out, {spent}; source {entry.get('source_id', '?')} "
        f"{entry.get('outcome', '?')}"
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
