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
from memory_core.errors import BudgetSpent, ConfigError, UsageError
from memory_core.jobs.budget import budget_state
from memory_core.jobs.forced import attempt_outcome, pick_forced_source
from memory_core.jobs.model_state import read_worker_model
from memory_core.records import JobState, Source
from memory_core.store.tables.sources import require_source

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
@click.option("-w", "--workers", default=2, show_default=True, type=click.IntRange(1, 16), help="Worker processes.")
@click.option("--no-periodic", is_flag=True, help="Do not schedule periodic recovery (for every consumer but one).")
def worker_command(workers: int, no_periodic: bool) -> None:
    """Start the background worker (huey_consumer with process workers) in the foreground."""
    cfg = settings()
    with open_store():
        pass  # create and migrate the database before workers fork
    _deliver_spool(cfg.home)
    argv = consumer_argv(workers, not no_periodic)
    click.echo(f"memevo worker: state dir {cfg.home}; running {' '.join(argv[1:])}", err=True)
    sys.stdout.flush()
    os.execv(argv[0], argv)


def _deliver_spool(home: Any) -> None:
    """Store the captures hooks kept in ``spool/`` (while ``memory.db`` was damaged, or while
    the PostgreSQL gateway was down) before the worker starts: each at its original time,
    through the hook's own code. Whatever cannot be stored yet stays for the next try."""
    from cli.hooks import spool

    if not spool.pending(home):
        return
    from cli.hooks.spool_drainer import deliver_kept

    delivered, aside, left, failed = deliver_kept(home, "worker")
    if failed is not None:
        click.echo(f"memevo worker: could not store the captures kept in spool/ ({failed})", err=True)
        return
    click.echo(
        f"memevo worker: stored {delivered} capture(s) kept in spool/, set aside {aside}, {left} still wait", err=True
    )


# `memevo evolve --wait` exit codes beyond 0 (done, or queued without --wait), 1 (an error)
# and 2 (usage, or no model configured): how the attempt ended.
EXIT_FAILED = 3  # it failed and will be retried
EXIT_PAUSED = 4  # it failed and the source is now paused
EXIT_BUDGET_SPENT = 5  # the daily model budget is spent: no attempt can start before it resets
EXIT_NO_OUTCOME = 6  # still queued or running when --wait ran out (or handed back by a stopping worker)
_EXIT_CODES = {
    "failed": EXIT_FAILED,
    "paused": EXIT_PAUSED,
    "budget_spent": EXIT_BUDGET_SPENT,
    "queued": EXIT_NO_OUTCOME,
    "running": EXIT_NO_OUTCOME,
    "released": EXIT_NO_OUTCOME,
}


class EvolveBudgetSpent(BudgetSpent):
    """The budget is spent, so a forced attempt cannot start today."""

    exit_code = EXIT_BUDGET_SPENT


def _render_evolve(data: dict[str, Any]) -> str:
    line = f"source {data['source_id']}: {data['status']}"
    if data.get("error_code"):
        line += f" ({data['error_code']}" + (f": {data['error_reason']}" if data.get("error_reason") else "") + ")"
    if data.get("reused"):
        line += " (the attempt already queued or running; none added)"
    if data.get("next_due_at"):
        line += f", next attempt {clock.iso(data['next_due_at'])}"
    if data.get("hint"):
        line += f" ({data['hint']})"
    return line


def _queue(chosen: str, cfg: Any) -> tuple[Source, bool]:
    """The job row as it was, and whether an attempt already queued or running is reused."""
    from cli.forced_attempt import queue_forced

    try:
        return queue_forced(open_store, chosen, cfg, clock.now())
    except BudgetSpent as exc:
        raise EvolveBudgetSpent(str(exc)) from None


def _wait(before: Source, data: dict[str, Any], wait_seconds: float, cfg: Any) -> dict[str, Any]:
    """Poll the job row until the attempt ends or ``wait_seconds`` run out."""
    running = before.state == JobState.LEASED
    target = before.attempt if running else before.attempt + 1
    deadline = time.monotonic() + wait_seconds
    worker_model: bool | None = None
    while time.monotonic() < deadline:
        time.sleep(0.2)
        with open_store() as store:
            current = require_source(store.conn, before.id)
            spent = budget_state(
                store.conn, clock.now(), cfg.daily_model_calls, cfg.daily_model_tokens, cfg.daily_model_cost_usd
            ).spent
            worker_model = read_worker_model(store.conn)
        if current.state == JobState.RETIRED or (current.attempt >= target and current.state != JobState.LEASED):
            return {**attempt_outcome(before, current), "reused": data.get("reused", False)}
        if current.attempt >= target:
            data["status"] = "running"
        elif spent:
            # Spent meanwhile (by other attempts): the worker will not start this one today.
            return {**data, "status": "budget_spent"}
    if wait_seconds and data["status"] == "queued":
        # JSON fields hold values; the hint is for people and scripts alike, in its own field.
        if worker_model is False:
            data["hint"] = (
                f"the worker has no model configured: {cfg.model_setup_hint()} where it runs, then restart it"
            )
        else:
            data["hint"] = "not picked up yet: is `memevo worker` running?"
    return data


@click.command("evolve")
@click.option("--source", "source_id", help="Source id to attempt (default: the newest eligible).")
@click.option(
    "--wait",
    "wait_seconds",
    type=click.FloatRange(0, 3600),
    default=0.0,
    help="Wait up to this many seconds and report the outcome.",
)
@json_option
def evolve_command(source_id: str | None, wait_seconds: float, as_json: bool) -> None:
    """Force one consolidation attempt now, overriding the retry delay and a pause.

    The failure count is not reset; completed or retired sources never run again. While a
    forced attempt is queued or running, evolve reuses it instead of queueing another.
    Exit codes with --wait: 0 done, 3 failed (retried later), 4 paused, 5 daily budget
    spent, 6 no outcome yet (still queued or running); 2 when no model is configured.
    """
    cfg = settings()
    if not cfg.model_configured:
        raise ConfigError(
            f"no model configured, so no attempt can run: {cfg.model_setup_hint()}, "
            "in the environment or config.toml (the worker needs it too); nothing was queued"
        )
    with open_store() as store:
        chosen = pick_forced_source(store.conn, source_id)
    if chosen is None:
        raise UsageError("no pending or paused source to evolve; capture something first")
    before, reused = _queue(chosen, cfg)
    data: dict[str, Any] = {
        "source_id": chosen,
        "status": "running" if before.state == JobState.LEASED else "queued",
        "reused": reused,
    }
    if wait_seconds:
        data = _wait(before, data, wait_seconds, cfg)
    emit(data, as_json, _render_evolve)
    code = _EXIT_CODES.get(data["status"], 0) if wait_seconds or data["status"] == "budget_spent" else 0
    click.get_current_context().exit(code)


COMMANDS = [worker_command, evolve_command]
