"""The standing reliability suite (bench/reliability), with numbers small enough for CI.

Each check prints its figures (run with ``-s`` to see them); `python -m bench.reliability`
runs the same checks with larger numbers.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from bench.reliability import chaos, concurrency, hook_fuzz, model_replies, planted_secrets
from bench.reliability.harness import print_figures

# The harness (bench/reliability/harness.py) builds its processes' environment from the state
# dir alone and reads memory.db directly, so these run on SQLite; on PostgreSQL the queue and
# worker reliability is covered by tests/integration/test_worker_process.py and
# tests/worker/test_several_workers.py, the gateway's by tests/hooks/test_gateway*.py.
pytestmark = [pytest.mark.slow, pytest.mark.sqlite_only]


def test_chaos_sigkill_during_consolidation_loses_nothing(tmp_path: Path) -> None:
    figures = chaos.run(kills=5, consolidations=30, workdir=tmp_path)
    print_figures("chaos", figures)
    assert figures["lost"] == 0 and figures["applied_twice"] == 0 and figures["done"] == 30


def test_concurrent_producers_and_two_workers_count_exactly(tmp_path: Path) -> None:
    figures = concurrency.run(producers=4, captures=25, workers=2, workdir=tmp_path)
    print_figures("concurrency", figures)
    assert figures["sources"] == figures["claims"] == figures["model_requests"] == 100


def test_hostile_hook_input_for_every_event_fails_open(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hypothesis warns about the size of its strategies' reprs
        figures = hook_fuzz.run(400, processes=True, workdir=tmp_path)
    print_figures("hook_fuzz", figures)
    assert figures["calls"] == 400 and figures["rows_changed"] == 0


def test_malformed_model_replies_are_rejected_and_retried(tmp_path: Path) -> None:
    figures = model_replies.run(workdir=tmp_path)
    print_figures("model_replies", figures)
    assert figures["shapes"] >= 40 and figures["transport_shapes"] >= 10
    assert figures["rejected"] == figures["shapes"] == figures["retries_scheduled"] and figures["written"] == 0


def test_planted_secrets_reach_no_file_and_no_model_request(tmp_path: Path) -> None:
    figures = planted_secrets.run(workdir=tmp_path)
    print_figures("planted_secrets", figures)
    assert figures["leaks"] == 0 and figures["secrets_planted"] >= 40
