"""Aging with a frozen clock: half-lives, floors, dormancy edges, pins, clock skew, confirmation."""

from __future__ import annotations

import json

import pytest
from freezegun import freeze_time

from memory_core.recall.aging import POLICIES, age_days, freshness, is_dormant
from memory_core.recall.service import recall
from tests.support.times import DAY, T0

TABLE = [
    # kind, half-life days, floor, dormant after days
    ("project_state", 3, 0.50, 7),
    ("fact", 60, 0.50, 180),
    ("decision", 120, 0.60, 365),
    ("preference", 240, 0.70, 730),
]


@pytest.mark.parametrize(("kind", "half_life", "floor", "dormant_after"), TABLE)
def test_policy_table(kind: str, half_life: float, floor: float, dormant_after: float) -> None:
    policy = POLICIES[kind]
    assert (policy.half_life_days, policy.floor, policy.dormant_after_days) == (half_life, floor, dormant_after)


@pytest.mark.parametrize(("kind", "half_life", "floor", "dormant_after"), TABLE)
def test_half_life_points_and_floor(kind: str, half_life: float, floor: float, dormant_after: float) -> None:
    assert freshness(kind, T0, T0) == pytest.approx(1.0)
    one = freshness(kind, T0, T0 + half_life * DAY)
    two = freshness(kind, T0, T0 + 2 * half_life * DAY)
    assert one == pytest.approx(floor + (1 - floor) / 2)
    assert two == pytest.approx(floor + (1 - floor) / 4)
    # Decay approaches the floor and never goes below it.
    ancient = freshness(kind, T0, T0 + 100 * half_life * DAY)
    assert floor <= ancient < floor + 1e-9


@pytest.mark.parametrize(("kind", "half_life", "floor", "dormant_after"), TABLE)
def test_dormancy_edges(kind: str, half_life: float, floor: float, dormant_after: float) -> None:
    assert not is_dormant(kind, T0, T0 + dormant_after * DAY - 1)
    assert not is_dormant(kind, T0, T0 + dormant_after * DAY)
    assert is_dormant(kind, T0, T0 + dormant_after * DAY + 1)


@pytest.mark.parametrize(("kind", "half_life", "floor", "dormant_after"), TABLE)
def test_pins_stay_fresh_and_awake(kind: str, half_life: float, floor: float, dormant_after: float) -> None:
    much_later = T0 + 10 * dormant_after * DAY
    assert freshness(kind, T0, much_later, pinned=True) == 1.0
    assert not is_dormant(kind, T0, much_later, pinned=True)


@pytest.mark.parametrize("kind", [row[0] for row in TABLE])
def test_negative_ages_clamp_to_zero(kind: str) -> None:
    future_clock = T0 + 30 * DAY
    assert age_days(future_clock, T0) == 0.0
    assert freshness(kind, future_clock, T0) == 1.0
    assert not is_dormant(kind, future_clock, T0)


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="no aging policy"):
        freshness("rumour", T0, T0)


def test_confirmation_moves_the_clock_not_the_update_time(add, reader) -> None:
    stale = add("Deploys run from the release branch", kind="project_state")
    confirmed = add("Deploys are paused for the audit", kind="project_state", confirmed_at=T0 + 9 * DAY)
    assert confirmed.updated_at == stale.updated_at == T0
    assert confirmed.clock_at == T0 + 9 * DAY
    now = T0 + 10 * DAY  # 10 days after the update, 1 day after the confirmation
    result = recall(reader.conn, "deploys", now=now)
    assert [c.memory_id for c in result.claims] == [confirmed.id]
    assert result.claims[0].freshness == pytest.approx(freshness("project_state", T0 + 9 * DAY, now))
    excluded = {c["id"]: c["excluded"] for c in result.diagnostics["candidates"]}
    assert excluded[stale.id] == "dormant"


def test_dormant_claims_yield_to_awake_ones(add, reader) -> None:
    old = add("The staging database listens on port 6543", kind="fact")
    awake = add("The staging database moved to port 7001", kind="fact", at=T0 + 100 * DAY)
    now = T0 + 181 * DAY
    result = recall(reader.conn, "staging database port", now=now)
    assert [c.memory_id for c in result.claims] == [awake.id]
    excluded = {c["id"]: c["excluded"] for c in result.diagnostics["candidates"]}
    assert excluded[old.id] == "dormant"
    found = recall(reader.conn, "staging database port", now=now, include_dormant=True)
    assert {c.memory_id for c in found.claims} == {old.id, awake.id}


def test_dormant_claims_only_on_request(add, reader) -> None:
    # Dormant means no longer offered, not gone: even when nothing awake answers.
    old = add("The staging database listens on port 6543", kind="fact")
    now = T0 + 181 * DAY
    assert recall(reader.conn, "staging database port", now=now).claims == []
    found = recall(reader.conn, "staging database port", now=now, include_dormant=True)
    assert [c.memory_id for c in found.claims] == [old.id]
    assert found.claims[0].dormant
    assert '"dormant":true' in found.digest


def test_pinned_project_state_is_recalled_long_after(add, reader) -> None:
    pinned = add("The nightly job writes reports to /srv/reports", kind="project_state", pinned=True)
    result = recall(reader.conn, "nightly reports", now=T0 + 400 * DAY)
    assert [c.memory_id for c in result.claims] == [pinned.id]
    assert result.claims[0].freshness == 1.0
    assert "aging" not in result.digest


def test_aging_label_below_threshold(add, reader) -> None:
    add("The team prefers squash merges", kind="fact")
    result = recall(reader.conn, "squash merges", now=T0 + 60 * DAY)
    row = json.loads(result.digest.splitlines()[2])
    assert row["aging"] == pytest.approx(0.75, abs=0.01)


def test_cli_recall_reads_the_frozen_clock(add, cli_run) -> None:
    add("The build cache lives in /var/cache/builds", kind="project_state")
    with freeze_time("2023-11-16"):  # two days after T0: fresh
        awake = cli_run("recall", "build cache", "--json")
    with freeze_time("2023-11-30"):  # sixteen days after: dormant
        asleep = cli_run("recall", "build cache", "--json")
        asked = cli_run("recall", "build cache", "--json", "--include-dormant")
    assert len(json.loads(awake.output)["claims"]) == 1
    assert json.loads(asleep.output)["claims"] == []
    assert json.loads(asked.output)["claims"][0]["dormant"] is True
