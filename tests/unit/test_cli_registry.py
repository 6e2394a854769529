"""The lazy command table matches what the command modules declare, and cannot drift."""

from __future__ import annotations

import importlib.util

import click
import pytest

from cli.main import COMMAND_MODULES, MemevoGroup, _commands_of, discover_commands


def test_every_command_is_in_the_lazy_table() -> None:
    discovered = discover_commands()
    assert set(discovered) == set(COMMAND_MODULES), sorted(set(discovered) ^ set(COMMAND_MODULES))


@pytest.mark.parametrize("name", sorted(COMMAND_MODULES))
def test_table_points_at_the_declaring_module(name: str) -> None:
    module = COMMAND_MODULES[name]
    assert importlib.util.find_spec(f"cli.commands.{module}") is not None, module
    assert name in _commands_of(module), (name, module)


def test_a_typo_in_the_table_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(COMMAND_MODULES, "list", "inspect_cnd")
    group = MemevoGroup()
    with pytest.raises(ModuleNotFoundError):
        group.get_command(click.Context(group), "list")
    monkeypatch.setitem(COMMAND_MODULES, "list", "manual_cmd")
    with pytest.raises(RuntimeError, match="does not declare"):
        group.get_command(click.Context(group), "list")


def test_unknown_command_is_click_usage_error(cli_run) -> None:
    result = cli_run("no-such-command")
    assert result.exit_code == 2
    assert "No such command" in result.output


def test_help_lists_commands(cli_run) -> None:
    result = cli_run("--help")
    assert result.exit_code == 0
    for name in ("status", "hook", "evolve", "worker", "list", "undo"):
        assert name in result.output
