"""`memevo worker` and `memevo evolve`: run the background worker, force one attempt."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any

import click

from cli.context import emit, json_option, open_store, settings
from memory_core import clock
from memory_core.errors import BudgetSpent, StoreError, UsageError
from memory_core.jobs.budget import budget_state
from memory_core.jobs.lifecycle import attempt_outcome, pick_forced_source
from memory_core.records import JobState
from memory_core.store.sources import require_source

# Graceful stop on SIGTERM; after 3 s a running attempt is interrupted and its job is
# handed back as pending (not a failure). Supervisors should wait longer than that.
CONSUMER_FLAGS = ["-k", "process", "-g", "TERM", "-t", "3"]


def consumer_argv(workers: int, periodic: bool) -> list[str]:
    """The huey_consumer command line memevo runs."""
    exe = shutil.which("huey_consumer") or os.path.join(os.path.dirname(sys.executable), "huey_consumer")
    argv = [exe, "workers.main.huey", "-w", str(workers), *CONSUMER_FLAGS]
    if not periodic:
        argv.append("-n")
    return argv


@click.command("worker")
@click.option("-w", "--workers", default=2, show_default=True, type=click.IntRange(1, 16),
              help="Worker processes.")
@click.option("--no-periodic", is_flag=True,
              help="Do not schedule periodic recovery (for every consumer but one).")
def worker_command(workers: int, no_periodic: bool) -> None:
    """Start the background worker (huey_consumer with process workers) in the foreground."""
    cfg = settings()
    with open_store():
        pass  # create and migrate the database before workers fork
    argv = consumer_argv(workers, not no_periodic)
    click.echo(f"memevo worker: state dir {cfg.home}; running {' '.join(argv[1:])}", err=True)
    sys.stdout.flush()
    os.execv(argv[0], argv)


def _render_evolve(data: dict[str, Any]) -> str:
    line = f"source {data['source_id']}: {data['status']}"
    if data.get("error_code"):
        line += f" ({data['error_code']})"
    if data.get("next_due_at"):
        line += f", next attempt {clock.iso(data['next_due_at'])}"
    if data.get("hint"):
        line += f" ({data['hint']})"
    return line


@click.command("evolve")
@click.option("--source", "source_id", help="Source id to attempt (default: the newest eligible).")
@click.option("--wait", "wait_seconds", type=click.FloatRange(0, 3600), default=0.0,
              help="Wait up to this many seconds and report the outcome.")
@json_option
def evolve_command(source_id: str | None, wait_seconds: float, as_json: bool) -> None:
    """Force one consolidation attempt now, overriding the retry delay and a pause.

    The failure count is not reset; completed or retired sources never run again.
    """
    cfg = settings()
    with open_store() as store:
        chosen = pick_forced_source(store.conn, source_id)
        if chosen is None:
            raise UsageError("no pending or paused source to evolve; capture something first")
        before = require_source(store.conn, chosen)
        # The worker starts no attempt on a spent budget, so a nudge now would be dropped
        # while this command reported it as queued.
        budget = budget_state(store.conn, clock.now(), cfg.daily_model_calls, cfg.daily_model_tokens)
    if budget.spent:
        raise BudgetSpent(
            f"the daily model budget is spent ({budget.usage.calls} calls, {budget.usage.tokens} tokens "
            f"today); it resets at {clock.iso(budget.resets_at)}, or raise MEMEVO_DAILY_MODEL_CALLS "
            "/ MEMEVO_DAILY_MODEL_TOKENS"
        )
    from cli.nudge import nudge_consolidate

    if not nudge_consolidate(chosen, forced=True):
        raise StoreError("could not enqueue the attempt (queue.db unavailable); check the state dir")
    data: dict[str, Any] = {"source_id": chosen, "status": "queued"}
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        time.sleep(0.2)
        with open_store() as store:
            current = require_source(store.conn, chosen)
        if current.attempt > before.attempt:
            if current.state != JobState.LEASED:
                data = attempt_outcome(before, current)
                break
            data["status"] = "running"
    if wait_seconds and data["status"] == "queued":
        # JSON fields hold values; the hint is for people and scripts alike, in its own field.
        data["hint"] = "not picked up yet: is `memevo worker` running?"
    emit(data, as_json, _render_evolve)


COMMANDS = [worker_command, evolve_command]
