"""`memevo`: the group, error handling in one place, and command registration."""

from __future__ import annotations

import sqlite3
import sys
from typing import Any

import click

from memory_core.errors import MemevoError


class MemevoGroup(click.Group):
    """Turns memevo's errors into one line on stderr and a non-zero exit, never a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MemevoError as exc:
            click.echo(f"memevo: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except sqlite3.DatabaseError as exc:
            click.echo(
                f"memevo: error: database problem: {exc}; run `memevo status` to check it",
                err=True,
            )
            ctx.exit(1)


@click.group(cls=MemevoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memevo")
def cli() -> None:
    """memevo: a self-evolving memory for coding agents."""


def _register() -> None:
    """Add every command of every module in :mod:`cli.commands` (each lists ``COMMANDS``)."""
    import importlib
    import pkgutil

    import cli.commands as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"cli.commands.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            cli.add_command(command)


_register()


def main() -> None:
    """Console-script entry point."""
    cli.main(prog_name="memevo", args=sys.argv[1:])
