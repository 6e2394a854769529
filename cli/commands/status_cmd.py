"""`memevo status`: state dir, schema, counts, jobs and integrity."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, open_store, settings
from cli.model_use import render_model_today
from memory_core import clock
from memory_core.reports.status import build_status


def render_budget(budget: dict[str, Any]) -> str:
    """One plain line: what waits for the model, whether today's budget is spent, when work
    resumes and how long the daily budget takes to drain it."""
    waiting, per_day, days = budget["sources_waiting"], budget["calls_per_day"], budget["days_to_drain"]
    sources = f"{waiting:,} source{'s' if waiting != 1 else ''} wait{'s' if waiting == 1 else ''}"
    if days is None:
        return f"{sources}, but the daily budget allows no model calls; raise daily_model_calls"
    pace = f"{per_day:,} calls a day"
    if budget["spent"]:
        if not waiting:
            return f"spent for today; resets {budget['resumes_at'] or 'at midnight UTC'}"
        return (
            f"spent for today; {sources} for the next UTC day: work resumes {budget['resumes_at']}, "
            f"about {days} day{'s' if days != 1 else ''} to drain at {pace}"
            + ("" if budget["drains_within_a_day"] else "; raise daily_model_calls to go faster")
        )
    if not days:
        return (
            f"{sources}; today's budget covers {'them' if waiting != 1 else 'it'} "
            f"({budget['calls_left_today']:,} calls left)"
        )
    return (
        f"{sources}; today's budget has {budget['calls_left_today']:,} calls left, "
        f"so about {days} more day{'s' if days != 1 else ''} to drain at {pace}"
        + ("" if budget["drains_within_a_day"] else "; raise daily_model_calls to go faster")
    )


def render_status(report: dict[str, Any]) -> str:
    mem = report["memories"]
    lines = [
        f"state dir:       {report['state_dir']}",
        f"store:           {report['store']}",
        f"queue:           {report['queue']}",
        f"schema version:  {report['schema_version']} (this build supports {report['supported_schema_version']})",
        f"memories:        {mem['total']} total",
        "  by kind:       " + ", ".join(f"{k} {v}" for k, v in mem["by_kind"].items()),
        "  by status:     " + ", ".join(f"{k} {v}" for k, v in mem["by_status"].items()),
        "jobs:            " + ", ".join(f"{k} {v}" for k, v in report["jobs"].items()),
        f"processed:       {report['processed']['with_changes']} changed memory, "
        f"{report['processed']['without_changes']} changed nothing",
    ]
    for job in report["failed_jobs"]:
        due = "paused" if job["state"] == "paused" else f"next {job['next_due']}"
        why = f"{job['error_code']} ({job['error_reason']})" if job.get("error_reason") else job["error_code"]
        lines.append(f"  failing {job['source_id']}: {job['failures']} failures, {why}, {due}")
    worker = report["worker"]
    watching = "; it nudges new captures itself" if worker.get("watching_captures") else ""
    lines.append(f"worker:          last heartbeat {worker['last_heartbeat'] or 'never'}{watching}")
    if worker.get("model_provider"):
        lines.append(f"model:           {worker['model_provider']}, {worker['model'] or 'its own default model'}")
    lines.append(f"model today:     {render_model_today(worker)}")
    lines.append(f"budget:          {render_budget(report['budget'])}")
    scheduled = report["budget"].get("scheduled_backfill") or {}
    if scheduled.get("sources"):
        lines.append(
            f"backfill:        {scheduled['sources']:,} of them queued behind live captures, "
            f"one after another until {scheduled['last_due_at']}"
        )
    scope = report["scope"]
    here = scope.get("capture_origin_here")
    lines.append(
        "captures:        filed under their project, the real path of the agent's working directory"
        + (f" (from here: {here})" if here else "")
    )
    if scope.get("excluded_here"):
        lines.append(
            f"excluded:        this directory is excluded ({scope['excluded_here']!r}): its sessions are "
            "not captured and get no digest; `memevo include` reads them again"
        )
    projects = scope["projects_with_active_memories"]
    lines.append(
        f"recall:          searches every project at once ({projects} project{'s' if projects != 1 else ''} "
        "hold active memories); each row of a digest names its project"
    )
    stale = report.get("checkout")
    if stale and stale["root"]:
        lines.append(
            f"checkout:        {len(stale['stale'])} of this project's claims name what its checkout no longer has"
            + (" (`memevo check` lists them; they are not injected)" if stale["stale"] else "")
        )
    if worker["waiting_for_model"]:
        waiting = report["jobs"]["pending"] + report["jobs"]["retrying"] + report["jobs"]["paused"]
        hint = worker["model_hint"] or "set MEMEVO_MODEL_URL and MEMEVO_MODEL"
        lines.append(
            f"model:           waiting for a model: {waiting} sources wait, uncounted; "
            f"{hint} for the worker, then restart it"
        )
    elif not worker["model_configured"]:
        lines.append("model:           not configured in this shell (the worker has one); `memevo evolve` needs it too")
    for line in report["hook_errors"]:
        lines.append(f"hook error:      {line}")
    integrity = report["integrity"]
    if integrity["ok"]:
        lines.append("integrity:       ok")
    else:
        lines.append(
            f"integrity:       PROBLEMS (quick_check: {integrity['quick_check']}, "
            f"{integrity['corrupt_count']} corrupt rows)"
        )
        for row in integrity["corrupt_rows"]:
            lines.append(f"  {row['table']} {row['id']}: {row['detail']}")
    return "\n".join(lines)


@click.command("status")
@json_option
def status_command(as_json: bool) -> None:
    """Show the state dir, schema version, memory and job counts, and database integrity."""
    with open_store() as store:
        now = clock.now()
        report = build_status(store, settings(), now)
        report["checkout"] = _stale_here(store, now)
    report["scope"]["capture_origin_here"] = _origin_here()
    report["scope"]["excluded_here"] = _excluded_here(settings().exclude)
    emit(report, as_json, render_status)


def _stale_here(store: Any, now: float) -> dict[str, Any] | None:
    """The current project's claims its checkout has outgrown (``memevo check``'s answer)."""
    import os

    from memory_core.paths import state_home
    from memory_core.reports.stale_claims import stale_claims

    try:
        found = stale_claims(store.conn, os.getcwd(), state_home(), now)
    except OSError:
        return None
    return {k: found[k] for k in ("project", "root", "checked_at", "checked", "naming")} | {
        "stale": [{"id": s["id"], "missing": s["missing"]} for s in found["stale"]]
    }


def _excluded_here(globs: tuple[str, ...]) -> str | None:
    """The glob of the exclude setting naming this directory (None: its sessions are read)."""
    import os

    from memory_core.privacy.exclusion import excluded_by

    try:
        return excluded_by(os.getcwd(), globs)
    except OSError:
        return None


def _origin_here() -> str | None:
    """The project a capture from this directory is filed under (None if it is gone)."""
    import os

    from memory_core.capture.intake import canonical_origin

    try:
        return canonical_origin(os.getcwd())
    except OSError:
        return None


COMMANDS = [status_command]
