"""Gemini CLI: where its settings live and which of its hook events memevo uses.

Settings files (Gemini CLI merges them; the hooks of both run):

- user: ``~/.gemini/settings.json``, or ``$GEMINI_CLI_HOME/.gemini/settings.json`` when that
  is set (the CLI's own home override);
- project: ``<project>/.gemini/settings.json``; the CLI runs project hooks only in a folder
  the user trusts, and warns the first time it sees new ones.

Hooks nest like Claude Code's; timeouts are in **milliseconds**. Besides its entries memevo
sets ``hooksConfig.enabled`` to ``true`` (the switch for every hook; default true since
0.2x, but a file may say otherwise); uninstall leaves it, since the user's own hooks need it
too. The CLI also accepts comments in settings.json; memevo refuses such a file rather than
rewrite it without them.

Only three events are registered, so a turn pays for two hook processes: SessionStart
(nudges the worker), BeforeAgent (recall) and AfterAgent (the turn, tool calls included,
read from the chat transcript). PreCompress fires before every model call whether or not
anything is compressed, and no summary exists yet then; AfterTool adds nothing the
transcript does not hold at AfterAgent; SessionEnd has nothing to clean up.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.install.settings_json import SettingsFileError, read_settings
from cli.install.target import HookTarget
from memory_core.reports.health import ERROR, make_check

SCOPES = ("user", "project")


def settings_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    """The settings file of ``scope``; project is relative to ``project_dir``."""
    if scope == "user":
        home = (env.get("GEMINI_CLI_HOME") or "").strip() or (env.get("HOME") or "").strip()
        base = Path(home).expanduser().absolute() if home else Path(os.path.expanduser("~"))
        return base / ".gemini" / "settings.json"
    if scope == "project":
        return project_dir.absolute() / ".gemini" / "settings.json"
    raise ValueError(f"unknown Gemini CLI scope {scope!r}")


def hooks_checks(target: HookTarget, installed: list[dict[str, Any]], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """Doctor: a settings file holding memevo's hooks that switches hooks off
    (``hooksConfig.enabled: false``) or lists memevo's command in ``hooksConfig.disabled``."""
    checks: list[dict[str, Any]] = []
    for info in installed:
        try:
            data = read_settings(Path(info["path"])).data
        except SettingsFileError:
            continue  # reported by the generic checks already
        config = data.get("hooksConfig")
        config = config if isinstance(config, dict) else {}
        where = f"{info['path']} ({info['scope']} scope)"
        if config.get("enabled") is False:
            checks.append(
                make_check(
                    target.name,
                    ERROR,
                    f"{where} sets hooksConfig.enabled to false: Gemini CLI runs no hooks at all",
                    f"memevo install {target.name} --scope {info['scope']}  # sets it to true",
                    scope=info["scope"],
                    path=info["path"],
                )
            )
        disabled = config.get("disabled")
        ours = {command["command"] for command in info["commands"]}
        if isinstance(disabled, list) and ours.intersection(d for d in disabled if isinstance(d, str)):
            checks.append(
                make_check(
                    target.name,
                    ERROR,
                    f"{where} lists memevo's hook command in hooksConfig.disabled",
                    f'${{EDITOR:-vi}} {shlex.quote(info["path"])}  # remove it from "hooksConfig.disabled"',
                    scope=info["scope"],
                    path=info["path"],
                )
            )
    return checks


TARGET = HookTarget(
    name="gemini",
    title="Gemini CLI",
    scopes=SCOPES,
    default_scope="user",
    settings_path=settings_path,
    timeouts={
        "SessionStart": 10,  # nudges the worker: well under a second
        "BeforeAgent": 10,  # prints the recall digest; the turn waits for it
        "AfterAgent": 30,  # captures the turn from the transcript
    },
    timeout_unit=0.001,  # Gemini CLI counts hook timeouts in milliseconds
    extra_settings={"hooksConfig": {"enabled": True}},
    extra_checks=hooks_checks,
)
