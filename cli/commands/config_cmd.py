"""`memevo config`: the effective configuration, secrets masked."""

from __future__ import annotations

import click

from cli.context import emit, json_option, settings


@click.command("config")
@json_option
def config_command(as_json: bool) -> None:
    """Print the effective configuration (environment over config.toml over defaults)."""
    data = settings().describe()
    emit(data, as_json, lambda d: "\n".join(f"{k} = {'' if v is None else v}" for k, v in d.items()))


COMMANDS = [config_command]
