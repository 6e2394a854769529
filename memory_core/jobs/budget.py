"""Model spending: calls and tokens per UTC day, and the daily budget."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memory_core.clock import day_key, next_day_start


@dataclass(frozen=True)
class Usage:
    day: str
    calls: int
    prompt_tokens: int
    completion_tokens: int

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


def usage_on(conn: sqlite3.Connection, now: float) -> Usage:
    day = day_key(now)
    row = conn.execute(
        "SELECT calls, prompt_tokens, completion_tokens FROM model_usage WHERE day=?", (day,)
    ).fetchone()
    return Usage(day, *(row or (0, 0, 0)))


def budget_state(conn: sqlite3.Connection, now: float, call_limit: int, token_limit: int) -> BudgetState:
    """Whether today's budget is spent, and when it resets (next UTC midnight)."""
    usage = usage_on(conn, now)
    spent = usage.calls >= call_limit or usage.tokens >= token_limit
    return BudgetState(usage, call_limit, token_limit, spent, next_day_start(now))


def count_call(conn: sqlite3.Connection, now: float) -> None:
    """Count a model call before it is made, so a crash mid-call still counts."""
    conn.execute(
        "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) VALUES (?, 1, 0, 0) "
        "ON CONFLICT(day) DO UPDATE SET calls = calls + 1",
        (day_key(now),),
    )


def count_tokens(conn: sqlite3.Connection, now: float, prompt_tokens: int, completion_tokens: int) -> None:
    conn.execute(
        "INSERT INTO model_usage (day, calls, prompt_tokens, completion_tokens) VALUES (?, 0, ?, ?) "
        "ON CONFLICT(day) DO UPDATE SET prompt_tokens = prompt_tokens + excluded.prompt_tokens, "
        "completion_tokens = completion_tokens + excluded.completion_tokens",
        (day_key(now), max(0, prompt_tokens), max(0, completion_tokens)),
    )
