"""Shared fixtures. Every test gets its own state directory through MEMEVO_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_core.config import Settings, load_settings
from memory_core.store.database import Store
from tests.support.processes import REPO, memevo_process  # noqa: F401  (re-exported for older imports)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, private state dir; the user's real one is never touched."""
    state = tmp_path / "memevo-home"
    monkeypatch.setenv("MEMEVO_HOME", str(state))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for name in list(os.environ):
        if name.startswith("MEMEVO_") and name != "MEMEVO_HOME":
            monkeypatch.delenv(name)
    return state


@pytest.fixture
def settings(home: Path) -> Settings:
    return load_settings()


@pytest.fixture
def store(home: Path):
    s = Store.open(home)
    yield s
    s.close()


@pytest.fixture
def cli_run():
    """Run a memevo command in-process; returns the click Result."""
    from cli.main import cli

    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return run
