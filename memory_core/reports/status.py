"""What `memevo status` reports: a plain dict, rendered by the CLI.

On a team store (docs/team.md) the counts are the person's own view of the memory, the one
`memevo list` pages through: claims by kind and status, and the projects with active
claims, count their own claims and the team's shared ones, never another member's personal
claims. The queue's counts (jobs by state, processed jobs, failing jobs) count only their
own sources: a source's text is never shared, and only their own worker consolidates their
sources, so another member's backlog is nothing they can see or act on. The integrity
check stays the store's (the rows the login can read, every row for the administrator, who
repairs the store), and lists a corrupt row by table and id only. On SQLite and a
one-person store every row is the one person's, and nothing changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core.clock import is_timestamp, iso
from memory_core.config import Settings, queue_label, store_label
from memory_core.jobs.budget import Backlog, backlog, budget_state
from memory_core.jobs.heartbeat import read_heartbeat, read_watch, watch_fresh
from memory_core.jobs.model_state import read_worker_model
from memory_core.records import KINDS, MEMORY_STATUSES, is_reason_code
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.engines.dialect import json_int
from memory_core.store.schema import migrations
from memory_core.store.schema.integrity import check_integrity
from memory_core.store.schema.owners import source_owner_clause, visible_clause


def memory_counts(store: Store) -> dict[str, Any]:
    """Claims by kind and by status: those the current person may see (see the module docstring)."""
    conn = store.conn
    by_kind = dict.fromkeys(KINDS, 0)
    by_status = dict.fromkeys(MEMORY_STATUSES, 0)
    mine, params = visible_clause(conn)
    for kind, status, n in conn.execute(
        f"SELECT kind, status, COUNT(*) FROM memories WHERE 1=1{mine} GROUP BY kind, status", params
    ):
        by_kind[kind] = by_kind.get(kind, 0) + n
        by_status[status] = by_status.get(status, 0) + n
    return {"total": sum(by_kind.values()), "by_kind": by_kind, "by_status": by_status}


def job_counts(store: Store) -> dict[str, int]:
    """The current person's jobs by state; ``retrying`` is a pending job that has failed before."""
    counts = {"pending": 0, "leased": 0, "retrying": 0, "paused": 0, "done": 0, "retired": 0}
    mine, owners = source_owner_clause(store.conn)
    for state, failing, n in store.conn.execute(
        f"SELECT state, consecutive_failures > 0, COUNT(*) FROM sources WHERE 1=1{mine} GROUP BY 1, 2", owners
    ):
        key = "retrying" if state == "pending" and failing else str(state)
        counts[key] = counts.get(key, 0) + n
    return counts


# What a consolidation event counts as a change to memory. Confirming claims left standing
# only moves their aging clock, so a job that did nothing else changed nothing.
_CHANGE_DETAILS = ("added", "superseded", "conflicted", "refreshed", "aliased", "withheld_replacements")


def processed_counts(store: Store) -> dict[str, int]:
    """The current person's done jobs split by whether their model pass changed memory (an
    event with a change)."""
    conn = store.conn
    changed = " + ".join(f"coalesce({json_int(conn, 'e.body', 'details', name)}, 0)" for name in _CHANGE_DETAILS)
    mine, owners = _own_sources(conn, "s")
    total, with_changes = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM events e WHERE e.source_id = s.id "
        f"AND e.operation = 'consolidate' AND ({changed}) > 0) THEN 1 ELSE 0 END), 0) "
        f"FROM sources s WHERE s.state = 'done'{mine}",
        owners,
    ).fetchone()
    return {"with_changes": int(with_changes), "without_changes": int(total) - int(with_changes)}


def _own_sources(conn: DbConn, table: str) -> tuple[str, tuple[str, ...]]:
    """:func:`memory_core.store.schema.owners.source_owner_clause` with the column qualified (a
    query that also reads ``events``, which has an ``owner`` too)."""
    mine, owners = source_owner_clause(conn)
    if not mine:
        return "", ()
    return f" AND {table}.owner IN ({','.join('?' * len(owners))})", owners


FAILED_JOBS_SHOWN = 5


def failed_jobs(store: Store) -> list[dict[str, Any]]:
    """Up to five of the current person's sources with failures: id, count, last error code
    and reason, next due time."""
    mine, owners = source_owner_clause(store.conn)
    rows = store.conn.execute(
        "SELECT id, state, consecutive_failures, last_error_code, next_due_at, last_failure_at, "
        "last_error_reason FROM sources WHERE consecutive_failures > 0 AND state IN ('pending', 'paused', 'leased')"
        f"{mine} ORDER BY consecutive_failures DESC, next_due_at LIMIT ?",
        (*owners, FAILED_JOBS_SHOWN),
    ).fetchall()
    return [
        {
            "source_id": r[0],
            "state": r[1],
            "failures": r[2],
            "error_code": r[3],
            # A raw column: only an allowlisted code is shown (anything else is an integrity problem).
            "error_reason": r[6] if is_reason_code(r[6]) else None,
            "next_due_at": None if r[1] == "paused" else _time_or_none(r[4]),
            "next_due": None if r[1] == "paused" else iso(_time_or_none(r[4])),
            "last_failure": iso(_time_or_none(r[5])),
        }
        for r in rows
    ]


def waiting_for_model(store: Store, settings: Settings) -> bool:
    """True when the worker has no model to call: as it last reported, or, before any worker
    reported, as this process's settings say."""
    reported = read_worker_model(store.conn)
    return not settings.model_configured if reported is None else not reported


def _time_or_none(value: object) -> float | None:
    # These are raw columns: a malformed row is listed under integrity, not a crash here.
    return float(value) if is_timestamp(value) else None


def worker_section(store: Store, settings: Settings, now: float) -> dict[str, Any]:
    """Heartbeat, today's model usage and the daily budget."""
    heartbeat = read_heartbeat(store.conn)
    watch = read_watch(store.conn)
    budget = budget_state(
        store.conn, now, settings.daily_model_calls, settings.daily_model_tokens, settings.daily_model_cost_usd
    )
    return {
        "last_heartbeat": iso(heartbeat),
        "heartbeat_age_seconds": None if heartbeat is None else round(max(0.0, now - heartbeat), 1),
        # On SQLite: when a worker last recorded that it nudges new captures itself (hooks then do not).
        "last_capture_watch": iso(watch),
        "watching_captures": watch_fresh(watch, now),
        "model_calls_today": budget.usage.calls,
        "model_tokens_today": budget.usage.tokens,
        "model_prompt_tokens_today": budget.usage.prompt_tokens,
        "model_completion_tokens_today": budget.usage.completion_tokens,
        # What the provider reported the calls cost (US dollars), and how many reported one.
        "model_cost_usd_today": round(budget.usage.cost_usd, 6),
        "model_costed_calls_today": budget.usage.costed_calls,
        "daily_call_limit": budget.call_limit,
        "daily_token_limit": budget.token_limit,
        "daily_cost_limit_usd": budget.cost_limit,
        "budget_spent": budget.spent,
        "budget_spent_by": budget.spent_by,
        "budget_resets_at": iso(budget.resets_at),
        "model_provider": settings.provider,
        "model": settings.cli_model if settings.uses_cli else settings.model,
        "model_configured": settings.model_configured,
        "worker_has_model": read_worker_model(store.conn),
        "waiting_for_model": waiting_for_model(store, settings),
        "model_hint": None if settings.model_configured else settings.model_setup_hint(),
    }


def budget_section(store: Store, settings: Settings, now: float) -> dict[str, Any]:
    """How many sources wait for the model, whether today's budget is spent, when work
    resumes and how many days the daily budget needs to drain what waits."""
    from memory_core.jobs.backlog_pacing import scheduled_backlog

    details = backlog_details(
        backlog(store.conn, now, settings.daily_model_calls, settings.daily_model_tokens, settings.daily_model_cost_usd)
    )
    scheduled, last_due = scheduled_backlog(store.conn, now)
    details["scheduled_backfill"] = {"sources": scheduled, "last_due_at": iso(last_due)}
    return details


def backlog_details(state: Backlog) -> dict[str, Any]:
    """The backlog as ``status --json`` and doctor's ``budget`` check show it."""
    return {
        "sources_waiting": state.waiting,
        "spent": state.spent,
        "resumes_at": iso(state.resumes_at),
        "calls_left_today": state.calls_left_today,
        "calls_per_day": state.calls_per_day,
        "tokens_per_call": state.tokens_per_call,
        "days_to_drain": state.days_to_drain,
        "drains_within_a_day": state.drains_within_a_day,
    }


def build_status(store: Store, settings: Settings, now: float) -> dict[str, Any]:
    """Everything `memevo status` reports."""
    integrity = check_integrity(store.conn)
    return {
        "state_dir": str(settings.home),
        **backend_section(store, settings),
        "schema_version": store.schema_version(),
        "supported_schema_version": migrations.SCHEMA_VERSION,
        "memories": memory_counts(store),
        "jobs": job_counts(store),
        "processed": processed_counts(store),
        "failed_jobs": failed_jobs(store),
        "worker": worker_section(store, settings, now),
        "budget": budget_section(store, settings, now),
        "scope": scope_section(store),
        "hook_errors": recent_hook_errors(settings.home),
        "integrity": integrity,
        "ok": integrity["ok"],
    }


def scope_section(store: Store) -> dict[str, Any]:
    """Where captures are filed and what recall reads: a capture is filed under its project,
    the real path of the agent's working directory (``captures_filed_by``), while recall
    searches the claims of every project at once (``recall_searches``). Projects are counted
    among the claims the current person may see."""
    mine, params = visible_clause(store.conn)
    (projects,) = store.conn.execute(
        f"SELECT COUNT(DISTINCT origin) FROM memories WHERE status = 'active'{mine}", params
    ).fetchone()
    return {
        "captures_filed_by": "working_directory",
        "recall_searches": "all_projects",
        "projects_with_active_memories": int(projects),
    }


def backend_section(store: Store, settings: Settings) -> dict[str, Any]:
    """Where the memory and the queue live, passwords masked (``store``, ``queue``: for people;
    ``backend``, ``queue_backend``: the kinds, for scripts)."""
    queue = settings.queue
    return {
        "store": store_label(store.backend),
        "backend": store.backend.kind,
        "queue": queue_label(queue, store.backend),
        "queue_backend": queue.kind,
    }


def recent_hook_errors(home: Path, limit: int = 3) -> list[str]:
    """The last few lines hooks logged (hooks fail open, so this is where errors show)."""
    path = home / "logs" / "hooks.log"
    if not path.is_file():
        return []
    lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line[:4].isdigit()]
    return lines[-limit:]
