"""`memevo log`: every digest given to an agent and every lookup answered (docs/ui.md)."""

from __future__ import annotations

from typing import Any

import click

from cli.context import emit, json_option, settings
from memory_core.clock import iso
from memory_core.reports.injection_log import read_injections


def render_log(data: dict[str, Any]) -> str:
    entries = data["injections"]
    if not entries:
        return "no injections logged yet (the log fills as agents' turns get digests and lookups are answered)"
    lines = []
    for e in entries:
        claims = e.get("claims") or []
        lines.append(
            f"{iso(e['at'])}  {e['kind']:<8}  {e.get('agent') or '-':<11}  session {e.get('session') or '-'}  "
            f"{e['bytes']} bytes  {len(claims)} claims: {' '.join(claims) or '-'}"
        )
        if e.get("project"):
            lines.append(f"    project {e['project']}")
    return "\n".join(lines)


@click.command("log")
@click.option(
    "-n",
    "--limit",
    type=click.IntRange(1, 5000),
    default=20,
    show_default=True,
    help="How many of the latest injections to show.",
)
@json_option
def log_command(limit: int, as_json: bool) -> None:
    """Show what memevo put into agents' context: each automatic digest and each lookup.

    When, which agent, session and project, which claims and how many bytes; never the
    prompt or the query. Newest first, from logs/injections.jsonl in the state dir (kept
    apart from memory.db, private, bounded).
    """
    emit({"injections": read_injections(settings().home, limit)}, as_json, render_log)


COMMANDS = [log_command]
