"""What `memevo doctor` checks in the state dir: database, worker heartbeat, model settings,
hook errors. Read-only: nothing here creates or changes a file.

Each check is a plain dict ``{"name", "status", "summary", "fix", "details"}``; ``status``
is ``ok``, ``warn`` (works, but not as intended) or ``error`` (broken), and ``fix`` is the
command that repairs it. Checks that cross processes (the queue, a model request) live in
:mod:`workers.health`; agent hooks in :mod:`cli.install.check`.
"""

from __future__ import annotations

import calendar
import shlex
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from memory_core.clock import iso
from memory_core.config import Settings
from memory_core.jobs.clock_skew import OK as SKEW_OK
from memory_core.jobs.clock_skew import WARN as SKEW_WARN
from memory_core.jobs.clock_skew import refuse_above, skew_verdict
from memory_core.reports.damage import damage_report
from memory_core.reports.database_state import DATABASE_ERRORS, OPEN_ERRORS
from memory_core.reports.postgres_problems import PG_SUMMARIES, postgres_fix
from memory_core.reports.status import backlog_details, recent_hook_errors
from memory_core.store.engines.backend import SQLITE
from memory_core.store.engines.database import Store
from memory_core.store.schema import migrations

OK, WARN, ERROR = "ok", "warn", "error"
_RANK = {OK: 0, WARN: 1, ERROR: 2}

# The worker writes its heartbeat at least once a minute (the periodic recovery task).
HEARTBEAT_STALE_SECONDS = 300.0
HOOK_ERROR_WINDOW_SECONDS = 86_400.0
HOOK_ERRORS_SHOWN = 5


def make_check(name: str, status: str, summary: str, fix: str | None = None, **details: Any) -> dict[str, Any]:
    return {"name": name, "status": status, "summary": summary, "fix": fix, "details": details}


def summarize(checks: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Overall status; exit code 1 when anything is broken, 0 otherwise (warnings included)."""
    statuses = [check["status"] for check in checks]
    errors, warnings = statuses.count(ERROR), statuses.count(WARN)
    overall = max(statuses, key=_RANK.__getitem__, default=OK)
    return {
        "status": overall,
        "ok": errors == 0,
        "errors": errors,
        "warnings": warnings,
        "exit_code": 1 if errors else 0,
    }


def ago(seconds: float) -> str:
    """A short "how long ago" for people: 42 s, 7 min, 3 h, 2 d."""
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172_800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86_400:.0f} d"


def database_check(db: dict[str, Any], home: Path) -> dict[str, Any]:
    state = db["state"]
    path = db["path"]
    on_pg = db["backend"] != SQLITE
    where: dict[str, Any] = {"path": path} if not on_pg else {"backend": db["backend"], "url": db["url"]}
    prefix = f"PostgreSQL {db['url']}: " if on_pg else ""
    if state == "misconfigured":
        return make_check(
            "database", ERROR, f"the store setting is refused: {db['error']}", "memevo config  # after fixing it"
        )
    if state == "absent":
        created = "the tables are created" if on_pg else "memory.db is created"
        return make_check("database", OK, f"{prefix}no memory yet ({created} by the first hook)", **where)
    if state == "ok":
        return make_check(
            "database",
            OK,
            f"{prefix}{db['memories']} memories, integrity ok",
            **where,
            schema_version=db["schema_version"],
        )
    versions = {"schema_version": db.get("schema_version"), "supported_schema_version": migrations.SCHEMA_VERSION}
    if state == "newer":
        return make_check(
            "database",
            ERROR,
            f"{prefix}holds memevo schema version {db['schema_version']}, written by a newer memevo; this build "
            f"supports up to {migrations.SCHEMA_VERSION} and will not touch it",
            "pip install -U memevo  # on this machine, to the version the other machines run",
            **where,
            **versions,
        )
    if state == "outdated":
        return make_check(
            "database",
            WARN,
            f"{prefix}at schema version {db['schema_version']}; this build migrates it to "
            f"{migrations.SCHEMA_VERSION} on the next open (after a backup)",
            "memevo status  # migrates it now",
            **where,
            **versions,
        )
    backups = shlex.quote(str(home / "backups"))
    if state == "damaged" and not on_pg and db["integrity"]["quick_check"] != "ok":
        found = damage_report(home, db["integrity"]["quick_check"][0], migrations.SCHEMA_VERSION)
        return make_check(
            "database",
            ERROR,
            found["summary"],
            found["fix"],
            path=path,
            integrity=db["integrity"],
            backup=found["backup"],
        )
    if state == "damaged":  # the pages are sound (or on PostgreSQL, the server's): some rows are not
        integrity = db["integrity"]
        return make_check(
            "database",
            ERROR,
            f"{prefix}integrity problems: {integrity['corrupt_count']} corrupt rows",
            "memevo status  # lists them by table and id",
            **where,
            integrity=integrity,
        )
    if on_pg:
        problem = db.get("problem", "other")
        said = PG_SUMMARIES.get(problem, "cannot be read")
        return make_check(
            "database", ERROR, f"{said}: {db['error']}", postgres_fix(problem, db["url"]), **where, problem=problem
        )
    moved = shlex.quote(path + ".broken")
    return make_check(
        "database",
        ERROR,
        f"cannot be read: {db['error']}",
        f"mv {shlex.quote(path)} {moved}  # then restore a copy from {backups}, or start afresh",
        path=path,
    )


def clock_check(db: dict[str, Any], lease_grace_seconds: float) -> dict[str, Any] | None:
    """On PostgreSQL: this machine's clock against the database server's, judged as the
    worker judges it (memory_core.jobs.clock_skew): a warning above 2 s, an error where the
    worker refuses to lease. ``None`` on SQLite (one machine) or when the server was not read."""
    skew = db.get("server_skew")
    if skew is None:
        return None
    verdict = skew_verdict(0.0, skew, lease_grace_seconds)
    details = {"skew_seconds": round(skew, 3), "refuse_above_seconds": refuse_above(lease_grace_seconds)}
    if verdict.action == SKEW_OK:
        return make_check("clock", OK, f"within {abs(skew):.1f} s of the database server's clock", **details)
    fix = "timedatectl set-ntp true  # or run chrony/ntpd here and on the database server"
    return make_check("clock", WARN if verdict.action == SKEW_WARN else ERROR, verdict.message, fix, **details)


def worker_check(db: dict[str, Any], now: float) -> dict[str, Any]:
    """Alive when its heartbeat is younger than :data:`HEARTBEAT_STALE_SECONDS`."""
    if db["state"] == "unreadable" or db.get("unread"):
        return make_check("worker", WARN, "unknown: the database could not be read", None)
    heartbeat = db.get("heartbeat")
    if heartbeat is None:
        return make_check(
            "worker",
            ERROR,
            "has never run, so nothing is learned from captured sources",
            "memevo worker",
            last_heartbeat=None,
            age_seconds=None,
        )
    age = max(0.0, now - heartbeat)
    details = {"last_heartbeat": iso(heartbeat), "age_seconds": round(age, 1)}
    if age > HEARTBEAT_STALE_SECONDS:
        return make_check(
            "worker",
            ERROR,
            f"not running: last heartbeat {ago(age)} ago ({iso(heartbeat)})",
            "memevo worker",
            **details,
        )
    if db.get("worker_model") is False:
        return make_check(
            "worker",
            ERROR,
            f"running (heartbeat {ago(age)} ago) but waiting for a model: none is configured "
            "where it runs, so captured sources wait (uncounted)",
            "memevo install AGENT --learn  # or export MEMEVO_MODEL_URL=… MEMEVO_MODEL=… in the worker's "
            "environment (or config.toml), or put the agent's CLI on its PATH; then restart `memevo worker`",
            **details,
            waiting_for_model=True,
        )
    return make_check("worker", OK, f"running (heartbeat {ago(age)} ago)", **details)


def model_config_check(settings: Settings | None, config_error: str | None) -> dict[str, Any]:
    """Whether the worker has a model to call (no request is made here)."""
    if settings is None:
        return make_check(
            "model",
            ERROR,
            f"settings are invalid: {config_error}",
            "memevo config  # after fixing the setting named above",
        )
    missing = [
        name
        for name, value in (("MEMEVO_MODEL_URL", settings.model_url), ("MEMEVO_MODEL", settings.model))
        if not value
    ]
    if missing:
        example = {
            "MEMEVO_MODEL_URL": "MEMEVO_MODEL_URL=http://127.0.0.1:8000/v1",
            "MEMEVO_MODEL": "MEMEVO_MODEL=<model name>",
        }
        fix = "export " + " ".join(example[name] for name in missing)
        if len(missing) == 2 and settings.model_provider is None:
            fix = f"memevo install AGENT --learn  # AGENT: claude-code, codex, gemini or pi; or {fix}"
        return make_check(
            "model",
            ERROR,
            f"not configured ({' and '.join(missing)} unset): captured sources are waiting for a model",
            fix,
            model_url=settings.model_url,
            model=settings.model,
        )
    return make_check(
        "model", OK, f"{settings.model} at {settings.model_url}", model_url=settings.model_url, model=settings.model
    )


def _logged_at(line: str) -> float | None:
    try:
        return float(calendar.timegm(time.strptime(line[:20], "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


def hook_errors_check(home: Path, now: float, window: float = HOOK_ERROR_WINDOW_SECONDS) -> dict[str, Any]:
    """Hook failures logged in the last ``window`` seconds (hooks fail open: this is where
    their errors show). A warning: the agent's turns went on."""
    log = home / "logs" / "hooks.log"
    try:
        lines = recent_hook_errors(home, limit=HOOK_ERRORS_SHOWN)
    except OSError as exc:
        return make_check("hook log", WARN, f"cannot read {log}: {exc.strerror}", None, path=str(log))
    recent = [line for line in lines if (at := _logged_at(line)) is not None and now - window <= at <= now + 60]
    hours = f"{window / 3600:.0f} h"
    if not recent:
        return make_check("hook log", OK, f"no hook errors in the last {hours}", path=str(log), lines=[])
    return make_check(
        "hook log",
        WARN,
        f"hooks failed in the last {hours}; latest: {recent[-1]}",
        f"tail -n 40 {shlex.quote(str(log))}",
        path=str(log),
        lines=recent,
    )


def _cost_today(cost_usd: float, costed_calls: int, settings: Settings) -> str:
    """The reported cost in doctor's budget line: nothing when no call reported one and no
    cost limit is set."""
    limit = settings.daily_model_cost_usd
    if not costed_calls and limit is None:
        return ""
    return f", ${cost_usd:,.4f}" + (f" of ${limit:,.4f} reported cost" if limit is not None else " reported cost")


def budget_check(home: Path, settings: Settings | None, now: float) -> dict[str, Any]:
    """Whether the daily model budget can drain what waits: a warning when more sources
    wait than one day's budget allows (or the budget allows no calls at all)."""
    from memory_core.jobs.budget import backlog, usage_on

    if settings is None:
        return make_check("budget", WARN, "unknown: the settings are invalid", None)
    try:
        opened = Store.open_existing_readonly(home)
        if opened is None:
            return make_check("budget", OK, "nothing waits for the model yet", calls_per_day=settings.daily_model_calls)
        store = opened
    except OPEN_ERRORS:
        return make_check("budget", WARN, "unknown: the database could not be read", None)
    try:
        state = backlog(
            store.conn, now, settings.daily_model_calls, settings.daily_model_tokens, settings.daily_model_cost_usd
        )
        used = usage_on(store.conn, now)
    except DATABASE_ERRORS:
        return make_check("budget", WARN, "unknown: the database could not be read", None)
    finally:
        store.close()
    details = backlog_details(state)
    waiting = f"{state.waiting:,} source{'s' if state.waiting != 1 else ''}"
    if state.days_to_drain is None:
        return make_check(
            "budget",
            WARN,
            f"{waiting} wait, but the daily budget allows no model calls",
            "export MEMEVO_DAILY_MODEL_CALLS=5000 MEMEVO_DAILY_MODEL_TOKENS=10000000  # then restart the worker",
            **details,
        )
    if not state.drains_within_a_day:
        needed = max(state.waiting, 1)
        return make_check(
            "budget",
            WARN,
            f"{waiting} wait but the budget allows {state.calls_per_day:,} calls a day: about "
            f"{state.days_to_drain} days to drain"
            + (f"; spent for today, work resumes {iso(state.resumes_at)}" if state.spent else ""),
            f"export MEMEVO_DAILY_MODEL_CALLS={needed} MEMEVO_DAILY_MODEL_TOKENS="
            f"{needed * state.tokens_per_call * 2}  # then restart the worker (or wait)",
            **details,
        )
    if state.spent and state.waiting:
        return make_check("budget", OK, f"spent for today; {waiting} wait until {iso(state.resumes_at)}", **details)
    return make_check(
        "budget",
        OK,
        f"{waiting} waiting; {state.calls_left_today:,} of {state.calls_per_day:,} calls left today "
        f"(used today: {used.calls:,} of {settings.daily_model_calls:,} calls, {used.tokens:,} of "
        f"{settings.daily_model_tokens:,} tokens{_cost_today(used.cost_usd, used.costed_calls, settings)})",
        calls_today=used.calls,
        tokens_today=used.tokens,
        cost_usd_today=round(used.cost_usd, 6),
        costed_calls_today=used.costed_calls,
        **details,
    )
