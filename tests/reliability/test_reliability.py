"""The standing reliability suite (bench/reliability), with numbers small enough for CI, on
both backends.

Each check builds its own state dir and store from the test's backend: on SQLite
``memory.db`` in a temporary state dir, on PostgreSQL fresh schemas of the test database
(the queue, ``PostgresHuey``, in the same schema). Its real processes (consumers, producers,
`memevo hook`, `memevo evolve`) get ``MEMEVO_DATABASE_URL``; on PostgreSQL hooks go through a
`memevo serve` the check starts, as they do on such a machine, and two consumers stand for
two machines sharing the queue. Stores are read through memevo's own read-only ``Store``.
What only one engine has is checked there: SQLite's ``PRAGMA integrity_check``; on
PostgreSQL, that no backend keeps the write lock, the faults of :mod:`pg_faults`, `memevo
serve` killed under the hooks (:mod:`gateway_chaos`) and every server connection dropped
under load (:mod:`pg_drops`).

Each check prints its figures (run with ``-s`` to see them); `python -m bench.reliability`
runs the same checks with larger numbers.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

from bench.reliability import (
    chaos,
    concurrency,
    everyday,
    gateway_chaos,
    hook_fuzz,
    model_replies,
    pg_drops,
    pg_faults,
    planted_secrets,
)
from bench.reliability.harness import print_figures
from tests.support.redis_server import redis_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow


@pytest.fixture
def database_url(home: Path, backend: str) -> str | None:
    """The test database on PostgreSQL (each check makes fresh schemas in it), else None."""
    return os.environ["MEMEVO_DATABASE_URL"] if backend == "postgresql" else None


def test_chaos_sigkill_during_consolidation_loses_nothing(tmp_path: Path, database_url: str | None) -> None:
    figures = chaos.run(kills=5, consolidations=30, consumers=2, workers=1, database_url=database_url, workdir=tmp_path)
    print_figures("chaos", figures)
    assert figures["lost"] == 0 and figures["applied_twice"] == 0 and figures["done"] == 30
    assert figures["integrity"]["ok"]
    assert figures["sources_retried"] >= 1 or max(figures["leased_at_kills"]) >= 1  # the kills hit work


@pytest.mark.postgres_only
def test_chaos_with_the_queue_on_redis_loses_nothing(tmp_path: Path, database_url: str, redis_url: str) -> None:  # noqa: F811
    # A consumer killed with a message popped from Redis loses that nudge: recovery finds the source.
    figures = chaos.run(
        kills=3,
        consolidations=20,
        consumers=2,
        workers=1,
        database_url=database_url,
        queue_url=redis_url,
        workdir=tmp_path,
    )
    print_figures("chaos redis", figures)
    assert figures["queue"] == "redis" and figures["done"] == 20
    assert figures["lost"] == 0 and figures["applied_twice"] == 0 and figures["integrity"]["ok"]


def test_concurrent_producers_and_two_consumers_count_exactly(tmp_path: Path, database_url: str | None) -> None:
    figures = concurrency.run(
        producers=4, captures=25, workers=1, consumer_count=2, database_url=database_url, workdir=tmp_path
    )
    print_figures("concurrency", figures)
    assert figures["sources"] == figures["claims"] == figures["model_requests"] == 100
    assert figures["sources_leased_more_than_once"] == 0 and figures["integrity"]["ok"]


def test_everyday_concurrent_use_with_a_slow_model_damages_nothing(tmp_path: Path, database_url: str | None) -> None:
    # A worker whose model takes seconds, hooks, forced evolves, list, status, `memevo serve`
    # and `memevo ui` requests all at once (on SQLite it found memory.db damaged, issue 36).
    figures = everyday.run(seconds=45, model_delay=3.0, database_url=database_url, workdir=tmp_path)
    print_figures("everyday", figures)
    assert figures["integrity"]["ok"] and not figures["database_errors"] and not figures["tracebacks"]
    assert figures["lost"] == figures["stored_twice"] == figures["applied_twice"] == 0
    assert figures["sources"] == figures["captures"] >= 20 and figures["states"].get("done", 0) >= 3


def test_hostile_hook_input_for_every_event_fails_open(tmp_path: Path, database_url: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hypothesis warns about the size of its strategies' reprs
        figures = hook_fuzz.run(400, processes=True, database_url=database_url, workdir=tmp_path)
    print_figures("hook_fuzz", figures)
    assert figures["calls"] == 400 and figures["rows_changed"] == 0 and figures["integrity"]["ok"]


def test_malformed_model_replies_are_rejected_and_retried(tmp_path: Path, database_url: str | None) -> None:
    figures = model_replies.run(database_url=database_url, workdir=tmp_path)
    print_figures("model_replies", figures)
    assert figures["shapes"] >= 40 and figures["transport_shapes"] >= 10
    assert figures["rejected"] == figures["shapes"] == figures["retries_scheduled"] and figures["written"] == 0


def test_planted_secrets_reach_no_file_and_no_model_request(tmp_path: Path, database_url: str | None) -> None:
    figures = planted_secrets.run(database_url=database_url, workdir=tmp_path)
    print_figures("planted_secrets", figures)
    assert figures["leaks"] == 0 and figures["secrets_planted"] >= 40


@pytest.mark.postgres_only
@pytest.mark.parametrize("fault", pg_faults.FAULTS)
def test_a_worker_hit_inside_its_apply_transaction_leaves_nothing_and_is_retried(
    tmp_path: Path, database_url: str, fault: str
) -> None:
    figures = pg_faults.run((fault,), database_url=database_url, workdir=tmp_path)[fault]
    print_figures(f"pg_faults {fault}", figures)
    assert figures["backend_when_hit"]["has_written"] and figures["claims_after_fault"] == 0
    assert figures["claims"] == figures["applies"] == 1 and figures["recorded"]["code"] == "interrupted"


@pytest.mark.postgres_only
def test_memevo_serve_killed_while_hooks_capture_loses_and_doubles_no_turn(tmp_path: Path, database_url: str) -> None:
    figures = gateway_chaos.run(kills=4, producers=2, captures=40, database_url=database_url, workdir=tmp_path)
    print_figures("gateway_chaos", figures)
    assert figures["sources"] == figures["turns"] == 80 and figures["lost"] == figures["stored_twice"] == 0
    assert figures["spooled"] >= 1 and figures["spool_left"] == 0  # some calls met a dead server


@pytest.mark.postgres_only
def test_server_connections_dropped_under_load_lose_and_double_nothing(tmp_path: Path, database_url: str) -> None:
    figures = pg_drops.run(drops=3, producers=2, captures=20, database_url=database_url, workdir=tmp_path)
    print_figures("pg_drops", figures)
    assert figures["sources"] == figures["claims"] == figures["turns"] == 40
    assert figures["lost"] == figures["stored_twice"] == 0 and sum(figures["backends_ended"]) >= 3
