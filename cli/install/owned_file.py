"""Agents memevo plugs into with one file of its own, rendered at install time.

Pi has no hook settings: memevo installs an extension, a file only memevo writes
(``memevo.ts``). A :class:`FileTarget` names where that file goes per scope, renders it for
a ``memevo`` launcher and reads the launcher back out of an installed file. The rules,
shared by every such agent, mirror the settings merge (``settings_json``):

- **memevo's file only.** A file at the path that is not memevo's (no launcher to read) is
  never changed: install refuses, uninstall leaves it;
- **idempotent.** A file already exactly right is not written again;
- **backups.** An installed file that is not exactly what memevo renders for its own launcher
  (someone edited it, or an older memevo wrote it) is copied beside it
  (``memevo.ts.memevo-backup-<time>``) before it is replaced or removed; a pristine one is
  simply replaced (memevo can render it again);
- **atomic.** Written to a temporary file renamed over it; a symlinked file is written through
  the link; uninstall removes the link itself;
- ``--dry-run`` prints the change as a unified diff and writes nothing.

:func:`install` and :func:`uninstall` return the same keys as :mod:`cli.install.actions`, and
:func:`checks` gives ``memevo doctor`` the same kind of checks as :mod:`cli.install.check`.
"""

from __future__ import annotations

import difflib
import os
import shlex
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cli.install import scope_checks
from cli.install.executable import current_launcher, launcher_problem
from cli.install.settings_json import (
    SettingsFile,
    SettingsFileError,
    backup_name,
    read_raw,
    replace_atomically,
    unified_diff,
    write_settings,
)
from memory_core.reports.health import ERROR, OK, WARN, make_check

FilePath = Callable[[str, Path, Mapping[str, str]], Path]


@dataclass(frozen=True)
class FileTarget:
    """One agent memevo installs into as a file of its own."""

    name: str  # the CLI's name for it: "pi"
    title: str  # for people: "Pi"
    scopes: tuple[str, ...]
    default_scope: str
    file_path: FilePath  # (scope, project_dir, env) -> the file
    render: Callable[[Sequence[str]], str]  # launcher -> the file's text
    launcher_of: Callable[[str], list[str] | None]  # file text -> its launcher, None if not memevo's
    # The agent's events the file handles -> the time limit memevo applies (None: none), for people.
    events: Mapping[str, float | None]
    notes: Mapping[str, str] = field(default_factory=dict)  # event -> why its limit is what it is
    notice: str | None = None  # one line install prints after the events

    def hook_command(self, launcher: Sequence[str]) -> str:
        return shlex.join([*launcher, "hook", "--agent", self.name])


@dataclass(frozen=True)
class _Found:
    """The file at a scope's path as read."""

    path: Path
    target: Path  # written through a symlink
    raw: bytes | None
    text: str | None  # None when missing or not UTF-8
    launcher: list[str] | None  # set when the file is memevo's

    @property
    def exists(self) -> bool:
        return self.raw is not None

    @property
    def ours(self) -> bool:
        return self.launcher is not None


def _read(target: FileTarget, path: Path) -> _Found:
    real, raw = read_raw(path)
    text: str | None = None
    if raw is not None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
    launcher = target.launcher_of(text) if text is not None else None
    return _Found(path, real, raw, text, launcher)


def _pristine(target: FileTarget, found: _Found) -> bool:
    """Whether the file is exactly what memevo renders for the launcher it names."""
    return found.launcher is not None and found.text == target.render(found.launcher)


def _backup_by_rename(found: _Found, now: float) -> Path:
    """Move the file to a free backup name beside it (the move is the backup)."""
    base = backup_name(found.target, now)
    candidate, n = base, 0
    while True:
        try:
            os.link(found.target, candidate)  # fails when the name is taken: never overwrites a backup
            break
        except FileExistsError:
            n += 1
            candidate = base.with_name(f"{base.name}-{n}")
    os.unlink(found.target)
    return candidate


def _check_unchanged(found: _Found) -> None:
    try:
        current: bytes | None = found.target.read_bytes()
    except FileNotFoundError:
        current = None
    if current != found.raw:
        raise SettingsFileError(f"{found.path} changed while memevo was editing it; run the command again")


def _replace_pristine(found: _Found, text: str) -> None:
    """Replace a file memevo can render again, atomically and keeping its mode, without a backup."""
    _check_unchanged(found)
    target = found.target
    try:
        replace_atomically(target, text, stat.S_IMODE(target.stat().st_mode))
    except OSError as exc:
        raise SettingsFileError(
            f"cannot write {found.path}: {exc.strerror or exc}; check the directory's "
            "permissions (the file was not changed)"
        ) from None


def _removal_diff(path: Path, old: str) -> str:
    return "\n".join(difflib.unified_diff(old.splitlines(), [], fromfile=str(path), tofile="/dev/null", lineterm=""))


def install(
    target: FileTarget,
    scope: str,
    *,
    project_dir: Path,
    dry_run: bool,
    now: float,
    env: Mapping[str, str] | None = None,
    launcher: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Make the scope's file exactly memevo's current one for ``launcher``."""
    env = os.environ if env is None else env
    launcher = list(launcher or current_launcher())
    path = target.file_path(scope, project_dir, env)
    found = _read(target, path)
    if found.exists and not found.ours:
        raise SettingsFileError(
            f"{path} exists and is not memevo's {target.title} extension; move it away and run the command "
            "again (nothing was changed)",
            "is not memevo's file",
        )
    new_text = target.render(launcher)
    changed = found.text != new_text
    backup: Path | None = None
    written = False
    if changed and not dry_run:
        if found.exists and _pristine(target, found):
            _replace_pristine(found, new_text)  # memevo can render it again: no backup
        else:
            backup = write_settings(SettingsFile(path, found.target, found.raw, {}), new_text, now)
        written = True
    return {
        "agent": target.name,
        "title": target.title,
        "scope": scope,
        "path": str(path),
        "action": "unchanged" if not changed else ("updated" if found.exists else "installed"),
        "changed": changed,
        "dry_run": dry_run,
        "written": written,
        "backup": None if backup is None else str(backup),
        "command": target.hook_command(launcher),
        "events": dict(target.events),
        "timeout_notes": dict(target.notes),
        "notice": target.notice if changed else None,
        "diff": (unified_diff(path, found.text if found.exists else None, new_text) if changed else "")
        if dry_run
        else None,
    }


def uninstall(
    target: FileTarget,
    scope: str,
    *,
    project_dir: Path,
    dry_run: bool,
    now: float,
    env: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Remove the scope's file if it is memevo's (a changed one is kept as a backup)."""
    env = os.environ if env is None else env
    path = target.file_path(scope, project_dir, env)
    found = _read(target, path)
    changed = found.ours
    backup: Path | None = None
    written = False
    if changed and not dry_run:
        _check_unchanged(found)
        try:
            if path.is_symlink():
                path.unlink()  # the link is memevo's install; whatever it points at stays
            elif _pristine(target, found):
                path.unlink()
            else:
                backup = _backup_by_rename(found, now)
        except OSError as exc:
            raise SettingsFileError(
                f"cannot remove {path}: {exc.strerror or exc}; check the directory's "
                "permissions (the file was not changed)"
            ) from None
        written = True
    return {
        "agent": target.name,
        "title": target.title,
        "scope": scope,
        "path": str(path),
        "action": "removed" if changed else "not installed",
        "removed": len(target.events) if changed else 0,
        "events": list(target.events) if changed else [],
        "changed": changed,
        "dry_run": dry_run,
        "written": written,
        "backup": None if backup is None else str(backup),
        "diff": (_removal_diff(path, found.text or "") if changed else "") if dry_run else None,
    }


def inspect_scope(target: FileTarget, scope: str, project_dir: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """What one scope holds of memevo's (read-only)."""
    path = target.file_path(scope, project_dir, env)
    info: dict[str, Any] = {
        "scope": scope,
        "path": str(path),
        "exists": False,
        "ours": False,
        "problem": None,
        "command": None,
        "command_problem": None,
        "stale": False,
    }
    try:
        found = _read(target, path)
    except SettingsFileError as exc:
        return {**info, "exists": True, "problem": exc.problem}
    info.update(exists=found.exists, ours=found.ours)
    if found.launcher is not None:
        info.update(
            command=target.hook_command(found.launcher),
            command_problem=launcher_problem(found.launcher),
            stale=not _pristine(target, found),
        )
    return info


def checks(target: FileTarget, project_dir: Path, env: Mapping[str, str]) -> list[dict[str, Any]]:
    """``memevo doctor``'s checks: one ``ok``, or one per problem with the command that fixes it."""
    scopes = [inspect_scope(target, scope, project_dir, env) for scope in target.scopes]
    name = target.name
    found: list[dict[str, Any]] = []
    for info in scopes:
        if info["problem"]:
            found.append(
                make_check(
                    name,
                    ERROR,
                    f"{info['scope']} extension {info['path']} {info['problem']}",
                    f"ls -l {shlex.quote(info['path'])}  # fix it by hand",
                    scope=info["scope"],
                    path=info["path"],
                )
            )
        elif info["exists"] and not info["ours"]:
            found.append(
                make_check(
                    name,
                    WARN,
                    f"{info['path']} is not memevo's {target.title} extension",
                    f"mv {shlex.quote(info['path'])} {shlex.quote(info['path'] + '.old')}"
                    f" && memevo install {name} --scope {info['scope']}",
                    scope=info["scope"],
                    path=info["path"],
                )
            )
    installed = [info for info in scopes if info["ours"]]
    if not installed:
        if not found:
            found.append(scope_checks.not_installed(name, target.title, "extension is", scopes))
        return found
    problems = len(found)
    for info in installed:
        reinstall = f"memevo install {name} --scope {info['scope']}"
        if info["command_problem"]:
            found.append(
                make_check(
                    name,
                    ERROR,
                    f"{info['scope']} extension ({info['path']}) cannot run memevo: {info['command_problem']}",
                    reinstall,
                    scope=info["scope"],
                    path=info["path"],
                    command=info["command"],
                )
            )
        elif info["stale"]:
            found.append(
                make_check(
                    name,
                    WARN,
                    f"{info['scope']} extension ({info['path']}) is stale: not what this memevo installs",
                    reinstall,
                    scope=info["scope"],
                    path=info["path"],
                    command=info["command"],
                )
            )
    several = scope_checks.several_scopes(name, target.title, installed)
    if several is not None:
        found.append(several)
    if len(found) == problems:
        where = ", ".join(f"{info['scope']} ({info['path']})" for info in installed)
        commands = sorted({info["command"] for info in installed})
        found.append(make_check(name, OK, f"extension installed: {where}; runs {'; '.join(commands)}", scopes=scopes))
    return found
