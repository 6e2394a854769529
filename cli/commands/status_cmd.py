"""`memevo status`: state dir, schema, counts, jobs and integrity."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, open_store, settings
from memory_core.status import build_status


def render_status(report: dict[str, Any]) -> str:
    mem = report["memories"]
    lines = [
        f"state dir:       {report['state_dir']}",
        f"schema version:  {report['schema_version']} "
        f"(this build supports {report['supported_schema_version']})",
        f"memories:        {mem['total']} total",
        "  by kind:       " + ", ".join(f"{k} {v}" for k, v in mem["by_kind"].items()),
        "  by status:     " + ", ".join(f"{k} {v}" for k, v in mem["by_status"].items()),
        "jobs:            " + ", ".join(f"{k} {v}" for k, v in report["jobs"].items()),
    ]
    for section in report.get("sections", []):
        lines.extend(section)
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
    cfg = settings()
    with open_store() as store:
        report = build_status(store, str(cfg.home))
    emit(report, as_json, render_status)


COMMANDS = [status_command]
