"""`memevo check`: the claims of a project its checkout has outgrown; and the rendering of
`memevo explain --session-start` (the standing digest and why).

Read-only: the store is opened read-only and the checkout is only looked at.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from cli.context import emit, json_option
from memory_core import clock
from memory_core.errors import UsageError
from memory_core.paths import state_home


def _directory(project_dir: str | None) -> str:
    directory = os.path.realpath(os.path.expanduser(project_dir)) if project_dir else os.getcwd()
    if not os.path.isdir(directory):
        raise UsageError(f"{project_dir} is not a directory; give a directory of the project, e.g. `--project .`")
    return directory


def _render_check(data: dict[str, Any]) -> str:
    if data["root"] is None:
        return f"{data['project']}: no git checkout here, so nothing can be checked; run it inside the project"
    lines = [
        f"project {data['project']} (checkout {data['root']}), checked {clock.iso(data['checked_at'])}: "
        f"{data['checked']} active claims, {data['naming']} naming paths, scripts or branches, "
        f"{len(data['stale'])} stale"
    ]
    for item in data["stale"]:
        text = " ".join(item["content"].split())
        lines.append(f"{item['id']}  {item['kind']:<10} {text[:90]}")
        lines.append(f"    {item['line']}")
    if data["stale"]:
        lines.append("stale claims are not injected; `memevo forget ID` or `memevo correct ID TEXT` retires one")
    return "\n".join(lines)


@click.command("check")
@click.option(
    "--project",
    "project_dir",
    metavar="PATH",
    type=click.Path(file_okay=False),
    help="A directory of the project (default: the current one).",
)
@json_option
def check_command(project_dir: str | None, as_json: bool) -> None:
    """List the claims of a project that name a path, script, make target or branch its checkout no longer has."""
    from memory_core.recall.service import open_recall_store
    from memory_core.reports.stale_claims import stale_claims

    directory = _directory(project_dir)
    home = state_home()
    now = clock.now()
    store = open_recall_store(home)
    if store is None:
        data: dict[str, Any] = {
            "project": directory,
            "root": None,
            "checked_at": now,
            "checked": 0,
            "naming": 0,
            "stale": [],
        }
    else:
        with store:
            data = stale_claims(store.conn, directory, home, now)
        if data["stale"] and data["root"]:
            from memory_core.recall.stale_record import remember_stale

            # The worker offers them to its model as candidates to retire (docs/standing.md).
            remember_stale(home, [(s["id"], s["origin"], s["missing"]) for s in data["stale"]], data["root"], now)
    emit(data, as_json, _render_check)


def explain_session_start(home: Path, project_dir: str | None, now: float) -> dict[str, Any]:
    """The standing digest a session in the directory would start with now, and every candidate's verdict."""
    from memory_core.recall.service import open_recall_store
    from memory_core.recall.standing import StandingResult
    from memory_core.recall.standing_setting import standing_bytes
    from memory_core.reports.standing_view import standing_for

    directory = _directory(project_dir)
    bound = standing_bytes(home)
    result = StandingResult("", [], [], directory, 0)
    store = open_recall_store(home) if bound else None
    if store is not None:
        with store:
            result = standing_for(store.conn, home, directory, now, max_bytes=bound)
    return {**result.as_dict(), "bound": bound, "at": now}


def render_session_start(data: dict[str, Any]) -> str:
    if not data["bound"]:
        return "the standing digest is off (standing_digest = off)"
    lines = [
        f"standing digest for {data['project']} at {clock.iso(data['at'])}: {len(data['shown'])} of "
        f"{data['candidates']} candidates, {data['bytes']} of {data['bound']} bytes"
    ]
    for item in data["decisions"]:
        where = "general" if item["general"] else "project"
        extra = f" ({', '.join(item['missing'])} no longer exists)" if item.get("missing") else ""
        pinned = " pinned" if item["pinned"] else ""
        lines.append(
            f"  {item['verdict']:<15} {item['id']}  {item['kind']:<10} {where}{pinned} "
            f"score {item['score']:.3f} fresh {item['freshness']:.2f}{extra}"
        )
    lines.append(data["digest"] or "(nothing to give)")
    return "\n".join(lines)


COMMANDS = [check_command]
