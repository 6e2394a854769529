"""Codex CLI: where its hooks live, which of its events memevo uses, and whether Codex trusts them.

Hook files (Codex runs the hooks of every one, nested like Claude Code's settings):

- user: ``$CODEX_HOME/hooks.json`` (``CODEX_HOME`` defaults to ``~/.codex``);
- project: ``<project>/.codex/hooks.json``, loaded only when Codex trusts the project.

Timeouts are in seconds; Codex clamps SessionEnd hooks to 3 s (and warns on every run when
a file asks for more), so memevo writes 3 there.

**Trust.** Codex 0.169.1 runs a hook only once the user trusted it (``/hooks`` in the
Codex TUI, or the review it offers at startup); memevo never marks its own hooks trusted.
Codex records trust in the *user* ``config.toml`` as ``[hooks.state."<hooks.json path>:
<event_snake>:<group>:<handler>"] trusted_hash = "sha256:…"``, the hash being SHA-256 of the
canonical JSON of the hook's normalized identity (event, matcher where the event has one,
the handler with its defaults). :func:`trust_checks` reproduces that, so ``memevo doctor``
can say whether Codex will run memevo's hooks; anything it cannot read is "trust unknown".
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.install.settings_json import SettingsFileError, read_settings
from cli.install.target import HookTarget, config_dir
from memory_core.reports.health import ERROR, WARN, make_check

SCOPES = ("user", "project")
HOOKS_FILE = "hooks.json"
CONFIG_FILE = "config.toml"
DEFAULT_TIMEOUT = 600  # what Codex assumes for a command hook without one
# Events whose matcher is part of a hook's identity (Codex ignores the others' matchers);
# checked against the hashes Codex 0.169.1 recorded (tests/data/codex/trusted-config.toml).
MATCHER_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse", "SessionStart", "SessionEnd"})
TRUST_FIX = "open Codex (`codex`) and run /hooks: review and trust memevo's hooks"
UNKNOWN = "trust unknown: open /hooks in Codex to trust memevo's hooks"


def codex_home(env: Mapping[str, str]) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``."""
    return config_dir(env, "CODEX_HOME", ".codex")


def settings_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    """The hooks file of ``scope``; project is relative to ``project_dir``."""
    if scope == "user":
        return codex_home(env) / HOOKS_FILE
    if scope == "project":
        return project_dir.absolute() / ".codex" / HOOKS_FILE
    raise ValueError(f"unknown Codex scope {scope!r}")


def event_label(event: str) -> str:
    """Codex's snake_case name of an event in trust keys: ``UserPromptSubmit`` -> ``user_prompt_submit``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_hash(event: str, group: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    """The ``trusted_hash`` Codex records when the user trusts this command hook."""
    timeout = entry.get("timeout", entry.get("timeout_sec"))
    handler: dict[str, Any] = {
        "type": "command",
        "command": entry.get("command"),
        "timeout": max(int(timeout), 1) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT,
        "async": entry.get("async") is True,
    }
    if isinstance(entry.get("statusMessage"), str):
        handler["statusMessage"] = entry["statusMessage"]
    identity: dict[str, Any] = {"event_name": event_label(event), "hooks": [handler]}
    if event in MATCHER_EVENTS and isinstance(group.get("matcher"), str):
        identity["matcher"] = group["matcher"]
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _read_config(path: Path) -> dict[str, Any] | None:
    """The user ``config.toml`` (``{}`` when missing), ``None`` when it cannot be read."""
    import tomllib

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError):
        return None


def _our_hooks(target: HookTarget, path: Path) -> list[tuple[str, str, str]]:
    """(event, trust key, expected hash) of each memevo entry in a hooks file."""
    try:
        data = read_settings(path).data
    except SettingsFileError:
        return []
    found = []
    for event, groups in (data.get("hooks") or {}).items():
        for g, group in enumerate(groups):
            for h, entry in enumerate(group.get("hooks", [])):
                if target.is_ours(entry) and event in target.timeouts:
                    found.append((event, f"{path}:{event_label(event)}:{g}:{h}", hook_hash(event, group, entry)))
    return found


def _state(states: Mapping[str, Any], path: Path, key: str) -> Mapping[str, Any]:
    """The hook state under ``key``, or under the same key with the file's real path."""
    for candidate in (key, str(path.resolve()) + key[len(str(path)) :]):
        value = states.get(candidate)
        if isinstance(value, Mapping):
            return value
    return {}


def _project_trust(projects: Mapping[str, Any], project: Path) -> str | None:
    """``trusted``/``untrusted`` as recorded for the project or its nearest recorded ancestor."""
    for directory in (project, *project.parents):
        for candidate in dict.fromkeys((str(directory), str(directory.resolve()))):
            entry = projects.get(candidate)
            if isinstance(entry, Mapping) and isinstance(entry.get("trust_level"), str):
                return str(entry["trust_level"])
    return None


def trust_checks(target: HookTarget, installed: list[dict[str, Any]], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Problems with Codex's trust in memevo's installed hooks (none: Codex runs them all)."""
    config_path = codex_home(env) / CONFIG_FILE
    config = _read_config(config_path)
    if config is None:
        return [
            make_check(target.name, WARN, f"{UNKNOWN} ({config_path} cannot be read)", TRUST_FIX, path=str(config_path))
        ]
    hooks = config.get("hooks")
    states = hooks.get("state") if isinstance(hooks, Mapping) else None
    states = states if isinstance(states, Mapping) else {}
    projects = config.get("projects")
    projects = projects if isinstance(projects, Mapping) else {}
    checks = []
    for info in installed:
        path, scope = Path(info["path"]), info["scope"]
        where = f"{scope} hooks ({path})"
        if scope == "project":
            project = path.parent.parent
            level = _project_trust(projects, project)
            if level != "trusted":
                state = "is marked untrusted" if level == "untrusted" else "is not trusted yet"
                checks.append(
                    make_check(
                        target.name,
                        ERROR if level == "untrusted" else WARN,
                        f"{where}: Codex loads a project's .codex/ only when it trusts the project, "
                        f"and {project} {state}",
                        f"cd {shlex.quote(str(project))} && codex  # and trust the project when Codex asks",
                        scope=scope,
                        path=str(path),
                    )
                )
        untrusted, changed, disabled = [], [], []
        for event, key, expected in _our_hooks(target, path):
            recorded = _state(states, path, key)
            if recorded.get("enabled") is False:
                disabled.append(event)
            trusted = recorded.get("trusted_hash")
            if not isinstance(trusted, str):
                untrusted.append(event)
            elif trusted != expected:
                changed.append(event)
        if disabled:
            checks.append(
                make_check(
                    target.name,
                    ERROR,
                    f"{where}: disabled in Codex: {', '.join(disabled)}",
                    TRUST_FIX + " (and enable them)",
                    scope=scope,
                    path=str(path),
                )
            )
        if untrusted:
            checks.append(
                make_check(
                    target.name,
                    ERROR,
                    f"{where} are not trusted in Codex, which skips untrusted hooks: {', '.join(untrusted)}",
                    TRUST_FIX,
                    scope=scope,
                    path=str(path),
                    untrusted=untrusted,
                )
            )
        if changed:
            checks.append(
                make_check(
                    target.name,
                    WARN,
                    f"{where} changed since Codex trusted them (a reinstall, or another Codex "
                    f"version), so Codex may skip them: {', '.join(changed)}",
                    TRUST_FIX,
                    scope=scope,
                    path=str(path),
                )
            )
    return checks


TARGET = HookTarget(
    name="codex",
    title="Codex",
    scopes=SCOPES,
    default_scope="user",
    settings_path=settings_path,
    timeouts={
        "SessionStart": 10,  # nudges the worker: well under a second
        "UserPromptSubmit": 10,  # prints the recall digest; the turn waits for it
        "Stop": 30,  # captures the turn; may wait briefly for the rollout to catch up
        "SessionEnd": 3,  # Codex clamps SessionEnd hooks to 3 s
    },
    notice=(
        "Codex runs hooks only once you trust them: open Codex (`codex`) and run /hooks to review and "
        "trust memevo's hooks (memevo never marks its own hooks trusted). `memevo doctor` shows whether "
        "they are trusted."
    ),
    extra_checks=trust_checks,
)
