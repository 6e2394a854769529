"""The `memevo` click group: error handling in one place, and lazy command loading.

Commands are imported only when invoked: a recall must not pay for importing every other
command (and the libraries they need). The console script's entry is :func:`cli.main.main`,
which runs agents' hook lines without importing this module (or click) at all.
"""

from __future__ import annotations

import importlib
import sqlite3
from typing import Any

import click

from memory_core.errors import MemevoError

# command name -> module in cli.commands. tests/unit/test_cli_registry.py keeps this in
# step with the COMMANDS each module declares.
COMMAND_MODULES: dict[str, str] = {
    "config": "config_cmd",
    "status": "status_cmd",
    "hook": "hook_cmd",
    "worker": "worker_cmd",
    "evolve": "worker_cmd",
    "list": "inspect_cmd",
    "show": "inspect_cmd",
    "history": "inspect_cmd",
    "forget": "manual_cmd",
    "correct": "manual_cmd",
    "pin": "manual_cmd",
    "unpin": "manual_cmd",
    "resolve": "manual_cmd",
    "undo": "manual_cmd",
    "feedback": "feedback_cmd",
    "tool-definition": "tool_cmd",
    "export": "transfer_cmd",
    "import": "transfer_cmd",
    "recall": "recall_cmd",
    "search": "recall_cmd",
    "explain": "recall_cmd",
    "check": "check_cmd",
    "install": "install_cmd",
    "uninstall": "install_cmd",
    "doctor": "doctor_cmd",
    "learning": "learning_cmd",
    "serve": "serve_cmd",
    "mcp": "mcp_cmd",
    "migrate-to": "migrate_cmd",
    "restore": "restore_cmd",
    "review": "review_cmd",
    "log": "log_cmd",
    "ui": "ui_cmd",
    "team": "team_cmd",
    "exclude": "exclude_cmd",
    "include": "exclude_cmd",
    "backfill": "backfill_cmd",
}


def _commands_of(module_name: str) -> dict[str, click.Command]:
    """The commands a module of :mod:`cli.commands` declares. A missing module is an error:
    the lazy table must never silently fall back to importing everything."""
    module = importlib.import_module(f"cli.commands.{module_name}")
    return {command.name: command for command in getattr(module, "COMMANDS", ()) if command.name}


def discover_commands() -> dict[str, click.Command]:
    """Every command of every module in :mod:`cli.commands` (imports them all; for the tests
    that keep :data:`COMMAND_MODULES` complete)."""
    import pkgutil

    import cli.commands as package

    found: dict[str, click.Command] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        found.update(_commands_of(info.name))
    return found


class MemevoGroup(click.Group):
    """Loads commands lazily from :data:`COMMAND_MODULES` and turns memevo's errors into one
    line on stderr with a non-zero exit, never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is None:
            return None
        command = _commands_of(module).get(cmd_name)
        if command is None:
            raise RuntimeError(f"cli.commands.{module} does not declare {cmd_name!r}; fix COMMAND_MODULES")
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemevoError as exc:
            click.echo(f"memevo: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except Exception as exc:
            # memevo maps driver errors to StoreError (a MemevoError, above); what can still
            # escape is sqlite3's own, or a driver error outside the store's connection.
            if not is_database_error(exc):
                raise
            click.echo(
                f"memevo: error: database problem: {_masked(str(exc))}; run `memevo doctor` to check it",
                err=True,
            )
            ctx.exit(1)


def _masked(text: str) -> str:
    """One line, any URL in it with its password masked."""
    import re

    from memory_core.store.engines.backend import redact

    return re.sub(r"[A-Za-z][A-Za-z0-9+.-]*://\S+", lambda m: redact(m.group()), " ".join(text.split()))


def is_database_error(exc: BaseException) -> bool:
    """A database driver's own error: sqlite3's, or psycopg's (checked by module name, so the
    driver is never imported to ask)."""
    return isinstance(exc, sqlite3.DatabaseError) or type(exc).__module__.split(".")[0] == "psycopg"


@click.group(cls=MemevoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memevo")
def cli() -> None:
    """memevo: a self-evolving memory for coding agents."""
