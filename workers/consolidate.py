"""One consolidation attempt: lease → model call (no transaction open) → validate → apply.

Every way an attempt can end is mapped to a stored, allowlisted error code and reason
code; exception text, response bodies and credentials never reach the database or the
worker log. Without a configured model nothing is leased, so nothing is counted.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from memory_core import clock
from memory_core.config import Settings
from memory_core.consolidation.apply import apply_batch
from memory_core.consolidation.contract import parse_model_output
from memory_core.consolidation.prompt import build_messages, prompt_bytes
from memory_core.consolidation.targets import mentioned_claims
from memory_core.errors import InvalidModelOutput, LeaseLost, StaleOutput, StoreError, WriteRejected
from memory_core.ids import random_id
from memory_core.jobs.budget import budget_state, count_call, count_tokens
from memory_core.jobs.heartbeat import write_heartbeat
from memory_core.jobs.lifecycle import (
    FailureOutcome,
    Lease,
    complete_job,
    fail_job,
    lease_job,
    must_wait,
    own_source,
    release_job,
    waiting_until,
)
from memory_core.jobs.model_state import remember_json_mode, remembered_json_mode, write_worker_model
from memory_core.records import ErrorCode, JobState, Reason
from memory_core.store.engines.database import Store
from memory_core.store.tables.origin_aliases import project_origins
from workers import json_modes, liveness, model_call, model_client, providers
from workers.call_log import log_model_call, model_call_entry
from workers.logs import worker_logger
from workers.stale_candidates import with_stale_candidates


class AttemptStatus(StrEnum):
    """How an attempt ended."""

    DONE = "done"
    FAILED = "failed"
    PAUSED = "paused"
    NOT_ELIGIBLE = "not_eligible"
    WAITING = "waiting"  # a progress source whose turn's statement, or an earlier source of its state, goes first
    BUDGET_SPENT = "budget_spent"
    STALE = "stale"  # the lease was lost: nothing written
    NO_MODEL = "no_model"  # no model configured: nothing leased, nothing counted
    CLOCK_SKEW = "clock_skew"  # this machine's clock is too far from the server's: nothing leased


@dataclass(frozen=True)
class AttemptOutcome:
    """How an attempt ended, with the source it concerned."""

    status: AttemptStatus
    source_id: str | None
    error_code: str | None = None
    error_reason: str | None = None
    next_due_at: float | None = None
    changes: dict[str, Any] = field(default_factory=dict)


_NO_CHANGES: dict[str, Any] = {"added": [], "superseded": [], "conflicted": [], "withheld": 0, "event_id": None}


def worker_identity() -> str:
    """A lease owner name unique to this process and attempt."""
    return f"{socket.gethostname()}:{os.getpid()}:{random_id()[:8]}"


def consolidate_source(settings: Settings, source_id: str | None, *, forced: bool = False) -> AttemptOutcome:
    """Run one attempt for ``source_id`` (or the next due source)."""
    if not settings.model_configured:
        # The source stays pending exactly as it was: no attempt, failure or budget is
        # counted. The worker said at start-up what to set; status and doctor show it.
        return AttemptOutcome(AttemptStatus.NO_MODEL, source_id)
    log = worker_logger(settings.home)
    if not liveness.may_lease():
        log.warning("not leasing %s: %s", source_id or "the next source", liveness.refusal())
        return AttemptOutcome(AttemptStatus.CLOCK_SKEW, source_id)
    with Store.open(settings.home) as store:
        now = clock.now()
        budget = budget_state(
            store.conn, now, settings.daily_model_calls, settings.daily_model_tokens, settings.daily_model_cost_usd
        )
        if budget.spent:
            log.info(
                "daily model budget spent (%s); %s waits until %s",
                budget.spent_by,
                source_id,
                clock.iso(budget.resets_at),
            )
            return AttemptOutcome(AttemptStatus.BUDGET_SPENT, source_id, next_due_at=budget.resets_at)
        with store.transaction() as conn:
            lease = lease_job(
                conn,
                owner=worker_identity(),
                now=now,
                # A first call may take longer (a local server loading its model): the lease
                # covers it, so no other worker takes the source over meanwhile.
                lease_seconds=model_client.call_deadline(settings) + settings.lease_grace_seconds,
                source_id=source_id,
                forced=forced,
                require_request=True,
            )
            write_heartbeat(conn, now, liveness.worker_name())
            write_worker_model(conn, True, liveness.worker_name())
            # A progress source whose states were all forgotten, pinned or moved on by newer
            # evidence since the capture can update nothing: done, without a model call.
            nothing_to_update = (
                lease is not None
                and lease.source.source_type == "progress"
                and not mentioned_claims(conn, lease.source)
            )
            if lease is not None and nothing_to_update:
                complete_job(conn, lease, now)
            elif lease is not None:
                count_call(conn, now)
        if lease is not None and nothing_to_update:
            log.info("progress source %s has no state left to update; done without a model call", lease.source.id)
            return AttemptOutcome(AttemptStatus.DONE, lease.source.id, changes=dict(_NO_CHANGES))
        if lease is None:
            source = own_source(store.conn, source_id) if source_id else None
            if source is not None and must_wait(store.conn, source):
                until = waiting_until(store.conn, source, clock.now())
                return AttemptOutcome(AttemptStatus.WAITING, source_id, next_due_at=until)
            return AttemptOutcome(AttemptStatus.NOT_ELIGIBLE, source_id)
        try:
            return _attempt(settings, store, lease, log)
        except (KeyboardInterrupt, SystemExit):
            # Graceful stop: hand the job back without counting a failure.
            with store.transaction() as conn:
                release_job(conn, lease)
            log.info("released %s on shutdown", lease.source.id)
            raise


def _json_mode(settings: Settings, store: Store) -> tuple[str, bool]:
    """The JSON mode to ask for and whether a refusal may step down: a fixed setting is used
    as it is; ``auto`` starts from what this server was last found to accept."""
    if settings.model_json_mode != "auto":
        return settings.model_json_mode, False
    assert settings.model_url is not None and settings.model is not None
    return remembered_json_mode(store.conn, settings.model_url, settings.model) or "schema", True


def _remember_json_mode(settings: Settings, store: Store, asked: str, answered: str | None, log: Any) -> None:
    if answered is None or answered == asked or settings.model_url is None or settings.model is None:
        return
    with store.transaction() as conn:
        remember_json_mode(conn, settings.model_url, settings.model, answered)
    log.info(
        "the model server refused JSON mode %s; using %s from now on (%s)",
        asked,
        answered,
        json_modes.DESCRIPTIONS.get(answered, answered),
    )


def _record_failure(
    settings: Settings, store: Store, lease: Lease, code: ErrorCode, reason: str | None, retry_after: float | None
) -> FailureOutcome | None:
    """Record the attempt's failure; on a fresh connection when the attempt's own fails (a
    PostgreSQL server may have ended it), so the retry is scheduled now, not when the lease
    expires."""
    try:
        with store.transaction() as conn:
            return fail_job(conn, lease, code, clock.now(), reason=reason, retry_after=retry_after)
    except StoreError:
        with Store.open(settings.home) as fresh, fresh.transaction() as conn:
            return fail_job(conn, lease, code, clock.now(), reason=reason, retry_after=retry_after)


def _log_cli_call(log: Any, source_id: str, completion: model_call.Completion) -> None:
    spent = completion.cost_usd
    log.info(
        "%s: %s answered through the agent's CLI, %d prompt and %d output tokens%s",
        source_id,
        completion.model,
        completion.prompt_tokens,
        completion.completion_tokens,
        f", reported cost ${spent:.4f}" if spent is not None else "",
    )


def _log_call(settings: Settings, source: Any, used: dict[str, Any], outcome: str) -> None:
    """The model call of this attempt in the learning log: its usage and how it ended."""
    log_model_call(
        settings.home,
        model_call_entry(
            at=clock.now(),
            source_id=source.id,
            origin=source.origin,
            provider=settings.provider,
            model=used["model"],
            outcome=outcome,
            prompt_tokens=used["prompt_tokens"],
            completion_tokens=used["completion_tokens"],
            cost_usd=used["cost_usd"],
        ),
    )


def _attempt(settings: Settings, store: Store, lease: Lease, log: Any) -> AttemptOutcome:
    source = lease.source
    model_id = settings.model or "unconfigured"  # captured before the call, for provenance (HTTP)
    code: ErrorCode
    reason: str | None = None
    retry_after: float | None = None
    # What the call used, for the learning log (workers/call_log.py).
    used: dict[str, Any] = {
        "model": settings.cli_model if settings.uses_cli else settings.model,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "cost_usd": None,
    }
    try:
        candidates = mentioned_claims(store.conn, source)
        candidates, stale = with_stale_candidates(store.conn, settings.home, source, candidates)
        messages = build_messages(
            source, candidates, now=clock.now(), origins=project_origins(store.conn, source.origin), stale=stale
        )
        # A CLI provider asks for the contract its own way (workers.providers).
        mode, fallback = ("off", False) if settings.uses_cli else _json_mode(settings, store)
        try:
            completion = providers.complete(settings, messages, json_mode=mode, fallback=fallback)
        except model_call.ModelCallError as exc:
            _remember_json_mode(settings, store, mode, exc.json_mode, log)
            raise
        _remember_json_mode(settings, store, mode, completion.json_mode, log)
        used.update(
            model=completion.model,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            cost_usd=completion.cost_usd,
        )
        with store.transaction() as conn:
            count_tokens(
                conn, clock.now(), completion.prompt_tokens, completion.completion_tokens, cost_usd=used["cost_usd"]
            )
        if settings.uses_cli:
            # The model the agent's CLI reported it ran (an alias such as "haiku" names none).
            model_id = completion.model
            _log_cli_call(log, source.id, completion)
        batch = parse_model_output(completion.text)
        with store.transaction() as conn:
            report = apply_batch(conn, lease, batch, candidates, model_id, clock.now())
        log.info(
            "consolidated %s: %d added, %d superseded, %d withheld (prompt %d bytes, %d candidates, json mode %s)",
            source.id,
            len(report.added),
            len(report.superseded),
            report.withheld,
            prompt_bytes(messages),
            len(candidates),
            completion.json_mode,
        )
        _log_call(settings, source, used, "done")
        return AttemptOutcome(
            AttemptStatus.DONE,
            source.id,
            changes={
                "added": report.added,
                "superseded": report.superseded,
                "conflicted": report.conflicted,
                "withheld": report.withheld,
                "event_id": report.event_id,
            },
        )
    except model_call.ModelCallError as exc:
        code, reason, retry_after = exc.code, exc.reason, exc.retry_after
        used.update(prompt_tokens=exc.prompt_tokens, completion_tokens=exc.completion_tokens, cost_usd=exc.cost_usd)
        # Answered but unusable (cut off, refused, a tool used): still spent.
        if exc.prompt_tokens or exc.completion_tokens or exc.cost_usd is not None:
            with store.transaction() as conn:
                count_tokens(conn, clock.now(), exc.prompt_tokens, exc.completion_tokens, cost_usd=exc.cost_usd)
    except InvalidModelOutput as exc:
        code, reason = ErrorCode.INVALID_OUTPUT, getattr(exc, "reason_code", Reason.INVALID_VALUE.value)
    except WriteRejected as exc:
        code, reason = ErrorCode.WRITE_REJECTED, getattr(exc, "reason_code", None)
    except StaleOutput:
        code, reason = ErrorCode.STALE_OUTPUT, Reason.ORIGIN_CHANGED.value
    except LeaseLost:
        log.warning("stale result for %s (attempt %d): lease lost, nothing written", source.id, lease.attempt)
        _log_call(settings, source, used, "stale")
        return AttemptOutcome(AttemptStatus.STALE, source.id)
    except StoreError as exc:  # the store failed under the attempt (PostgreSQL: the connection dropped)
        log.warning("attempt %d on %s interrupted by the store: %s", lease.attempt, source.id, exc)
        code, reason = ErrorCode.INTERRUPTED, None
    except Exception:  # a defect: keep the worker alive, record a fixed code, log the trace
        log.exception("unexpected error consolidating %s", source.id)
        code, reason = ErrorCode.INTERRUPTED, Reason.INTERNAL_ERROR.value
    outcome = _record_failure(settings, store, lease, code, reason, retry_after)
    shown = f"{code.value} ({reason})" if reason else code.value
    _log_call(settings, source, used, shown)
    if outcome is None:
        log.warning("stale failure for %s (attempt %d): lease lost, not recorded", source.id, lease.attempt)
        return AttemptOutcome(AttemptStatus.STALE, source.id, error_code=code.value, error_reason=reason)
    if outcome.state == JobState.PAUSED:
        log.warning(
            "source %s paused after %d consecutive failures (last: %s)", source.id, outcome.consecutive_failures, shown
        )
    else:
        log.warning(
            "attempt %d on %s failed: %s; failure %d, next attempt %s",
            lease.attempt,
            source.id,
            shown,
            outcome.consecutive_failures,
            clock.iso(outcome.next_due_at),
        )
    status = AttemptStatus.PAUSED if outcome.state == JobState.PAUSED else AttemptStatus.FAILED
    return AttemptOutcome(
        status, source.id, error_code=code.value, error_reason=reason, next_due_at=outcome.next_due_at
    )
