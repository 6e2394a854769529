"""Claude Code: where its settings live and which of its hook events memevo uses.

Settings files (Claude Code reads them all and runs the hooks of every one):

- user: ``~/.claude/settings.json``, or ``$CLAUDE_CONFIG_DIR/settings.json`` when that is set;
- project: ``<project>/.claude/settings.json`` (shared, usually committed);
- local: ``<project>/.claude/settings.local.json`` (this machine only).

With ``--transport http`` the events in ``HTTP_EVENTS`` post to ``memevo serve`` instead
(:mod:`cli.hooks.http_server`); SessionStart stays a command hook.

Timeouts are in seconds. Claude Code gives SessionEnd hooks 1.5 s whatever the setting
says, so memevo writes no timeout there and lets that limit stand.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from cli.hooks.http_server import HTTP_EVENTS
from cli.install.target import HookTarget, config_dir

SCOPES = ("user", "project", "local")


def settings_path(scope: str, project_dir: Path, env: Mapping[str, str]) -> Path:
    """The settings file of ``scope``; project and local are relative to ``project_dir``."""
    if scope == "user":
        return config_dir(env, "CLAUDE_CONFIG_DIR", ".claude") / "settings.json"
    if scope == "project":
        return project_dir.absolute() / ".claude" / "settings.json"
    if scope == "local":
        return project_dir.absolute() / ".claude" / "settings.local.json"
    raise ValueError(f"unknown Claude Code scope {scope!r}")


TARGET = HookTarget(
    name="claude-code",
    title="Claude Code",
    scopes=SCOPES,
    default_scope="user",
    settings_path=settings_path,
    timeouts={
        "SessionStart": 10,  # nudges the worker: well under a second
        "UserPromptSubmit": 10,  # prints the recall digest; the turn waits for it
        "Stop": 30,  # captures the turn; may wait briefly for the transcript to catch up
        "StopFailure": 30,  # a turn that ended in an API error: its statements still count
        "PostCompact": 30,  # captures the whole compaction summary
        "SessionEnd": None,  # Claude Code allows 1.5 s whatever is set
    },
    notes={"SessionEnd": "Claude Code's own 1.5 s limit"},
    disabling_key="disableAllHooks",
    # ``--transport http``: Claude Code sends no http hook for SessionStart.
    http_events=HTTP_EVENTS["claude-code"],
)
