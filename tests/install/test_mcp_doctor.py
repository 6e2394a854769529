"""`memevo doctor`'s MCP checks: registration where the hooks are, a command that runs, and
one start of `memevo mcp` that answers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from cli.install.mcp_check import mcp_checks, probe
from tests.install.support import INSTALLED_MEMEVO, ClaudeSandbox, load, needs_installed_memevo, run


def checks_of(claude: ClaudeSandbox, home: Path) -> list[dict]:
    return mcp_checks(claude.project, dict(os.environ), home)


def test_nothing_installed_means_no_mcp_checks(claude: ClaudeSandbox, home: Path) -> None:
    assert checks_of(claude, home) == []


@needs_installed_memevo
def test_registered_server_answers(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "claude-code").exit_code == 0
    registered, answered = checks_of(claude, home)
    assert (registered["status"], answered["status"]) == ("ok", "ok"), (registered, answered)
    assert "Claude Code (user)" in registered["summary"]
    assert f"{INSTALLED_MEMEVO} mcp" in answered["summary"] and "answers" in answered["summary"]
    assert not home.exists()  # doctor's probe creates no state dir


def test_hooks_without_the_server_are_a_warning_with_the_fix(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "claude-code").exit_code == 0
    path = claude.config / ".claude.json"
    data = load(path)
    del data["mcpServers"]
    path.write_text(json.dumps(data))
    [missing] = [c for c in checks_of(claude, home) if c["status"] != "ok"]
    assert missing["status"] == "warn" and "not registered" in missing["summary"]
    assert missing["fix"] == "memevo install claude-code --scope user"


def test_a_server_that_cannot_start_is_an_error(claude: ClaudeSandbox, home: Path) -> None:
    assert run("install", "claude-code").exit_code == 0
    path = claude.config / ".claude.json"
    data = load(path)
    data["mcpServers"]["memevo"]["command"] = "/nonexistent/venv/bin/memevo"
    path.write_text(json.dumps(data))
    [broken] = [c for c in checks_of(claude, home) if c["status"] != "ok"]
    assert broken["status"] == "error" and "/nonexistent/venv/bin/memevo does not exist" in broken["summary"]
    assert broken["fix"] == "memevo install claude-code --scope user"


def test_another_state_dir_is_a_warning(claude: ClaudeSandbox, home: Path, tmp_path: Path) -> None:
    assert run("install", "gemini").exit_code == 0
    other = tmp_path / "elsewhere"
    [moved] = [c for c in mcp_checks(claude.project, dict(os.environ), other) if c["status"] != "ok"]
    assert moved["status"] == "warn" and str(home) in moved["summary"] and str(other) in moved["summary"]


def test_probe_reports_junk_silence_and_a_missing_program(tmp_path: Path) -> None:
    junk, _ = probe([sys.executable, "-c", "print('hello')"], tmp_path, dict(os.environ))
    assert junk is not None and "not a protocol message" in junk
    silent, _ = probe([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path, dict(os.environ), timeout=0.5)
    assert silent is not None and "did not answer within" in silent
    missing, _ = probe([str(tmp_path / "no-such-memevo"), "mcp"], tmp_path, dict(os.environ))
    assert missing is not None and "could not be started" in missing
    works, seconds = probe([sys.executable, "-m", "cli", "mcp"], tmp_path, dict(os.environ))
    assert works is None and seconds > 0


def test_doctor_lists_the_mcp_checks(claude: ClaudeSandbox) -> None:
    assert run("install", "codex").exit_code == 0
    data = json.loads(run("doctor", "--json").output)
    names = [check["name"] for check in data["checks"]]
    assert "mcp" in names
