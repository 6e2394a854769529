"""`memevo install` / `memevo uninstall`: plan the new settings file, show or write it."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.install import owned_file
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
from cli.install.target import HookTarget


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


def _execute(plan: Plan, dry_run: bool, now: float) -> tuple[bool, str | None]:
    if dry_run or not plan.changed:
        return False, None
    backup = write_settings(plan.file, plan.new_text, now)
    return True, None if backup is None else str(backup)


def install(
    target: HookTarget | owned_file.FileTarget,
    scope: str,
    *,
    project_dir: Path,
    dry_run: bool,
    now: float,
    env: Mapping[str, str] | None = None,
    launcher: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Make memevo's entries in ``scope``'s settings file exactly the current ones."""
    if isinstance(target, owned_file.FileTarget):
        return owned_file.install(
            target, scope, project_dir=project_dir, dry_run=dry_run, now=now, env=env, launcher=launcher
        )
    env = os.environ if env is None else env
    launcher = list(launcher or current_launcher())
    path = target.settings_path(scope, project_dir, env)
    wanted = target.entries(launcher)
    plan = _plan(target, path, wanted, target.extra_settings)
    written, backup = _execute(plan, dry_run, now)
    if not plan.changed:
        action = "unchanged"
    else:
        action = "updated" if plan.before else "installed"
    return {
        "agent": target.name,
        "title": target.title,
        "scope": scope,
        "path": str(path),
        "action": action,
        "changed": plan.changed,
        "dry_run": dry_run,
        "written": written,
        "backup": backup,
        "command": target.hook_command(launcher),
        "events": {event: target.timeouts[event] for event in wanted},  # seconds, whatever the file counts
        "timeout_notes": dict(target.notes),
        "notice": target.notice,
        "diff": plan.diff() if dry_run else None,
    }


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
    changed = plan.changed and plan.file.exists
    written, backup = _execute(plan, dry_run, now) if changed else (False, None)
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
        "diff": (plan.diff() if changed else "") if dry_run else None,
    }
