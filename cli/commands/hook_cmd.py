"""`memevo hook [EVENT]`: the command an agent runs on each event. It always exits 0.

The boundary every hook input crosses (:func:`run_hook`) and the entry agents actually run
(without click) live in :mod:`cli.hooks.entry`; this click command serves ``--help``,
``docs/cli.md`` and the command lines that entry leaves to click, and prints the same.
"""

from __future__ import annotations

import click

from cli.hooks.entry import (
    ADAPTER_NAMES,
    MAX_STDIN_BYTES,
    HookRun,
    handle,
    log_failure,
    parse_payload,
    run_hook,
)
from cli.hooks.event import valid_event

__all__ = ["COMMANDS", "MAX_STDIN_BYTES", "HookRun", "parse_payload", "run_hook", "valid_event"]


class HookCommand(click.Command):
    """A command whose own command-line mistakes also fail open.

    Agents run the hook line they were configured with on every event, and some treat a
    non-zero exit as "block this turn" (exit 2 in particular), so a typo in ``--agent`` or a
    missing EVENT must be one line on stderr and exit 0, like any other bad input.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            message = f"{exc.format_message()} (usage: memevo hook [--agent {'|'.join(ADAPTER_NAMES)}] [EVENT])"
            click.echo(f"memevo hook: {message}", err=True)
            log_failure(message)
            ctx.exit(0)


@click.command("hook", cls=HookCommand)
@click.argument("event", required=False)
@click.option(
    "--agent",
    "adapter",
    type=click.Choice(ADAPTER_NAMES),
    help="Input format: detected when omitted (memevo's generic JSON has \"schema\"; an agent's "
    "native hook JSON is recognised by its fields). `memevo install` writes it explicitly.",
)
def hook_command(event: str | None, adapter: str | None) -> None:
    """Handle one agent event (JSON on stdin). Fails open: always exits 0.

    EVENT is required for the generic protocol; a native payload names its own event.
    """
    result = handle(event, adapter)
    if result.stdout:
        click.echo(result.stdout)
    if result.stderr:
        click.echo(result.stderr, err=True)


COMMANDS = [hook_command]
