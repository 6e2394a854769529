"""`memevo install AGENT --learn` makes that agent's CLI the worker's model: model_provider
in the state dir's config.toml (the rest of the file kept), the model and daily budget
printed; without --learn, install says the one command when no model is configured."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from memory_core import model_providers
from memory_core.config import load_settings


def test_learn_writes_the_provider_and_prints_model_and_budget(home: Path, cli_run, tmp_path: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text('attempt_seconds = 90\n\n[project]\n"/work/a" = "alpha"\n', encoding="utf-8")
    result = cli_run("install", "claude-code", "--learn")
    assert result.exit_code == 0, result.output
    text = (home / "config.toml").read_text(encoding="utf-8")
    assert text == 'attempt_seconds = 90\nmodel_provider = "claude-code"\n\n[project]\n"/work/a" = "alpha"\n'
    assert stat.S_IMODE((home / "config.toml").stat().st_mode) == 0o600
    settings = load_settings()
    assert (settings.provider, settings.cli_model, settings.attempt_seconds) == ("claude-code", "haiku", 90)
    assert settings.daily_model_calls == model_providers.CLI_DAILY_CALLS
    assert "Claude Code's own login" in result.output and "model haiku" in result.output
    assert f"daily budget {model_providers.CLI_DAILY_CALLS} calls" in result.output
    assert "no limit on the cost the CLI reports (set daily_model_cost_usd for one)" in result.output
    assert "`memevo config`" not in result.output
    shown = json.loads(cli_run("config", "--json").output)
    assert (shown["model_provider"], shown["model"]) == ("claude-code", "haiku")


def test_learn_says_the_daily_cost_limit(home: Path, cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_DAILY_MODEL_COST_USD", "1.5")
    result = cli_run("install", "claude-code", "--learn")
    assert "and at most $1.50 of the cost the CLI reports (daily_model_cost_usd)" in result.output
    shown = json.loads(cli_run("config", "--json").output)
    assert shown["daily_model_cost_usd"] == 1.5


def test_learn_again_with_another_agent_replaces_the_line(home: Path, cli_run) -> None:
    assert cli_run("install", "claude-code", "--learn").exit_code == 0
    result = cli_run("install", "gemini", "--learn", "--json")
    data = json.loads(result.output)
    assert data["learn"]["provider"] == "gemini" and data["learn"]["model"] == "flash" and data["learn"]["changed"]
    assert (home / "config.toml").read_text(encoding="utf-8") == 'model_provider = "gemini"\n'
    again = json.loads(cli_run("install", "gemini", "--learn", "--json").output)
    assert again["learn"]["changed"] is False


def test_without_learn_install_names_the_command_when_no_model_is_configured(home: Path, cli_run) -> None:
    result = cli_run("install", "codex")
    assert "memevo install codex --learn" in result.output
    assert not (home / "config.toml").exists()


def test_without_learn_nothing_is_said_when_a_model_is_configured(
    home: Path, cli_run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMEVO_MODEL", "m")
    assert "--learn" not in cli_run("install", "codex").output


def test_dry_run_with_learn_writes_nothing(home: Path, cli_run) -> None:
    cli_run("install", "pi", "--learn", "--dry-run")
    assert not (home / "config.toml").exists()
    assert os.environ.get("MEMEVO_MODEL_PROVIDER") is None
