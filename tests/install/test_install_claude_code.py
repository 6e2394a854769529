"""`memevo install claude-code` / `memevo uninstall claude-code` through the CLI."""

from __future__ import annotations

import json
import os
import shlex
import stat
from pathlib import Path

import pytest

from tests.install.support import (
    EVENTS,
    INSTALLED_MEMEVO,
    REAL_SETTINGS,
    ClaudeSandbox,
    backups,
    current_command,
    dump,
    load,
    memevo_entries,
    mtime_ns,
    needs_installed_memevo,
    others_settings,
    reinstall_and_uninstall,
    run,
    run_installed,
)
from tests.support.processes import REPO


def ordered(data: object) -> str:
    """Key order matters: compare the serialised form, not just dict equality."""
    return json.dumps(data, ensure_ascii=False)


def test_install_install_uninstall_leaves_the_file_byte_for_byte(claude: ClaudeSandbox) -> None:
    original = dump(others_settings())
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(original)

    first = run("install", "claude-code")
    assert first.exit_code == 0, first.output
    assert "memevo doctor" in first.output and current_command() in first.output
    installed = load(claude.user_settings)
    ours = memevo_entries(installed)
    assert list(ours) == [e for e in installed["hooks"] if e in EVENTS]  # in file order
    assert set(ours) == set(EVENTS)
    assert all(len(entries) == 1 and entries[0]["command"] == current_command() for entries in ours.values())
    # someone else's hooks on the same events are still there, first
    for event in EVENTS:
        assert installed["hooks"][event][0] == others_settings()["hooks"][event][0]
    assert list(installed) == list(others_settings())  # unknown keys, same order
    [backup] = backups(claude.user_settings)
    assert backup.read_bytes() == original
    reinstall_and_uninstall("claude-code", claude.user_settings, original, backup)

    again = run("uninstall", "claude-code")
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert claude.user_settings.read_bytes() == original


def test_real_settings_file_round_trips_as_data(claude: ClaudeSandbox) -> None:
    """The captured file is formatted differently (no trailing newline): its data survives."""
    original = REAL_SETTINGS.read_bytes()
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(original)
    assert run("install", "claude-code").exit_code == 0
    assert run("install", "claude-code").exit_code == 0
    assert len(backups(claude.user_settings)) == 1
    assert run("uninstall", "claude-code").exit_code == 0
    final = load(claude.user_settings)
    assert final == json.loads(original)
    assert ordered(final) == ordered(json.loads(original))


def test_exact_entries_written(claude: ClaudeSandbox) -> None:
    assert run("install", "claude-code").exit_code == 0
    command = current_command()
    assert command.startswith("/")  # absolute
    assert load(claude.user_settings) == {
        "hooks": {
            "SessionStart": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 10}]}],
            "UserPromptSubmit": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 10}]}],
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 30}]}],
            "StopFailure": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 30}]}],
            "PostCompact": [{"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": 30}]}],
            "SessionEnd": [{"matcher": "", "hooks": [{"type": "command", "command": command}]}],
        }
    }
    assert claude.user_settings.read_text(encoding="utf-8").endswith("}\n")
    assert '\n  "hooks": {\n    "SessionStart": [' in claude.user_settings.read_text(encoding="utf-8")
    assert backups(claude.user_settings) == []  # nothing existed, nothing to back up


BAD_FILES = [
    b'{"hooks": {',
    b"not json at all",
    b"[]",
    b'{"hooks": []}',
    b'{"hooks": {"Stop": {}}}',
    b'{"hooks": {"Stop": [1]}}',
    b'{"hooks": {"Stop": [{"hooks": {}}]}}',
    b'{"hooks": {"Stop": [{"hooks": ["echo"]}]}}',
    b'{"model": NaN}',
    b"\xff\xfe{}",
]


@pytest.mark.parametrize("content", BAD_FILES)
@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_invalid_settings_refused_untouched(claude: ClaudeSandbox, content: bytes, command: str) -> None:
    path = claude.project_settings
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    os.utime(path, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = mtime_ns(path)
    result = run(command, "claude-code", "--scope", "project")
    assert result.exit_code != 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert str(path) in result.stderr and "nothing was changed" in result.stderr
    assert "Traceback" not in result.stderr
    assert path.read_bytes() == content
    assert mtime_ns(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no backup, no temp file


def test_blank_file_counts_as_empty(claude: ClaudeSandbox) -> None:
    claude.local_settings.parent.mkdir(parents=True)
    claude.local_settings.write_bytes(b"\n")
    assert run("install", "claude-code", "--scope", "local").exit_code == 0
    assert set(memevo_entries(load(claude.local_settings))) == set(EVENTS)
    assert [b.read_bytes() for b in backups(claude.local_settings)] == [b"\n"]


def test_dry_run_prints_a_diff_and_writes_nothing(claude: ClaudeSandbox) -> None:
    original = dump(others_settings())
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(original)
    before = mtime_ns(claude.user_settings)

    result = run("install", "claude-code", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"--- {claude.user_settings}\n+++ {claude.user_settings}\n@@ ")
    added = [line for line in result.output.splitlines() if line.startswith("+") and "--agent claude-code" in line]
    assert len(added) == len(EVENTS)
    assert not [line for line in result.output.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert "dry run: nothing was written" in result.output
    assert claude.user_settings.read_bytes() == original and mtime_ns(claude.user_settings) == before
    assert backups(claude.user_settings) == []

    assert run("install", "claude-code").exit_code == 0
    installed = claude.user_settings.read_bytes()
    removal = run("uninstall", "claude-code", "--dry-run")
    assert removal.exit_code == 0
    removed = [line for line in removal.output.splitlines() if line.startswith("-") and "--agent claude-code" in line]
    assert len(removed) == len(EVENTS)
    assert claude.user_settings.read_bytes() == installed
    assert len(backups(claude.user_settings)) == 1

    unchanged = run("install", "claude-code", "--dry-run")
    assert "nothing to change" in unchanged.output


def test_dry_run_creates_no_file_or_directory(claude: ClaudeSandbox) -> None:
    result = run("install", "claude-code", "--scope", "project", "--dry-run", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["diff"].startswith(f"--- /dev/null\n+++ {claude.project_settings}\n")
    assert data["written"] is False and data["changed"] is True
    assert not (claude.project / ".claude").exists()


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_each_scope_writes_its_file(claude: ClaudeSandbox, scope: str) -> None:
    expected = {"user": claude.user_settings, "project": claude.project_settings, "local": claude.local_settings}
    result = run("install", "claude-code", "--scope", scope, "--json")
    assert result.exit_code == 0
    assert json.loads(result.output)["path"] == str(expected[scope])
    for name, path in expected.items():
        assert path.exists() == (name == scope), name
    assert set(memevo_entries(load(expected[scope]))) == set(EVENTS)


def test_user_scope_without_claude_config_dir_is_home_dot_claude(
    claude: ClaudeSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert run("install", "claude-code").exit_code == 0
    assert (claude.home / ".claude" / "settings.json").is_file()
    assert not claude.user_settings.exists()


def test_project_dir_option(claude: ClaudeSandbox, tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    assert run("install", "claude-code", "--scope", "local", "--project-dir", str(other)).exit_code == 0
    assert (other / ".claude" / "settings.local.json").is_file()
    assert not claude.local_settings.exists()
    assert run("uninstall", "claude-code", "--scope", "local", "--project-dir", str(other)).exit_code == 0
    assert load(other / ".claude" / "settings.local.json") == {}


def test_stale_memevo_path_is_replaced_not_duplicated(claude: ClaudeSandbox) -> None:
    stale = "/old/venv/bin/memevo hook --agent claude-code"
    data = {
        "hooks": {
            # memevo's entry inside someone else's group: replaced where it is
            "Stop": [
                {
                    "matcher": "",
                    "hooks": [
                        {"type": "command", "command": "echo mine"},
                        {"type": "command", "command": stale, "timeout": 600},
                    ],
                }
            ],
            "SessionStart": [
                {"matcher": "", "hooks": [{"type": "command", "command": stale}]},
                {
                    "matcher": "",
                    "hooks": [{"type": "command", "command": "'/old path/memevo' hook --agent=claude-code"}],
                },
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "/usr/bin/python3 -m cli hook --agent claude-code"}]}
            ],
        },
        "theme": "dark",
    }
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(dump(data))
    result = run("install", "claude-code", "--json")
    assert json.loads(result.output)["action"] == "updated"
    after = load(claude.user_settings)
    ours = memevo_entries(after)
    assert {event: [e["command"] for e in entries] for event, entries in ours.items()} == {
        event: [current_command()] for event in EVENTS
    }
    assert after["hooks"]["Stop"] == [
        {
            "matcher": "",
            "hooks": [
                {"type": "command", "command": "echo mine"},
                {"type": "command", "command": current_command(), "timeout": 30},
            ],
        }
    ]
    assert len(after["hooks"]["SessionStart"]) == 1  # the duplicate's group is gone
    assert after["hooks"]["UserPromptSubmit"] == [
        {"hooks": [{"type": "command", "command": current_command(), "timeout": 10}]}
    ]
    assert list(after) == ["hooks", "theme"]


def test_uninstall_removes_exactly_memevos_entries(claude: ClaudeSandbox) -> None:
    not_ours = [
        "memevo hook --agent generic session_start",
        "echo memevo hook --agent claude-code",
        "/usr/local/bin/memevo-wrapper hook --agent claude-code",
        "memevo recall --agent claude-code",
    ]
    data = {
        "hooks": {
            "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": c} for c in not_ours]}],
            "PreToolUse": [],
            "SessionEnd": [{"matcher": "", "hooks": [{"type": "http", "url": "http://127.0.0.1:1/memevo"}]}],
        }
    }
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(dump(data))
    assert run("install", "claude-code").exit_code == 0
    assert run("uninstall", "claude-code").exit_code == 0
    assert load(claude.user_settings) == data  # the empty PreToolUse list stays too


def test_memevo_only_file_uninstalls_to_an_empty_object(claude: ClaudeSandbox) -> None:
    assert run("install", "claude-code", "--scope", "project").exit_code == 0
    result = run("uninstall", "claude-code", "--scope", "project", "--json")
    data = json.loads(result.output)
    assert data["removed"] == len(EVENTS) and data["action"] == "removed" and data["backup"]
    assert claude.project_settings.read_bytes() == b"{}\n"


def test_uninstall_without_a_file_changes_nothing(claude: ClaudeSandbox) -> None:
    result = run("uninstall", "claude-code", "--scope", "project")
    assert result.exit_code == 0 and "nothing changed" in result.output
    assert not (claude.project / ".claude").exists()


def test_install_json_shape(claude: ClaudeSandbox) -> None:
    data = json.loads(run("install", "claude-code", "--json").output)
    mcp = data.pop("mcp")  # tests/install/test_install_mcp.py checks the entry itself
    assert mcp["action"] == "registered" and mcp["path"] == str(claude.config / ".claude.json")
    assert data == {
        "agent": "claude-code",
        "title": "Claude Code",
        "scope": "user",
        "path": str(claude.user_settings),
        "action": "installed",
        "changed": True,
        "dry_run": False,
        "written": True,
        "backup": None,
        "command": current_command(),
        "events": {
            "SessionStart": 10,
            "UserPromptSubmit": 10,
            "Stop": 30,
            "StopFailure": 30,
            "PostCompact": 30,
            "SessionEnd": None,
        },
        "timeout_notes": {"SessionEnd": "Claude Code's own 1.5 s limit"},
        "notice": None,
        "transport": "command",
        "http_events": [],
        "port": None,
        "diff": None,
        # No model is configured in the sandbox: install names the command that turns learning on.
        "learn_hint": "No model is configured, so nothing is learned yet. To learn with Claude Code's own login: "
        "memevo install claude-code --learn",
    }


def test_file_mode_is_kept_and_backup_is_timestamped(claude: ClaudeSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_core import clock

    monkeypatch.setattr(clock, "now", lambda: 1_704_164_645.0)  # 2024-01-02T03:04:05Z
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(b"{}")
    claude.user_settings.chmod(0o640)
    assert run("install", "claude-code").exit_code == 0
    assert stat.S_IMODE(claude.user_settings.stat().st_mode) == 0o640
    [backup] = backups(claude.user_settings)
    assert backup.name == "settings.json.memevo-backup-20240102T030405Z"
    assert backup.read_bytes() == b"{}"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    # a second change in the same second does not overwrite the first backup
    assert run("uninstall", "claude-code").exit_code == 0
    assert [b.name for b in backups(claude.user_settings)] == [
        "settings.json.memevo-backup-20240102T030405Z",
        "settings.json.memevo-backup-20240102T030405Z-1",
    ]


def test_symlinked_settings_are_written_through(claude: ClaudeSandbox, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_bytes(b'{"theme": "dark"}\n')
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.symlink_to(real)
    assert run("install", "claude-code").exit_code == 0
    assert claude.user_settings.is_symlink()
    assert set(memevo_entries(load(real))) == set(EVENTS)


def test_unknown_agent_and_scope_are_usage_errors(claude: ClaudeSandbox) -> None:
    assert run("install", "no-such-agent").exit_code == 2
    assert run("install", "claude-code", "--scope", "global").exit_code == 2


@needs_installed_memevo
def test_real_memevo_process(claude: ClaudeSandbox) -> None:
    env = {**os.environ, **claude.env()}
    done = run_installed(
        "install", "claude-code", "--scope", "project", "--project-dir", str(claude.project), env=env, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    ours = memevo_entries(load(claude.project_settings))
    expected = shlex.join([str(INSTALLED_MEMEVO), "hook", "--agent", "claude-code"])
    assert {entries[0]["command"] for entries in ours.values()} == {expected}
    assert not claude.user_settings.exists()

    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(b'{"hooks": ')
    bad = run_installed("install", "claude-code", env=env, cwd=claude.project)
    assert bad.returncode == 1
    assert bad.stdout == ""
    assert bad.stderr.startswith("memevo: error: ") and len(bad.stderr.splitlines()) == 1
    assert claude.user_settings.read_bytes() == b'{"hooks": '
