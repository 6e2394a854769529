"""The daily cost limit: the cost a provider reported is counted per UTC day with the calls
and tokens; reaching the limit spends the day's budget until the next UTC midnight; calls
that report no cost never reach it; the backlog's calls per day follow the recent cost per
call. Pure functions of the store and ``now`` (a frozen clock)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import load_settings
from memory_core.errors import ConfigError
from memory_core.jobs.budget import backlog, budget_state, cost_per_call, cost_reached, count_call, count_tokens
from memory_core.store.engines.database import Store

NOW = 1_796_270_400.0 + 3_600  # 01:00 UTC
MIDNIGHT = clock.next_day_start(NOW)


def spend(store: Store, at: float, cost: float | None, calls: int = 1) -> None:
    with store.transaction() as conn:
        for _ in range(calls):
            count_call(conn, at)
            count_tokens(conn, at, 1_000, 100, cost_usd=cost)


def test_cost_reached_only_with_a_limit() -> None:
    assert not cost_reached(123.0, None)
    assert not cost_reached(0.99, 1.0)
    assert cost_reached(1.0, 1.0) and cost_reached(1.01, 1.0)
    assert cost_reached(0.0, 0.0)  # a zero limit stops every call


def test_the_reported_cost_spends_the_day_and_the_next_day_starts_anew(home: Path) -> None:
    with Store.open(home) as store:
        spend(store, NOW, 0.30, calls=3)
        state = budget_state(store.conn, NOW, 300, 1_500_000, 1.0)
        assert (state.usage.cost_usd, state.usage.costed_calls, state.spent, state.spent_by) == (
            pytest.approx(0.9),
            3,
            False,
            None,
        )
        spend(store, NOW + 60, 0.15)
        state = budget_state(store.conn, NOW + 60, 300, 1_500_000, 1.0)
        assert (state.spent, state.spent_by, state.resets_at) == (True, "cost", MIDNIGHT)
        assert not budget_state(store.conn, NOW + 60, 300, 1_500_000, None).spent  # no limit: not spent
        tomorrow = budget_state(store.conn, MIDNIGHT + 1, 300, 1_500_000, 1.0)
        assert (tomorrow.spent, tomorrow.usage.cost_usd, tomorrow.usage.calls) == (False, 0.0, 0)


def test_calls_that_report_no_cost_never_reach_the_cost_limit(home: Path) -> None:
    with Store.open(home) as store:
        spend(store, NOW, None, calls=50)
        state = budget_state(store.conn, NOW, 300, 1_500_000, 0.01)
        assert (state.spent, state.usage.calls, state.usage.costed_calls, state.usage.cost_usd) == (False, 50, 0, 0.0)


@pytest.mark.parametrize("bad", [-0.5, math.nan, math.inf])
def test_a_cost_that_is_not_a_finite_amount_is_not_counted(home: Path, bad: float) -> None:
    with Store.open(home) as store:
        spend(store, NOW, bad)
        usage = budget_state(store.conn, NOW, 300, 1_500_000, 1.0).usage
        assert (usage.calls, usage.tokens, usage.cost_usd, usage.costed_calls) == (1, 1_100, 0.0, 0)


def test_the_call_and_token_limits_are_named_first(home: Path) -> None:
    with Store.open(home) as store:
        spend(store, NOW, 5.0, calls=2)
        assert budget_state(store.conn, NOW, 2, 1_500_000, 1.0).spent_by == "calls"
        assert budget_state(store.conn, NOW, 300, 2_000, 1.0).spent_by == "tokens"
        assert budget_state(store.conn, NOW, 300, 1_500_000, 1.0).spent_by == "cost"


def test_the_backlog_drains_at_the_calls_the_cost_limit_pays_for(home: Path) -> None:
    with Store.open(home) as store:
        with store.transaction() as conn:
            for i in range(100):
                capture_source(conn, source_type="user_statement", origin="/w", now=NOW, text=f"remember port {i}")
        spend(store, NOW - 86_400, 0.02, calls=10)  # yesterday: 2 cents a call
        spend(store, NOW, 0.02, calls=5)
        assert cost_per_call(store.conn, NOW) == pytest.approx(0.02)
        state = backlog(store.conn, NOW, 300, 1_500_000, 1.0)  # $1 a day: 50 calls
        assert (state.calls_per_day, state.calls_left_today, state.days_to_drain) == (50, 45, 2)
        unlimited = backlog(store.conn, NOW, 300, 1_500_000)
        assert (unlimited.calls_per_day, unlimited.days_to_drain) == (300, 0)


def test_no_cost_history_leaves_the_backlog_to_calls_and_tokens(home: Path) -> None:
    with Store.open(home) as store:
        spend(store, NOW, None, calls=5)
        assert cost_per_call(store.conn, NOW) is None
        assert backlog(store.conn, NOW, 300, 1_500_000, 1.0).calls_per_day == 300


def test_the_setting_is_off_by_default_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().daily_model_cost_usd is None
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_COST_USD", "2.5")
    assert load_settings().daily_model_cost_usd == 2.5
    for bad in ("-1", "nan", "inf", "five dollars"):
        monkeypatch.setenv("MEMEVO_DAILY_MODEL_COST_USD", bad)
        with pytest.raises(ConfigError, match="MEMEVO_DAILY_MODEL_COST_USD.*US dollars"):
            load_settings()


def test_doctor_says_todays_reported_cost(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core.reports.health import budget_check

    with Store.open(home) as store:
        spend(store, NOW, 0.0125, calls=2)
    check = budget_check(home, load_settings(), NOW)
    assert "$0.0250 reported cost" in check["summary"] and check["details"]["cost_usd_today"] == 0.025
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_COST_USD", "1")
    assert "$0.0250 of $1.0000 reported cost" in budget_check(home, load_settings(), NOW)["summary"]
