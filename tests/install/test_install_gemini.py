"""`memevo install gemini` / `memevo uninstall gemini` through the CLI, and doctor's Gemini checks.

The autouse ``claude`` sandbox (tests/install/conftest.py) points HOME into tmp_path and
the working directory at a temporary project; Gemini's user settings are
``$HOME/.gemini/settings.json`` there.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import pytest

from cli.install.check import agent_checks
from cli.install.gemini import TARGET
from cli.install.settings_json import find_ours
from tests.install.support import (
    INSTALLED_MEMEVO,
    ClaudeSandbox,
    backups,
    dump,
    load,
    mtime_ns,
    needs_installed_memevo,
    reinstall_and_uninstall,
    run,
)
from tests.support.processes import REPO

EVENTS = ("SessionStart", "BeforeAgent", "AfterAgent")
# A real settings file Gemini CLI 0.61 ran with (a recording hook on seven events).
REAL_SETTINGS = REPO / "tests" / "data" / "gemini" / "settings.user.json"


@pytest.fixture(autouse=True)
def no_gemini_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)


def user_settings(claude: ClaudeSandbox) -> Path:
    return claude.home / ".gemini" / "settings.json"


def project_settings(claude: ClaudeSandbox) -> Path:
    return claude.project / ".gemini" / "settings.json"


def write(path: Path, data: Any) -> bytes:
    raw = dump(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return raw


def current_command() -> str:
    return shlex.join([str(INSTALLED_MEMEVO), "hook", "--agent", "gemini"])


def ours(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return find_ours(data, TARGET.is_ours)


def others_settings() -> dict[str, Any]:
    """Someone else's settings: the real file's hooks (on memevo's events too), hooks
    switched on already, and keys memevo does not know, in no particular order."""
    real = json.loads(REAL_SETTINGS.read_text(encoding="utf-8"))
    return {
        "security": real["security"],
        "hooks": real["hooks"],
        "ui": {"theme": "Dracula"},
        "hooksConfig": {"notifications": False, "enabled": True, "disabled": ["echo legacy"]},
        "mcpServers": {"x": {"command": "naïve 中文"}},
    }


def test_install_install_uninstall_leaves_the_file_byte_for_byte(claude: ClaudeSandbox) -> None:
    path = user_settings(claude)
    original = write(path, others_settings())

    first = run("install", "gemini")
    assert first.exit_code == 0, first.output
    assert "memevo doctor" in first.output and current_command() in first.output
    assert "timeout 10 s" in first.output and "timeout 30 s" in first.output  # seconds, not the file's ms
    installed = load(path)
    found = ours(installed)
    assert set(found) == set(EVENTS)
    assert all(len(e) == 1 and e[0]["command"] == current_command() for e in found.values())
    for event in EVENTS:  # the recorder hook on the same events is still there, first
        assert installed["hooks"][event][0] == others_settings()["hooks"][event][0]
    assert list(installed) == list(others_settings())
    assert installed["hooksConfig"] == others_settings()["hooksConfig"]
    [backup] = backups(path)
    assert backup.read_bytes() == original
    reinstall_and_uninstall("gemini", path, original, backup)

    again = run("uninstall", "gemini")
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert path.read_bytes() == original


def test_exact_entries_in_milliseconds_and_hooks_switched_on(claude: ClaudeSandbox) -> None:
    assert run("install", "gemini").exit_code == 0
    command = current_command()
    assert command.startswith("/")
    assert load(user_settings(claude)) == {
        "hooks": {
            "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 10000}]}],
            "BeforeAgent": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 10000}]}],
            "AfterAgent": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 30000}]}],
        },
        "hooksConfig": {"enabled": True},
        "mcpServers": {"memevo": {"command": command.split()[0], "args": ["mcp"], "env": {"MEMEVO_HOME": ANY}}},
    }
    assert backups(user_settings(claude)) == []


def test_hooks_switched_off_are_switched_on_and_uninstall_leaves_the_switch(claude: ClaudeSandbox) -> None:
    path = user_settings(claude)
    write(path, {"hooksConfig": {"enabled": False, "notifications": True}, "ui": {"theme": "x"}})
    dry = run("install", "gemini", "--dry-run")
    assert '-    "enabled": false,' in dry.output and '+    "enabled": true,' in dry.output
    assert run("install", "gemini").exit_code == 0
    assert load(path)["hooksConfig"] == {"enabled": True, "notifications": True}
    assert run("uninstall", "gemini").exit_code == 0
    assert load(path) == {"hooksConfig": {"enabled": True, "notifications": True}, "ui": {"theme": "x"}}


def test_only_the_switch_missing_is_an_update(claude: ClaudeSandbox) -> None:
    assert run("install", "gemini").exit_code == 0
    path = user_settings(claude)
    data = load(path)
    del data["hooksConfig"]
    write(path, data)
    result = json.loads(run("install", "gemini", "--json").output)
    assert (result["action"], result["changed"]) == ("updated", True)
    assert load(path)["hooksConfig"] == {"enabled": True}


BAD_FILES = [
    b'{"hooks": {',
    b'{\n  // Gemini CLI accepts comments; memevo will not drop them\n  "ui": {}\n}',
    b"[]",
    b'{"hooks": []}',
    b'{"hooks": {"AfterAgent": [{"hooks": {}}]}}',
    b'{"hooksConfig": true}',
    b'{"hooksConfig": ["enabled"]}',
    b"\xff\xfe{}",
]


@pytest.mark.parametrize("content", BAD_FILES)
def test_invalid_settings_refused_untouched(claude: ClaudeSandbox, content: bytes) -> None:
    path = project_settings(claude)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    result = run("install", "gemini", "--scope", "project")
    assert result.exit_code != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert str(path) in result.stderr and "nothing was changed" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == content and mtime_ns(path) == 1_600_000_000_000_000_000
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_dry_run_prints_a_diff_and_writes_nothing(claude: ClaudeSandbox) -> None:
    path = user_settings(claude)
    original = write(path, others_settings())
    result = run("install", "gemini", "--dry-run")
    assert result.exit_code == 0
    assert result.output.startswith(f"--- {path}\n+++ {path}\n@@ ")
    added = [line for line in result.output.splitlines() if line.startswith("+") and "--agent gemini" in line]
    assert len(added) == len(EVENTS)
    assert "dry run: nothing was written" in result.output
    assert path.read_bytes() == original and backups(path) == []
    fresh = run("install", "gemini", "--scope", "project", "--dry-run", "--json")
    data = json.loads(fresh.output)
    assert data["diff"].startswith(f"--- /dev/null\n+++ {project_settings(claude)}\n") and data["written"] is False
    assert not (claude.project / ".gemini").exists()


@pytest.mark.parametrize("scope", ["user", "project"])
def test_each_scope_writes_its_file(claude: ClaudeSandbox, scope: str) -> None:
    expected = {"user": user_settings(claude), "project": project_settings(claude)}
    result = run("install", "gemini", "--scope", scope, "--json")
    assert result.exit_code == 0 and json.loads(result.output)["path"] == str(expected[scope])
    for name, path in expected.items():
        assert path.exists() == (name == scope), name
    assert set(ours(load(expected[scope]))) == set(EVENTS)


def test_gemini_cli_home_moves_the_user_file(
    claude: ClaudeSandbox, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gemini-home"))
    assert run("install", "gemini").exit_code == 0
    assert (tmp_path / "gemini-home" / ".gemini" / "settings.json").is_file()
    assert not user_settings(claude).exists()


def test_project_dir_option_and_scopes_gemini_does_not_have(claude: ClaudeSandbox, tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    assert run("install", "gemini", "--scope", "project", "--project-dir", str(other)).exit_code == 0
    assert set(ours(load(other / ".gemini" / "settings.json"))) == set(EVENTS)
    assert run("uninstall", "gemini", "--scope", "project", "--project-dir", str(other)).exit_code == 0
    assert load(other / ".gemini" / "settings.json") == {"hooksConfig": {"enabled": True}}
    local = run("install", "gemini", "--scope", "local")
    assert local.exit_code != 0 and "Gemini CLI has no 'local' scope" in local.stderr


def test_stale_paths_are_replaced_and_other_agents_entries_kept(claude: ClaudeSandbox) -> None:
    stale = "/old/venv/bin/memevo hook --agent gemini"
    claude_entry = {"type": "command", "command": "/usr/bin/memevo hook --agent claude-code"}
    path = user_settings(claude)
    write(
        path,
        {
            "hooks": {
                "AfterAgent": [
                    {
                        "matcher": "",
                        "hooks": [
                            {"type": "command", "command": "echo mine"},
                            {"type": "command", "command": stale, "timeout": 600},
                        ],
                    }
                ],
                "BeforeAgent": [
                    {"matcher": "", "hooks": [claude_entry]},
                    {"hooks": [{"type": "command", "command": "'/old path/memevo' hook --agent=gemini"}]},
                ],
            }
        },
    )
    assert json.loads(run("install", "gemini", "--json").output)["action"] == "updated"
    after = load(path)
    assert after["hooks"]["AfterAgent"] == [
        {
            "matcher": "",
            "hooks": [
                {"type": "command", "command": "echo mine"},
                {"type": "command", "command": current_command(), "timeout": 30000},
            ],
        }
    ]
    assert after["hooks"]["BeforeAgent"] == [
        {"matcher": "", "hooks": [claude_entry]},
        {"hooks": [{"type": "command", "command": current_command(), "timeout": 10000}]},
    ]
    assert run("uninstall", "gemini").exit_code == 0
    mine = {"type": "command", "command": "echo mine"}
    assert load(path)["hooks"] == {
        "AfterAgent": [{"matcher": "", "hooks": [mine]}],
        "BeforeAgent": [{"matcher": "", "hooks": [claude_entry]}],
    }


def test_install_json_reports_seconds(claude: ClaudeSandbox) -> None:
    data = json.loads(run("install", "gemini", "--json").output)
    assert (data["agent"], data["title"], data["scope"], data["path"]) == (
        "gemini",
        "Gemini CLI",
        "user",
        str(user_settings(claude)),
    )
    assert data["events"] == {"SessionStart": 10, "BeforeAgent": 10, "AfterAgent": 30}
    assert data["command"] == current_command()


def checks(claude: ClaudeSandbox) -> list[dict[str, Any]]:
    return agent_checks(TARGET, claude.project, dict(os.environ))


def test_doctor_ok_after_install_and_warns_before(claude: ClaudeSandbox) -> None:
    [missing] = checks(claude)
    assert missing["status"] == "ok" and missing["details"]["installed"] is False
    assert "memevo install gemini" in missing["summary"]
    assert run("install", "gemini").exit_code == 0
    [ok] = checks(claude)
    assert ok["status"] == "ok" and str(user_settings(claude)) in ok["summary"]


def test_doctor_reports_hooks_switched_off_or_memevo_disabled(claude: ClaudeSandbox) -> None:
    assert run("install", "gemini").exit_code == 0
    path = user_settings(claude)
    data = load(path)
    data["hooksConfig"] = {"enabled": False}
    write(path, data)
    [off] = checks(claude)
    assert off["status"] == "error" and "hooksConfig.enabled" in off["summary"]
    assert off["fix"].startswith("memevo install gemini --scope user")
    data["hooksConfig"] = {"enabled": True, "disabled": [current_command()]}
    write(path, data)
    [disabled] = checks(claude)
    assert disabled["status"] == "error" and "hooksConfig.disabled" in disabled["summary"]
    assert run("install", "gemini").exit_code == 0  # leaves the user's disabled list alone
    assert [c["status"] for c in checks(claude)] == ["error"]


def test_doctor_warns_when_installed_in_both_scopes(claude: ClaudeSandbox) -> None:
    assert run("install", "gemini").exit_code == 0
    assert run("install", "gemini", "--scope", "project").exit_code == 0
    [both] = checks(claude)
    assert both["status"] == "warn" and both["fix"] == "memevo uninstall gemini --scope project"


@needs_installed_memevo
def test_the_written_command_runs_a_gemini_payload(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "gemini").exit_code == 0
    [entry] = ours(load(user_settings(claude)))["BeforeAgent"]
    stdin = json.dumps(
        {
            "session_id": "s",
            "transcript_path": str(claude.project / "none.jsonl"),
            "cwd": str(claude.project),
            "hook_event_name": "BeforeAgent",
            "timestamp": "2026-12-02T17:24:51.720Z",
            "prompt": "hello",
        }
    )
    done = subprocess.run(
        ["sh", "-c", entry["command"]],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "MEMEVO_HOME": str(home)},
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
