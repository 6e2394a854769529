"""While a spooled event cannot be delivered, its reason is logged when new and then once an
hour, not on every drain (cli/hooks/spool_drainer.worth_logging)."""

from __future__ import annotations

from cli.hooks.spool_drainer import REPEAT_SECONDS, worth_logging


def test_a_reason_is_logged_first_then_once_an_hour() -> None:
    logged: dict[str, float] = {}
    start = 1_800_000_000.0
    assert worth_logging("store unreachable", start, logged)
    assert not worth_logging("store unreachable", start + 30, logged)
    assert not worth_logging("store unreachable", start + REPEAT_SECONDS - 1, logged)
    assert worth_logging("store unreachable", start + REPEAT_SECONDS, logged)
    assert not worth_logging("store unreachable", start + REPEAT_SECONDS + 30, logged)


def test_a_new_reason_is_logged_at_once() -> None:
    logged: dict[str, float] = {}
    assert worth_logging("store unreachable", 100.0, logged)
    assert worth_logging("memory.db is damaged", 130.0, logged)
    assert not worth_logging("memory.db is damaged", 160.0, logged)


def test_a_clock_set_back_logs_again() -> None:
    logged: dict[str, float] = {}
    assert worth_logging("store unreachable", 5_000.0, logged)
    assert worth_logging("store unreachable", 4_000.0, logged)  # the clock went back: say it again


def test_the_memo_stays_small() -> None:
    logged: dict[str, float] = {}
    for n in range(500):
        assert worth_logging(f"reason {n}", float(n), logged)
    assert len(logged) <= 65
