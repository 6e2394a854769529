"""A throwaway Claude Code environment: HOME, CLAUDE_CONFIG_DIR and a project directory.

The real ``~/.claude`` is never touched: HOME and CLAUDE_CONFIG_DIR point into tmp_path and
the working directory is a temporary project.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from tests.support.npm_cli import agent_clis_required

# A real project settings file Claude Code ran with (hooks on every event, memevo's included).
REAL_SETTINGS = Path(__file__).parent / "data" / "claude-settings.project.json"
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "StopFailure", "PostCompact", "SessionEnd")
INSTALLED_MEMEVO = Path(sys.executable).parent / "memevo"
# The README's test command installs the package, so the script is there; a bare checkout
# run without installing skips these tests, but CI (MEMEVO_REQUIRE_AGENT_CLIS=1) runs them
# and fails if the script is missing.
needs_installed_memevo = pytest.mark.skipif(
    not INSTALLED_MEMEVO.is_file() and not agent_clis_required(),
    reason="the memevo script is not installed in this venv (pip install -e '.[test]')",
)


@dataclass(frozen=True)
class ClaudeSandbox:
    home: Path  # $HOME
    config: Path  # $CLAUDE_CONFIG_DIR
    project: Path  # the current directory

    @property
    def user_settings(self) -> Path:
        return self.config / "settings.json"

    @property
    def project_settings(self) -> Path:
        return self.project / ".claude" / "settings.json"

    @property
    def local_settings(self) -> Path:
        return self.project / ".claude" / "settings.local.json"

    def env(self) -> dict[str, str]:
        return {"HOME": str(self.home), "CLAUDE_CONFIG_DIR": str(self.config)}


def make_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClaudeSandbox:
    sandbox = ClaudeSandbox(
        home=tmp_path / "user-home", config=tmp_path / "user-home" / ".claude-config", project=tmp_path / "project"
    )
    sandbox.home.mkdir()
    sandbox.project.mkdir()
    for name, value in sandbox.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(sandbox.project)
    return sandbox


def current_command() -> str:
    """What install writes when run from this venv."""
    return shlex.join([str(INSTALLED_MEMEVO), "hook", "--agent", "claude-code"])


def others_settings() -> dict[str, Any]:
    """Someone else's settings: the real captured file's hooks (on memevo's events too),
    plus keys memevo does not know, in an order that is not alphabetical."""
    hooks = json.loads(REAL_SETTINGS.read_text(encoding="utf-8"))["hooks"]
    return {
        "permissions": {"allow": ["Bash(git status)"], "deny": []},
        "hooks": hooks,
        "model": "sonnet",
        "env": {"ZETA": "1", "ALPHA": "naïve 中文"},
        "statusLine": {"type": "command", "command": "echo hi"},
        "_unknownKey": [1, 2.5, None, True],
    }


def dump(data: Any) -> bytes:
    """memevo's own formatting: 2-space indent, characters as written, trailing newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def memevo_entries(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    from cli.install.claude_code import TARGET
    from cli.install.settings_json import find_ours

    return find_ours(data, TARGET.is_ours)


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".memevo-backup-*"))


def write_hooks(path: Path, commands: dict[str, str]) -> None:
    """A settings file whose events run the given commands (one group each)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "hooks": {
            event: [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]
            for event, command in commands.items()
        }
    }
    path.write_bytes(dump(data))


def mtime_ns(path: Path) -> int:
    return os.stat(path).st_mtime_ns


def run(*args: str) -> Result:
    """``memevo ARGS`` in this process (HOME and the cwd are the sandbox's)."""
    from cli.main import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_installed(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed ``memevo`` console script as its own process."""
    return subprocess.run(
        [str(INSTALLED_MEMEVO), *args], capture_output=True, text=True, env=env, cwd=str(cwd), timeout=60
    )


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def reinstall_and_uninstall(agent: str, path: Path, original: bytes, backup: Path) -> None:
    """Installing ``agent`` into the user settings ``path`` again changes nothing (no second
    backup); uninstalling it then puts back the ``original`` bytes."""
    installed = path.read_bytes()

    again = run("install", agent, "--scope", "user")
    assert again.exit_code == 0, again.output
    assert "already installed" in again.output
    assert path.read_bytes() == installed
    assert backups(path) == [backup]  # no second backup

    removed = run("uninstall", agent)
    assert removed.exit_code == 0, removed.output
    assert "Removed" in removed.output
    assert path.read_bytes() == original
