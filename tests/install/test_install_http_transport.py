"""`memevo install claude-code --transport http`: http hooks to `memevo serve` with the hook token."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from tests.install.support import (
    EVENTS,
    ClaudeSandbox,
    backups,
    current_command,
    dump,
    load,
    memevo_entries,
    others_settings,
    run,
)

HTTP_EVENTS = ("UserPromptSubmit", "Stop", "StopFailure", "PostCompact", "SessionEnd")


def state_token(home: Path) -> str:
    return (home / "hook-token").read_text(encoding="ascii").strip()


def test_http_hooks_post_to_the_server_with_the_token_from_the_file_env(claude: ClaudeSandbox, home: Path) -> None:
    original = dump(others_settings())
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(original)
    claude.user_settings.chmod(0o644)

    result = run("install", "claude-code", "--transport", "http", "--port", "4567")

    assert result.exit_code == 0, result.output
    assert "memevo serve --port 4567" in result.output and state_token(home) not in result.output
    data = load(claude.user_settings)
    ours = memevo_entries(data)
    assert set(ours) == set(EVENTS) and all(len(entries) == 1 for entries in ours.values())
    assert ours["SessionStart"] == [{"type": "command", "command": current_command(), "timeout": 10}]
    for event in HTTP_EVENTS:
        [entry] = ours[event]
        assert entry["type"] == "http" and entry["url"] == f"http://127.0.0.1:4567/hooks/claude-code/{event}"
        assert entry["headers"] == {"Authorization": "Bearer $MEMEVO_HOOK_TOKEN"}
        assert entry["allowedEnvVars"] == ["MEMEVO_HOOK_TOKEN"]
    assert ours["Stop"][0]["timeout"] == 30 and "timeout" not in ours["SessionEnd"][0]
    # The user's env stays, in order; the token joins it; the file now holds a secret.
    assert data["env"] == {**others_settings()["env"], "MEMEVO_HOOK_TOKEN": state_token(home)}
    assert stat.S_IMODE(claude.user_settings.stat().st_mode) == 0o600
    [backup] = backups(claude.user_settings)
    assert backup.read_bytes() == original and stat.S_IMODE(backup.stat().st_mode) == 0o600

    again = run("install", "claude-code", "--transport", "http", "--port", "4567")
    assert again.exit_code == 0 and "nothing changed" in again.output

    # Back to command hooks: every entry replaced in place, the token gone, the rest as before.
    assert run("install", "claude-code").exit_code == 0
    back = load(claude.user_settings)
    assert "MEMEVO_HOOK_TOKEN" not in back["env"] and back["env"] == others_settings()["env"]
    assert all(e == [{**e[0], "type": "command"}] for e in memevo_entries(back).values())
    assert {e[0]["command"] for e in memevo_entries(back).values()} == {current_command()}

    assert run("install", "claude-code", "--transport", "http").exit_code == 0
    assert memevo_entries(load(claude.user_settings))["Stop"][0]["url"].startswith("http://127.0.0.1:17417/")
    assert run("uninstall", "claude-code").exit_code == 0
    assert claude.user_settings.read_bytes() == original


def test_an_env_of_the_token_alone_goes_with_it(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "claude-code", "--transport", "http", "--scope", "local").exit_code == 0
    assert load(claude.local_settings)["env"] == {"MEMEVO_HOOK_TOKEN": state_token(home)}
    assert run("uninstall", "claude-code", "--scope", "local").exit_code == 0
    assert claude.local_settings.read_bytes() == b"{}\n"


def test_the_dry_run_diff_never_shows_the_token(claude: ClaudeSandbox, home: Path) -> None:
    result = run("install", "claude-code", "--transport", "http", "--dry-run", "--json")
    data = json.loads(result.output)
    assert '"MEMEVO_HOOK_TOKEN": "<hook token>"' in data["diff"] and state_token(home) not in result.output
    assert data["http_events"] == list(HTTP_EVENTS) and data["port"] == 17417
    assert not claude.user_settings.exists()
    assert run("install", "claude-code", "--transport", "http").exit_code == 0
    removal = run("uninstall", "claude-code", "--dry-run")
    assert "<hook token>" in removal.output and state_token(home) not in removal.output


def test_http_is_refused_where_it_cannot_be_private_or_served(claude: ClaudeSandbox) -> None:
    shared = run("install", "claude-code", "--transport", "http", "--scope", "project")
    assert shared.exit_code == 2 and "user or local scope" in shared.output
    assert not claude.project_settings.exists()
    port_alone = run("install", "claude-code", "--port", "4567")
    assert port_alone.exit_code == 2 and "--transport http only" in port_alone.output
    codex = run("install", "codex", "--transport", "http")
    assert codex.exit_code == 2 and "no http hooks" in codex.output


def test_a_settings_env_that_is_not_an_object_is_refused(claude: ClaudeSandbox) -> None:
    claude.user_settings.parent.mkdir(parents=True)
    claude.user_settings.write_bytes(dump({"env": ["not", "an", "object"]}))
    result = run("install", "claude-code", "--transport", "http")
    assert result.exit_code == 2 and '"env"' in result.output
    assert load(claude.user_settings) == {"env": ["not", "an", "object"]}
