from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.config import load_settings
from memory_core.errors import ConfigError
from memory_core.paths import default_home


def test_default_home_prefers_xdg(tmp_path: Path) -> None:
    assert default_home({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "memevo"
    assert default_home({}) == Path.home() / ".local" / "share" / "memevo"


def test_memevo_home_moves_all_state(home: Path) -> None:
    s = load_settings()
    assert s.home == home
    assert s.memory_db == home / "memory.db"
    assert s.queue_db == home / "queue.db"


def test_environment_wins_over_config_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text('model = "from-file"\nattempt_seconds = 60\n')
    monkeypatch.setenv("MEMEVO_MODEL", "from-env")
    s = load_settings()
    assert s.model == "from-env"
    assert s.attempt_seconds == 60
    assert s.lease_seconds == 90


def test_api_key_in_file_is_refused(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text('model_api_key = "sk-abc"\n')
    with pytest.raises(ConfigError, match="MEMEVO_MODEL_API_KEY"):
        load_settings()


def test_unknown_file_setting_names_allowed(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "config.toml").write_text('modle = "x"\n')
    with pytest.raises(ConfigError, match="unknown setting 'modle'"):
        load_settings()


def test_output_tokens_clamped_to_model_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().output_tokens == 8192
    monkeypatch.setenv("MEMEVO_MODEL_OUTPUT_LIMIT", "4096")
    assert load_settings().output_tokens == 4096


def test_config_command_masks_secret(cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL_API_KEY", "sk-supersecretvalue123")
    result = cli_run("config", "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["model_api_key"] == "********"
    assert "supersecret" not in result.output
    text = cli_run("config")
    assert "supersecret" not in text.output


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("MEMEVO_ATTEMPT_SECONDS", "abc", "between 1 and 3600"),
        ("MEMEVO_MODEL_URL", "ftp://x", "http:// or https://"),
        ("MEMEVO_MAX_OUTPUT_TOKENS", "9000", "between 1 and 8192"),
    ],
)
def test_invalid_value_is_one_line_exit_2(cli_run, monkeypatch, name, value, allowed) -> None:
    monkeypatch.setenv(name, value)
    result = cli_run("config")
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert name in lines[0] and allowed in lines[0]
    assert "Traceback" not in result.output


def test_blank_home_is_unset_and_relative_xdg_is_ignored(tmp_path: Path) -> None:
    from memory_core.paths import state_home

    xdg = str(tmp_path / "xdg")
    assert state_home({"MEMEVO_HOME": "   ", "XDG_DATA_HOME": xdg}) == Path(xdg) / "memevo"
    assert state_home({"MEMEVO_HOME": "", "XDG_DATA_HOME": xdg}) == Path(xdg) / "memevo"
    assert default_home({"XDG_DATA_HOME": "relative/data"}) == Path.home() / ".local" / "share" / "memevo"
    assert default_home({"XDG_DATA_HOME": " "}) == Path.home() / ".local" / "share" / "memevo"


def test_blank_or_padded_environment_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEVO_MODEL", "   ")
    monkeypatch.setenv("MEMEVO_MODEL_API_KEY", " ")
    monkeypatch.setenv("MEMEVO_MODEL_URL", "  ")
    s = load_settings()
    assert s.model is None and s.model_api_key is None and s.model_url is None
    monkeypatch.setenv("MEMEVO_MODEL", " qwen2.5-coder\n")
    monkeypatch.setenv("MEMEVO_MODEL_API_KEY", "sk-abc123 ")
    s = load_settings()
    assert s.model == "qwen2.5-coder"
    assert s.model_api_key is not None and s.model_api_key.get_secret_value() == "sk-abc123"


def test_store_and_queue_urls_from_file_are_shown_masked(home: Path, cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_DATABASE_URL", raising=False)  # the file's, not the test server's
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        'database_url = "postgresql://alice:pw-Secret9@db.lan/memevo"\nqueue_url = "redis://:pw-Secret9@q.lan:6379/0"\n'
    )
    s = load_settings()
    assert s.backend.kind == "postgresql" and s.queue.kind == "redis"
    assert "pw-Secret9" not in repr(s)
    shown = s.describe()
    assert shown["database_url"] == shown["store"] == "postgresql://alice:********@db.lan/memevo"
    assert shown["queue"] == "RedisHuey at redis://:********@q.lan:6379/0"
    for args in (("config",), ("config", "--json")):
        result = cli_run(*args)
        assert result.exit_code == 0 and "pw-Secret9" not in result.output and "********" in result.output


def test_default_store_and_queue(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_DATABASE_URL", raising=False)  # the file's, not the test server's
    shown = load_settings().describe()
    assert shown["database_url"] is None and shown["queue_url"] is None
    assert shown["store"] == f"SQLite {home / 'memory.db'}" and shown["queue"] == f"SQLite {home / 'queue.db'}"
    shown = load_settings({"MEMEVO_HOME": str(home), "MEMEVO_DATABASE_URL": "postgresql://a@h/db"}).describe()
    assert shown["queue"] == "PostgresHuey in the same database"


def test_sqlite_store_with_remote_queue_is_refused(cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_DATABASE_URL", raising=False)
    monkeypatch.setenv("MEMEVO_QUEUE_URL", "redis://:pw-Secret9@q.lan:6379/0")
    result = cli_run("config")
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert "the store is SQLite on this machine" in line and "pw-Secret9" not in line


def test_unsupported_scheme_is_a_config_error(home: Path, cli_run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMEVO_DATABASE_URL", raising=False)  # the file's, not the test server's
    home.mkdir(parents=True)
    (home / "config.toml").write_text('database_url = "mysql://alice:pw-Secret9@db/x"\n')
    with pytest.raises(ConfigError, match="unsupported URL"):
        load_settings()
    result = cli_run("config")
    assert result.exit_code == 2 and "pw-Secret9" not in result.output
    assert f"set in {home / 'config.toml'}: database_url" in result.output


def test_cli_providers_get_a_subscription_budget_and_a_default_model(tmp_path) -> None:
    from memory_core import model_providers

    for provider in model_providers.CLI_PROVIDERS:
        cfg = load_settings({"MEMEVO_HOME": str(tmp_path), "MEMEVO_MODEL_PROVIDER": provider.upper()})
        assert (cfg.provider, cfg.uses_cli) == (provider, True)
        assert (cfg.daily_model_calls, cfg.daily_model_tokens) == (
            model_providers.CLI_DAILY_CALLS,
            model_providers.CLI_DAILY_TOKENS,
        )
        assert cfg.cli_model == model_providers.DEFAULT_MODELS[provider]
        assert cfg.describe()["model_provider"] == provider
    explicit = load_settings(
        {
            "MEMEVO_HOME": str(tmp_path),
            "MEMEVO_MODEL_PROVIDER": "claude-code",
            "MEMEVO_MODEL": "sonnet",
            "MEMEVO_DAILY_MODEL_CALLS": "20",
        }
    )
    assert (explicit.cli_model, explicit.daily_model_calls) == ("sonnet", 20)
    http = load_settings(
        {"MEMEVO_HOME": str(tmp_path), "MEMEVO_MODEL_URL": "http://127.0.0.1:1/v1", "MEMEVO_MODEL": "m"}
    )
    assert (http.provider, http.uses_cli, http.daily_model_calls) == ("openai", False, model_providers.HTTP_DAILY_CALLS)
    assert load_settings({"MEMEVO_HOME": str(tmp_path)}).provider is None


def test_an_unknown_provider_is_refused_with_the_allowed_ones(tmp_path) -> None:
    with pytest.raises(ConfigError, match="MEMEVO_MODEL_PROVIDER='copilot'.*claude-code, codex, gemini or pi"):
        load_settings({"MEMEVO_HOME": str(tmp_path), "MEMEVO_MODEL_PROVIDER": "copilot"})
