"""`memevo install AGENT --learn`: that agent's own CLI becomes the worker's model.

Writes ``model_provider = "AGENT"`` into ``config.toml`` of the state dir (the one line
replaced when it is there, the rest of the file kept byte for byte; written to a temporary
file and renamed, 0600) and says which model and daily budget the worker will use. Without
``--learn``, install says the one command that turns it on when no model is configured.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_core import model_providers
from memory_core.config import Settings, load_settings
from memory_core.controls.config_edit import write_setting
from memory_core.errors import ConfigError


def write_model_provider(home: Path, provider: str) -> tuple[Path, bool]:
    """Set ``model_provider`` in ``home/config.toml``; the path and whether it changed."""
    return write_setting(home, "model_provider", provider)


def learn_with(home: Path, agent: str) -> dict[str, Any]:
    """Make ``agent``'s CLI the worker's model; what it will use, for printing."""
    path, changed = write_model_provider(home, agent)
    settings = load_settings()
    return {**learning_summary(settings), "config_file": str(path), "changed": changed}


def learning_summary(settings: Settings) -> dict[str, Any]:
    """The provider, model, CLI and daily budget the worker uses."""
    title = model_providers.TITLES.get(settings.provider or "", "")
    return {
        "provider": settings.provider,
        "title": title,
        "model": settings.cli_model if settings.uses_cli else settings.model,
        "command": settings.cli_command(),
        "daily_model_calls": settings.daily_model_calls,
        "daily_model_tokens": settings.daily_model_tokens,
        "daily_model_cost_usd": settings.daily_model_cost_usd,
        "setup_hint": None if settings.model_configured else settings.model_setup_hint(),
    }


def no_model_hint(agent: str) -> str | None:
    """The one command that turns learning on, when no model is configured (else ``None``)."""
    try:
        settings = load_settings()
    except ConfigError:
        return None
    if settings.provider is not None:
        return None
    title = model_providers.TITLES.get(agent, agent)
    return (
        f"No model is configured, so nothing is learned yet. To learn with {title}'s own login: "
        f"memevo install {agent} --learn"
    )
