"""`memevo install AGENT` and `memevo uninstall AGENT`: memevo's hooks in an agent's settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from cli.context import emit, json_option
from cli.hooks.http_server import DEFAULT_PORT
from cli.install.registry import agent_names, all_scopes
from cli.model_use import dollars
from memory_core import clock


def _common_options(func: Any) -> Any:
    func = click.option("--dry-run", is_flag=True, help="Print the change as a unified diff and write nothing.")(func)
    func = click.option(
        "--project-dir",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        default=None,
        help="Project the project and local scopes mean (default: current dir).",
    )(func)
    func = click.option(
        "--scope",
        type=click.Choice(all_scopes()),
        default=None,
        help="Where: user (the default: your home, e.g. ~/.claude/settings.json), project (this "
        "project, e.g. .claude/settings.json) or local (Claude Code only: "
        ".claude/settings.local.json). See docs/agents/AGENT.md.",
    )(func)
    return click.argument("agent", type=click.Choice(agent_names()))(func)


def _dry_run_text(data: dict[str, Any]) -> str:
    body = data["diff"] or f"{data['path']}: nothing to change"
    return f"{body}\n(dry run: nothing was written)"


def render_install(data: dict[str, Any]) -> str:
    if data["dry_run"]:
        return _dry_run_text(data)
    if not data["changed"]:
        return "\n".join(
            [
                f"memevo's {data['title']} hooks are already installed in {data['path']} ({data['scope']} scope); "
                "nothing changed.",
                *_learn_lines(data),
                "Check everything with: memevo doctor",
            ]
        )
    verb = "Updated" if data["action"] == "updated" else "Installed"
    lines = [f"{verb} memevo's {data['title']} hooks in {data['path']} ({data['scope']} scope)."]
    if data["backup"]:
        lines.append(f"Backup of the previous file: {data['backup']}")
    lines.extend(_mcp_lines(data.get("mcp")))
    served = data.get("http_events") or []
    if served:
        lines.append(f"SessionStart runs: {data['command']}")
        lines.append(
            f"The other events post to memevo serve on http://127.0.0.1:{data['port']}/hooks/{data['agent']}/<event>, "
            f"with the hook token the file's env holds (MEMEVO_HOOK_TOKEN; the file is now readable by you only):"
        )
    else:
        lines.append(f"Each event runs: {data['command']}")
    for event, timeout in data["events"].items():
        limit = f"timeout {timeout} s" if timeout is not None else data["timeout_notes"].get(event, "no timeout")
        how = "  (http)" if event in served else ""
        lines.append(f"  {event:<18} {limit}{how}")
    if data.get("notice"):
        lines.append(data["notice"])
    if served:
        lines.append(
            f"Keep `memevo serve --port {data['port']}` running beside the worker (the Procfile's serve: line): "
            "without it these hooks fail and the agent goes on without memory."
        )
    lines.extend(_learn_lines(data))
    lines.append("Next: start the worker with `memevo worker`, then check everything with `memevo doctor`.")
    return "\n".join(lines)


def _learn_lines(data: dict[str, Any]) -> list[str]:
    learn = data.get("learn")
    if learn is None:
        return [data["learn_hint"]] if data.get("learn_hint") else []
    model = learn["model"] or f"{learn['title']}'s own default model"
    lines = [
        f'The worker learns with {learn["title"]}\'s own login: model_provider = "{learn["provider"]}" in '
        f"{learn['config_file']}" + ("" if learn["changed"] else " (already set)") + ".",
        f"  model {model}; daily budget {learn['daily_model_calls']} calls and {learn['daily_model_tokens']:,} "
        "tokens (daily_model_calls, daily_model_tokens)",
        "  "
        + (
            f"and at most {dollars(learn['daily_model_cost_usd'])} of the cost the CLI reports (daily_model_cost_usd)"
            if learn.get("daily_model_cost_usd") is not None
            else "no limit on the cost the CLI reports (set daily_model_cost_usd for one)"
        ),
    ]
    if learn["setup_hint"]:
        lines.append(f"  but the CLI is not found: {learn['setup_hint']}")
    return lines


def _mcp_lines(mcp: dict[str, Any] | None) -> list[str]:
    """What became of memevo's MCP server entry (docs/mcp.md), if the agent has one."""
    if not mcp or not mcp["changed"]:
        return []
    if mcp["action"] == "removed":
        lines = [f"Removed memevo's MCP server from {mcp['path']}."]
    else:
        verb = "Updated" if mcp["action"] == "updated" else "Registered"
        lines = [
            f"{verb} memevo's MCP server ({', '.join(mcp['tools'])}; read-only) in {mcp['path']}: "
            + " ".join(mcp["command"] or [])
        ]
    if mcp["backup"]:
        lines.append(f"Backup of the previous file: {mcp['backup']}")
    if mcp.get("notice") and mcp["action"] != "removed":
        lines.append(mcp["notice"])
    return lines


def render_uninstall(data: dict[str, Any]) -> str:
    if data["dry_run"]:
        return _dry_run_text(data)
    if not data["changed"]:
        return f"no memevo hooks in {data['path']} ({data['scope']} scope); nothing changed"
    lines = []
    if data["removed"]:
        lines.append(
            f"Removed memevo's {data['title']} hooks ({data['removed']} entries: {', '.join(data['events'])}) "
            f"from {data['path']}."
        )
    if data["backup"]:
        lines.append(f"Backup of the previous file: {data['backup']}")
    lines.extend(_mcp_lines(data.get("mcp")))
    return "\n".join(lines)


@click.command("install")
@_common_options
@click.option(
    "--transport",
    type=click.Choice(["command", "http"]),
    default="command",
    show_default=True,
    help="command: each event runs `memevo hook`. http (Claude Code only, user or local scope): "
    "the events Claude Code can send over http post to `memevo serve` on 127.0.0.1 with the hook "
    "token; SessionStart stays a command. See docs/hooks.md.",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=None,
    help=f"With --transport http: the port `memevo serve` listens on (default {DEFAULT_PORT}).",
)
@click.option(
    "--learn",
    is_flag=True,
    help="Also make this agent's own CLI and login the worker's model (model_provider in the state "
    "dir's config.toml); prints the model and daily budget it will use. See docs/operations.md.",
)
@json_option
def install_command(
    agent: str,
    scope: str | None,
    project_dir: Path | None,
    dry_run: bool,
    transport: str,
    port: int | None,
    learn: bool,
    as_json: bool,
) -> None:
    """Add memevo's hooks to an agent's settings file, and register its read-only MCP server
    (`memevo mcp`) where the agent keeps MCP servers (idempotent; backs files up first)."""
    from cli.install.actions import install
    from cli.install.registry import check_scope, get_target

    target = get_target(agent)
    data = install(
        target,
        check_scope(target, scope),
        project_dir=project_dir or Path.cwd(),
        dry_run=dry_run,
        now=clock.now(),
        transport=transport,
        port=port,
    )
    if not dry_run:
        from cli.install.learn import learn_with, no_model_hint
        from memory_core.paths import state_home

        if learn:
            data["learn"] = learn_with(state_home(), agent)
        else:
            data["learn_hint"] = no_model_hint(agent)
    emit(data, as_json, render_install)


@click.command("uninstall")
@_common_options
@json_option
def uninstall_command(agent: str, scope: str | None, project_dir: Path | None, dry_run: bool, as_json: bool) -> None:
    """Remove exactly memevo's hooks and MCP server from an agent's settings (backs files up first)."""
    from cli.install.actions import uninstall
    from cli.install.registry import check_scope, get_target

    target = get_target(agent)
    data = uninstall(
        target, check_scope(target, scope), project_dir=project_dir or Path.cwd(), dry_run=dry_run, now=clock.now()
    )
    emit(data, as_json, render_uninstall)


COMMANDS = [install_command, uninstall_command]
