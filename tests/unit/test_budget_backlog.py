"""A burst bigger than the daily budget is said plainly: status names what waits and when work
resumes, doctor warns when a day's budget cannot drain it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.commands.status_cmd import render_budget
from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.config import Settings, load_settings
from memory_core.jobs.budget import DEFAULT_TOKENS_PER_CALL, backlog, count_call, count_tokens
from memory_core.reports.health import OK, WARN, budget_check
from memory_core.reports.status import budget_section
from memory_core.store.engines.database import Store

NOW = 1_796_270_400.0 + 3_600  # 01:00 UTC
MIDNIGHT = clock.next_day_start(NOW)


def burst(home: Path, count: int, *, calls_today: int = 0, tokens_per_call: int = 0) -> None:
    with Store.open(home) as store, store.transaction() as conn:
        for i in range(count):
            capture_source(
                conn,
                source_type="user_statement",
                origin="/w",
                now=NOW,
                text=f"remember that service {i} listens on port {1000 + i}",
            )
        for _ in range(calls_today):
            count_call(conn, NOW)
        if calls_today and tokens_per_call:
            count_tokens(conn, NOW, calls_today * tokens_per_call, 0)


def settings_with(monkeypatch: pytest.MonkeyPatch, calls: int | None = None) -> Settings:
    if calls is not None:
        monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", str(calls))
    return load_settings()


def test_the_reported_burst_at_500_calls_a_day(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1,900 captured, 500 consolidated today: 1,400 wait and the budget is spent.
    burst(home, 1_400, calls_today=500)
    settings = settings_with(monkeypatch, 500)
    with Store.open(home) as store:
        section = budget_section(store, settings, NOW)
    assert section["sources_waiting"] == 1_400 and section["spent"] is True
    assert section["resumes_at"] == clock.iso(MIDNIGHT) and section["days_to_drain"] == 3
    assert section["drains_within_a_day"] is False
    line = render_budget(section)
    assert line.startswith("spent for today; 1,400 sources wait for the next UTC day: work resumes ")
    assert clock.iso(MIDNIGHT) in line and "about 3 days to drain at 500 calls a day" in line
    check = budget_check(home, settings, NOW)
    assert check["status"] == WARN and "1,400 sources wait but the budget allows 500 calls a day" in check["summary"]
    assert "MEMEVO_DAILY_MODEL_CALLS=1400" in check["fix"]


def test_the_default_budget_drains_such_a_burst_the_same_day(home: Path) -> None:
    burst(home, 1_900)
    settings = load_settings()
    assert settings.daily_model_calls >= 1_900 * 2
    assert settings.daily_model_tokens >= 1_900 * DEFAULT_TOKENS_PER_CALL * 2
    with Store.open(home) as store:
        section = budget_section(store, settings, NOW)
    assert section["days_to_drain"] == 0 and section["drains_within_a_day"]
    assert render_budget(section).startswith("1,900 sources wait; today's budget covers them")
    assert budget_check(home, settings, NOW)["status"] == OK


def test_the_token_budget_counts_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 10 calls today at 50,000 tokens each: the token budget, not the call budget, binds.
    burst(home, 300, calls_today=10, tokens_per_call=50_000)
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_TOKENS", "1000000")
    with Store.open(home) as store:
        state = backlog(store.conn, NOW, 5_000, 1_000_000)
    assert state.tokens_per_call == 50_000 and state.calls_per_day == 20
    assert state.calls_left_today == 10 and state.days_to_drain == 15


def test_a_zero_budget_never_drains(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    burst(home, 3)
    settings = settings_with(monkeypatch, 0)
    with Store.open(home) as store:
        section = budget_section(store, settings, NOW)
    assert section["days_to_drain"] is None
    assert "allows no model calls" in render_budget(section)
    assert budget_check(home, settings, NOW)["status"] == WARN


def test_nothing_waiting_is_fine(home: Path) -> None:
    assert budget_check(home, load_settings(), NOW)["status"] == OK  # no database yet
    burst(home, 0)
    with Store.open(home) as store:
        section = budget_section(store, load_settings(), NOW)
    assert section["sources_waiting"] == 0 and render_budget(section).startswith("0 sources wait")


def test_status_and_doctor_say_it(home: Path, monkeypatch: pytest.MonkeyPatch, cli_run) -> None:
    import json

    burst(home, 30, calls_today=0)
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_CALLS", "10")
    text = cli_run("status").output
    assert "budget:          30 sources wait; today's budget has 10 calls left, so about 2 more days" in text
    assert "raise daily_model_calls to go faster" in text
    assert json.loads(cli_run("status", "--json").output)["budget"]["sources_waiting"] == 30
    doctor = json.loads(cli_run("doctor", "--json").output)
    check = next(c for c in doctor["checks"] if c["name"] == "budget")
    assert check["status"] == "warn" and "30 sources wait but the budget allows 10 calls a day" in check["summary"]
