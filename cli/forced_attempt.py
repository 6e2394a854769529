"""Queueing one forced consolidation attempt: what `memevo evolve` and the page's "Evolve now"
share. The attempt overrides the retry delay and a pause; while one is queued or running it is
reused instead of queueing another."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from memory_core import clock
from memory_core.errors import BudgetSpent, StoreError
from memory_core.jobs.budget import budget_state
from memory_core.jobs.forced import clear_forced, request_forced
from memory_core.records import JobState, Source
from memory_core.store.engines.database import Store
from memory_core.store.tables.sources import require_source


def budget_message(budget: Any) -> str:
    return (
        f"the daily model budget is spent ({budget.usage.calls} calls, {budget.usage.tokens} tokens "
        f"today); it resets at {clock.iso(budget.resets_at)}, or raise MEMEVO_DAILY_MODEL_CALLS "
        "/ MEMEVO_DAILY_MODEL_TOKENS"
    )


def queue_forced(
    open_store: Callable[[], AbstractContextManager[Store]], chosen: str, cfg: Any, now: float
) -> tuple[Source, bool]:
    """The job row of source ``chosen`` as it was, and whether an attempt already queued or
    running is reused. :class:`BudgetSpent` when the worker would start no attempt today (a
    nudge now would be dropped while the caller reported it queued); :class:`StoreError`, with
    the request withdrawn, when the nudge cannot be enqueued."""
    with open_store() as store:
        before = require_source(store.conn, chosen)
        if before.state == JobState.LEASED:
            return before, True  # running right now: that attempt is the one
        budget = budget_state(store.conn, now, cfg.daily_model_calls, cfg.daily_model_tokens, cfg.daily_model_cost_usd)
        if budget.spent:
            raise BudgetSpent(budget_message(budget))
        with store.transaction() as conn:
            requested = request_forced(conn, chosen, now)
        before = require_source(store.conn, chosen)
    if not requested:
        return before, True  # a forced attempt is already queued
    from cli.nudge import nudge_consolidate

    if not nudge_consolidate(chosen, forced=True):
        with open_store() as store, store.transaction() as conn:
            clear_forced(conn, chosen)
        raise StoreError("could not enqueue the attempt (the queue is unavailable); check `memevo doctor`")
    return before, False
