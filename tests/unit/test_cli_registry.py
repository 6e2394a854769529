"""The lazy command table matches what the command modules declare."""

from __future__ import annotations

from cli.main import COMMAND_MODULES, _commands_of, discover_commands


def test_every_command_is_in_the_lazy_table() -> None:
    discovered = discover_commands()
    assert set(discovered) <= set(COMMAND_MODULES), sorted(set(discovered) - set(COMMAND_MODULES))


def test_table_points_at_the_declaring_module() -> None:
    for name, module in COMMAND_MODULES.items():
        commands = _commands_of(module)
        if commands:  # a module that is not part of this build yet declares nothing
            assert name in commands, (name, module)


def test_help_lists_commands(cli_run) -> None:
    result = cli_run("--help")
    assert result.exit_code == 0
    for name in ("status", "hook", "evolve", "worker", "list", "undo"):
        assert name in result.output
