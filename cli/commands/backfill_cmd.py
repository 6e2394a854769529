"""`memevo backfill AGENT`: learn from the sessions an agent saved before memevo was installed."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from cli.backfill.locate import AGENTS
from cli.context import emit, json_option
from memory_core.errors import UsageError


def render_summary(data: dict[str, Any]) -> str:
    """The summary at the end of a run: what was read, what was (or would be) queued, its cost."""
    verb = "would queue" if data["dry_run"] else "queued"
    sources = data["sources"]
    lines = [
        f"read:     {data['sessions_read']:,} sessions, {data['turns_read']:,} turns "
        f"({data['bytes_read']:,} bytes) of {data['session_files']:,} session files",
        f"sources:  {verb} {data['sources_total']:,} ({sources.get('summary', 0):,} compaction summaries, "
        f"{sources.get('user_statement', 0):,} statements, {sources.get('progress', 0):,} progress); "
        f"{data['already_captured']:,} already captured, {data['turns_without_a_source']:,} turns kept nothing",
    ]
    if data["calls_per_day"]:
        lines.append(
            f"cost:     about {data['model_calls']:,} model calls, {data['model_tokens']:,} tokens; "
            f"{_duration(data['days'])} at half of today's budget of {data['calls_per_day']:,} calls "
            "(the other half stays with live captures)"
        )
    else:
        lines.append(f"cost:     about {data['model_calls']:,} model calls, but the daily budget allows none")
    left = []
    if data["sessions_excluded"]:
        left.append(f"{data['sessions_excluded']:,} in excluded directories")
    if data["sessions_of_other_projects"]:
        left.append(f"{data['sessions_of_other_projects']:,} of other projects (--all-projects reads them)")
    if data["sessions_older_than_since"]:
        left.append(f"{data['sessions_older_than_since']:,} older than --since")
    if left:
        lines.append("left out: " + ", ".join(left) + " (sessions)")
    if data["bad_lines"]:
        lines.append(f"bad lines: {data['bad_lines']:,} lines skipped: not JSON, truncated or too long")
    if data["events_private_as_a_whole"]:
        lines.append(f"private:  {data['events_private_as_a_whole']:,} turns or summaries private as a whole, left out")
    lines.extend(f"skipped:  {line}" for line in data["skipped"])
    return "\n".join(lines)


def _duration(days: float) -> str:
    if days >= 1:
        return f"about {days:,.1f} days"
    hours = days * 24
    return f"about {hours:.0f} hours" if hours >= 1 else "under an hour"


@click.command("backfill")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option("--since", "since", default=None, help="A date (2026-09-01) or an age (30d); default 90d.")
@click.option("--project", "project", default=None, help="Read this project's sessions (default: the current one).")
@click.option("--all-projects", is_flag=True, help="Read the sessions of every project.")
@click.option("--dry-run", is_flag=True, help="Write nothing: say what would be read, queued and spent.")
@json_option
def backfill_command(
    agent: str, since: str | None, project: str | None, all_projects: bool, dry_run: bool, as_json: bool
) -> None:
    """Learn from AGENT's saved sessions: the compaction summaries, statements and completed
    work its hooks would have captured, through the same capture and redaction, each dated
    when it was said. Queued behind live captures at half the daily budget; running it again
    adds nothing twice and continues where a killed run stopped."""
    from cli.backfill.run import Backfill
    from cli.backfill.since import parse_since
    from memory_core import clock
    from memory_core.capture.intake import capture_project
    from memory_core.paths import state_home

    if project is not None and all_projects:
        raise UsageError("give --project PATH or --all-projects, not both")
    now = clock.now()
    home = state_home()
    origin = None if all_projects else capture_project(os.path.abspath(project or os.getcwd()), home).origin
    run = Backfill(agent, home, since=parse_since(since, now), project=origin, dry_run=dry_run, now=now)
    show = sys.stderr.isatty() and not as_json
    if show:
        files = run.files()
        verb = "would queue" if dry_run else "queued"
        bar: Any
        with click.progressbar(
            length=len(files),
            label=f"{agent} sessions",
            file=sys.stderr,
            item_show_func=lambda queued: f"{queued:,} sources {verb}" if queued is not None else None,
        ) as bar:
            run.files = lambda: files  # type: ignore[method-assign]
            data = run.run(lambda done, queued: bar.update(1, queued))
    else:
        data = run.run()
    if not dry_run and data["sources_total"]:
        from cli.nudge import nudge_recover

        nudge_recover()
    emit(data, as_json, render_summary)


COMMANDS = [backfill_command]
