"""`memevo doctor`'s agent checks: are memevo's hooks installed, and does what they run exist?"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.hooks.hook_token import TOKEN_VARIABLE
from cli.install import owned_file, scope_checks
from cli.install.executable import launcher_problem
from cli.install.settings_json import SettingsFileError, find_ours, read_settings
from cli.install.target import HookTarget
from memory_core.reports.health import ERROR, OK, WARN, make_check


def inspect_scope(target: HookTarget, scope: str, project_dir: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """What one settings file holds of memevo's (read-only)."""
    path = target.settings_path(scope, project_dir, env)
    info: dict[str, Any] = {
        "scope": scope,
        "path": str(path),
        "exists": path.exists(),
        "problem": None,
        "events": [],
        "missing_events": list(target.events),
        "commands": [],
        "hooks_disabled": False,
        "served_ports": [],
    }
    try:
        file = read_settings(path)
    except SettingsFileError as exc:
        return {**info, "problem": exc.problem}
    ours = find_ours(file.data, target.is_ours)
    commands: dict[str, str | None] = {}
    for entries in ours.values():
        for entry in entries:
            launcher = target.launcher_in(entry)
            if launcher is not None and entry["command"] not in commands:
                commands[entry["command"]] = launcher_problem(launcher)
    ports = sorted({port for entries in ours.values() for e in entries if (port := target.served_port(e)) is not None})
    env_block = file.data.get("env")
    token = env_block.get(TOKEN_VARIABLE) if isinstance(env_block, dict) else None
    return {
        **info,
        "served_ports": ports,
        "hook_token": token if isinstance(token, str) else None,
        "events": [event for event in target.events if event in ours],
        "missing_events": [event for event in target.events if event not in ours],
        "commands": [{"command": command, "problem": problem} for command, problem in commands.items()],
        "hooks_disabled": target.disabling_key is not None and file.data.get(target.disabling_key) is True,
    }


def no_agent_check(checks: list[dict[str, Any]], names: list[str]) -> dict[str, Any] | None:
    """A warning when none of the agents has memevo installed: nothing feeds or reads memory."""
    if any(check["details"].get("installed", True) for check in checks if check["name"] in names):
        return None
    return make_check(
        "agents",
        WARN,
        "no agent is connected: memevo learns and recalls nothing",
        "memevo install claude-code  # or codex, gemini, pi",
        agents=names,
    )


def agent_checks(
    target: HookTarget | owned_file.FileTarget, project_dir: Path, env: Mapping[str, str]
) -> list[dict[str, Any]]:
    """One ``ok`` check, or one check per problem, each with the command that fixes it."""
    if isinstance(target, owned_file.FileTarget):
        return owned_file.checks(target, project_dir, env)
    scopes = [inspect_scope(target, scope, project_dir, env) for scope in target.scopes]
    name = target.name
    checks: list[dict[str, Any]] = []
    for info in scopes:
        if info["problem"]:
            checks.append(
                make_check(
                    name,
                    ERROR,
                    f"{info['scope']} settings {info['path']} {info['problem']}",
                    f"${{EDITOR:-vi}} {shlex.quote(info['path'])}  # fix it by hand",
                    scope=info["scope"],
                    path=info["path"],
                )
            )
    installed = [info for info in scopes if info["events"]]
    if not installed:
        if not checks:
            checks.append(scope_checks.not_installed(name, target.title, "hooks are", scopes))
        return checks
    file_errors = len(checks)
    for info in scopes:
        if info["hooks_disabled"]:
            checks.append(
                make_check(
                    name,
                    ERROR,
                    f"{info['path']} sets {target.disabling_key}: {target.title} runs no hooks at all",
                    f'${{EDITOR:-vi}} {shlex.quote(info["path"])}  # remove "{target.disabling_key}": true',
                    scope=info["scope"],
                    path=info["path"],
                )
            )
    for info in installed:
        reinstall = f"memevo install {name} --scope {info['scope']}"
        for command in info["commands"]:
            if command["problem"]:
                checks.append(
                    make_check(
                        name,
                        ERROR,
                        f"{info['scope']} hooks ({info['path']}) cannot run: {command['problem']}",
                        reinstall,
                        scope=info["scope"],
                        path=info["path"],
                        command=command["command"],
                    )
                )
        if info["missing_events"]:
            checks.append(
                make_check(
                    name,
                    WARN,
                    f"{info['scope']} hooks ({info['path']}) lack {', '.join(info['missing_events'])}",
                    reinstall,
                    scope=info["scope"],
                    path=info["path"],
                    missing_events=info["missing_events"],
                )
            )
    for info in installed:
        checks.extend(served_checks(name, info, env))
    if target.extra_checks is not None:  # what only this agent can tell (Codex: are the hooks trusted?)
        checks.extend(target.extra_checks(target, installed, env))
    several = scope_checks.several_scopes(name, target.title, installed)
    if several is not None:
        checks.append(several)
    if len(checks) == file_errors:
        where = ", ".join(f"{info['scope']} ({info['path']})" for info in installed)
        commands = sorted({c["command"] for info in installed for c in info["commands"]})
        checks.append(make_check(name, OK, f"hooks installed: {where}; runs {'; '.join(commands)}", scopes=scopes))
    return checks


PROBE_SECONDS = 1.0


def probe_server(port: int, token: str | None) -> int | None:
    """The status ``memevo serve`` on loopback ``port`` answers an authenticated
    ``GET /health`` with (200: up, same token; 401: another token), ``None`` when nothing answers."""
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_SECONDS)
    try:
        connection.request("GET", "/health", headers={"Authorization": f"Bearer {token or ''}"})
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def served_checks(name: str, info: dict[str, Any], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Problems of a scope's http hooks: no token in the file, or no ``memevo serve`` that
    answers with that token on the port they post to."""
    checks: list[dict[str, Any]] = []
    where = f"{info['scope']} http hooks ({info['path']})"
    reinstall = f"memevo install {name} --scope {info['scope']} --transport http"
    for port in info["served_ports"]:
        if info["hook_token"] is None and TOKEN_VARIABLE not in env:
            checks.append(
                make_check(name, ERROR, f"{where} have no {TOKEN_VARIABLE} in the file's env", reinstall, port=port)
            )
            continue
        token = info["hook_token"] or env.get(TOKEN_VARIABLE)
        status = probe_server(port, token)
        if status == 200:
            continue
        if status is None:
            problem, fix = (
                f"nothing answers on 127.0.0.1:{port}",
                f"memevo serve --port {port}  # or the Procfile's serve: line",
            )
        elif status == 401:
            problem, fix = f"the server on 127.0.0.1:{port} holds another hook token", reinstall
        else:
            problem, fix = f"127.0.0.1:{port} answers {status}, not as memevo serve", f"memevo serve --port {port}"
        checks.append(
            make_check(
                name, WARN, f"{where}: {problem}; those events go without memory", fix, scope=info["scope"], port=port
            )
        )
    return checks
