"""Huey tasks. Messages are only nudges: the job state lives in memory.db, so a lost or
duplicated message costs nothing but a no-op claim.

Hooks import this module to enqueue, so the domain modules a task needs are imported when
the task runs, not here.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

from huey import crontab

from workers.app import huey

if TYPE_CHECKING:
    from pathlib import Path

    from memory_core.config import Settings
    from memory_core.store.engines.database import Store

# recover() re-nudges due sources only while the queue is short, so a backlog is not
# multiplied by one copy per minute.
RENUDGE_QUEUE_LIMIT = 10
RENUDGE_BATCH = 50
# A starting worker nudges every due source (up to this many) while the queue is short: a
# capture made while no worker ran wrote no nudge (cli/nudge.py), so a backlog gathered then
# is in no queue, and waiting for the once-a-minute batches would drain it 50 at a time.
STARTUP_RENUDGE_BATCH = 10_000
# How soon a progress source waiting for its turn's user statement is tried again.
STATEMENT_WAIT_SECONDS = 5.0


@functools.cache
def settings() -> Settings:
    """The worker's settings, read once per process when the first task runs."""
    from memory_core.config import load_settings

    return load_settings()


@huey.task()
def consolidate(source_id: str | None, forced: bool = False) -> None:
    """Attempt one source; a failure schedules a nudge at its next due time."""
    from memory_core import clock
    from workers.consolidate import AttemptStatus, consolidate_source

    outcome = consolidate_source(settings(), source_id, forced=forced)
    if outcome.status == AttemptStatus.FAILED and outcome.next_due_at is not None and outcome.source_id:
        delay = max(0.0, outcome.next_due_at - clock.now())
        consolidate.schedule(args=(outcome.source_id,), delay=delay)
    elif outcome.status == AttemptStatus.WAITING and outcome.source_id:
        # What goes first (its turn's statement, an earlier source of its state) is being
        # applied by another worker: look again shortly instead of waiting for the
        # once-a-minute recovery; when that is waiting out a backoff, shortly after it.
        delay = STATEMENT_WAIT_SECONDS
        if outcome.next_due_at is not None:
            delay += max(0.0, outcome.next_due_at - clock.now())
        consolidate.schedule(args=(outcome.source_id,), delay=delay)


def recover_jobs(*, periodic: bool = False, startup: bool = False) -> dict[str, int]:
    """Expired leases become interrupted failures; due sources, and forced attempts whose
    nudge may have been lost, get a fresh nudge. Without a model nothing is nudged: the
    sources wait, uncounted, and status shows the worker waiting for a model.

    ``periodic``: the once-a-minute run, which every consumer's scheduler queues; only the
    first worker to run it in a minute recovers (:func:`claim_recovery_minute`), the others
    only record their heartbeat. ``startup``: a worker process starting, which nudges every
    due source (:data:`STARTUP_RENUDGE_BATCH`) instead of a batch of :data:`RENUDGE_BATCH`."""
    from memory_core import clock
    from memory_core.jobs.budget import budget_state
    from memory_core.jobs.forced import forced_source_ids
    from memory_core.jobs.heartbeat import forget_silent_workers, write_heartbeat
    from memory_core.jobs.lifecycle import due_source_ids, recover_expired_leases
    from memory_core.jobs.model_state import write_worker_model
    from memory_core.jobs.recovery_claim import claim_recovery_minute
    from memory_core.records import JobState
    from memory_core.store.engines.database import Store
    from workers.liveness import worker_name
    from workers.logs import worker_logger

    now = clock.now()
    cfg = settings()
    with Store.open(cfg.home) as store:
        with store.transaction() as conn:
            write_heartbeat(conn, now, worker_name())
            write_worker_model(conn, cfg.model_configured, worker_name())
            if periodic and not claim_recovery_minute(conn, now):
                return {"interrupted": 0, "nudged": 0, "claimed_elsewhere": 1}
            failures = recover_expired_leases(conn, now)
            if periodic:
                forget_silent_workers(conn, now)
        if periodic and store.backend.is_sqlite:
            # Connections close without a checkpoint (memory_core.store.engines.close_checkpoint): the
            # worker folds the WAL into the database once a minute, waiting for no one.
            from memory_core.store.engines.close_checkpoint import truncate_wal

            truncate_wal(store.conn)  # type: ignore[arg-type]
            daily_backup(store, cfg.home, now)
        for failure in failures:
            worker_logger(cfg.home).warning(
                "lease expired on %s: interrupted failure %d", failure.source_id, failure.consecutive_failures
            )
            if failure.state == JobState.PENDING and cfg.model_configured:
                consolidate.schedule(args=(failure.source_id,), delay=max(0.0, failure.next_due_at - now))
        nudged = 0
        budget = budget_state(store.conn, now, cfg.daily_model_calls, cfg.daily_model_tokens, cfg.daily_model_cost_usd)
        if cfg.model_configured and not budget.spent and huey.pending_count() < RENUDGE_QUEUE_LIMIT:
            # A repeated forced nudge is harmless: the lease needs the outstanding request.
            for source_id in forced_source_ids(store.conn, RENUDGE_BATCH):
                consolidate(source_id, forced=True)
                nudged += 1
            for source_id in due_source_ids(store.conn, now, STARTUP_RENUDGE_BATCH if startup else RENUDGE_BATCH):
                consolidate(source_id)
                nudged += 1
    return {"interrupted": len(failures), "nudged": nudged}


def daily_backup(store: Store, home: Path, now: float) -> None:
    """Once a day, a checked copy of memory.db in backups/ (memory_core.store.safekeeping.backups); a copy
    that fails its check is logged as an error and not kept."""
    from memory_core.errors import StoreError
    from memory_core.store.safekeeping.backups import make_daily_backup
    from workers.logs import worker_logger

    try:
        made = make_daily_backup(store.conn, home, now)  # type: ignore[arg-type]
    except (StoreError, OSError) as exc:
        worker_logger(home).error("daily backup: %s", exc)
        return
    if made is not None:
        worker_logger(home).info("daily backup: %s", made.name)


def announce_missing_model() -> bool:
    """Say once, on the consumer's stderr and in the worker log, that no model is configured
    and what to set (the first of the worker processes starting together says it). True if
    this process said it."""
    from memory_core import clock
    from memory_core.jobs.model_state import claim_missing_model_announcement
    from memory_core.store.engines.database import Store
    from workers.logs import worker_logger

    cfg = settings()
    if cfg.model_configured:
        if cfg.uses_cli:
            worker_logger(cfg.home).info(
                "learning through the agent's CLI %s (model %s; daily budget %d calls, %d tokens)",
                cfg.cli_command(),
                cfg.cli_model or "its own default",
                cfg.daily_model_calls,
                cfg.daily_model_tokens,
            )
        return False
    with Store.open(cfg.home) as store:
        with store.transaction() as conn:
            announce = claim_missing_model_announcement(conn, clock.now())
    if announce:
        message = no_model_message(cfg)
        print(f"memevo worker: {message}", file=sys.stderr, flush=True)
        worker_logger(cfg.home).warning(message)
    return announce


def no_model_message(cfg: Settings) -> str:
    """The one line the worker says when it has no model."""
    return (
        f"no model configured: {cfg.model_setup_hint()}, then restart the worker. Until then "
        "captured sources wait as pending; no attempt, failure or model budget is counted."
    )


@huey.task()
def recover() -> None:
    """On demand (hooks at session start nudge this)."""
    recover_jobs()


@huey.periodic_task(crontab(minute="*"))
def recover_every_minute() -> None:
    recover_jobs(periodic=True)


@huey.on_startup()
def recover_at_startup() -> None:
    from workers import liveness

    liveness.start(settings())  # this worker's heartbeat and clock check, now and every 30 s
    try:
        from workers import capture_watch

        # New captures nudged from here (SQLite); a repeat only while the queue is short.
        capture_watch.start(settings(), consolidate, lambda: huey.pending_count() < RENUDGE_QUEUE_LIMIT)
    except Exception:  # hooks then keep nudging (no watch recorded); start-up recovery still runs
        from workers.logs import worker_logger

        worker_logger(settings().home).warning("capture watch not started", exc_info=True)
    announce_missing_model()
    recover_jobs(startup=True)
