"""Model spending: calls, tokens and reported cost per owner and UTC day, and the daily budget.

The cost is what the provider reported a call cost in US dollars (an agent's CLI: Claude
Code and Pi say it; the HTTP client and the other CLIs do not), summed with the number of
calls that reported one, so a day's total says how much of it is known. A daily cost limit
(``daily_model_cost_usd``, off by default) stops new attempts once the reported cost reaches
it; calls that report no cost count against the call and token limits only.

Each person's worker runs under their own login with their own model key, so each person
has their own daily budget: a row of ``model_usage`` belongs to the login that wrote it
(``owner`` defaults to ``current_user`` on PostgreSQL, so no call names it), and the budget
of the current person counts only their rows (memory_core.store.schema.owners.own_owners: their
login's, and ``''`` for the store's owner, the rows copied from a SQLite store). On SQLite,
a one-person store, every row is the one owner's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from memory_core.clock import day_key, next_day_start
from memory_core.store.engines.dbapi import DbConn, is_postgres
from memory_core.store.schema.owners import own_owners, source_owner_clause


@dataclass(frozen=True)
class Usage:
    day: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float = 0.0
    costed_calls: int = 0  # calls whose provider reported a cost

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class BudgetState:
    usage: Usage
    call_limit: int
    token_limit: int
    spent: bool
    resets_at: float
    cost_limit: float | None = None  # US dollars a day; None: no cost limit

    @property
    def spent_by(self) -> str | None:
        """Which limit is reached: ``calls``, ``tokens`` or ``cost`` (the first that is)."""
        if self.usage.calls >= self.call_limit:
            return "calls"
        if self.usage.tokens >= self.token_limit:
            return "tokens"
        if cost_reached(self.usage.cost_usd, self.cost_limit):
            return "cost"
        return None


def cost_reached(cost_usd: float, cost_limit: float | None) -> bool:
    """Whether a day's reported cost has reached the cost limit (never without one)."""
    return cost_limit is not None and cost_usd >= cost_limit


def _own_usage(conn: DbConn) -> tuple[str, tuple[str, ...]]:
    """SQL to AND into a ``model_usage`` query so it reads the current person's rows only,
    with its parameters; empty on SQLite."""
    if not is_postgres(conn):
        return "", ()
    owners = own_owners(conn)
    return f" AND owner IN ({','.join('?' * len(owners))})", owners


def usage_on(conn: DbConn, now: float) -> Usage:
    """The current person's model usage on the UTC day of ``now``."""
    day = day_key(now)
    mine, owners = _own_usage(conn)
    calls, prompt, completion, cost, costed = conn.execute(
        "SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
        f"COALESCE(SUM(cost_usd), 0), COALESCE(SUM(costed_calls), 0) FROM model_usage WHERE day = ?{mine}",
        (day, *owners),
    ).fetchone()
    return Usage(day, int(calls), int(prompt), int(completion), float(cost), int(costed))


def budget_state(
    conn: DbConn, now: float, call_limit: int, token_limit: int, cost_limit: float | None = None
) -> BudgetState:
    """Whether today's budget is spent (calls, tokens, or the reported cost when
    ``cost_limit`` is set), and when it resets (next UTC midnight)."""
    usage = usage_on(conn, now)
    spent = usage.calls >= call_limit or usage.tokens >= token_limit or cost_reached(usage.cost_usd, cost_limit)
    return BudgetState(usage, call_limit, token_limit, spent, next_day_start(now), cost_limit)


def count_call(conn: DbConn, now: float) -> None:
    """Count a model call before it is made, so a crash mid-call still counts (in the
    current person's row: ``owner`` is left to its default)."""
    conn.execute(
        "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) VALUES (?, 1, 0, 0) "
        "ON CONFLICT(owner, day) DO UPDATE SET calls = model_usage.calls + 1",
        (day_key(now),),
    )


def count_tokens(
    conn: DbConn, now: float, prompt_tokens: int, completion_tokens: int, *, cost_usd: float | None = None
) -> None:
    """Add what an answered call used (its tokens, and its cost when the provider reported
    one) to the current person's row of the UTC day of ``now``."""
    costed = cost_usd is not None and math.isfinite(cost_usd) and cost_usd >= 0
    conn.execute(
        "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens, cost_usd, costed_calls) "
        "VALUES (?, 0, ?, ?, ?, ?) "
        "ON CONFLICT(owner, day) DO UPDATE SET prompt_tokens = model_usage.prompt_tokens + excluded.prompt_tokens, "
        "completion_tokens = model_usage.completion_tokens + excluded.completion_tokens, "
        "cost_usd = model_usage.cost_usd + excluded.cost_usd, "
        "costed_calls = model_usage.costed_calls + excluded.costed_calls",
        (
            day_key(now),
            max(0, prompt_tokens),
            max(0, completion_tokens),
            float(cost_usd) if costed and cost_usd is not None else 0.0,
            1 if costed else 0,
        ),
    )


# Tokens one consolidation call costs when there is no history to average (a prompt of
# about 1,700 tokens for a short source, plus the answer).
DEFAULT_TOKENS_PER_CALL = 2_000
# Days of usage history that set the tokens-per-call estimate.
HISTORY_DAYS = 7


@dataclass(frozen=True)
class Backlog:
    """What waits for the model and how the daily budget drains it.

    ``calls_per_day`` is the budget in calls, tokens included: the smaller of the call limit
    and the token limit divided by the recent tokens per call. ``days_to_drain`` counts the
    budget resets still needed (0: today's budget covers what waits; ``None``: never, the
    budget is 0). ``resumes_at`` is set when today's budget is spent and sources wait.
    """

    waiting: int
    spent: bool
    calls_left_today: int
    calls_per_day: int
    tokens_per_call: int
    days_to_drain: int | None
    resumes_at: float | None

    @property
    def drains_within_a_day(self) -> bool:
        """Whether what waits fits in today's budget or in one day's budget."""
        return self.days_to_drain == 0 or (self.days_to_drain is not None and self.waiting <= self.calls_per_day)


def tokens_per_call(conn: DbConn, now: float) -> int:
    """Average tokens per model call over the current person's last :data:`HISTORY_DAYS`
    days of usage."""
    since = day_key(now - HISTORY_DAYS * 86_400.0)
    mine, owners = _own_usage(conn)
    calls, tokens = conn.execute(
        "SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(prompt_tokens + completion_tokens), 0) "
        f"FROM model_usage WHERE day >= ?{mine}",
        (since, *owners),
    ).fetchone()
    if not calls or not tokens:
        return DEFAULT_TOKENS_PER_CALL
    return max(1, int(tokens) // int(calls))


def cost_per_call(conn: DbConn, now: float) -> float | None:
    """Average reported cost of the current person's calls that reported one over the last
    :data:`HISTORY_DAYS` days; ``None`` when none did."""
    since = day_key(now - HISTORY_DAYS * 86_400.0)
    mine, owners = _own_usage(conn)
    cost, costed = conn.execute(
        f"SELECT COALESCE(SUM(cost_usd), 0), COALESCE(SUM(costed_calls), 0) FROM model_usage WHERE day >= ?{mine}",
        (since, *owners),
    ).fetchone()
    return float(cost) / int(costed) if costed and cost else None


def calls_for(dollars: float, per_call: float) -> int:
    """Whole calls ``dollars`` pay for at ``per_call`` each (summed costs carry float noise:
    $1.00 at $0.02 a call is 50 calls, not 49)."""
    return max(0, math.floor(dollars / per_call + 1e-9))


def backlog(conn: DbConn, now: float, call_limit: int, token_limit: int, cost_limit: float | None = None) -> Backlog:
    """How many of the current person's sources wait for a model call (pending, retrying
    included; not paused) and when their daily budget lets them run: only their own worker
    consolidates them. With a cost limit, the recent cost per call bounds the calls too."""
    mine, owners = source_owner_clause(conn)
    (waiting,) = conn.execute(f"SELECT COUNT(*) FROM sources WHERE state = 'pending'{mine}", owners).fetchone()
    state = budget_state(conn, now, call_limit, token_limit, cost_limit)
    per_call = tokens_per_call(conn, now)
    per_day = max(0, min(call_limit, token_limit // per_call))
    left = (
        0
        if state.spent
        else max(0, min(call_limit - state.usage.calls, (token_limit - state.usage.tokens) // per_call))
    )
    dollars = cost_per_call(conn, now) if cost_limit is not None else None
    if cost_limit is not None and dollars:
        per_day = min(per_day, calls_for(cost_limit, dollars))
        left = min(left, calls_for(cost_limit - state.usage.cost_usd, dollars))
    if waiting <= left:
        days: int | None = 0
    elif per_day == 0:
        days = None
    else:
        days = -(-(waiting - left) // per_day)  # budget resets still needed
    resumes = state.resets_at if state.spent and waiting else None
    return Backlog(int(waiting), state.spent, left, per_day, per_call, days, resumes)
