"""What an agent with JSON hook settings needs from memevo: the :class:`HookTarget` record.

An agent module (``claude_code.py``; later ``codex.py``, ``gemini.py``) is one
``HookTarget(...)`` naming its settings files, its native events and their timeouts. The
hook command, the entry shape and the recognition of memevo's entries are shared here.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cli.install.settings_json import GroupOf, HookEntry, default_group

TRANSPORTS = ("command", "http")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})

SettingsPath = Callable[[str, Path, Mapping[str, str]], Path]
ExtraChecks = Callable[["HookTarget", list[dict[str, Any]], Mapping[str, str]], list[dict[str, Any]]]


def user_home(env: Mapping[str, str]) -> Path:
    """``$HOME`` as the agent sees it in ``env``, else this process's home."""
    home = (env.get("HOME") or "").strip()
    return Path(home) if home else Path(os.path.expanduser("~"))


def config_dir(env: Mapping[str, str], variable: str, default: str) -> Path:
    """An agent's configuration directory: ``$variable`` (``~`` expanded, made absolute) when
    set, else ``default`` in the user's home."""
    configured = (env.get(variable) or "").strip()
    if configured:
        return Path(configured).expanduser().absolute()
    return user_home(env) / default


def _basename(token: str) -> str:
    name = os.path.basename(token).lower()
    return name[:-4] if name.endswith(".exe") else name


def is_memevo_launcher(prefix: Sequence[str]) -> bool:
    """``…/memevo`` (any path, or none), or ``…/python -m cli`` (memevo run as a module)."""
    if len(prefix) == 1:
        return _basename(prefix[0]) == "memevo"
    if len(prefix) == 3 and list(prefix[1:]) == ["-m", "cli"]:
        return _basename(prefix[0]).startswith("python")
    return False


def launcher_of(command: str, agent: str) -> list[str] | None:
    """The memevo launcher of a ``<memevo> hook … --agent <agent> …`` command line, else ``None``.

    Matching on the launcher's name and the ``hook --agent <agent>`` words, not on a path,
    recognises memevo's entry even after memevo moved (a new venv, another install).
    """
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    for i, token in enumerate(argv):
        if token != "hook":
            continue
        prefix, rest = argv[:i], argv[i + 1 :]
        if not is_memevo_launcher(prefix):
            return None
        pairs = zip(rest, [*rest[1:], None], strict=True)
        if any(a == f"--agent={agent}" or (a == "--agent" and b == agent) for a, b in pairs):
            return prefix
        return None
    return None


@dataclass(frozen=True)
class HookTarget:
    """One agent memevo can install its hooks into."""

    name: str  # the CLI's name for it, and the hook's ``--agent`` value: "claude-code"
    title: str  # for people: "Claude Code"
    scopes: tuple[str, ...]
    default_scope: str
    settings_path: SettingsPath  # (scope, project_dir, env) -> the settings file
    # Native event -> timeout in seconds, or None to leave the agent's own limit in force.
    timeouts: Mapping[str, float | None]
    timeout_unit: float = 1.0  # what the agent's "timeout" counts: 1 = seconds, 0.001 = ms
    group_of: GroupOf = default_group
    notes: Mapping[str, str] = field(default_factory=dict)  # event -> why its timeout is what it is
    # A settings file that switches every hook off names the key here (doctor reports it).
    disabling_key: str | None = None
    # What the user must still do after installing (printed by ``memevo install``).
    notice: str | None = None
    # More doctor checks for the installed scopes: (target, installed scope infos, env) -> problems.
    extra_checks: ExtraChecks | None = None
    # Settings the hooks need besides their entries, as nested objects (Gemini CLI:
    # ``{"hooksConfig": {"enabled": True}}``). Install merges them in key by key
    # (:func:`cli.install.settings_json.merge_settings`); uninstall leaves them, because the
    # user's own hooks may need them too.
    extra_settings: Mapping[str, Any] = field(default_factory=dict)
    # Events the agent can send to ``memevo serve`` as http hooks (``--transport http``);
    # the others stay command hooks (Claude Code: SessionStart).
    http_events: tuple[str, ...] = ()

    @property
    def events(self) -> tuple[str, ...]:
        return tuple(self.timeouts)

    def hook_command(self, launcher: Sequence[str]) -> str:
        """The shell command line the agent runs, quoted for ``sh -c``."""
        return shlex.join([*launcher, "hook", "--agent", self.name])

    def entry(self, command: str, event: str) -> HookEntry:
        entry: HookEntry = {"type": "command", "command": command}
        seconds = self.timeouts[event]
        if seconds is not None:
            value = seconds / self.timeout_unit
            entry["timeout"] = int(value) if float(value).is_integer() else value
        return entry

    def http_entry(self, event: str, port: int) -> HookEntry:
        """An http hook posting ``event`` to ``memevo serve`` on loopback ``port``, with the
        hook token in its ``Authorization`` header, read from ``$MEMEVO_HOOK_TOKEN``."""
        from cli.hooks.hook_token import TOKEN_VARIABLE
        from cli.hooks.http_server import hook_url

        entry: HookEntry = {
            "type": "http",
            "url": hook_url(self.name, event, port),
            "headers": {"Authorization": f"Bearer ${TOKEN_VARIABLE}"},
            "allowedEnvVars": [TOKEN_VARIABLE],
        }
        seconds = self.timeouts[event]
        if seconds is not None:
            entry["timeout"] = int(seconds) if float(seconds).is_integer() else seconds
        return entry

    def entries(
        self, launcher: Sequence[str], transport: str = "command", port: int | None = None
    ) -> dict[str, HookEntry]:
        """Event -> the entry memevo writes for it: command hooks, or with ``transport="http"``
        http hooks to ``port`` for the :attr:`http_events` (command hooks for the rest)."""
        command = self.hook_command(launcher)
        wanted = {event: self.entry(command, event) for event in self.timeouts}
        if transport == "http":
            assert port is not None
            wanted.update({event: self.http_entry(event, port) for event in self.http_events})
        return wanted

    def launcher_in(self, entry: Any) -> list[str] | None:
        """The memevo launcher an entry runs, if the entry is memevo's command hook."""
        if not isinstance(entry, Mapping) or entry.get("type", "command") != "command":
            return None
        command = entry.get("command")
        return launcher_of(command, self.name) if isinstance(command, str) else None

    def served_port(self, entry: Any) -> int | None:
        """The loopback port of memevo's http hook ``entry`` (``memevo serve``), else ``None``."""
        if not self.http_events or not isinstance(entry, Mapping) or entry.get("type") != "http":
            return None
        url = entry.get("url")
        if not isinstance(url, str):
            return None
        from urllib.parse import urlsplit

        from cli.hooks.http_server import PATH_PREFIX

        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return None
        if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS or port is None:
            return None
        return port if parts.path.startswith(f"{PATH_PREFIX}{self.name}/") else None

    def is_ours(self, entry: Any) -> bool:
        return self.launcher_in(entry) is not None or self.served_port(entry) is not None
