"""memevo's MCP server in each agent's MCP configuration: registered by `memevo install`,
merged into what is there, backed up, idempotent, removed by `memevo uninstall`, and never
touching the agent's allowlists or permissions."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from cli.install.mcp_toml import with_server
from cli.install.settings_json import SettingsFileError
from tests.install.support import INSTALLED_MEMEVO, ClaudeSandbox, backups, dump, load, run


@pytest.fixture(autouse=True)
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(path))
    return path


def entry(home: Path, *, claude: bool = False) -> dict[str, Any]:
    server = {"command": str(INSTALLED_MEMEVO), "args": ["mcp"], "env": {"MEMEVO_HOME": str(home.absolute())}}
    return {"type": "stdio", **server} if claude else server


def claude_json(claude: ClaudeSandbox) -> Path:
    return claude.config / ".claude.json"


# Someone's ~/.claude.json: Claude Code's own state, a server of theirs, project records.
CLAUDE_STATE = {
    "numStartups": 7,
    "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": [], "env": {}}},
    "projects": {"/elsewhere": {"allowedTools": ["mcp__github__search"], "mcpServers": {}}},
}


def test_claude_code_user_scope_merges_backs_up_is_idempotent_and_uninstalls(claude: ClaudeSandbox, home: Path) -> None:
    path = claude_json(claude)
    path.parent.mkdir(parents=True)
    original = dump(CLAUDE_STATE)
    path.write_bytes(original)
    path.chmod(0o600)

    first = json.loads(run("install", "claude-code", "--json").output)
    assert first["mcp"]["action"] == "registered" and first["mcp"]["path"] == str(path)
    data = load(path)
    assert data["mcpServers"] == {**CLAUDE_STATE["mcpServers"], "memevo": entry(home, claude=True)}
    assert {k: v for k, v in data.items() if k != "mcpServers"} == {
        k: v for k, v in CLAUDE_STATE.items() if k != "mcpServers"
    }
    assert path.stat().st_mode & 0o777 == 0o600
    [backup] = backups(path)
    assert backup.read_bytes() == original

    again = json.loads(run("install", "claude-code", "--json").output)
    assert again["mcp"]["action"] == "unchanged" and again["changed"] is False
    assert backups(path) == [backup]

    gone = json.loads(run("uninstall", "claude-code", "--json").output)
    assert gone["mcp"]["action"] == "removed"
    assert path.read_bytes() == original


def test_claude_code_project_and_local_scopes(claude: ClaudeSandbox, home: Path) -> None:
    project = run("install", "claude-code", "--scope", "project")
    assert project.exit_code == 0 and "only once you approve them" in project.output
    assert load(claude.project / ".mcp.json") == {"mcpServers": {"memevo": entry(home, claude=True)}}
    assert not claude_json(claude).exists()

    assert run("install", "claude-code", "--scope", "local").exit_code == 0
    local = load(claude_json(claude))
    assert local == {"projects": {str(claude.project.resolve()): {"mcpServers": {"memevo": entry(home, claude=True)}}}}

    assert run("uninstall", "claude-code", "--scope", "project").exit_code == 0
    assert load(claude.project / ".mcp.json") == {}
    assert run("uninstall", "claude-code", "--scope", "local").exit_code == 0
    # Claude Code's record of the project stays; only memevo's server leaves it.
    assert load(claude_json(claude)) == {"projects": {str(claude.project.resolve()): {}}}


def test_install_output_names_the_server(claude: ClaudeSandbox) -> None:
    out = run("install", "claude-code").output
    tools = "memory_recall, memory_get, memory_explain; read-only"
    assert f"Registered memevo's MCP server ({tools}) in {claude_json(claude)}" in out
    assert f"{INSTALLED_MEMEVO} mcp" in out
    assert "Removed memevo's MCP server" in run("uninstall", "claude-code").output


def test_dry_run_shows_the_mcp_change_and_writes_nothing(claude: ClaudeSandbox) -> None:
    result = run("install", "claude-code", "--dry-run")
    assert f"+++ {claude_json(claude)}" in result.output and '"memevo": {' in result.output
    assert not claude_json(claude).exists() and not claude.user_settings.exists()


def test_a_moved_memevo_or_state_dir_is_updated_in_place(claude: ClaudeSandbox, home: Path) -> None:
    path = claude_json(claude)
    path.parent.mkdir(parents=True)
    stale = {"type": "stdio", "command": "/old/venv/bin/memevo", "args": ["mcp"], "env": {"MEMEVO_HOME": "/old"}}
    path.write_bytes(dump({"mcpServers": {"memevo": stale, "other": {"command": "x"}}}))
    data = json.loads(run("install", "claude-code", "--json").output)
    assert data["mcp"]["action"] == "updated"
    assert load(path)["mcpServers"] == {"memevo": entry(home, claude=True), "other": {"command": "x"}}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"mcpServers": []}', '"mcpServers" is not an object'),
        ("[1, 2]", "does not hold a JSON object"),
        ("{broken", "is not valid JSON"),
    ],
)
def test_a_claude_json_memevo_cannot_edit_is_refused_untouched(
    claude: ClaudeSandbox, content: str, problem: str
) -> None:
    path = claude_json(claude)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    result = run("install", "claude-code")
    assert result.exit_code != 0
    assert problem in result.output and "nothing was changed" in result.output
    assert path.read_text() == content and backups(path) == []


CODEX_CONFIG = """# my codex settings
model = "o3"
approval_policy = "on-request"  # keep asking

[mcp_servers.github]
command = "gh-mcp"
enabled_tools = ["search"]

[projects."/work/app"]
trust_level = "trusted"
"""


def test_codex_config_toml_keeps_comments_and_round_trips(codex_home: Path, home: Path) -> None:
    path = codex_home / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(CODEX_CONFIG)

    assert run("install", "codex").exit_code == 0
    text = path.read_text()
    assert text.startswith(CODEX_CONFIG)  # everything of theirs, byte for byte, comments included
    data = tomllib.loads(text)
    assert data["mcp_servers"]["memevo"] == entry(home)
    assert data["mcp_servers"]["github"] == {"command": "gh-mcp", "enabled_tools": ["search"]}
    assert data["approval_policy"] == "on-request" and "hooks" not in data  # no trust, no permissions
    [backup] = backups(path)
    assert backup.read_text() == CODEX_CONFIG

    assert json.loads(run("install", "codex", "--json").output)["mcp"]["action"] == "unchanged"
    assert backups(path) == [backup]

    assert run("uninstall", "codex").exit_code == 0
    assert path.read_text() == CODEX_CONFIG


def test_codex_project_scope(claude: ClaudeSandbox, codex_home: Path, home: Path) -> None:
    assert run("install", "codex", "--scope", "project").exit_code == 0
    path = claude.project / ".codex" / "config.toml"
    assert tomllib.loads(path.read_text()) == {"mcp_servers": {"memevo": entry(home)}}
    assert not (codex_home / "config.toml").exists()
    assert run("uninstall", "codex", "--scope", "project").exit_code == 0
    assert path.read_text() == ""


def test_codex_stale_entry_with_sub_tables_is_replaced(codex_home: Path, home: Path) -> None:
    path = codex_home / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(
        '[mcp_servers."memevo"]\ncommand = "/old/memevo"\nargs = ["mcp"]\n\n'
        '[mcp_servers.memevo.env]\nMEMEVO_HOME = "/old"\n\n[tui]\ntheme = "dark"\n'
    )
    assert json.loads(run("install", "codex", "--json").output)["mcp"]["action"] == "updated"
    data = tomllib.loads(path.read_text())
    assert data == {"mcp_servers": {"memevo": entry(home)}, "tui": {"theme": "dark"}}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('mcp_servers = { memevo = { command = "x" } }\n', "cannot edit safely"),
        ('[mcp_servers]\nmemevo.command = "x"\n', "cannot edit safely"),
        ("mcp_servers = 3\n", '"mcp_servers" is not a table'),
        ("model = \n", "is not valid TOML"),
    ],
)
def test_codex_config_memevo_cannot_edit_is_refused_untouched(codex_home: Path, text: str, problem: str) -> None:
    path = codex_home / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    result = run("install", "codex")
    assert result.exit_code != 0 and problem in result.output, result.output
    assert path.read_text() == text and backups(path) == []


def test_toml_values_are_quoted_safely(tmp_path: Path) -> None:
    odd = {"command": '/opt/my "memevo"\\bin/memevo', "args": ["mcp"], "env": {"MEMEVO_HOME": "/tmp/ä b\n"}}
    text = with_server(tmp_path / "c.toml", "", "memevo", odd)
    assert tomllib.loads(text) == {"mcp_servers": {"memevo": odd}}
    with pytest.raises(SettingsFileError):
        with_server(tmp_path / "c.toml", "[x\n", "memevo", odd)


GEMINI_SETTINGS = {
    "mcp": {"allowed": ["github"], "excluded": ["risky"]},
    "mcpServers": {"github": {"command": "gh-mcp", "trust": True}},
    "ui": {"theme": "x"},
}


def test_gemini_one_write_for_hooks_and_server(claude: ClaudeSandbox, home: Path) -> None:
    path = claude.home / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    original = dump(GEMINI_SETTINGS)
    path.write_bytes(original)

    data = json.loads(run("install", "gemini", "--json").output)
    assert data["mcp"]["action"] == "registered" and data["mcp"]["path"] == str(path)
    settings = load(path)
    assert settings["mcpServers"] == {"github": {"command": "gh-mcp", "trust": True}, "memevo": entry(home)}
    assert settings["mcp"] == GEMINI_SETTINGS["mcp"]  # the allowlist is the user's; memevo is not added
    assert "trust" not in settings["mcpServers"]["memevo"]
    assert len(backups(path)) == 1  # hooks and server in one write

    assert json.loads(run("install", "gemini", "--json").output)["changed"] is False
    assert len(backups(path)) == 1

    assert run("uninstall", "gemini").exit_code == 0
    left = load(path)
    assert left["mcpServers"] == GEMINI_SETTINGS["mcpServers"] and left["mcp"] == GEMINI_SETTINGS["mcp"]
    assert "hooks" not in left


def test_gemini_project_scope(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "gemini", "--scope", "project").exit_code == 0
    assert load(claude.project / ".gemini" / "settings.json")["mcpServers"] == {"memevo": entry(home)}


def test_pi_registers_no_mcp_server(claude: ClaudeSandbox) -> None:
    data = json.loads(run("install", "pi", "--json").output)
    assert "mcp" not in data or data["mcp"] is None
    assert not claude_json(claude).exists()


def test_claude_permissions_are_never_touched(claude: ClaudeSandbox) -> None:
    claude.user_settings.parent.mkdir(parents=True, exist_ok=True)
    claude.user_settings.write_bytes(dump({"permissions": {"allow": ["Bash(ls)"], "deny": ["mcp__memevo"]}}))
    assert run("install", "claude-code").exit_code == 0
    assert load(claude.user_settings)["permissions"] == {"allow": ["Bash(ls)"], "deny": ["mcp__memevo"]}
    assert "enabledMcpjsonServers" not in load(claude.user_settings)


def test_what_a_person_added_to_memevos_entry_stays(claude: ClaudeSandbox, codex_home: Path, home: Path) -> None:
    """A reinstall sets memevo's command, arguments and MEMEVO_HOME and keeps the rest of the
    entry: the agent's own allowlist and trust keys above all."""
    gemini = claude.home / ".gemini" / "settings.json"
    gemini.parent.mkdir(parents=True)
    mine = {"command": "/old/memevo", "args": ["mcp"], "env": {"EXTRA": "1"}, "trust": True, "timeout": 5000}
    gemini.write_bytes(dump({"mcpServers": {"memevo": mine}}))
    assert run("install", "gemini").exit_code == 0
    assert load(gemini)["mcpServers"]["memevo"] == {
        **mine,
        "command": str(INSTALLED_MEMEVO),
        "env": {"EXTRA": "1", "MEMEVO_HOME": str(home.absolute())},
    }

    config = codex_home / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        '[mcp_servers.memevo]\ncommand = "/old/memevo"\nargs = ["mcp"]\nenabled_tools = ["memory_recall"]\n'
        "startup_timeout_sec = 20\n"
    )
    assert run("install", "codex").exit_code == 0
    server = tomllib.loads(config.read_text())["mcp_servers"]["memevo"]
    assert server == {**entry(home), "enabled_tools": ["memory_recall"], "startup_timeout_sec": 20}
    assert json.loads(run("install", "codex", "--json").output)["mcp"]["action"] == "unchanged"


def test_an_entry_memevo_cannot_write_back_is_refused(codex_home: Path) -> None:
    config = codex_home / "config.toml"
    config.parent.mkdir(parents=True)
    text = '[mcp_servers.memevo]\ncommand = "/old/memevo"\n\n[[mcp_servers.memevo.hooks]]\nname = "x"\n'
    config.write_text(text)
    result = run("install", "codex")
    assert result.exit_code != 0 and "cannot edit safely" in result.output
    assert config.read_text() == text
