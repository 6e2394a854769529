"""`memevo install AGENT --learn`: that agent's own CLI becomes the worker's model.

Writes ``model_provider = "AGENT"`` into ``config.toml`` of the state dir (the one line
replaced when it is there, the rest of the file kept byte for byte; written to a temporary
file and renamed, 0600) and says which model and daily budget the worker will use. Without
``--learn``, install says the one command that turns it on when no model is configured.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from memory_core import model_providers
from memory_core.config import CONFIG_FILE, Settings, load_settings
from memory_core.durable_files import sync_dir
from memory_core.errors import ConfigError
from memory_core.store.connection import ensure_private_dir

_PROVIDER_LINE = re.compile(r"(?m)^[ \t]*model_provider[ \t]*=.*$")


def write_model_provider(home: Path, provider: str) -> tuple[Path, bool]:
    """Set ``model_provider`` in ``home/config.toml``; the path and whether it changed."""
    ensure_private_dir(home)
    path = home / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    line = f'model_provider = "{provider}"'
    if _PROVIDER_LINE.search(text):
        updated = _PROVIDER_LINE.sub(line, text, count=1)
    else:
        # Before any table, so the key stays top-level.
        table = re.search(r"(?m)^\s*\[", text)
        at = table.start() if table else len(text)
        head = text[:at]
        if head and not head.endswith("\n"):
            head += "\n"
        updated = head + line + "\n" + text[at:]
    if updated == text:
        return path, False
    fd, temp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=home)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(updated)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sync_dir(home)
    return path, True


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
