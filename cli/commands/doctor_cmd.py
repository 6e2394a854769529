"""`memevo doctor`: is everything memevo needs in place? Each problem comes with its fix.

Read-only: it never creates the state dir, the database or the queue. Exit code 1 when a
check failed (``error``), else 0, warnings included (see docs/doctor.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cli.context import emit, json_option
from memory_core import clock

if TYPE_CHECKING:
    from memory_core.config import Settings

_LABELS = {"ok": "ok", "warn": "WARN", "error": "ERROR"}


def build_doctor_report(
    *,
    home: Path,
    settings: Settings | None,
    config_error: str | None,
    project_dir: Path,
    check_model: bool,
    now: float,
    env: Mapping[str, str],
) -> dict[str, Any]:
    """Every check, in the order a person would fix them."""
    from cli.install.check import agent_checks, no_agent_check
    from cli.install.registry import TARGETS
    from memory_core.reports import health
    from workers.health import model_check, queue_health

    checks: list[dict[str, Any]] = []
    for target in TARGETS.values():
        checks.extend(agent_checks(target, project_dir, env))
    if (nothing_connected := no_agent_check(checks, list(TARGETS))) is not None:
        checks.append(nothing_connected)
    from cli.install.mcp_check import mcp_checks

    checks.extend(mcp_checks(project_dir, env, home))
    from memory_core.reports.database_state import inspect_database

    db = inspect_database(home)
    checks.append(health.worker_check(db, now))
    if settings is not None and settings.uses_cli:
        from workers.providers.doctor import cli_call_check, cli_model_check

        model = cli_model_check(settings)
        call_check = cli_call_check
    else:
        model = health.model_config_check(settings, config_error)
        call_check = model_check
    checks.append(model)
    if check_model and settings is not None and model["status"] != health.ERROR:
        checks.append(call_check(settings))
    elif model["status"] == health.OK:
        model["summary"] += " (not contacted; `memevo doctor --check-model` sends one tiny request)"
    checks.append(health.database_check(db, home))
    if db["backend"] != "sqlite":
        grace = settings.lease_grace_seconds if settings is not None else DEFAULT_LEASE_GRACE
        if (clock_check := health.clock_check(db, grace)) is not None:
            checks.append(clock_check)
        checks.append(gateway_check(home))
    elif (waiting := spool_check(home)) is not None:
        checks.append(waiting)
    checks.append(queue_health(home))
    checks.append(health.hook_errors_check(home, now))
    checks.append(health.budget_check(home, settings, now))
    return {"state_dir": str(home), **health.summarize(checks), "checks": checks}


DEFAULT_LEASE_GRACE = 30.0  # Settings.lease_grace_seconds, when the settings are invalid


def gateway_check(home: Path) -> dict[str, Any]:
    """On a PostgreSQL machine hooks reach the store only through ``memevo serve`` (the
    gateway): without it recall prints nothing and captures wait in the spool."""
    from cli.hooks.gateway_client import probe
    from memory_core.reports.health import OK, WARN, make_check

    up, said = probe(home)
    if up:
        return make_check("gateway", OK, said)
    return make_check(
        "gateway",
        WARN,
        f"not answering ({said}): hooks recall nothing and spool captures until it runs",
        "memevo serve  # beside the worker (the Procfile's serve: line, or `memevo install` sets it up)",
    )


def spool_check(home: Path) -> dict[str, Any] | None:
    """On SQLite: captures the hooks kept in ``spool/`` while ``memory.db`` was damaged, still
    waiting to be stored (``None`` when there are none)."""
    from cli.hooks.spool import pending
    from memory_core.reports.health import WARN, make_check

    waiting = len(pending(home))
    if not waiting:
        return None
    return make_check(
        "spool",
        WARN,
        f"{waiting} capture(s) kept in spool/ while memory.db could not be written wait to be stored",
        "memevo restore NAME  # if memory.db is damaged; else restart the worker: it stores them as it starts",
        waiting=waiting,
    )


def render_doctor(report: dict[str, Any]) -> str:
    width = max((len(check["name"]) for check in report["checks"]), default=0)
    lines = [f"memevo doctor: state dir {report['state_dir']}"]
    for check in report["checks"]:
        lines.append(f"{_LABELS[check['status']]:<5}  {check['name']:<{width}}  {check['summary']}")
        if check["fix"]:
            lines.append(f"{'':<5}  {'':<{width}}  fix: {check['fix']}")
    errors, warnings = report["errors"], report["warnings"]
    if errors:
        lines.append(f"{errors} problem(s), {warnings} warning(s): memevo is not fully working; run the fixes above")
    elif warnings:
        lines.append(f"no problems, {warnings} warning(s)")
    else:
        lines.append("everything looks right")
    return "\n".join(lines)


@click.command("doctor")
@click.option("--check-model", is_flag=True, help="Also send the model one tiny request (10 s deadline).")
@click.option(
    "--project-dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Project whose agent settings to check (default: the current directory).",
)
@json_option
def doctor_command(check_model: bool, project_dir: Path | None, as_json: bool) -> None:
    """Check agent hooks, worker, model, database, queue and hook errors; print a fix for each problem.

    On PostgreSQL also the gateway (`memevo serve`) and this machine's clock against the server's."""
    from memory_core.config import load_settings
    from memory_core.errors import ConfigError
    from memory_core.paths import state_home

    settings: Settings | None
    try:
        settings, config_error = load_settings(), None
    except ConfigError as exc:
        settings, config_error = None, str(exc)
    home = settings.home if settings is not None else state_home()
    report = build_doctor_report(
        home=home,
        settings=settings,
        config_error=config_error,
        project_dir=project_dir or Path.cwd(),
        check_model=check_model,
        now=clock.now(),
        env=os.environ,
    )
    emit(report, as_json, render_doctor)
    click.get_current_context().exit(report["exit_code"])


COMMANDS = [doctor_command]
