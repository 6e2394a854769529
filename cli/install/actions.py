"""`memevo install` / `memevo uninstall`: plan the new settings file, show or write it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.hooks.http_server import DEFAULT_PORT
from cli.install import mcp_config, owned_file
from cli.install.executable import current_launcher
from cli.install.settings_json import (
    SettingsFile,
    find_ours,
    merge_hooks,
    merge_settings,
    read_settings,
    render,
    unified_diff,
    write_settings,
)
from cli.install.target import TRANSPORTS, HookTarget
from memory_core.errors import UsageError


@dataclass(frozen=True)
class Plan:
    """The settings file as it is and as it would be."""

    file: SettingsFile
    before: dict[str, list[dict[str, Any]]]  # memevo's entries found, by event
    new_data: dict[str, Any]

    @property
    def changed(self) -> bool:
        # Compared as data: a file already right is never rewritten just to reformat it.
        return not self.file.exists or self.new_data != self.file.data

    @property
    def new_text(self) -> str:
        return render(self.new_data)

    def diff(self) -> str:
        if not self.changed:
            return ""
        return unified_diff(self.file.path, self.file.text if self.file.exists else None, self.new_text)


def _plan(
    target: HookTarget, path: Path, wanted: Mapping[str, dict[str, Any]], extra: Mapping[str, Any] | None = None
) -> Plan:
    file = read_settings(path)
    new_data = merge_hooks(file.data, wanted, target.is_ours, target.group_of)
    if extra:  # install only: the settings the hooks need (uninstall leaves them)
        new_data = merge_settings(path, new_data, extra)
    return Plan(file, find_ours(file.data, target.is_ours), new_data)


def _execute(plan: Plan, dry_run: bool, now: float, *, private: bool = False) -> tuple[bool, str | None]:
    if dry_run or not plan.changed:
        return False, None
    backup = write_settings(plan.file, plan.new_text, now, private=private)
    return True, None if backup is None else str(backup)


def _with_token(data: dict[str, Any], token: str | None) -> dict[str, Any]:
    """``data`` with ``env.MEMEVO_HOOK_TOKEN`` set to ``token``, or removed (``None``): the
    agent reads its settings' ``env`` into the environment its http hooks' headers draw on.
    An ``env`` that held only the token goes with it; anything else in it stays."""
    from cli.hooks.hook_token import TOKEN_VARIABLE

    env = data.get("env")
    if token is None:
        if not isinstance(env, dict) or TOKEN_VARIABLE not in env:
            return data
        rest = {key: value for key, value in env.items() if key != TOKEN_VARIABLE}
        result = dict(data)
        if rest:
            result["env"] = rest
        else:
            del result["env"]
        return result
    if env is not None and not isinstance(env, dict):
        raise UsageError(f'"env" in the settings file is not an object; fix it to install the {TOKEN_VARIABLE} hooks')
    return {**data, "env": {**(env or {}), TOKEN_VARIABLE: token}}


def _http_token(target: HookTarget, scope: str, env: Mapping[str, str]) -> str:
    """The hook token for ``--transport http``, refused where the settings file is shared."""
    from cli.hooks.hook_token import TokenError, hook_token
    from memory_core.paths import state_home

    if not target.http_events:
        raise UsageError(f"{target.title} has no http hooks; install it with --transport command")
    if scope == "project":
        raise UsageError(
            "http hooks carry this machine's port and hook token: install them in the user or local scope, "
            "not in the project's shared settings"
        )
    try:
        return hook_token(state_home(env), env)
    except TokenError as exc:
        raise UsageError(str(exc)) from None


def install(
    target: HookTarget | owned_file.FileTarget,
    scope: str,
    *,
    project_dir: Path,
    dry_run: bool,
    now: float,
    env: Mapping[str, str] | None = None,
    launcher: Sequence[str] | None = None,
    transport: str = "command",
    port: int | None = None,
) -> dict[str, Any]:
    """Make memevo's entries in ``scope``'s settings file exactly the current ones: command
    hooks, or with ``transport="http"`` http hooks to ``memevo serve`` on loopback ``port``
    where the agent has them, the hook token in the file's ``env`` (which is then made
    readable by its owner only)."""
    if transport not in TRANSPORTS:
        raise UsageError(f"unknown transport {transport!r}; use one of: {', '.join(TRANSPORTS)}")
    if port is not None and transport != "http":
        raise UsageError("--port is for --transport http only")
    if isinstance(target, owned_file.FileTarget):
        if transport != "command":
            raise UsageError(f"{target.title} has no http hooks; install it with --transport command")
        done = owned_file.install(
            target, scope, project_dir=project_dir, dry_run=dry_run, now=now, env=env, launcher=launcher
        )
        return {**done, "notice": _joined(done.get("notice"), gateway_notice(env))}
    env = os.environ if env is None else env
    token = _http_token(target, scope, env) if transport == "http" else None
    port = DEFAULT_PORT if port is None and transport == "http" else port
    launcher = list(launcher or current_launcher())
    path = target.settings_path(scope, project_dir, env)
    wanted = target.entries(launcher, transport, port)
    plan = _plan(target, path, wanted, target.extra_settings)
    if target.http_events:
        plan = Plan(plan.file, plan.before, _with_token(plan.new_data, token))
    mcp_entry = mcp_config.wanted_entry(target.name, launcher, env)
    plan, mcp_plan = _with_mcp(target, scope, project_dir, env, plan, mcp_entry)
    written, backup = _execute(plan, dry_run, now, private=token is not None)
    mcp = _finish_mcp(mcp_plan, dry_run, now, written, backup)
    changed = plan.changed or bool(mcp and mcp["changed"])
    if not changed:
        action = "unchanged"
    else:
        action = "updated" if plan.before else "installed"
    return {
        "agent": target.name,
        "title": target.title,
        "scope": scope,
        "path": str(path),
        "action": action,
        "changed": changed,
        "dry_run": dry_run,
        "written": written,
        "backup": backup,
        "command": target.hook_command(launcher),
        "events": {event: target.timeouts[event] for event in wanted},  # seconds, whatever the file counts
        "timeout_notes": dict(target.notes),
        "notice": _joined(target.notice, gateway_notice(env)),
        "transport": transport,
        "http_events": [event for event, entry in wanted.items() if entry.get("type") == "http"],
        "port": port,
        "diff": _joined(_masked(plan.diff()), mcp["diff"] if mcp else None) if dry_run else None,
        "mcp": mcp,
    }


def _with_mcp(
    target: HookTarget,
    scope: str,
    project_dir: Path,
    env: Mapping[str, str],
    plan: Plan,
    entry: dict[str, Any] | None,
) -> tuple[Plan, mcp_config.McpPlan | None]:
    """The hooks' plan and the plan of memevo's MCP server entry (``entry``; ``None``
    removes it). Where both live in one file (Gemini CLI) the hooks' plan carries both."""
    mcp_target = mcp_config.MCP_TARGETS.get(target.name)
    if mcp_target is None:
        return plan, None
    same_file = mcp_target.config_path(scope, project_dir, env) == plan.file.path
    shared = (plan.file, plan.new_data) if same_file else None
    mcp_plan, merged = mcp_config.plan(mcp_target, scope, project_dir, env, entry, shared)
    if merged is not None:
        plan = Plan(plan.file, plan.before, merged)
    return plan, mcp_plan


def _finish_mcp(
    mcp_plan: mcp_config.McpPlan | None, dry_run: bool, now: float, written: bool, backup: str | None
) -> dict[str, Any] | None:
    """Write the MCP entry's own file (unless the hooks' write carried it) and report it."""
    if mcp_plan is None:
        return None
    if not mcp_plan.shared:
        written, backup = mcp_config.execute(mcp_plan, dry_run, now)
    return mcp_config.report(mcp_plan, written=written, backup=backup, dry_run=dry_run)


def gateway_notice(env: Mapping[str, str] | None = None) -> str | None:
    """On a machine whose store is PostgreSQL, the line that says hooks need ``memevo serve``."""
    from memory_core.errors import MemevoError
    from memory_core.paths import state_home
    from memory_core.store.engines.backend import POSTGRESQL, resolve

    try:
        if resolve(state_home(env), env).kind != POSTGRESQL:
            return None
    except MemevoError:
        return None
    return (
        "The store is on PostgreSQL: hooks reach it through `memevo serve`, so keep it running beside the "
        "worker (the Procfile's serve: line); without it recall is skipped and captures wait in the state "
        "dir's spool/ until it is back."
    )


def _joined(*notices: str | None) -> str | None:
    return "\n".join(n for n in notices if n) or None


def _masked(text: str) -> str:
    """A diff without the hook token's value (a diff is printed, and kept in logs)."""
    import re

    from cli.hooks.hook_token import TOKEN_VARIABLE

    return re.sub(rf'("{TOKEN_VARIABLE}": )"[^"]*"', r'\1"<hook token>"', text)


def uninstall(
    target: HookTarget | owned_file.FileTarget,
    scope: str,
    *,
    project_dir: Path,
    dry_run: bool,
    now: float,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Remove exactly memevo's entries from ``scope``'s settings file."""
    if isinstance(target, owned_file.FileTarget):
        return owned_file.uninstall(target, scope, project_dir=project_dir, dry_run=dry_run, now=now, env=env)
    env = os.environ if env is None else env
    path = target.settings_path(scope, project_dir, env)
    plan = _plan(target, path, {})
    if target.http_events:  # the hook token is memevo's: it goes with the hooks
        plan = Plan(plan.file, plan.before, _with_token(plan.new_data, None))
    plan, mcp_plan = _with_mcp(target, scope, project_dir, env, plan, None)
    hooks_changed = plan.changed and plan.file.exists
    written, backup = _execute(plan, dry_run, now) if hooks_changed else (False, None)
    mcp = _finish_mcp(mcp_plan, dry_run, now, written, backup)
    changed = hooks_changed or bool(mcp and mcp["changed"])
    return {
        "agent": target.name,
        "title": target.title,
        "scope": scope,
        "path": str(path),
        "action": "removed" if changed else "not installed",
        "removed": sum(len(entries) for entries in plan.before.values()),
        "events": list(plan.before),
        "changed": changed,
        "dry_run": dry_run,
        "written": written,
        "backup": backup,
        "diff": _joined(_masked(plan.diff()) if hooks_changed else "", mcp["diff"] if mcp else None) or ""
        if dry_run
        else None,
        "mcp": mcp,
    }
