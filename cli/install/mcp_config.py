"""memevo's MCP server in an agent's own MCP configuration: where, in what shape, and the edit.

`memevo install AGENT` registers one server named ``memevo`` that runs ``<memevo> mcp`` with
``MEMEVO_HOME`` set to the state dir it was installed with; `memevo uninstall AGENT` removes
it. The entry is recognised by its name. Nothing else in the file changes: not the agent's
tool allowlists, permission rules or server trust settings.

- Claude Code: user ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json`` when set),
  ``mcpServers``; project ``<project>/.mcp.json``, ``mcpServers``; local ``~/.claude.json``,
  ``projects["<project>"].mcpServers``;
- Codex: user ``$CODEX_HOME/config.toml``, project ``<project>/.codex/config.toml``,
  ``[mcp_servers.memevo]``;
- Gemini CLI: ``mcpServers`` in the same ``settings.json`` as its hooks (user or project).

JSON files are edited as data (:mod:`cli.install.settings_json`); Codex's TOML file as text
(:mod:`cli.install.mcp_toml`), so its comments and layout stay.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.install import codex, gemini, mcp_toml
from cli.install.settings_json import (
    SettingsFile,
    SettingsFileError,
    read_raw,
    read_settings,
    render,
    unified_diff,
    write_settings,
)
from cli.install.target import config_dir

SERVER_NAME = "memevo"
TOOLS = ("memory_recall", "memory_get", "memory_explain")
HOME_VARIABLE = "MEMEVO_HOME"

ConfigPath = Callable[[str, Path, Mapping[str, str]], Path]
Keys = Callable[[str, Path], tuple[str, ...]]


def server_argv(launcher: Sequence[str]) -> list[str]:
    """The command line the agent starts: ``<memevo launcher> mcp``."""
    return [*launcher, "mcp"]


def _claude_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "project":
        return project_dir.absolute() / ".mcp.json"
    return config_dir(env, "CLAUDE_CONFIG_DIR", "") / ".claude.json"


def _claude_keys(scope: str, project_dir: Path) -> tuple[str, ...]:
    if scope == "local":  # Claude Code keys a project by its real path
        return ("projects", str(project_dir.resolve()), "mcpServers")
    return ("mcpServers",)


def _claude_entry(launcher: Sequence[str], home: Path) -> dict[str, Any]:
    argv = server_argv(launcher)
    return {"type": "stdio", "command": argv[0], "args": argv[1:], "env": {HOME_VARIABLE: str(home)}}


def _gemini_entry(launcher: Sequence[str], home: Path) -> dict[str, Any]:
    argv = server_argv(launcher)
    return {"command": argv[0], "args": argv[1:], "env": {HOME_VARIABLE: str(home)}}


def _codex_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "project":
        return project_dir.absolute() / ".codex" / codex.CONFIG_FILE
    return codex.codex_home(env) / codex.CONFIG_FILE


@dataclass(frozen=True)
class McpTarget:
    """Where and how one agent keeps its MCP servers."""

    agent: str
    title: str
    config_path: ConfigPath
    toml: bool = False
    keys: Keys = lambda scope, project_dir: ("mcpServers",)
    entry: Callable[[Sequence[str], Path], dict[str, Any]] = _gemini_entry


MCP_TARGETS: dict[str, McpTarget] = {
    "claude-code": McpTarget("claude-code", "Claude Code", _claude_path, keys=_claude_keys, entry=_claude_entry),
    "codex": McpTarget("codex", "Codex", _codex_path, toml=True),
    "gemini": McpTarget("gemini", "Gemini CLI", gemini.settings_path),
}


@dataclass(frozen=True)
class McpPlan:
    """The MCP configuration file as it is and as it would be.

    ``shared``: the file is the hooks' settings file too (Gemini CLI), so the hooks' plan
    carries this edit and writes it once; ``new_text`` is then unused.
    """

    target: McpTarget
    scope: str
    file: SettingsFile
    before: dict[str, Any] | None  # memevo's entry as found
    entry: dict[str, Any] | None  # memevo's entry as planned
    new_text: str
    shared: bool = False

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def changed(self) -> bool:
        if self.shared:
            return self.before != self.entry
        # Compared as text: a file already right is never rewritten just to reformat it.
        return self.new_text != (self.file.text if self.file.exists else "")

    def diff(self) -> str:
        if self.shared or not self.changed:
            return ""
        return unified_diff(self.path, self.file.text if self.file.exists else None, self.new_text)


def _refuse(path: Path, problem: str) -> SettingsFileError:
    return SettingsFileError(f"{path} {problem}; fix the file and run the command again (nothing was changed)", problem)


def _container(path: Path, data: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """The object at ``keys`` in ``data`` (``None`` when missing); a non-object on the way is refused."""
    node: Any = data
    for depth, key in enumerate(keys):
        if not isinstance(node, Mapping):
            raise _refuse(path, f'"{".".join(keys[:depth])}" is not an object')
        node = node.get(key)
        if node is None:
            return None
    if not isinstance(node, Mapping):
        raise _refuse(path, f'"{".".join(keys)}" is not an object')
    return node


def merged_json(
    path: Path, data: Mapping[str, Any], keys: tuple[str, ...], entry: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A copy of ``data`` whose ``keys…[memevo]`` is ``entry`` (``None``: removed; the servers
    object goes too when that leaves it empty, but never an object of the agent's own)."""
    result = copy.deepcopy(dict(data))
    servers = _container(path, result, keys)  # refuses a wrong shape before anything changes
    if entry is not None:
        node = result
        for key in keys:
            node = node.setdefault(key, {})
        node[SERVER_NAME] = copy.deepcopy(dict(entry))
        return result
    if servers is None or SERVER_NAME not in servers:
        return result
    del servers[SERVER_NAME]
    if not servers:
        parent = _container(path, result, keys[:-1]) if len(keys) > 1 else result
        del parent[keys[-1]]
    return result


def _entry_in(path: Path, data: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any] | None:
    servers = _container(path, data, keys)
    found = servers.get(SERVER_NAME) if servers is not None else None
    return dict(found) if isinstance(found, Mapping) else None


def merged_entry(before: Mapping[str, Any] | None, wanted: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """``wanted`` laid over the entry already there: memevo sets its command, arguments and
    ``MEMEVO_HOME``, and keeps what a person added (a timeout, other variables, and above all
    the agent's own allowlist or trust keys such as ``enabled_tools`` or ``trust``)."""
    if wanted is None:
        return None
    if before is None:
        return dict(wanted)
    merged = {**before, **wanted}
    if isinstance(before.get("env"), Mapping) and isinstance(wanted.get("env"), Mapping):
        merged["env"] = {**before["env"], **wanted["env"]}
    return merged


def plan(
    target: McpTarget,
    scope: str,
    project_dir: Path,
    env: Mapping[str, str],
    entry: Mapping[str, Any] | None,
    shared: tuple[SettingsFile, dict[str, Any]] | None = None,
) -> tuple[McpPlan, dict[str, Any] | None]:
    """Plan the file with memevo's ``entry`` (``None``: without it).

    ``shared`` is the file and the data the hooks' plan already has for the same path
    (Gemini CLI): the second value is then that data with this edit merged in, for the hooks'
    plan to write.
    """
    path = target.config_path(scope, project_dir, env)
    wanted = dict(entry) if entry is not None else None
    if target.toml:
        real, raw = read_raw(path)
        file = SettingsFile(path, real, raw, {})
        try:
            text = file.text
        except UnicodeDecodeError:
            raise _refuse(path, "is not UTF-8 text") from None
        before = mcp_toml.find_server(text, SERVER_NAME, path=path)
        wanted = merged_entry(before, wanted)
        new_text = mcp_toml.with_server(path, text, SERVER_NAME, wanted)
        return McpPlan(target, scope, file, before, wanted, new_text), None
    keys = target.keys(scope, project_dir)
    if shared is not None:
        file, data = shared
        before = _entry_in(path, file.data, keys)
        wanted = merged_entry(before, wanted)
        merged = merged_json(path, data, keys, wanted)
        return McpPlan(target, scope, file, before, wanted, "", shared=True), merged
    file = read_settings(path)
    before = _entry_in(path, file.data, keys)
    wanted = merged_entry(before, wanted)
    new_data = merged_json(path, file.data, keys, wanted)
    new_text = file.text if new_data == file.data else render(new_data)
    return McpPlan(target, scope, file, before, wanted, new_text), None


def execute(mcp_plan: McpPlan, dry_run: bool, now: float) -> tuple[bool, str | None]:
    """Write the planned file (a backup first); ``(written, backup path)``."""
    if dry_run or mcp_plan.shared or not mcp_plan.changed:
        return False, None
    backup = write_settings(mcp_plan.file, mcp_plan.new_text, now)
    return True, None if backup is None else str(backup)


def report(mcp_plan: McpPlan, *, written: bool, backup: str | None, dry_run: bool) -> dict[str, Any]:
    """What was (or would be) done, for the install and uninstall output."""
    if mcp_plan.entry is None:
        action = "removed" if mcp_plan.changed else "not registered"
    elif not mcp_plan.changed:
        action = "unchanged"
    else:
        action = "updated" if mcp_plan.before is not None else "registered"
    return {
        "name": SERVER_NAME,
        "path": str(mcp_plan.path),
        "scope": mcp_plan.scope,
        "action": action,
        "changed": mcp_plan.changed,
        "written": written and mcp_plan.changed,
        "backup": backup if mcp_plan.changed else None,
        "tools": list(TOOLS),
        "command": entry_argv(mcp_plan.entry) if mcp_plan.entry is not None else None,
        "diff": mcp_plan.diff() if dry_run else None,
        "notice": PROJECT_APPROVAL if mcp_plan.target.agent == "claude-code" and mcp_plan.scope == "project" else None,
    }


# memevo never approves a server for the person (that is a permission).
PROJECT_APPROVAL = (
    "Claude Code starts the servers of a project's .mcp.json only once you approve them: it asks the "
    "first time you open the project (or run `claude mcp list` there)."
)


def registration(target: McpTarget, scope: str, project_dir: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """Doctor: memevo's entry in ``scope`` (read-only): path, entry (or ``None``), problem."""
    path = target.config_path(scope, project_dir, env)
    info: dict[str, Any] = {"scope": scope, "path": str(path), "entry": None, "problem": None}
    try:
        _, raw = read_raw(path)
    except SettingsFileError as exc:
        return {**info, "problem": exc.problem}
    if raw is None:
        return info
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {**info, "problem": "is not UTF-8 text"}
    if target.toml:
        try:
            return {**info, "entry": mcp_toml.find_server(text, SERVER_NAME, path=path)}
        except SettingsFileError as exc:
            return {**info, "problem": exc.problem}
    import json

    try:
        data = json.loads(text) if text.strip() else {}
        return {**info, "entry": _entry_in(path, data, target.keys(scope, project_dir))}
    except (ValueError, RecursionError):
        return {**info, "problem": "is not valid JSON"}
    except SettingsFileError as exc:
        return {**info, "problem": exc.problem}


def wanted_entry(agent: str, launcher: Sequence[str], env: Mapping[str, str]) -> dict[str, Any] | None:
    """memevo's server entry for ``agent`` (``None`` when it keeps no MCP servers): ``launcher``
    with ``mcp``, and the state dir of ``env``."""
    from memory_core.paths import state_home

    target = MCP_TARGETS.get(agent)
    return None if target is None else target.entry(launcher, state_home(env).absolute())


def entry_argv(entry: Mapping[str, Any]) -> list[str] | None:
    """The command line an entry runs, when it is well formed."""
    command, args = entry.get("command"), entry.get("args", [])
    if not isinstance(command, str) or not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    return [command, *args]
